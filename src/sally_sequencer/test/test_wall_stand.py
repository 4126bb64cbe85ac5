"""The stand under the ceiling after a climb and a walk, on perfectly following feet and body: no
ROS; the stance checked against the model's own starts."""

import mujoco
import numpy as np
import pytest

from sally_description import build_model
from sally_description.constants import LEGS
from sally_description.pose import Pose
from sally_sequencer import Campaign, SequenceError
from sally_sequencer.wall_stand import APPROACH_PHASE, APPROACH_SHIFTS, STAND, UNDER_CEILING, WallStand
from sally_sequencer.wall_walk import WallWalk

from .test_wall_walk import after_a_climb


def _model_start(scene: str) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
    """main_frame's position and orientation and each EE site at a scene's start, in the room."""
    model = build_model(scene=scene, in_room=True)
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    body = model.body("main_frame").id
    feet = {leg: data.site(f"ee_site_{leg}").xpos.copy() for leg in LEGS}
    return data.xpos[body].copy(), data.xquat[body].copy(), feet


def test_the_stance_under_the_ceiling_is_corner3_s_start_in_the_room():
    position, quat, feet = _model_start("corner3")
    assert UNDER_CEILING.body.position == pytest.approx(position, abs=1e-6)
    assert abs(float(np.dot(UNDER_CEILING.body.quat, quat))) == pytest.approx(1.0, abs=1e-9)
    for leg in LEGS:  # in the wall's plane (a wall foot stands FOOT_STANDOFF off the face, the start's 1 mm more)
        assert UNDER_CEILING.foot(leg)[1:] == pytest.approx(feet[leg][1:], abs=1e-6)
        assert UNDER_CEILING.foot(leg)[0] - feet[leg][0] == pytest.approx(0.001, abs=1e-6)


def test_the_stand_steps_each_foot_to_its_foothold_then_moves_the_body_in_shifts():
    stages = WallStand().stages()
    assert [(who, name) for who, name, _ in stages] == [(leg, STAND) for leg in ("FL", "FR", "BL", "BR")] + [
        ("BODY", STAND)
    ] * APPROACH_SHIFTS
    for who, _, goal in stages:
        expected = UNDER_CEILING.body.position if who == "BODY" else UNDER_CEILING.foot(who)
        assert goal == pytest.approx(expected)


def test_a_stand_follows_only_a_walk_after_a_climb():
    with pytest.raises(SequenceError, match="a stand follows a walk after a climb onto the wall"):
        Campaign("f2w_all", stand=WallStand())
    with pytest.raises(SequenceError, match="a stand follows a walk after a climb onto the wall"):
        Campaign("wall_walk", walk=WallWalk("up", 0.1), stand=WallStand())


def test_after_the_walk_the_feet_step_onto_the_stance_and_the_body_approaches_in_shares():
    """A finished climb (every foot planted, the back feet 0.31 m behind): spread, walk 0.10 m, then
    the stand: each foot to its foothold, then three body moves (a third, a half, all of what is left)."""
    approaches: list[Pose] = []

    def note(tick, campaign, body) -> None:
        if any(APPROACH_PHASE in event and "from" in event for event in tick.events):
            approaches.append(body)

    campaign, _, feet, body = after_a_climb(WallWalk("up", 0.10), note, stand=WallStand())
    assert campaign.done and not campaign.failed, campaign.message
    assert len(approaches) == APPROACH_SHIFTS
    left = UNDER_CEILING.body.position - approaches[0].position
    assert approaches[1].position == pytest.approx(approaches[0].position + left / 3, abs=1e-6)
    assert body.position == pytest.approx(UNDER_CEILING.body.position, abs=1e-9)
    assert abs(float(np.dot(body.quat, UNDER_CEILING.body.quat))) == pytest.approx(1.0, abs=1e-12)
    for leg in LEGS:  # each foot's plant is in the wall's plane at its own depth
        assert feet[leg][1:] == pytest.approx(UNDER_CEILING.foot(leg)[1:], abs=1e-9)
    assert WallStand().shortfall(body) == ""
    away = Pose(body.position + np.array([0.0, 0.0, 0.02]), body.quat)
    assert WallStand().shortfall(away) == "the body stands 20.0 mm from the stance's (at most 10)"
