"""The suite's guard against a test stuck in C with the interpreter lock (conftest.py's
``HANG_GRACE_S``): pytest-timeout's signal cannot stop such a test, so the guard prints every
thread's stack and ends the run a little after the test's budget, instead of CI's wall-clock limit."""

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
STUCK = textwrap.dedent(
    """
    import ctypes
    import threading

    import pytest


    @pytest.mark.timeout(1)
    def test_stuck_in_c():
        # sleep(60) through PyDLL keeps the interpreter lock: the budget's signal handler never runs
        thread = threading.Thread(target=lambda: ctypes.PyDLL(None).sleep(60))
        thread.start()
        thread.join()
    """
)


def test_a_test_stuck_holding_the_interpreter_lock_ends_the_run_with_every_stack(tmp_path):
    (tmp_path / "test_stuck.py").write_text(STUCK)
    env = {
        **os.environ,
        "SALLY_HANG_GRACE_S": "2",
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
        "ROS_AUTOMATIC_DISCOVERY_RANGE": "LOCALHOST",
    }
    started = time.monotonic()
    ended = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "conftest", "-q", "-p", "no:cacheprovider", "test_stuck.py"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=45,
    )
    took = time.monotonic() - started
    assert ended.returncode != 0, ended.stdout
    assert took < 30, f"the run went on for {took:.0f} s (budget 1 s + grace 2 s)"
    assert "Timeout (0:00:03)" in ended.stderr, ended.stderr
    assert "test_stuck_in_c" in ended.stderr  # the stuck test's stack is among those printed
