"""The runner with real node processes: a required node that cannot start ends the graph at once,
and the report and exit code carry that node's own reason."""

import json

import pytest

from sally_bringup.runner import DISCOVERY_TIMEOUT, EXIT_FAILED, GraphRun

pytestmark = pytest.mark.graph  # real graphs, in processes or hosted in this process


def test_a_required_node_that_exits_at_start_ends_the_graph_at_once_with_its_reason(tmp_path, ros_domain):
    # a start value only the sim itself refuses (the runner cannot check node parameters)
    run = GraphRun(
        "f2w",
        {"pacing": "lockstep", "composed": "false"},
        run_dir=tmp_path,
        domain_id=ros_domain,
        out=None,
        overrides={"sim": {"state_rate": -5.0}},
    )
    result = run.run()
    report = json.loads((tmp_path / "report.json").read_text())
    assert result.exit_code == EXIT_FAILED and not report["success"]
    first = report["problems"][0]
    assert first.startswith("sim exited with 2: sally_sim") and "cannot start" in first and "state_rate" in first, (
        report["problems"]
    )
    assert "while the graph was coming up" in first
    assert report["exit_codes"]["sim"] == 2
    # it did not wait for the discovery limit
    assert report["wall_time_s"] < DISCOVERY_TIMEOUT / 2, report["wall_time_s"]


@pytest.mark.parametrize("composed", ["false", "true"])
def test_a_params_file_reaches_the_nodes_and_a_value_it_gives_is_checked_by_the_node(tmp_path, ros_domain, composed):
    """``--params-file``: over each node's config/<node>.yaml, one host or the other; a value the
    controller refuses ends the graph with the controller's own reason."""
    params = tmp_path / "params.yaml"
    params.write_text("sally_controller:\n  ros__parameters:\n    kd: [30.0, -1.0]\n")
    run = GraphRun(
        "f2w",
        {"pacing": "lockstep", "composed": composed},
        run_dir=tmp_path / "run",
        domain_id=ros_domain,
        out=None,
        params_files=[params],
    )
    result = run.run()
    report = json.loads((tmp_path / "run" / "report.json").read_text())
    assert result.exit_code == EXIT_FAILED and not report["success"]
    first = report["problems"][0]
    assert "kd = [30.0, -1.0]" in first and "must have 1 or 16 entries" in first, report["problems"]
    assert report["wall_time_s"] < DISCOVERY_TIMEOUT / 2, report["wall_time_s"]


def test_nodes_stop_when_the_runner_is_killed(tmp_path, ros_domain):
    """The runner starts each node in a session of its own; after a kill -9 of the runner (or a
    closed terminal) nothing else would stop them. They watch their parent and stop."""
    import os
    import signal
    import subprocess
    import sys
    from pathlib import Path

    from sally_bringup.processes import wait_until

    script = tmp_path / "runner.py"
    script.write_text(
        "import sys, time\n"
        "from sally_bringup.graphs import graph\n"
        "from sally_bringup.node_backends import ProcessBackend\n"
        "from sally_bringup.environment import graph_environment\n"
        "from pathlib import Path\n"
        "backend = ProcessBackend()\n"
        f"backend.open({ros_domain}, Path(sys.argv[1]), None)\n"
        "spec = next(s for s in graph('f2w', {'composed': 'false'}) if s.name == 'sim')\n"
        f"backend.start(spec, {{}}, (), (), graph_environment({ros_domain}))\n"
        "print(backend.processes['sim'].pid, flush=True)\n"
        "time.sleep(600)\n"
    )
    runner = subprocess.Popen(
        [sys.executable, str(script), str(tmp_path)], stdout=subprocess.PIPE, text=True, start_new_session=True
    )
    node = 0

    def gone() -> bool:
        status = Path(f"/proc/{node}/status")
        try:
            return "State:\tZ" in status.read_text()  # a zombie nobody reaps has exited
        except FileNotFoundError:
            return True

    try:
        assert runner.stdout is not None
        node = int(runner.stdout.readline())
        log = tmp_path / "sim.log"
        assert wait_until(lambda: log.exists() and "Sally sim ready" in log.read_text(), 60.0), log.read_text()
        os.killpg(runner.pid, signal.SIGKILL)
        runner.wait(10)
        assert wait_until(gone, 15.0), "the node outlived its runner"
    finally:
        if runner.poll() is None:
            os.killpg(runner.pid, signal.SIGKILL)
        if node and not gone():
            os.killpg(node, signal.SIGKILL)


def test_a_node_apart_beside_the_container_gives_the_composed_run(tmp_path, ros_domain):
    """``apart:=pulloff``: the rig in a process of its own, the sim and controller composed; the
    rig's one-off switch and ramp reach the hosted sim over DDS (it arms once the sim itself reads
    them, not when the runner's recorder matches first), the runner records over DDS, and the
    lockstep figures are the fully composed run's, unless the sim says it applied one of the rig's
    answers after the step it was stamped for. Nothing in lockstep waits for the rig: its answer to
    the telemetry of t, stamped t, is due one control period later, and on a loaded machine it can
    come later than that across processes (5 runs of 12 beside two busy loops; none of 8 alone)."""
    from sally_bringup.report import host_differences

    base = {"pacing": "lockstep", "pull_rate": "800"}
    reports = {}
    for name, extra in (("composed", {}), ("apart", {"apart": "pulloff"})):
        run = GraphRun("pulloff", {**base, **extra}, run_dir=tmp_path / name, domain_id=ros_domain, out=None)
        assert run.run().exit_code == 0, name
        reports[name] = json.loads((tmp_path / name / "report.json").read_text())
    apart, composed = reports["apart"], reports["composed"]
    assert apart["exit_codes"] == {"graph": 0, "pulloff": 0} and composed["exit_codes"] == {"graph": 0}
    assert apart["success"] and apart["pulloff_force"] > apart["clip"] > 0, apart["problems"]
    assert apart["recording"]["messages"]["/sally/pulloff_result"] == 1  # recorded by the runner, over DDS
    assert composed["wall_clock_fallbacks"] == {}
    assert all(r["startup_s"] > 0.0 for r in reports.values()), "the start-up, from the run's start to sim time's"
    if not apart["wall_clock_fallbacks"]:
        assert host_differences(apart, composed) == []
    else:  # the run depended on when the rig's answer came, and its report says so
        assert list(apart["wall_clock_fallbacks"]) == ["sally_sim: external_forces_past_due"], apart
        assert apart["pulloff_force"] == pytest.approx(composed["pulloff_force"], rel=0.05)
