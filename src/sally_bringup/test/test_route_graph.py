"""Sally's whole route in one run: ``sally-launch f2w sequence:=route route:=floor,wall,ceiling`` in
lockstep, in the room. Sally climbs from the floor onto the wall with all four feet, spreads her
stance, walks 0.17 m up the wall, stands there as on the floor 0.5 m below the ceiling (the body
moved toward the wall in three shifts, each foot stepped to its foothold), then climbs onto the
ceiling with all four feet, the IK planning in the wall-ceiling corner's frame from there on, and
walks 0.30 m along the ceiling, away from the wall (``ceiling_walk:=0.30``). The first climb as
``f2w_all`` alone gives it (its plants to the reference's 0.1 mm); the walks' and the stand's steps
on their footholds; the feet on the ceiling, the body pitched; never fewer than three magnets
holding. Composed, without the recording (that another host gives the same run is held on the
climbs alone, :mod:`test_climb_graph`: the route repeats them, 195 s of sim time against 61). And
``route:=floor,wall,ceiling,wall,floor``, the round trip: the same route to the ceiling, then back
down from it onto the wall, every foot back where it stood under the ceiling (the way down of
:mod:`sally_sequencer.descent`, in the wall-ceiling corner's frame; ``floor,wall,ceiling,wall`` ends
there), then the way back (:mod:`sally_sequencer.way_back`, in the room's frame): down the wall and
onto the floor, where the climb began."""

import pytest

from sally_bringup.report import DRIFT_GOAL_MM, PLANT_GOAL_MM
from sally_bringup.runner import EXIT_OK
from sally_sequencer.wall_stand import STAND_TOLERANCE, WALK_TO_STAND
from sally_sequencer.wall_walk import WALK_TOLERANCE
from sally_testing import reference
from sally_testing.reported_run import reported_run
from sally_testing.side_by_side import side_by_side

pytestmark = [pytest.mark.graph, pytest.mark.timeout(1200)]


@pytest.fixture(scope="module")
def routes(tmp_path_factory):
    """(the route, the round trip): each (result, report), run side by side."""
    from sally_bringup.environment import lease_domain

    composed = reference.CASES["route"].run_arguments(record="false")
    back = reference.CASES["round_trip"].run_arguments(record="false")
    with lease_domain() as a, lease_domain() as b:
        folders = [tmp_path_factory.mktemp(name) for name in ("route", "back")]
        return side_by_side(
            [
                lambda: reported_run("f2w", composed, folders[0], a.domain_id, wall_timeout=1100),
                lambda: reported_run("f2w", back, folders[1], b.domain_id, wall_timeout=1100),
            ]
        )


@pytest.fixture(scope="module")
def route(routes):
    return routes[0]


def test_the_whole_route_floor_wall_ceiling_in_one_run(route):
    result, report = route
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
    phases = [(row["foot"], row["phase"]) for row in report["phases"]]
    order = [("BR", "F2W_REACH"), ("BODY", "WALL_SPREAD"), ("BODY", "WALL_SHIFT"), ("BODY", "WALL_APPROACH")]
    assert [phases.index(p) for p in order] == sorted(phases.index(p) for p in order)
    ceiling = report["then"]
    assert ceiling["sequence"] == "w2c" and ceiling["success"], ceiling["problems"]
    assert ceiling["scene"]["surfaces"] == {"floor": "wall", "wall": "ceiling"}  # planned in that corner
    for foot in ("FL", "FR", "BL", "BR"):
        plant = ceiling["plants"][foot]
        assert plant["magnet_on_wall"] and plant["error_mm"] < PLANT_GOAL_MM, (foot, plant)
    assert ceiling["body_pitch_deg"] > 89.0  # after the walk along the ceiling (89.36 lockstep; 89.92 before it)
    along = ceiling["walk_after_climb"]  # the walk along the ceiling
    assert along["distance_m"] >= 0.30 - WALK_TOLERANCE and len(along["steps"]) == 12
    assert all(s["error_mm"] < PLANT_GOAL_MM for s in along["spread_steps"]), along["spread_steps"]
    assert along["worst_step_plant_mm"] < PLANT_GOAL_MM and along["worst_step_design_mm"] < PLANT_GOAL_MM
    assert report["min_magnets_holding"] >= 3 and report["stance_drift_mm"] < DRIFT_GOAL_MM
    assert report["sim_time_s"] > ceiling["phases"][0]["start_s"] > report["phases"][-1]["start_s"]
    reference.assert_matches(report, "route")


def test_the_round_trip_to_the_ceiling_and_back_down_onto_the_floor(routes):
    result, report = routes[1]
    assert report["success"], report["problems"]
    assert result.exit_code == EXIT_OK
    up = reference.load("route")
    assert reference.differences({"plants": report["plants"]}, {"plants": up["plants"]}) == []  # the same climb
    ceiling = report["then"]
    assert ceiling["sequence"] == "w2c" and "walk_after_climb" not in ceiling
    for foot, plant in ceiling["plants"].items():  # the climb onto the ceiling, judged where the way down began
        assert plant["magnet_on_wall"] and plant["error_mm"] < PLANT_GOAL_MM, (foot, plant)
    down = ceiling["way_down"]
    assert [landing["foot"] for landing in down["landings"]] == ["BR", "BL", "FR", "FL", "BR", "BL"]
    assert down["worst_landing_mm"] < PLANT_GOAL_MM, down["landings"]
    assert down["min_magnets_holding"] == 3 and abs(down["body_pitch_deg"]) < 1.0  # in the corner's frame
    assert all(ceiling["contacts_at_end"].values())
    alone = reference.load("route_back")["then"]  # the way down from the ceiling, as route_back ends with it
    assert reference.differences(down, alone["way_down"], reference.LONG_RUN_SPREAD) == []
    back = report["way_back"]
    assert [s["foot"] for s in back["leave"]["steps"]] == ["BR", "BL", "FR", "FL"]
    assert back["leave"]["body_error_mm"] < STAND_TOLERANCE * 1e3 and back["leave"]["body_pitch_deg"] > 89.5
    walk = back["walk_down"]
    assert walk["distance_m"] >= WALK_TO_STAND - WALK_TOLERANCE and len(walk["steps"]) == 8
    assert [s["foot"] for s in back["gather"]["steps"]] == ["FR", "FL"]
    for part in (back["leave"], walk, back["gather"]):
        assert part["worst_step_plant_mm"] < PLANT_GOAL_MM and part["worst_step_design_mm"] < PLANT_GOAL_MM, part
    floor = back["way_down"]
    assert [landing["foot"] for landing in floor["landings"]] == ["BR", "BL", "FR", "FL", "BR", "BL"]
    assert floor["worst_landing_mm"] < PLANT_GOAL_MM, floor["landings"]
    assert floor["min_magnets_holding"] == 3 and abs(floor["body_pitch_deg"]) < 1.0
    assert back["min_magnets_holding"] == 3 and back["stance_drift_mm"] < DRIFT_GOAL_MM
    assert report["min_magnets_holding"] >= 3 and report["stance_drift_mm"] < DRIFT_GOAL_MM
    assert report["sequencer_message"].endswith("then the way back: every foot held on the floor")
    assert report["sim_time_s"] > back["way_down"]["sim_time_s"] + ceiling["phases"][0]["start_s"]
    reference.assert_matches(report, "round_trip")
