"""colcon builds the whole workspace against the pip ROS 2, and every package installs its files.

The build is ``scripts/colcon_check.sh`` (colcon from PyPI in its own venv, the build command of
``scripts/colcon_build.sh`` that docker/Dockerfile runs too); the install tree is checked by
:mod:`sally_testing.colcon_install`.
"""

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
@pytest.mark.timeout(1600)
def test_colcon_builds_the_workspace_and_installs_every_package(colcon_check):
    """Started in the background at the lowest CPU priority when the suite was collected (conftest.py):
    by the time this test comes it has mostly been built on what the other tests left idle."""
    code, output = colcon_check.result(timeout=1500)
    assert code == 0, output[-8000:]
    assert "all" in output and "expected files installed" in output
