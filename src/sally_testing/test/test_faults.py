"""The fault matrix (sally_testing.faults.cases), case by case: real node processes on their own
loopback domain, killed, hung, fed bad input, given bad parameters and absurd physics, doubled,
interrupted. ``benchmarks/faults.py`` runs the same cases and prints what happened.

The cases that run a lockstep f2w graph through an outage (a node killed, the sim killed or reset,
another /clock) go three at a time, each on its own domain: lockstep makes what they judge
independent of how the machine shares its time. The others run alone: those that judge wall-clock
behaviour (Ctrl-C within 5 s, a discovery of eleven nodes or of a graph already there, counts within
a wall-clock limit), and the hung nodes: a process stopped (SIGSTOP) while other graphs start and
stop their participants beside it is at the mercy of Fast DDS's shared-memory port checks (CI,
2026-11-28: a controller hung 12 s beside two killed-node cases was never heard again after SIGCONT,
its own log "Failed init_port fastdds_port7000: open_and_lock_file failed"; never seen with the
hung node's graph alone).

``SALLY_FAULT_HOLD`` (sim seconds a killed node stays down, default 5) sets the kill cases' outage.
"""

import os

import pytest

from sally_testing.faults.cases import CASES
from sally_testing.side_by_side import side_by_side

pytestmark = [pytest.mark.graph, pytest.mark.timeout(900)]  # real graphs, in processes or hosted in this process

OPTIONS = {"hold": float(os.environ.get("SALLY_FAULT_HOLD", "5"))}
OUTAGES = (
    "kill_sequencer_mid_route",  # the longest (the route to the ceiling, 160 s of sim time) first
    "kill_controller",
    "kill_ik",
    "kill_sequencer",
    "kill_estimator",
    "kill_sim",
    "sim_reset",
    "clock_back",
)
"""Lockstep graphs (f2w; the route) through an outage: run side by side."""
AT_ONCE = 3
ALONE = [name for name in CASES if name not in OUTAGES and name != "hygiene"]


def judge(name, results):
    assert results, f"{name} judged nothing"
    failed = [r for r in results if not r.passed]
    assert not failed, "\n".join(r.line() + "".join(f"\n    {d}" for d in r.details) for r in failed)


@pytest.fixture(scope="module")
def outages(tmp_path_factory):
    work = tmp_path_factory.mktemp("outages")
    calls = [lambda name=name: CASES[name](work, OPTIONS) for name in OUTAGES]
    return dict(zip(OUTAGES, side_by_side(calls, at_once=AT_ONCE, return_exceptions=True)))


@pytest.mark.timeout(1800)  # its fixture runs the eight graphs (the route's 160 s of sim time among them): 820 s
@pytest.mark.parametrize("name", OUTAGES)  # here, more on a slow hour of the same machine and on CI
def test_outage_case(name, outages):
    if isinstance(outages[name], BaseException):
        raise outages[name]  # this case's own error, not its neighbours'
    judge(name, outages[name])


@pytest.mark.parametrize("name", ALONE)
def test_fault_case(name, tmp_path):
    judge(name, CASES[name](tmp_path, OPTIONS))


def test_a_bad_start_that_hangs_in_its_own_code_is_not_started_again(tmp_path):
    """The parameters case starts a node again only when it hung creating its DDS participant in
    rclpy; a node hung in its own code is killed, its stack in the details, and judged as it is."""
    import sys

    from sally_bringup.processes import ProcessGroup, wait_until
    from sally_testing.faults.cases import Check, _hung_in_dds_start

    script = (
        "import threading\n"
        "from sally_node_common.node_main import run_node\n"
        "def stuck():\n"
        "    print('stuck', flush=True)\n"
        "    threading.Event().wait()\n"
        "run_node('stuck', stuck)\n"
    )
    group = ProcessGroup(101, tmp_path)  # never reaches DDS: its factory makes no node
    try:
        process = group.start_command("stuck", [sys.executable, "-c", script])
        assert wait_until(lambda: "stuck" in process.log_text(), 30.0)
        check = Check("parameters_x")
        assert not _hung_in_dds_start(process, check)
        assert not process.running
        assert "in stuck" in check.details[0] and "still running after 60 s" in check.details[0], check.details
    finally:
        group.stop_all()
