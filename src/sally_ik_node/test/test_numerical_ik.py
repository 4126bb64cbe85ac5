"""The independent numerical IK: reaches targets, respects limits, rejects bad input."""

import numpy as np
import pytest

from sally_description import build_model
from sally_description.constants import ACTUATED_KINDS, joint_name
from sally_ik_node import IKError, NumericalFootIK


@pytest.fixture(scope="module")
def ik():
    return NumericalFootIK(build_model())


def foot(ik, qpos, leg):
    ik.data.qpos[:] = qpos
    import mujoco

    mujoco.mj_kinematics(ik.model, ik.data)
    return ik.data.site(f"ee_site_{leg}").xpos.copy()


def leg_limits(model, leg):
    ids = [model.joint(joint_name(k, leg)).id for k in ACTUATED_KINDS]
    return model.jnt_qposadr[ids], model.jnt_range[ids]


@pytest.mark.parametrize("leg, offset", [("FL", [0, 0, 0.1]), ("BR", [0.05, -0.03, 0.08]), ("FR", [0.04, 0.0, 0.15])])
def test_reaches_reachable_targets(ik, leg, offset):
    q0 = ik.model.qpos0.copy()
    target = foot(ik, q0, leg) + offset
    result = ik.solve(q0, leg, target, face_axis=[0, 0, -1])
    assert result.success and result.position_error < 1e-4
    assert np.linalg.norm(foot(ik, result.qpos, leg) - target) < 1e-4
    assert result.face_error < np.radians(5)
    adr, rng = leg_limits(ik.model, leg)
    assert (result.qpos[adr] >= rng[:, 0]).all() and (result.qpos[adr] <= rng[:, 1]).all()
    others = np.setdiff1d(np.arange(ik.model.nq), adr)
    assert np.array_equal(result.qpos[others], q0[others])


def test_unreachable_target_is_reported_and_stays_in_limits(ik):
    q0 = ik.model.qpos0.copy()
    result = ik.solve(q0, "FL", foot(ik, q0, "FL") + [2.0, 0, 0])
    assert not result.success and result.position_error > 1.0
    adr, rng = leg_limits(ik.model, "FL")
    assert (result.qpos[adr] >= rng[:, 0] - 1e-12).all() and (result.qpos[adr] <= rng[:, 1] + 1e-12).all()


def test_seed_outside_limits_recovers_into_them(ik):
    q0 = ik.model.qpos0.copy()
    adr, rng = leg_limits(ik.model, "FL")
    target = foot(ik, q0, "FL") + [0, 0, 0.05]
    q0[adr[1]] = rng[1, 1] + 0.05  # knee slightly above its upper limit
    result = ik.solve(q0, "FL", target)
    assert result.success
    assert rng[1, 0] <= result.qpos[adr[1]] <= rng[1, 1]


def test_bad_input(ik):
    q0 = ik.model.qpos0.copy()
    with pytest.raises(IKError, match=r"unknown foot 'XL'"):
        ik.solve(q0, "XL", np.zeros(3))
    with pytest.raises(IKError, match="finite 3-vector"):
        ik.solve(q0, "FL", np.array([0.0, np.nan, 0.0]))
