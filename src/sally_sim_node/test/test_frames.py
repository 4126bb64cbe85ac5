"""BodyFrames: the TF tree from MuJoCo's poses composes back to MuJoCo's world poses."""

import mujoco
import numpy as np
import pytest

from sally_description import build_model
from sally_sim_node.frames import ODOM, WORLD, BodyFrames


def _matrix(quat):
    out = np.empty(9)
    mujoco.mju_quat2Mat(out, quat)
    return out.reshape(3, 3)


def test_moving_frames_chain_back_to_every_body_pose():
    model = build_model()
    data = mujoco.MjData(model)
    rng = np.random.default_rng(3)
    frames = BodyFrames(model)
    for _ in range(10):
        data.qpos[:3] = rng.uniform(-0.3, 0.3, 3)
        quat = rng.normal(size=4)
        data.qpos[3:7] = quat / np.linalg.norm(quat)
        data.qpos[7:] = model.qpos0[7:] + rng.uniform(-0.4, 0.4, model.nq - 7)
        mujoco.mj_kinematics(model, data)
        poses = {ODOM: (np.zeros(3), np.array([1.0, 0.0, 0.0, 0.0]))}
        moving = frames.moving(data)
        for frame in moving:  # parents come first
            position, rotation = poses[frame.parent]
            composed = np.empty(4)
            mujoco.mju_mulQuat(composed, rotation, frame.quaternion)
            poses[frame.child] = (position + _matrix(rotation) @ frame.position, composed)
        assert len(moving) == model.nbody - 1, "odom -> main_frame and one frame per body below it"
        for body in range(1, model.nbody):
            position, rotation = poses[model.body(body).name]
            np.testing.assert_allclose(position, data.xpos[body], atol=1e-12)
            np.testing.assert_allclose(_matrix(rotation), data.xmat[body].reshape(3, 3), atol=1e-12)


def test_static_frames_are_odom_on_world_and_the_plates():
    from sally_sim_node import Simulator

    sim = Simulator()
    model, data = sim.model, sim.data
    mujoco.mj_kinematics(model, data)
    static = {f.child: f for f in BodyFrames.static(sim.plates())}
    assert set(static) == {ODOM, "floor_plate", "wall_plate"}
    assert all(f.parent == WORLD for f in static.values())
    np.testing.assert_allclose(static[ODOM].position, 0.0)
    np.testing.assert_allclose(static["wall_plate"].position, data.geom_xpos[model.geom("wall_plate").id])


def test_a_turned_corner_is_simulated_in_the_room_and_its_frame_hangs_from_the_world():
    """corner3 is simulated in the room's frame (gravity -z, the ceiling plate's face 1.0 m up facing
    down, the wall's at x = 0.5 facing into the room, Sally on the wall); ``world -> corner`` is the
    wall-ceiling corner's frame, which the IK, the sequencer and the report give positions in."""
    from sally_description.scene import CEILING_HEIGHT, scene
    from sally_sim_node import Simulator
    from sally_sim_node.frames import CORNER

    corner = scene("corner3").room_from_world
    sim = Simulator(build_model(scene="corner3", in_room=True))
    static = {f.child: f for f in BodyFrames.static(sim.plates(), corner)}
    assert static[CORNER].parent == WORLD
    np.testing.assert_allclose(static[CORNER].position, corner.position)
    assert set(static) == {CORNER, ODOM, "wall_plate", "ceiling_plate", "room_floor"}  # named as the room has them

    def face(plate, local_normal):
        frame, size = static[plate], sim.model.geom_size[sim.model.geom(plate).id]
        normal = _matrix(frame.quaternion) @ np.asarray(local_normal, float)
        return frame.position + normal * np.abs(size @ np.abs(local_normal)), normal

    point, normal = face("ceiling_plate", [0.0, 0.0, -1.0])  # its face toward the robot
    np.testing.assert_allclose([point[2], *normal], [CEILING_HEIGHT, 0.0, 0.0, -1.0], atol=1e-9)
    point, normal = face("wall_plate", [-1.0, 0.0, 0.0])
    np.testing.assert_allclose([point[0], *normal], [0.5, -1.0, 0.0, 0.0], atol=1e-9)
    point, normal = face("room_floor", [0.0, 0.0, 1.0])
    np.testing.assert_allclose([point[2], *normal], [0.0, 0.0, 0.0, 1.0], atol=1e-9)
    np.testing.assert_allclose(sim.model.opt.gravity, [0.0, 0.0, -9.81], atol=1e-9)
    mujoco.mj_kinematics(sim.model, sim.data)
    assert sim.data.qpos[0] == pytest.approx(0.5 - 0.1236, abs=1e-3) and sim.data.qpos[2] == pytest.approx(0.5)


def test_the_default_scene_has_no_room_frame():
    from sally_sim_node import Simulator

    assert all(f.child != WORLD for f in BodyFrames.static(Simulator().plates()))


def test_moving_poses_are_the_moving_frames_as_arrays():
    model = build_model()
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    frames = BodyFrames(model)
    positions, quaternions = frames.moving_poses(data)
    moving = frames.moving(data)
    assert [(f.parent, f.child) for f in moving] == frames.moving_names
    assert positions.shape == (len(moving), 3) and quaternions.shape == (len(moving), 4)
    for i, frame in enumerate(moving):
        np.testing.assert_array_equal(frame.position, positions[i])
        np.testing.assert_array_equal(frame.quaternion, quaternions[i])
