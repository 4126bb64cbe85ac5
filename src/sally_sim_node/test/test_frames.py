"""BodyFrames: the TF tree from MuJoCo's poses composes back to MuJoCo's world poses."""

import mujoco
import numpy as np

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
