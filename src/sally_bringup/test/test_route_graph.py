"""A route that goes on after its climb: ``sally-launch f2w sequence:=route route:=floor,wall
wall_walk:=ceiling`` in lockstep, in the room. Sally climbs from the floor onto the wall with all four
feet, spreads her stance (the front feet step up, the body follows half way), walks 0.17 m up the
wall, then stands there as on the floor, 0.5 m below the ceiling (the body moved toward the wall in
three shifts, each foot stepped to its foothold): where the climb onto the ceiling starts, in one
run: the climb as ``f2w_all`` alone gives it (its plants to the reference's 0.1 mm), the walk's and
the stand's steps on their footholds, never fewer than three magnets holding. Composed, without the
recording."""

import pytest

from sally_bringup.report import DRIFT_GOAL_MM, PLANT_GOAL_MM
from sally_bringup.runner import EXIT_OK
from sally_sequencer.wall_stand import STAND_TOLERANCE, WALK_TO_STAND
from sally_sequencer.wall_walk import WALK_TOLERANCE
from sally_testing import reference
from sally_testing.reported_run import reported_run

pytestmark = [pytest.mark.graph, pytest.mark.timeout(900)]


@pytest.fixture(scope="module")
def climb_walk_stand(tmp_path_factory):
    from sally_bringup.environment import lease_domain

    arguments = reference.CASES["climb_stand"].run_arguments(record="false")
    with lease_domain() as lease:
        folder = tmp_path_factory.mktemp("climb_stand")
        return reported_run("f2w", arguments, folder, lease.domain_id, wall_timeout=600)


def test_the_climb_onto_the_wall_a_walk_up_it_and_the_stand_under_the_ceiling_in_one_run(climb_walk_stand):
    result, report = climb_walk_stand
    assert report["success"], report["problems"]
    assert result.exit_code == EXIT_OK
    climb = {"plants": reference.load("f2w_all")["plants"]}
    assert reference.differences({"plants": report["plants"]}, climb) == []  # the climb as it is alone
    walk = report["walk_after_climb"]
    assert walk["distance_m"] >= WALK_TO_STAND - WALK_TOLERANCE
    assert [s["foot"] for s in walk["spread_steps"]] == ["FL", "FR"]
    assert all(s["error_mm"] < PLANT_GOAL_MM for s in walk["spread_steps"]), walk["spread_steps"]
    assert len(walk["steps"]) == 8 and walk["worst_step_plant_mm"] < PLANT_GOAL_MM
    assert walk["worst_step_design_mm"] < PLANT_GOAL_MM
    stand = walk["stand"]
    assert [s["foot"] for s in stand["steps"]] == ["FL", "FR", "BL", "BR"]
    assert stand["worst_step_plant_mm"] < PLANT_GOAL_MM and stand["worst_step_design_mm"] < PLANT_GOAL_MM
    assert stand["body_error_mm"] < STAND_TOLERANCE * 1e3 and stand["body_pitch_deg"] > 89.5
    assert report["min_magnets_holding"] >= 3 and walk["min_magnets_holding"] >= 3
    assert report["stance_drift_mm"] < DRIFT_GOAL_MM
    phases = [(row["foot"], row["phase"]) for row in report["phases"]]
    order = [("BR", "F2W_REACH"), ("BODY", "WALL_SPREAD"), ("BODY", "WALL_SHIFT"), ("BODY", "WALL_APPROACH")]
    assert [phases.index(p) for p in order] == sorted(phases.index(p) for p in order)
    reference.assert_matches(report, "climb_stand")
