"""The way back from the stand under the ceiling to the climb's end on the wall, on perfectly
following feet and body: no ROS. Its stances against the climb's plan and the stand's."""

import numpy as np
import pytest

from sally_description.constants import LEGS
from sally_description.pose import Pose
from sally_sequencer import Campaign, FootReading, SequenceError
from sally_sequencer.climb import CLIMB_BODY, plan_checks
from sally_sequencer.descent import STAGES as DESCENT_STAGES
from sally_sequencer.plan_catalogue import CLIMB
from sally_sequencer.wall_stand import GATHER, LEAVE, UNDER_CEILING, WALK_TO_STAND, WallStand
from sally_sequencer.wall_walk import WallWalk
from sally_sequencer.way_back import WALK_DOWN, climb_end, duration, spread, walk_stance

from .test_wall_walk import hips

UP = np.array([0.0, 0.0, 1.0])


def test_the_climb_s_end_is_its_plan_and_the_walk_s_stance_spans_the_walk():
    plan, end = plan_checks(), climb_end()
    assert end.body.position == pytest.approx(CLIMB_BODY.position)
    for leg in ("FL", "FR"):
        assert end.foot(leg) == pytest.approx(plan.front_plants[leg])
    for leg in ("BL", "BR"):
        assert end.foot(leg) == pytest.approx(plan.back_plants[leg])
    top = walk_stance(WALK_TO_STAND)
    assert top.foot("FL")[2] - top.foot("BL")[2] == pytest.approx(WALK_DOWN.span())
    assert spread() == pytest.approx(WALK_DOWN.span() - (end.foot("FL")[2] - end.foot("BL")[2]))
    # the walk ends where the stand under the ceiling starts: main_frame at the stance's height
    assert top.body.position[2] == pytest.approx(UNDER_CEILING.body.position[2], abs=1e-9)
    assert top.body.position[1] == pytest.approx(0.0)


def test_the_way_back_backs_out_walks_down_and_gathers_in_that_order():
    campaign = Campaign("f2w_all", back=True)
    plan = campaign.stages
    names = list(plan[len(CLIMB) : -len(DESCENT_STAGES)])  # after the climb's (skipped: every foot planted)
    assert names[:7] == [("BODY", LEAVE)] * 3 + [(leg, LEAVE) for leg in ("BR", "BL", "FR", "FL")]
    assert names[-5:] == [("BODY", GATHER)] * 3 + [("FR", GATHER), ("FL", GATHER)]
    assert names[7:-5] == [(who, name) for who, name, _ in WALK_DOWN.stages()]
    walked = [move for _, name, move in WALK_DOWN.stages() if name == "wall_shift"]
    assert sum(walked) == pytest.approx(-WALK_TO_STAND * UP)
    assert plan[-len(DESCENT_STAGES) :] == DESCENT_STAGES  # then the climb's way down
    assert [stage for stage in plan if stage[1] != "wall_spread"] == list(plan)  # no spread: the stance is one
    assert duration() > 0


def test_the_way_back_refuses_a_walk_or_a_stand_of_its_own_and_any_other_climb():
    for kwargs in ({"walk": WallWalk("down", 0.1)}, {"stand": WallStand()}):
        with pytest.raises(SequenceError, match="the way back follows f2w_all's stand under the ceiling"):
            Campaign("f2w_all", back=True, **kwargs)
    with pytest.raises(SequenceError, match="the way back follows f2w_all's stand under the ceiling"):
        Campaign("w2c", back=True)


def test_from_the_stand_under_the_ceiling_every_foot_reaches_the_climb_s_end_before_the_way_down():
    """Every foot planted where the stand put it, none resumed: the stand undone, the walk down, the
    spread undone; when the way down begins, the feet and the body are where the climb left them."""
    feet = {leg: UNDER_CEILING.foot(leg) for leg in LEGS}
    body = UNDER_CEILING.body
    campaign = Campaign("f2w_all", back=True)
    assert not campaign.failed, campaign.message  # planted by design, not found so by a restart
    seen: dict[str, np.ndarray] = {}
    at_down: tuple[dict[str, np.ndarray], Pose] | None = None
    dt = 0.005
    for k in range(round(120.0 / dt)):
        t = round(k * dt, 9)
        tick = campaign.step(t, {f: FootReading(feet[f], hips(body)[f]) for f in LEGS})
        assert not campaign.failed, campaign.message
        if campaign.stage >= 0 and campaign.stages[campaign.stage][1] in ("down_br",) and at_down is None:
            at_down = ({leg: feet[leg].copy() for leg in LEGS}, body)
            break
        if tick.target is not None:
            feet[tick.target[0]] = tick.target[1].position.copy()
            seen[tick.target[0]] = feet[tick.target[0]]
        if tick.body is not None:
            body = tick.body
    assert at_down is not None, "the way down never began"
    ended, ended_body = at_down
    end = climb_end()
    for leg in LEGS:  # each foot on the climb's foothold, in the wall's plane
        assert ended[leg][1:] == pytest.approx(end.foot(leg)[1:], abs=1e-6), leg
    assert ended_body.position == pytest.approx(CLIMB_BODY.position, abs=1e-6)
    assert abs(float(np.dot(ended_body.quat, CLIMB_BODY.quat))) == pytest.approx(1.0, abs=1e-9)
    assert set(campaign.planted) == {"FL", "FR", "BL"}  # planted again; BR has just begun its way down
    assert set(seen) == set(LEGS)
