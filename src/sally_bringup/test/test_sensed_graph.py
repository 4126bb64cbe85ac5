"""The f2w graph on what Sally senses (the defaults: noisy sensors, the state estimator's pose),
judged by the ground truth, beside its oracle (``sensing:=ideal state:=truth``) and a wall that is
not where the map puts it (real rclpy over loopback DDS, composed)."""

import json

import pytest

from sally_bringup.report import DRIFT_GOAL_MM, PLANT_GOAL_MM
from sally_bringup.runner import EXIT_OK, run_graph

pytestmark = [pytest.mark.graph, pytest.mark.timeout(600)]


def run_f2w(tmp_path, ros_domain, name, **arguments):
    arguments = {"pacing": "lockstep", "record": "false", **arguments}
    result = run_graph("f2w", arguments, run_dir=tmp_path / name, domain_id=ros_domain, out=None, wall_timeout=300)
    report = json.loads((tmp_path / name / "report.json").read_text())
    print(name, json.dumps(report, indent=1))
    assert result.exit_code == EXIT_OK and report["success"], report["problems"]
    for foot in ("fl", "fr"):
        assert report[f"{foot}_plant_error_mm"] < PLANT_GOAL_MM
    assert report["stance_drift_mm"] < DRIFT_GOAL_MM
    return report


def test_f2w_on_sensed_state_plants_within_the_goal_judged_by_the_truth(tmp_path, ros_domain):
    report = run_f2w(tmp_path, ros_domain, "sensed", sensor_seed="5")
    estimate = report["estimate"]  # present only when the graph ran on an estimate
    assert estimate["samples"] > 4000, "every state's estimate is judged against the truth of its stamp"
    assert estimate["pos_max_mm"] < 3.0 and estimate["tilt_max_deg"] < 0.5, estimate


def test_the_oracle_runs_on_the_sim_s_exact_state(tmp_path, ros_domain):
    report = run_f2w(tmp_path, ros_domain, "oracle", sensing="ideal", state="truth")
    assert "estimate" not in report, "no estimator: /sally/odom was the ground truth"


@pytest.mark.parametrize("offset", ["0.005", "-0.005"])
def test_a_wall_off_the_map_is_found_by_the_feet_s_sensors(tmp_path, ros_domain, offset):
    """The wall 5 mm behind (or in front of) where the map puts it: the range sensor measures it and
    the seat ends on contact, so each foot plants on the real wall (judged by the ground truth)."""
    report = run_f2w(tmp_path, ros_domain, "moved", surface_offset=offset)
    wall = 0.5 + float(offset) - 0.008  # the real wall's plane, less the foot's standoff: the EE's plant
    for foot in ("FL", "FR"):
        final = report["plants"][foot]["final"]
        assert abs(final[0] - wall) < 2e-3, f"{foot} planted at x {final[0]:.4f}, the real wall's plant {wall:.4f}"


def test_servo_commands_delayed_on_the_bus_still_climb(tmp_path, ros_domain):
    """command_delay:=0.002: each servo command reaches the motors 2 ms into its period (the
    driver's bus); the climb holds its goals."""
    run_f2w(tmp_path, ros_domain, "delayed", command_delay="0.002")
