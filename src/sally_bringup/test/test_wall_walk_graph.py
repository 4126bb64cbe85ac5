"""The wall walk's acceptance test: ``sally-launch f2w sequence:=wall_walk start:=wall`` in lockstep.

Up 0.30 m and left 0.30 m, side by side (each on its own domain: lockstep figures do not depend on
how the machine shares its time). Each run must succeed, and meet the walk's goals,
not only the report's outer limits: every step planted within 2 mm of where the sequencer put it
(``report.PLANT_GOAL_MM``), no holding foot moving 1 mm (``DRIFT_GOAL_MM``), never fewer than three
magnets holding, the body the distance along the wall (within ``WALK_TOLERANCE``) at 10 mm/s of sim
time or more. Composed and without the recording, to keep CI short (that two runs, or two hosts,
give the same figures is held on the climbs and f2w: :mod:`test_climb_graph`, :mod:`test_f2w_graph`).
"""

import pytest

from sally_bringup.report import DRIFT_GOAL_MM, MIN_HOLDING, PITCH_GOAL_DEG, PLANT_GOAL_MM
from sally_bringup.runner import EXIT_OK
from sally_sequencer.wall_walk import FOOT_ORDER, WALK_TOLERANCE
from sally_testing import reference
from sally_testing.reported_run import reported_run
from sally_testing.side_by_side import side_by_side

pytestmark = [pytest.mark.graph, pytest.mark.timeout(600)]
SPEED_GOAL_MM_S = 10.0


def run_walk(tmp, domain_id, name, direction):
    arguments = reference.CASES[f"wall_walk_{direction}"].run_arguments(record="false")  # lockstep, 0.30 m
    return reported_run("f2w", arguments, tmp / name, domain_id, wall_timeout=300)


@pytest.fixture(scope="module")
def walks(tmp_path_factory):
    from sally_bringup.environment import lease_domain

    tmp = tmp_path_factory.mktemp("wall_walk")
    with lease_domain() as a, lease_domain() as b:
        up, left = side_by_side(
            [lambda: run_walk(tmp, a.domain_id, "up", "up"), lambda: run_walk(tmp, b.domain_id, "left", "left")]
        )
    return {"up": up, "left": left}


@pytest.mark.parametrize("name, axis, sign", [("up", 2, 1.0), ("left", 1, 1.0)])
def test_a_walk_meets_its_goals(walks, name, axis, sign):
    result, report = walks[name]
    assert report["success"], report["problems"]
    assert result.exit_code == EXIT_OK
    direction = "up" if name == "up" else "left"
    steps = report["steps"]
    assert [s["foot"] for s in steps] == list(FOOT_ORDER[direction]) * 3
    assert all(s["error_mm"] < PLANT_GOAL_MM for s in steps), steps  # against the plant the sequencer chose
    assert all(s["design_error_mm"] < PLANT_GOAL_MM for s in steps), steps  # against the plan's own foothold
    assert report["stance_drift_mm"] < DRIFT_GOAL_MM
    assert report["min_magnets_holding"] >= MIN_HOLDING
    assert sign * report["travel_m"][axis] > 0.30 - WALK_TOLERANCE
    assert report["speed_mm_s"] >= SPEED_GOAL_MM_S
    assert report["body_pitch_deg"] >= PITCH_GOAL_DEG
    reference.assert_matches(report, f"wall_walk_{direction}")  # within 0.1 mm of the committed run
