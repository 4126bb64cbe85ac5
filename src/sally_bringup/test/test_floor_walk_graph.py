"""The walk over the floor in a real graph: ``sally-launch f2w sequence:=floor_walk`` (0.30 m back,
away from the wall, in lockstep, composed, without the recording). It must meet the wall walk's goals:
twelve steps in the order the direction sets, each planted within 2 mm of where the sequencer put it
and of the plan's foothold, no holding foot moving 1 mm, never fewer than three magnets holding, the
body its distance along the floor at 10 mm/s of sim time or more, level, every foot held on the floor
at the end. The graph of processes gives the same figures. And the climb from farther back:
``sequence:=f2w_all floor_pose:=-0.30,0,0 floor_walk:=0.30`` walks 0.30 m forward to the climb's
start, then climbs, to the climb's goals. The three run side by side."""

import pytest

from sally_bringup.report import DRIFT_GOAL_MM, MIN_HOLDING, PITCH_GOAL_DEG, PLANT_GOAL_MM, host_differences
from sally_bringup.runner import EXIT_OK
from sally_sequencer.wall_walk import FOOT_ORDER, WALK_TOLERANCE
from sally_testing.reported_run import reported_run
from sally_testing.side_by_side import side_by_side

pytestmark = [pytest.mark.graph, pytest.mark.timeout(600)]
ARGUMENTS = {"sequence": "floor_walk", "pacing": "lockstep", "record": "false"}
CLIMB_FROM_BACK = {
    "sequence": "f2w_all",
    "floor_pose": "-0.30,0,0",
    "floor_walk": "0.30",
    "pacing": "lockstep",
    "composed": "true",
    "record": "false",
}


@pytest.fixture(scope="module")
def walks(tmp_path_factory):
    from sally_bringup.environment import lease_domain

    tmp = tmp_path_factory.mktemp("floor_walk")
    with lease_domain() as a, lease_domain() as b:
        with lease_domain() as c:
            return side_by_side(
                [
                    lambda: reported_run("f2w", {**ARGUMENTS, "composed": "true"}, tmp / "composed", a.domain_id, 300),
                    lambda: reported_run(
                        "f2w", {**ARGUMENTS, "composed": "false"}, tmp / "processes", b.domain_id, 300
                    ),
                    lambda: reported_run("f2w", CLIMB_FROM_BACK, tmp / "climb", c.domain_id, 400),
                ]
            )


def test_a_walk_over_the_floor_meets_the_walk_s_goals(walks):
    result, report = walks[0]
    assert report["success"], report["problems"]
    assert result.exit_code == EXIT_OK
    assert report["walk"] == {"direction": "back", "distance": 0.3, "surface": "floor"}
    steps = report["steps"]
    assert [s["foot"] for s in steps] == list(FOOT_ORDER["back"]) * 3
    assert all(s["error_mm"] < PLANT_GOAL_MM for s in steps), steps
    assert all(s["design_error_mm"] < PLANT_GOAL_MM for s in steps), steps
    assert report["stance_drift_mm"] < DRIFT_GOAL_MM
    assert report["min_magnets_holding"] >= MIN_HOLDING
    assert -report["travel_m"][0] > 0.30 - WALK_TOLERANCE and abs(report["travel_m"][2]) < 0.005
    assert report["speed_mm_s"] >= 10.0
    assert abs(report["body_pitch_deg"]) < 1.0
    assert report["contacts_at_end"] == {"FL": True, "FR": True, "BL": True, "BR": True}


def test_the_graph_of_processes_walks_the_same(walks):
    (_, composed), (_, processes), _ = walks
    assert processes["success"], processes["problems"]
    assert host_differences(composed, processes) == []


def test_a_climb_from_farther_back_walks_to_its_start_then_climbs(walks):
    result, report = walks[2]
    assert report["success"], report["problems"]
    assert result.exit_code == EXIT_OK
    before = report["walk_before_climb"]
    assert [s["foot"] for s in before["steps"]] == list(FOOT_ORDER["forward"]) * 3
    assert all(s["design_error_mm"] < PLANT_GOAL_MM for s in before["steps"]), before["steps"]
    assert before["travel_m"][0] > 0.30 - WALK_TOLERANCE and before["min_magnets_holding"] >= MIN_HOLDING
    for foot in ("fl", "fr", "bl", "br"):  # then the climb's own goals
        assert report[f"{foot}_plant_error_mm"] < PLANT_GOAL_MM, foot
    assert report["stance_drift_mm"] < DRIFT_GOAL_MM and report["min_magnets_holding"] >= MIN_HOLDING
    assert report["body_pitch_deg"] >= PITCH_GOAL_DEG
