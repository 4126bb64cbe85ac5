"""The climbs' acceptance test: ``sally-launch f2w sequence:=f2w_all`` (floor to wall) and
``sequence:=w2c`` (wall to ceiling, scene corner3), each in lockstep, twice: composed, and with
the sequencer in a process of its own over DDS.

All four feet end on the climbed corner's wall (the ceiling for w2c: each foot's place in the room
is on the ceiling's face) with their magnets holding (the report's ``success``), and the climb's
goals hold (``report.PLANT_GOAL_MM``, ``DRIFT_GOAL_MM``, ``PITCH_GOAL_DEG``: every plant under 2 mm,
every holding foot's move under 1 mm, the body within 2 deg of the wall's plane), not only the
report's outer limits; and the run with the sequencer apart gives every figure of the composed one
(but the wall-clock ones and how it was hosted): a lockstep run is the same run however it is hosted
and however the machine shares its time (the composed IK once took the hand-over tick inside the
solve it answered, and the climb onto the ceiling came out micrometres apart). Without the recording,
to keep CI short; the two runs of a climb go side by side, each on its own domain. This is the
suite's one "the sequencer apart gives the composed run" on a climb: the route and the ways down,
which repeat these climbs, run once each.
"""

import pytest

from sally_bringup.report import DRIFT_GOAL_MM, PITCH_GOAL_DEG, PLANT_GOAL_MM, host_differences
from sally_bringup.runner import EXIT_OK
from sally_description.constants import FOOT_STANDOFF
from sally_description.scene import CEILING_HEIGHT
from sally_testing import reference
from sally_testing.reported_run import reported_run
from sally_testing.side_by_side import side_by_side

pytestmark = [pytest.mark.graph, pytest.mark.timeout(900)]


def run_climb(tmp, domain_id, sequence, name, **hosting):
    arguments = {**reference.CASES[sequence].run_arguments(record="false"), **hosting}  # lockstep
    return reported_run("f2w", arguments, tmp / name, domain_id, wall_timeout=600)


@pytest.fixture(scope="module", params=["f2w_all", "w2c"])
def climbs(request, tmp_path_factory):
    from sally_bringup.environment import lease_domain

    sequence = request.param
    tmp = tmp_path_factory.mktemp(sequence)
    with lease_domain() as a, lease_domain() as b:
        runs = side_by_side(
            [
                lambda: run_climb(tmp, a.domain_id, sequence, "composed"),
                lambda: run_climb(tmp, b.domain_id, sequence, "apart", apart="sequencer"),
            ]
        )
    return sequence, tuple(runs)


def test_all_four_feet_end_on_the_wall_with_the_body_pitched(climbs):
    sequence, ((result, report), _) = climbs
    assert report["success"], report["problems"]
    assert result.exit_code == EXIT_OK
    for foot in ("FL", "FR", "BL", "BR"):
        plant = report["plants"][foot]
        assert plant["magnet_on_wall"], foot  # w2c: the corner's wall, the room's ceiling
        assert plant["error_mm"] < PLANT_GOAL_MM, (foot, plant)  # the goal, not success's outer limit
        if foot in ("BL", "BR"):  # the plan designs the back feet's footholds: they land on them
            assert plant["design_error_mm"] < PLANT_GOAL_MM, (foot, plant)
        if sequence == "w2c":
            assert plant["final_in_room"][2] == pytest.approx(CEILING_HEIGHT - FOOT_STANDOFF, abs=0.002), foot
    assert report["body_pitch_deg"] >= PITCH_GOAL_DEG  # w2c: from the room's wall, so under the ceiling
    assert report["stance_drift_mm"] < DRIFT_GOAL_MM
    assert ("scene" in report) == (sequence == "w2c")
    phases = [(row["foot"], row["phase"]) for row in report["phases"]]
    order = [("BL", "STEP_SEAT"), ("BR", "STEP_SEAT"), ("FL", "F2W_REACH"), ("FR", "F2W_REACH")]
    order += [("BODY", "BODY_MOVE"), ("BL", "BACK_SWING"), ("BR", "BACK_SWING"), ("BR", "F2W_REACH")]
    assert [phases.index(p) for p in order] == sorted(phases.index(p) for p in order)
    reference.assert_matches(report, sequence)  # within 0.1 mm of the committed run, not only the goals


def test_the_sequencer_apart_gives_the_composed_climb(climbs):
    _, ((_, composed), (result, apart)) = climbs
    assert result.exit_code == EXIT_OK, apart["problems"]
    assert host_differences(apart, composed) == []
