"""benchmarks/compiled_floor.py builds its C round trip against the venv's rcl and runs all three cases."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
SCRIPT = [sys.executable, str(ROOT / "benchmarks" / "compiled_floor.py")]
pytestmark = [pytest.mark.graph, pytest.mark.timeout(180)]


def test_the_compiled_floor_builds_against_the_wheels_and_measures_every_case(ros_domain):
    done = subprocess.run(
        [*SCRIPT, "--rounds", "300", "--domain", str(ros_domain)], capture_output=True, text=True, timeout=150
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    last = done.stdout.strip().splitlines()[-1]
    pattern = (
        r"compiled_floor python_us (\S+) compiled_us (\S+) ratio (\S+) "
        r"two_process_sim_us (\S+) two_process_ctrl_us (\S+)"
    )
    match = re.fullmatch(pattern, last)
    assert match, last
    assert all(float(figure) > 0 for figure in match.groups()), last


def test_too_few_round_trips_are_refused_in_one_line():
    done = subprocess.run([*SCRIPT, "--rounds", "5"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "--rounds must be at least 100" in done.stderr, done.stderr
