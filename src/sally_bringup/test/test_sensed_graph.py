"""The f2w graph on what Sally senses: noisy sensors (sensing:=noisy) and the state estimator's pose
(state:=estimated) in place of the sim's exact one, judged by the ground truth (real processes of
rclpy on loopback DDS, composed)."""

import json

import pytest

from sally_bringup.report import DRIFT_GOAL_MM, PLANT_GOAL_MM
from sally_bringup.runner import EXIT_OK, run_graph

pytestmark = [pytest.mark.graph, pytest.mark.timeout(600)]


def test_f2w_on_sensed_state_plants_within_the_goal_judged_by_the_truth(tmp_path, ros_domain):
    arguments = {"pacing": "lockstep", "sensing": "noisy", "state": "estimated", "sensor_seed": "5", "record": "false"}
    result = run_graph("f2w", arguments, run_dir=tmp_path / "sensed", domain_id=ros_domain, out=None, wall_timeout=300)
    report = json.loads((tmp_path / "sensed" / "report.json").read_text())
    print(json.dumps(report, indent=1))
    assert result.exit_code == EXIT_OK and report["success"], report["problems"]
    for foot in ("fl", "fr"):
        assert report[f"{foot}_plant_error_mm"] < PLANT_GOAL_MM
    assert report["stance_drift_mm"] < DRIFT_GOAL_MM
    estimate = report["estimate"]  # present only when the graph ran on an estimate
    assert estimate["samples"] > 4000, "every state's estimate is judged against the truth of its stamp"
    assert estimate["pos_max_mm"] < 3.0 and estimate["tilt_max_deg"] < 0.5, estimate
