"""The runner with real node processes: a required node that cannot start ends the graph at once,
and the report and exit code carry that node's own reason."""

import json

from sally_bringup.runner import DISCOVERY_TIMEOUT, EXIT_FAILED, GraphRun


def test_a_required_node_that_exits_at_start_ends_the_graph_at_once_with_its_reason(tmp_path, ros_domain):
    # a start value only the sim itself refuses (the runner cannot check node parameters)
    run = GraphRun("f2w", {"pacing": "lockstep", "composed": "false"}, run_dir=tmp_path, domain_id=ros_domain, out=None, overrides={"sim": {"state_rate": -5.0}})
    result = run.run()
    report = json.loads((tmp_path / "report.json").read_text())
    assert result.exit_code == EXIT_FAILED and not report["success"]
    first = report["problems"][0]
    assert first.startswith("sim exited with 2: sally_sim") and "cannot start" in first and "state_rate" in first, report["problems"]
    assert "while the graph was coming up" in first
    assert report["exit_codes"]["sim"] == 2
    # it did not wait for the discovery limit
    assert report["wall_time_s"] < DISCOVERY_TIMEOUT / 2, report["wall_time_s"]
