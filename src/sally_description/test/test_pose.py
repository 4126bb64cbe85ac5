"""Pose, its rotation maths (MuJoCo's own) and the body pose read off the hips, against MuJoCo's kinematics."""

import math

import mujoco
import numpy as np
import pytest

from sally_description import LEGS, build_model
from sally_description.constants import hip_site
from sally_description.pose import (
    Pose,
    PoseError,
    body_axes_from_hips,
    pitch_of,
    pose_from_hips,
    quaternion,
    rotation,
    slerp,
    turn_toward,
)


def pitched(pitch_deg: float, position=(0.2, 0.01, 0.3)) -> Pose:
    half = math.radians(pitch_deg) / 2
    return Pose(np.array(position), np.array([math.cos(half), 0.0, -math.sin(half), 0.0]))


@pytest.mark.parametrize("pitch", [0.0, 30.0, 75.0, 90.0])
def test_the_hips_give_main_frames_pose(pitch):
    model = build_model()
    data = mujoco.MjData(model)
    body = pitched(pitch)
    data.qpos[:3], data.qpos[3:7] = body.position, body.quat
    mujoco.mj_kinematics(model, data)
    found = pose_from_hips({leg: data.site_xpos[model.site(hip_site(leg)).id] for leg in LEGS})
    assert np.allclose(found.position, body.position, atol=1e-9)
    assert np.allclose(rotation(found.quat), data.xmat[model.body("main_frame").id].reshape(3, 3), atol=1e-9)
    assert found.pitch_deg == pytest.approx(pitch, abs=1e-6)


def test_the_hips_pose_is_numpys_cross_and_mean_to_the_bit():
    """pose_from_hips writes out the cross product and the mean: the runs' figures must not move."""
    rng = np.random.default_rng(7)
    for _ in range(500):
        hips = {leg: rng.normal(size=3) for leg in ("FL", "FR", "BL", "BR")}
        x = (hips["FL"] + hips["FR"]) - (hips["BL"] + hips["BR"])
        y = (hips["FL"] + hips["BL"]) - (hips["FR"] + hips["BR"])
        x = x / np.linalg.norm(x)
        y = y - (y @ x) * x
        y = y / np.linalg.norm(y)
        expected = Pose.from_matrix(np.mean(list(hips.values()), axis=0), np.column_stack([x, y, np.cross(x, y)]))
        found = pose_from_hips(hips)
        assert np.array_equal(found.position, expected.position) and np.array_equal(found.quat, expected.quat)


def test_a_runs_body_axes_are_each_samples_pose():
    """body_axes_from_hips, the plots' whole run at once, gives what pose_from_hips gives one by one
    (to rounding: the quaternion between them is not taken), pitched up to 90 deg and turned."""
    rng = np.random.default_rng(3)
    model = build_model()
    data = mujoco.MjData(model)
    samples, poses = [], []
    for pitch in np.linspace(0.0, 90.0, 7):
        data.qpos[:3] = rng.normal(scale=0.2, size=3)
        turn = np.zeros(4)
        mujoco.mju_axisAngle2Quat(turn, np.array([0.0, 0.0, 1.0]), rng.uniform(-3.0, 3.0))
        mujoco.mju_mulQuat(data.qpos[3:7], turn, pitched(float(pitch)).quat)
        mujoco.mj_kinematics(model, data)
        samples.append([data.site_xpos[model.site(hip_site(leg)).id].copy() for leg in LEGS])
        poses.append(pose_from_hips(dict(zip(LEGS, samples[-1]))))
    origin, nose = body_axes_from_hips(np.array(samples))
    assert origin.shape == nose.shape == (7, 3)
    for i, pose in enumerate(poses):
        assert np.allclose(origin[i], pose.position, atol=1e-12)
        assert np.allclose(nose[i], pose.rotation[:, 0], atol=1e-12)
        assert math.degrees(math.asin(nose[i, 2])) == pytest.approx(pose.pitch_deg, abs=1e-9)


def test_toward_goes_straight_and_along_the_shortest_arc():
    start, goal = pitched(0.0, (0.0, 0.0, 0.12)), pitched(90.0, (0.16, 0.0, 0.3))
    half = start.toward(goal, 0.5)
    assert np.allclose(half.position, [0.08, 0.0, 0.21]) and half.pitch_deg == pytest.approx(45.0)
    assert start.toward(goal, 1.0).pitch_deg == pytest.approx(90.0)


def test_quaternion_round_trip_and_bad_targets():
    for q in (pitched(10).quat, pitched(90).quat, np.array([0.0, 0.0, 0.0, 1.0])):
        back = quaternion(rotation(q))
        assert back[0] >= 0 and np.allclose(rotation(back), rotation(q))
    with pytest.raises(PoseError, match="finite 3-vector"):
        Pose(np.array([0.0, np.nan, 0.0]), np.array([1.0, 0, 0, 0]))
    with pytest.raises(PoseError, match="unit quaternion"):
        Pose(np.zeros(3), np.array([2.0, 0, 0, 0]))


def test_a_turned_body_is_squared_to_the_wall_keeping_its_pitch():
    half = math.radians(2.5) / 2
    turn = np.array([math.cos(half), 0.0, 0.0, math.sin(half)])
    body = Pose(np.array([0.1, 0.0, 0.12]), quaternion(rotation(turn) @ rotation(pitched(20.0).quat)))
    assert body.yaw_deg == pytest.approx(2.5) and body.pitch_deg == pytest.approx(20.0)
    square = body.squared()
    assert square.yaw_deg == pytest.approx(0.0, abs=1e-9) and square.pitch_deg == pytest.approx(20.0)
    assert np.allclose(square.position, body.position)
    assert np.allclose(rotation(square.quat), rotation(pitched(20).quat))


def test_slerp_takes_the_shortest_arc_whichever_sign_the_goal_has():
    a, b = pitched(0.0).quat, pitched(60.0).quat
    for goal in (b, -b):
        mid = slerp(a, goal, 0.5)
        assert pitch_of(rotation(mid)) == pytest.approx(30.0) and np.linalg.norm(mid) == pytest.approx(1.0)
    assert np.allclose(rotation(slerp(a, b, 1.0)), rotation(b)) and np.allclose(slerp(a, b, 0.0), a)


def test_a_direction_turns_along_its_great_circle_and_opposite_ones_are_refused():
    floor, wall = np.array([0.0, 0.0, -1.0]), np.array([1.0, 0.0, 0.0])
    half = turn_toward(floor, wall, 0.5)
    assert np.allclose(half, [math.sqrt(0.5), 0.0, -math.sqrt(0.5)])
    assert np.allclose(turn_toward(floor, wall, 1.0), wall) and np.allclose(turn_toward(wall, wall, 0.3), wall)
    with pytest.raises(PoseError, match="opposite directions"):
        turn_toward(wall, -wall, 0.5)


def test_to_world_and_from_matrix_agree_with_the_rotation():
    body = pitched(90.0, (0.1, 0.0, 0.3))
    assert np.allclose(body.to_world([1.0, 0.0, 0.0]), [0.1, 0.0, 1.3])
    back = Pose.from_matrix(body.position, body.rotation)
    assert np.allclose(back.quat, body.quat) and np.allclose(back.position, body.position)


def test_the_great_circle_is_mujocos_rotation_about_the_common_normal():
    rng = np.random.default_rng(4)
    for _ in range(200):
        a, b = (v / np.linalg.norm(v) for v in rng.normal(size=(2, 3)))
        s = float(rng.uniform())
        axis = np.cross(a, b)
        quat, turned = np.zeros(4), np.zeros(3)
        mujoco.mju_axisAngle2Quat(quat, axis / np.linalg.norm(axis), s * math.acos(float(a @ b)))
        mujoco.mju_rotVecQuat(turned, a, quat)
        assert np.allclose(turn_toward(a, b, s), turned, atol=1e-12)
