"""The stance load: the body's weight shared among the stance feet, on the motor joints."""

import mujoco
import numpy as np
import pytest

from sally_description import build_model
from sally_description.constants import ACTUATED_JOINT_NAMES, LEGS
from sally_description.scene import scene
from sally_description.stance_load import StanceLoad

KNEES = [ACTUATED_JOINT_NAMES.index(f"knee_{leg}") for leg in LEGS]


def _settled(scene_name="floor_wall", in_room=False):
    model = build_model(scene=scene_name, in_room=in_room)
    data = mujoco.MjData(model)
    mujoco.mj_kinematics(model, data)
    return model, data


def test_four_feet_on_the_floor_share_the_weight_equally_and_bend_every_knee_alike():
    model, data = _settled()
    torques = StanceLoad(model).torques(data.qpos, LEGS)
    assert np.allclose(torques[KNEES], torques[KNEES][0]) and torques[KNEES][0] > 1.0  # N m: a quarter each
    forces = np.array(list(StanceLoad(model).forces(data.qpos, LEGS).values()))
    weight = float(np.sum(model.body_mass)) * 9.81
    assert forces[:, 2].sum() == pytest.approx(weight, rel=1e-9)  # the floor carries the whole robot
    np.testing.assert_allclose(forces[:, 2], weight / 4, rtol=1e-6)


def test_a_lifted_foot_hands_its_share_to_the_feet_whose_diagonal_carries_the_body():
    """FL up: the body's centre lies on the FR-BL diagonal, so those two carry it and BR nothing."""
    model, data = _settled()
    load = StanceLoad(model)
    three = load.torques(data.qpos, ["FR", "BL", "BR"])
    four = load.torques(data.qpos, LEGS)
    fl, fr, bl, br = three[KNEES]
    assert fl == 0.0 and br == pytest.approx(0.0, abs=1e-9)
    assert fr == pytest.approx(2 * four[KNEES][1], rel=1e-6) and bl == pytest.approx(fr, rel=1e-6)
    assert load.forces(data.qpos, ["FR", "BL", "BR"])["BR"] == pytest.approx(np.zeros(3), abs=1e-9)
    assert not load.torques(data.qpos, []).any()  # nothing stands: nothing to carry


def test_on_the_rooms_wall_the_feet_carry_the_weight_in_shear():
    """corner3 stands Sally on the room's wall: her weight pulls along the plate (room -z), so the
    feet carry it in shear, not pressing into the plate (room x)."""
    model, data = _settled("corner3", in_room=True)
    forces = np.array(list(StanceLoad(model).forces(data.qpos, LEGS).values()))
    weight = float(np.sum(model.body_mass)) * 9.81
    assert forces.sum(axis=0)[2] == pytest.approx(weight, rel=1e-9)
    assert abs(forces.sum(axis=0)[0]) < 1e-6 * weight


def test_the_load_is_the_same_in_any_frame_it_is_written_in():
    """The load in the room (gravity -z, the room's state) is the load a model written in the turned
    corner's frame would give with the room's gravity written in that frame: the torques do not
    depend on the frame, so the planners' frame needs no gravity of its own."""
    from sally_description.pose import Pose

    room = build_model(scene="corner3", in_room=True)
    turned = build_model(scene="corner3")  # the corner's frame: no gravity of its own
    frame = scene("corner3").room_from_world
    turned.opt.gravity = frame.rotation.T @ room.opt.gravity  # written here for the comparison only
    qpos = turned.qpos0.copy()
    qpos[7:] += np.random.default_rng(4).uniform(-0.2, 0.2, turned.nq - 7)
    body = frame.after(Pose(qpos[:3].copy(), qpos[3:7].copy()))
    in_room = qpos.copy()
    in_room[:3], in_room[3:7] = body.position, body.quat
    for stance in (LEGS, ("FR", "BL", "BR"), ("FL", "BR")):
        np.testing.assert_allclose(
            StanceLoad(room).torques(in_room, stance), StanceLoad(turned).torques(qpos, stance), atol=1e-9
        )


@pytest.mark.parametrize("stance", [LEGS, ("FR", "BL", "BR"), ("FL", "BR")])
def test_the_written_out_jacobians_are_mujocos(stance):
    """Against MuJoCo's own site Jacobians and inverse dynamics at a pose off the symmetric one:
    the forces balance the base's rows of the bias, and the torques are -J_a^T f."""
    model = build_model(scene="corner3", in_room=True)
    data = mujoco.MjData(model)
    rng = np.random.default_rng(3)
    data.qpos[:] = model.qpos0
    data.qpos[7:] += rng.uniform(-0.2, 0.2, model.nq - 7)
    data.qpos[3:7] = [0.96, 0.1, -0.2, 0.15]
    data.qpos[3:7] /= np.linalg.norm(data.qpos[3:7])
    load = StanceLoad(model)
    forces = load.forces(data.qpos, stance)
    torques = load.torques(data.qpos, stance)
    mujoco.mj_kinematics(model, data)
    mujoco.mj_comPos(model, data)
    bias = np.zeros(model.nv)
    mujoco.mj_rne(model, data, 0, bias)
    jac = np.zeros((3, model.nv))
    total = np.zeros(model.nv)
    for leg, force in forces.items():
        mujoco.mj_jacSite(model, data, jac, None, model.site(f"ee_site_{leg}").id)
        total += jac.T @ force
    if len(stance) > 2:
        np.testing.assert_allclose(total[:6], bias[:6], atol=1e-9)  # the body is carried
    dofs = [model.joint(n).dofadr[0] for n in ACTUATED_JOINT_NAMES]
    np.testing.assert_allclose(torques, -total[dofs], atol=1e-9)
