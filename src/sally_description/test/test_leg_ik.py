"""The one leg-IK solver: forward kinematics against MuJoCo's, goals reached, bounds kept, bad input."""

import math

import mujoco
import numpy as np
import pytest

from sally_description import build_model
from sally_description.constants import ee_site
from sally_description.leg_ik import (
    ACTUATED,
    POSITION_TOLERANCE,
    LegGoal,
    LegIKError,
    LegKinematics,
    leg_cost,
    solve_leg,
)
from sally_description.pose import Pose

MODEL = build_model()
HALF = math.radians(25.0) / 2
BODY = Pose([0.1, 0.02, 0.2], [math.cos(HALF), 0.0, -math.sin(HALF), 0.0])
"""A body pitched 25 deg nose-up, off the origin."""


def reachable(kin: LegKinematics, rng: np.random.Generator) -> np.ndarray:
    """Joints well inside the ranges (ee2 at 0): their foot is a place the leg can reach."""
    mid, half = (kin.lower + kin.upper) / 2, (kin.upper - kin.lower) / 2
    q = mid + rng.uniform(-0.5, 0.5, 5) * half
    q[4] = 0.0
    return q


def test_the_site_is_mujocos_for_the_body_at_its_pose():
    kin = LegKinematics(MODEL, "FR", 2)
    joints = np.array([0.2, -0.4, 0.3, -0.1, 0.05])
    site, face = kin.site(BODY, joints)
    data = mujoco.MjData(MODEL)
    data.qpos[:3], data.qpos[3:7] = BODY.position, BODY.quat
    for name, value in zip(("hip_pitch", "knee", "wrist", "ee", "ee2"), joints):
        data.qpos[MODEL.joint(f"{name}_FR").qposadr[0]] = value
    mujoco.mj_kinematics(MODEL, data)
    assert np.allclose(site, data.site(ee_site("FR")).xpos, atol=1e-12)
    assert np.allclose(face, -data.site(ee_site("FR")).xmat.reshape(3, 3)[:, 1], atol=1e-12)


@pytest.mark.parametrize("leg", ["FL", "BR"])
def test_a_reachable_point_and_face_are_reached_from_another_start(leg):
    kin = LegKinematics(MODEL, leg, 3)
    rng = np.random.default_rng(7)
    for _ in range(3):
        want = reachable(kin, rng)
        point, face = kin.site(BODY, want)
        goal = LegGoal(point=point, face=face)
        start = min(kin.seeds, key=lambda q: leg_cost(kin, BODY, goal, q))
        found = solve_leg(kin, BODY, goal, start)
        assert found.within_tolerance and found.position_error < 1e-6 and found.angle_error_deg < 1e-3
        assert leg_cost(kin, BODY, goal, found.joints) == pytest.approx(found.cost, abs=1e-12)
        assert (found.joints >= kin.lower).all() and (found.joints <= kin.upper).all()


def test_a_plane_goal_puts_the_site_on_the_plane_and_a_fixed_twist_stays():
    kin = LegKinematics(MODEL, "FL", 3)
    point, _ = kin.site(BODY, reachable(kin, np.random.default_rng(1)))
    normal = np.array([0.0, 0.0, 1.0])
    start = kin.seeds[0].copy()
    start[4] = 0.1
    found = solve_leg(kin, BODY, LegGoal(plane=(normal, float(point[2]))), start, twist=False)
    assert found.position_error < 1e-6 and found.site[2] == pytest.approx(point[2], abs=1e-6)
    assert found.joints[4] == 0.1  # ee2 was not solved for


def test_bounds_hold_even_when_the_goal_lies_beyond_them():
    kin = LegKinematics(MODEL, "FL", 3)
    rng = np.random.default_rng(2)
    want = reachable(kin, rng)
    want[1] = 0.6 * kin.upper[1]  # knee up
    point, _ = kin.site(BODY, want)
    lower, upper = kin.lower[:ACTUATED].copy(), kin.upper[:ACTUATED].copy()
    upper[1] = 0.0  # knee down only
    start = want.copy()
    start[1] = -0.1
    found = solve_leg(kin, BODY, LegGoal(point=point), start, twist=False, lower=lower, upper=upper)
    assert found.joints[1] <= 0.0 and (found.joints[:ACTUATED] >= lower).all()
    unbounded = solve_leg(kin, BODY, LegGoal(point=point), want, twist=False)
    assert unbounded.position_error < POSITION_TOLERANCE / 100


def test_bad_goals_starts_and_bounds_are_refused_by_name():
    kin = LegKinematics(MODEL, "FL", 2)
    with pytest.raises(LegIKError, match="exactly one of point= and plane="):
        LegGoal()
    with pytest.raises(LegIKError, match="exactly one of point= and plane="):
        LegGoal(point=np.zeros(3), plane=(np.array([0.0, 0.0, 1.0]), 0.0))
    with pytest.raises(LegIKError, match="point must be a finite 3-vector"):
        LegGoal(point=[0.0, math.nan, 0.0])
    with pytest.raises(LegIKError, match="face must be a finite non-zero 3-vector"):
        LegGoal(point=np.zeros(3), face=np.zeros(3))
    with pytest.raises(LegIKError, match="plane normal must be a finite non-zero 3-vector"):
        LegGoal(plane=([0.0, 0.0], 0.0))
    with pytest.raises(LegIKError, match="5 finite angles"):
        solve_leg(kin, BODY, LegGoal(point=np.zeros(3)), np.zeros(4))
    with pytest.raises(LegIKError, match="lower <= upper"):
        solve_leg(kin, BODY, LegGoal(point=np.zeros(3)), np.zeros(5), twist=False, lower=np.ones(4), upper=np.zeros(4))
