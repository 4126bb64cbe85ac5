"""BodyTarget and the body pose read off the hips, against MuJoCo's own kinematics."""

import math

import mujoco
import numpy as np
import pytest

from sally_description import LEGS, build_model
from sally_description.constants import hip_site
from sally_node_common.body_target import BodyTarget, BodyTargetError, body_from_hips, quaternion, rotation


def pitched(pitch_deg: float, position=(0.2, 0.01, 0.3)) -> BodyTarget:
    half = math.radians(pitch_deg) / 2
    return BodyTarget(np.array(position), np.array([math.cos(half), 0.0, -math.sin(half), 0.0]))


@pytest.mark.parametrize("pitch", [0.0, 30.0, 75.0, 90.0])
def test_the_hips_give_main_frames_pose(pitch):
    model = build_model()
    data = mujoco.MjData(model)
    body = pitched(pitch)
    data.qpos[:3], data.qpos[3:7] = body.position, body.quat
    mujoco.mj_kinematics(model, data)
    found = body_from_hips({leg: data.site_xpos[model.site(hip_site(leg)).id] for leg in LEGS})
    assert np.allclose(found.position, body.position, atol=1e-9)
    assert np.allclose(rotation(found.quat), data.xmat[model.body("main_frame").id].reshape(3, 3), atol=1e-9)
    assert found.pitch_deg == pytest.approx(pitch, abs=1e-6)


def test_toward_goes_straight_and_along_the_shortest_arc():
    start, goal = pitched(0.0, (0.0, 0.0, 0.12)), pitched(90.0, (0.16, 0.0, 0.3))
    half = start.toward(goal, 0.5)
    assert np.allclose(half.position, [0.08, 0.0, 0.21]) and half.pitch_deg == pytest.approx(45.0)
    assert start.toward(goal, 1.0).pitch_deg == pytest.approx(90.0)


def test_quaternion_round_trip_and_bad_targets():
    for q in (pitched(10).quat, pitched(90).quat, np.array([0.0, 0.0, 0.0, 1.0])):
        back = quaternion(rotation(q))
        assert back[0] >= 0 and np.allclose(rotation(back), rotation(q))
    with pytest.raises(BodyTargetError, match="finite 3-vector"):
        BodyTarget(np.array([0.0, np.nan, 0.0]), np.array([1.0, 0, 0, 0]))
    with pytest.raises(BodyTargetError, match="unit quaternion"):
        BodyTarget(np.zeros(3), np.array([2.0, 0, 0, 0]))


def test_a_turned_body_is_squared_to_the_wall_keeping_its_pitch():
    half = math.radians(2.5) / 2
    turn = np.array([math.cos(half), 0.0, 0.0, math.sin(half)])
    body = BodyTarget(np.array([0.1, 0.0, 0.12]), quaternion(rotation(turn) @ rotation(pitched(20.0).quat)))
    assert body.yaw_deg == pytest.approx(2.5) and body.pitch_deg == pytest.approx(20.0)
    square = body.squared()
    assert square.yaw_deg == pytest.approx(0.0, abs=1e-9) and square.pitch_deg == pytest.approx(20.0)
    assert np.allclose(square.position, body.position)
    assert np.allclose(rotation(square.quat), rotation(pitched(20).quat))
