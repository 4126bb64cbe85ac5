"""Whole-body mink IK: targets, stance locks, limits, the recovery matrix, the scipy cross-check."""

import mujoco
import numpy as np
import pytest

from sally_description import LEGS, build_model
from sally_description.constants import ACTUATED_KINDS, joint_name
from sally_description.pose import Pose
from sally_ik_node import IKError, NumericalFootIK
from sally_ik_node.whole_body_ik import IKCode, StanceMode, WholeBodyIK, rodrigues
from sally_node_common.ik_target import IKTarget, IKTargetError

MODEL = build_model()


def converge(ik, solves=300):
    result = None
    for _ in range(solves):
        result = ik.solve()
        assert np.isfinite(result.qpos).all()
    return result


def homes(ik):
    return {leg: ik.foot_pose(leg).translation() for leg in LEGS}


def within_limits(qpos, slack=1e-6):
    joints = qpos[7:]
    return bool(((joints >= MODEL.jnt_range[1:, 0] - slack) & (joints <= MODEL.jnt_range[1:, 1] + slack)).all())


@pytest.mark.parametrize("leg, offset", [("FL", [0, 0, 0.05]), ("BR", [0.03, -0.02, 0.08]), ("FR", [0.06, 0.0, 0.12])])
def test_swing_foot_reaches_its_target_while_stance_feet_stay(leg, offset):
    ik = WholeBodyIK(MODEL)
    home = homes(ik)
    ik.set_stance(leg, StanceMode.SWING)
    ik.set_target(leg, IKTarget.position_only(home[leg] + offset))
    result = converge(ik)
    assert result.code is IKCode.SUCCESS and result.foot == leg
    assert result.position_error < 1e-3
    assert np.linalg.norm(ik.foot_pose(leg).translation() - (home[leg] + offset)) < 1e-3
    for other in set(LEGS) - {leg}:
        assert np.linalg.norm(ik.foot_pose(other).translation() - home[other]) < 1e-3, other
    assert within_limits(result.qpos)


def test_face_axis_turns_the_magnet_face():
    ik = WholeBodyIK(MODEL)
    home = homes(ik)
    ik.set_stance("FL", StanceMode.SWING)
    # f2w's plant point: 20 cm up, 14 cm forward and 20 cm in, the face turned to the wall
    ik.set_target("FL", IKTarget.with_orientation(home["FL"] + [0.14, -0.2, 0.4], [1, 0, 0]))
    result = converge(ik, 500)
    assert result.code is IKCode.SUCCESS
    assert result.position_error < 1e-3 and result.orientation_error < np.radians(1.0)
    face = ik.foot_pose("FL").rotation().as_matrix() @ np.array([0.0, -1.0, 0.0])
    assert face == pytest.approx([1, 0, 0], abs=np.sin(np.radians(1.0)))
    assert np.all(ik.body_task.cost[3:] > 0.0)  # the body's orientation is held throughout
    for other in ("FR", "BL", "BR"):
        assert np.linalg.norm(ik.foot_pose(other).translation() - home[other]) < 1e-3, other


def test_wall_stance_ignores_the_magnet_spinning_about_its_face():
    """em_z is passive: a spin of the magnet about its face normal must not move anything."""
    ik = WholeBodyIK(MODEL)
    ik.set_stance("FL", StanceMode.POSE)
    q = ik.configuration.q.copy()
    q[MODEL.joint(joint_name("em_z", "FL")).qposadr[0]] += 0.3
    ik.update(q)
    result = ik.solve()
    assert np.abs(result.qpos[:7] - q[:7]).max() < 1e-9
    assert np.abs(result.qpos[7:] - q[7:]).max() < 1e-9


def test_wall_stance_locks_the_full_pose_floor_stance_only_position():
    ik = WholeBodyIK(MODEL)
    ik.set_stance("FR", StanceMode.POSE)
    assert ik._foot_costs["FR"] == (ik.config.stance_position_cost, 30.0)
    assert ik._foot_costs["BL"] == (ik.config.stance_position_cost, 0.0)


def test_unreachable_target_is_infeasible_not_nan():
    ik = WholeBodyIK(MODEL)
    ik.set_stance("FL", StanceMode.SWING)
    ik.set_target("FL", IKTarget.position_only(homes(ik)["FL"] + [2.0, 0.0, 0.0]))
    result = converge(ik, 100)
    assert result.code is IKCode.INFEASIBLE and "beyond its" in result.message
    assert within_limits(result.qpos)


def test_blocked_target_is_reported_stalled():
    """main_frame's origin, under the body: within reach by distance, out of reach by the joint
    limits (BL's own hip pivot was, with posture cost 0.01; at 0.001 the leg reaches it)."""
    ik = WholeBodyIK(MODEL)
    ik.set_stance("BL", StanceMode.SWING)
    centre = ik.configuration.get_transform_frame_to_world("main_frame", "body").translation()
    ik.set_target("BL", IKTarget.position_only(centre))
    codes = [ik.solve().code for _ in range(300)]
    assert codes[-1] is IKCode.STALLED
    assert IKCode.INFEASIBLE not in codes


KINDS = ("hip_pitch", "knee", "wrist", "ee")


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("side", ["below", "above"])
def test_seed_slightly_outside_a_limit_recovers(kind, side):
    ik = WholeBodyIK(MODEL)
    home = homes(ik)
    joint = MODEL.joint(joint_name(kind, "FL"))
    q = MODEL.qpos0.copy()
    lo, hi = joint.range
    q[joint.qposadr[0]] = lo - 0.02 if side == "below" else hi + 0.02
    ik.update(q)
    first = ik.solve()
    assert first.code is IKCode.RECOVERING
    ik.set_stance("FL", StanceMode.SWING)
    ik.set_target("FL", IKTarget.position_only(home["FL"] + [0, 0, 0.03]))
    result = converge(ik, 200)
    assert within_limits(result.qpos)
    assert result.code is not IKCode.RECOVERING


def test_bad_targets_and_feet_are_rejected():
    ik = WholeBodyIK(MODEL)
    with pytest.raises(IKTargetError, match="finite 3-vector"):
        IKTarget.position_only([0.0, np.nan, 0.0])
    with pytest.raises(IKTargetError, match="face axis"):
        IKTarget.with_orientation([0.0, 0.0, 0.0], [0.0, 0.0, 0.0])
    with pytest.raises(IKTargetError, match="non-negative"):
        IKTarget([0.0, 0.0, 0.0], None, -1.0)
    with pytest.raises(IKError, match=r"unknown foot 'XX'; valid: \['FL', 'FR', 'BL', 'BR'\]"):
        ik.set_stance("XX", StanceMode.SWING)
    with pytest.raises(IKError, match="only a SWING foot takes targets"):
        ik.set_target("FL", IKTarget.position_only([0.3, 0.3, 0.05]))
    with pytest.raises(IKError, match="finite"):
        ik.update(np.full(MODEL.nq, np.nan))


def test_rodrigues():
    for a, b in [([0, -1, 0], [1, 0, 0]), ([0, 0, -1], [0, 0, -1]), ([0, 0, 1], [0, 0, -1]), ([1, 2, 3], [-2, 0.5, 1])]:
        a, b = np.asarray(a, float) / np.linalg.norm(a), np.asarray(b, float) / np.linalg.norm(b)
        r = rodrigues(a, b)
        assert r @ a == pytest.approx(b, abs=1e-12)
        assert r.T @ r == pytest.approx(np.eye(3), abs=1e-12) and np.linalg.det(r) == pytest.approx(1.0)


def test_cross_check_against_the_numerical_ik():
    """For reachable single-foot targets mink and a warm-started scipy IK agree within 1 mm."""
    rng = np.random.default_rng(3)
    numerical = NumericalFootIK(MODEL)
    checked = 0
    for leg in LEGS:
        adr = [MODEL.joint(joint_name(kind, leg)).qposadr[0] for kind in ACTUATED_KINDS]
        found = 0
        while found < 3:
            # a reachable target off the floor: forward kinematics of a random leg configuration
            # with the thigh raised from the baked pose
            q = MODEL.qpos0.copy()
            q[adr] += [rng.uniform(-0.3, 0.3), -rng.uniform(0.1, 0.5), rng.uniform(-0.2, 0.2), rng.uniform(-0.2, 0.2)]
            numerical.data.qpos[:] = q
            mujoco.mj_kinematics(MODEL, numerical.data)
            target = numerical.data.site(f"ee_site_{leg}").xpos.copy()
            if target[2] < 0.02:
                continue
            found += 1
            ik = WholeBodyIK(MODEL)
            ik.set_stance(leg, StanceMode.SWING)
            ik.set_target(leg, IKTarget.position_only(target))
            mink_result = converge(ik, 400)
            scipy_result = numerical.solve(MODEL.qpos0, leg, target)
            assert scipy_result.success, leg
            mink_foot = ik.foot_pose(leg).translation()
            numerical.data.qpos[:] = scipy_result.qpos
            mujoco.mj_kinematics(MODEL, numerical.data)
            scipy_foot = numerical.data.site(f"ee_site_{leg}").xpos
            assert np.linalg.norm(mink_foot - scipy_foot) < 1e-3, (leg, mink_result.position_error)
            assert mink_result.position_error < 1e-3
            checked += 1
    assert checked == 12


def test_a_body_target_moves_the_body_with_every_foot_held_and_faces_flat():
    ik = WholeBodyIK(MODEL)
    home = homes(ik)
    faces = {leg: ik.foot_pose(leg).rotation().as_matrix()[:, 1].copy() for leg in LEGS}
    start = ik.configuration.get_transform_frame_to_world("main_frame", "body")
    half = np.radians(12.0) / 2  # 12 deg nose-up, 3 cm up
    goal = start.translation() + [0.0, 0.0, 0.03]
    ik.set_body_target(Pose(goal, [np.cos(half), 0.0, -np.sin(half), 0.0]))
    assert ik.conform
    result = converge(ik, 400)
    body = ik.configuration.get_transform_frame_to_world("main_frame", "body")
    assert np.linalg.norm(body.translation() - goal) < 2e-3
    pitch = np.degrees(np.arcsin(body.rotation().as_matrix()[2, 0]))
    assert pitch == pytest.approx(12.0, abs=0.5)
    for leg in LEGS:  # the feet stay, and their faces stay flat on the floor (the ee2 twist takes it)
        assert np.linalg.norm(ik.foot_pose(leg).translation() - home[leg]) < 2e-3, leg
        face = ik.foot_pose(leg).rotation().as_matrix()[:, 1]
        assert np.degrees(np.arccos(np.clip(face @ faces[leg], -1, 1))) < 1.0, leg
    assert within_limits(result.qpos)


def test_a_restarted_ik_given_the_saved_locks_solves_as_the_one_before_it_would():
    """What an IK killed and started again from its checkpoint does: the locks taken where each foot
    entered its stance (not where the feet are now), the body's target, the face's turn and conform
    kept; with the same configuration and target, the next solve is the old IK's to the bit. A fresh
    IK locking the feet where it finds them solves otherwise."""
    ik = WholeBodyIK(MODEL)
    home = homes(ik)
    ik.set_body_target(Pose(ik.configuration.get_transform_frame_to_world("main_frame", "body").translation(),
                            np.array([1.0, 0.0, 0.0, 0.0])))  # fmt: skip
    ik.set_stance("FL", StanceMode.SWING)
    target = IKTarget(home["FL"] + [0.04, 0.0, 0.06], np.array([0.0, 0.6, 0.8]), 1.0, 0.5)
    ik.set_target("FL", target)
    converge(ik, 40)
    moved = ik.configuration.q.copy()
    moved[7:] += 0.002  # the feet moved a little while the IK was down
    again, fresh = WholeBodyIK(MODEL), WholeBodyIK(MODEL)
    again.restore(ik.state())
    for each in (ik, again, fresh):
        each.update(moved)
    fresh.set_stance("FL", StanceMode.SWING)
    for each in (ik, again, fresh):
        each.set_target("FL", target)
    a, b, c = ik.solve(), again.solve(), fresh.solve()
    assert a.qpos.tobytes() == b.qpos.tobytes() and again.conform and again.modes == ik.modes
    assert not np.allclose(a.qpos, c.qpos, atol=1e-9)
    with pytest.raises(ValueError, match="not a whole-body IK's state"):
        again.restore(b"\0" * 3)
