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
