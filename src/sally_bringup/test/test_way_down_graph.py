"""The way back down: ``sally-launch f2w sequence:=route route:=floor,wall,floor`` in lockstep, in the
room. Sally climbs from the floor onto the wall with all four feet (f2w_all), then comes back down the
way she went up: BR and BL from the wall onto the floor, tucked in under the body, the body back to
level, FR and FL from the wall to where they stood, then BR and BL stepped back out to where they
stood. Every landing on the plan's foothold, every holding foot still, never fewer than three
magnets holding, all four held on the floor at the end with the body level; within the reference's
bands. Composed, without the recording, beside ``route:=wall,ceiling,wall`` in corner3 (onto the
ceiling and back down onto the wall, the same plan in that corner's frame). That another host gives
the same run is held on the climbs alone (:mod:`test_climb_graph`)."""

import pytest

from sally_bringup.report import DRIFT_GOAL_MM, PITCH_GOAL_DEG, PLANT_GOAL_MM
from sally_bringup.runner import EXIT_OK
from sally_testing import reference
from sally_testing.reported_run import reported_run
from sally_testing.side_by_side import side_by_side

pytestmark = [pytest.mark.graph, pytest.mark.timeout(900)]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """(from the floor, from the wall in corner3): each (result, report), side by side."""
    from sally_bringup.environment import lease_domain

    composed = reference.CASES["route_down"].run_arguments(record="false")
    ceiling = reference.CASES["w2c_down"].run_arguments(record="false")
    with lease_domain() as a, lease_domain() as b:
        folders = [tmp_path_factory.mktemp(name) for name in ("down", "ceiling")]
        return side_by_side(
            [
                lambda: reported_run("f2w", composed, folders[0], a.domain_id, wall_timeout=900),
                lambda: reported_run("f2w", ceiling, folders[1], b.domain_id, wall_timeout=900),
            ]
        )


@pytest.mark.parametrize(("run", "case"), [(0, "route_down"), (1, "w2c_down")])
def test_a_climb_and_back_down_in_one_run(runs, run, case):
    result, report = runs[run]
    assert report["success"], report["problems"]
    assert result.exit_code == EXIT_OK
    for foot, plant in report["plants"].items():  # the climb, judged where the way down began
        assert plant["magnet_on_wall"] and plant["error_mm"] < PLANT_GOAL_MM, (foot, plant)
    assert report["body_pitch_deg"] >= PITCH_GOAL_DEG  # the climb's, as the way down began
    down = report["way_down"]
    assert [landing["foot"] for landing in down["landings"]] == ["BR", "BL", "FR", "FL", "BR", "BL"]
    assert down["worst_landing_mm"] < PLANT_GOAL_MM, down["landings"]
    assert down["min_magnets_holding"] == 3 and abs(down["body_pitch_deg"]) < 1.0
    assert report["stance_drift_mm"] < DRIFT_GOAL_MM  # every holding foot, the climb's and the way down's
    assert all(report["contacts_at_end"].values())
    phases = [(row["foot"], row["phase"]) for row in report["phases"]]
    order = [("BR", "F2W_REACH"), ("BR", "DOWN_TUCK"), ("BODY", "BODY_DOWN"), ("FL", "DOWN_TURN")]
    assert [phases.index(p) for p in order] == sorted(phases.index(p) for p in order)
    reference.assert_matches(report, case)  # within 0.1 mm of the committed run, not only the goals
