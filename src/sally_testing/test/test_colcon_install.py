"""colcon builds the whole workspace against the pip ROS 2, and every package installs its files.

The build is ``scripts/colcon_check.sh`` (colcon from PyPI in its own venv, the build command of
``scripts/colcon_build.sh`` that docker/Dockerfile runs too); the install tree is checked by
:mod:`sally_testing.colcon_install`.
"""

import os
import subprocess
from pathlib import Path

import pytest

from sally_testing.colcon_install import expected, missing

ROOT = Path(__file__).resolve().parents[3]


def test_the_check_names_what_an_install_tree_lacks(tmp_path):
    gone = missing(tmp_path)
    assert "sally_bringup/share/sally_bringup/launch/f2w.launch.py" in gone
    assert "sally_sim_node/share/sally_sim_node/config/sim.yaml" in gone
    assert "sally_sequencer/lib/sally_sequencer/sally-reach" in expected(ROOT / "src" / "sally_sequencer")
    assert "sally_interfaces/share/sally_interfaces/msg/IKTarget.msg" in gone


@pytest.mark.graph
def test_colcon_builds_the_workspace_and_installs_every_package(tmp_path):
    env = {**os.environ, "ROS_AUTOMATIC_DISCOVERY_RANGE": "LOCALHOST"}
    done = subprocess.run(
        ["bash", str(ROOT / "scripts" / "colcon_check.sh"), str(tmp_path / "colcon")],
        capture_output=True,
        text=True,
        timeout=1500,
        env=env,
    )
    assert done.returncode == 0, (done.stdout[-4000:], done.stderr[-4000:])
    assert "all" in done.stdout and "expected files installed" in done.stdout
