"""Fixtures every test package shares: loopback DDS, a leased domain, node processes, a probe.

Graph tests start real node processes on their own ROS domain and talk to them over Fast DDS on
loopback through a probe node; every process is stopped by its own id at the end of the test and
stale Fast DDS segments are removed from /dev/shm at the end of the session.
"""

import os
from pathlib import Path

import pytest

GRAPH_TIMEOUT_S = 300
"""A graph test's budget (s) unless its module marks its own (``pytest.mark.timeout``)."""
CURRENT_TEST_FILE = "SALLY_CURRENT_TEST_FILE"
"""Environment variable: a file that always holds the id of the test running now (``.ci/run``
names it when the whole run is stopped)."""


def pytest_configure(config):
    from sally_node_common.discovery import default_to_loopback, force_loopback

    force_loopback()
    default_to_loopback()  # and Sally's participant profile: the test's probes leave the graph as nodes do


def pytest_collection_modifyitems(config, items):
    """Every test is ``graph`` (it talks over DDS or starts node processes: it takes a leased ROS
    domain, directly or through ``graph`` / ``probe``, or its module says ``pytestmark =
    pytest.mark.graph``) or ``unit`` (pure: ``scripts/test.sh -m unit``)."""
    for item in items:
        if "ros_domain" in getattr(item, "fixturenames", ()) or item.get_closest_marker("graph"):
            item.add_marker(pytest.mark.graph)
            if item.get_closest_marker("timeout") is None:
                item.add_marker(pytest.mark.timeout(GRAPH_TIMEOUT_S))
        else:
            item.add_marker(pytest.mark.unit)


COLCON_TEST = "test_colcon_builds_the_workspace_and_installs_every_package"
"""The slowest single test (a whole colcon build, minutes, mostly one core): started in the
background as soon as collection shows it will run, so it builds while the rest of the suite runs."""
_background: dict = {}


def pytest_collection_finish(session):
    if any(item.name == COLCON_TEST for item in session.items) and not session.config.option.collectonly:
        import tempfile

        from sally_testing.colcon_install import BackgroundCheck

        base = Path(tempfile.mkdtemp(prefix="sally_colcon_")) / "colcon"
        env = {**os.environ, "ROS_AUTOMATIC_DISCOVERY_RANGE": "LOCALHOST"}
        _background["colcon"] = BackgroundCheck(base, env)


@pytest.fixture
def colcon_check(tmp_path):
    """The background colcon check (started now if the session did not start it)."""
    from sally_testing.colcon_install import BackgroundCheck

    check = _background.get("colcon")
    if check is None:
        check = _background["colcon"] = BackgroundCheck(
            tmp_path / "colcon", {**os.environ, "ROS_AUTOMATIC_DISCOVERY_RANGE": "LOCALHOST"}
        )
    return check


HANG_GRACE_S = float(os.environ.get("SALLY_HANG_GRACE_S", "180"))
"""How long past a test's budget (pytest-timeout) the test process may still run before every
thread's stack is printed and the process exits (``SALLY_HANG_GRACE_S``: the guard's own test).
The budget's signal fails a test and the run goes on, but it cannot stop a thread stuck in C that
holds the interpreter lock (the signal's Python handler never runs): CI once sat in such a test
until its 70-min limit. This way it fails in minutes, with the stacks."""


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item, nextitem):
    import faulthandler

    from _pytest.faulthandler import fault_handler_stderr_fd_key  # the stderr pytest keeps for faulthandler

    marker = item.get_closest_marker("timeout")
    budget = float(marker.args[0] if marker is not None and marker.args else item.config.getini("timeout") or 0)
    if budget <= 0:  # no budget, no guard
        return (yield)
    stderr = item.config.stash[fault_handler_stderr_fd_key]
    faulthandler.dump_traceback_later(budget + HANG_GRACE_S, exit=True, file=stderr)
    try:
        return (yield)
    finally:
        faulthandler.cancel_dump_traceback_later()


def pytest_runtest_logstart(nodeid, location):
    path = os.environ.get(CURRENT_TEST_FILE)
    if path:
        Path(path).write_text(nodeid + "\n")


def pytest_sessionfinish(session, exitstatus):
    """The suite must leave nothing behind: a Sally process still running fails the session; stale
    Fast DDS segments (a killed node's) are removed, and any that cannot be fail it too."""
    from sally_bringup.shm import remove_stale_segments
    from sally_testing.faults.cases import leftovers

    if "colcon" in _background:
        _background.pop("colcon").stop()
    remove_stale_segments()
    processes, segments = leftovers()
    if processes or segments:
        print(f"\nthe test session left behind processes {processes} and shared-memory files {segments}")
        session.exitstatus = 1


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    setattr(item, f"report_{report.when}", report)


@pytest.fixture
def ros_domain():
    from sally_bringup.environment import lease_domain

    with lease_domain() as lease:
        yield lease.domain_id


@pytest.fixture
def graph(ros_domain, tmp_path, request):
    """Start node processes in the test's domain; all are stopped (and their logs shown on failure)."""
    from sally_bringup.processes import ProcessGroup

    group = ProcessGroup(ros_domain, tmp_path / "logs")
    yield group
    codes = group.stop_all()
    report = getattr(request.node, "report_call", None)
    if report is None or report.failed:
        print(f"exit codes: {codes}\n{group.logs()}")


@pytest.fixture
def probe(ros_domain):
    from sally_bringup.probe import Probe

    p = Probe(ros_domain)
    yield p
    p.close()
