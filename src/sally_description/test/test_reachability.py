"""Planting feet flat with the model's kinematics: the standing pose, the wall, limits, bad input."""

import numpy as np
import pytest

from sally_description import build_model
from sally_description.constants import FOOT_STANDOFF, WALL_X
from sally_description.leg_ik import LegKinematics
from sally_description.reachability import CornerPose, ReachError, body_clear, solve_plant

MODEL = build_model()
STANDING = CornerPose(WALL_X - float(MODEL.qpos0[0]), float(MODEL.qpos0[2]), 0.0).pose


def test_every_foot_stands_on_the_floor_where_the_model_puts_it():
    for leg in ("FL", "FR", "BL", "BR"):
        kin = LegKinematics(MODEL, leg, 4)
        site, face = kin.site(STANDING, np.zeros(5))
        found = solve_plant(kin, STANDING, "floor", site)
        assert found.ok and found.position_error < 1e-4 and abs(found.twist_deg) < 1.0


def test_front_feet_reach_the_wall_from_the_floor_pose_and_back_feet_do_not():
    fl = solve_plant(LegKinematics(MODEL, "FL", 4), STANDING, "wall")
    assert fl.ok and fl.site[0] == pytest.approx(WALL_X - FOOT_STANDOFF, abs=1e-3)
    assert not solve_plant(LegKinematics(MODEL, "BL", 4), STANDING, "wall").ok


def test_a_margin_keeps_the_bend_joints_off_their_stops():
    kin = LegKinematics(MODEL, "FL", 4, margin_deg=10.0)
    assert np.degrees(kin.upper[1]) == pytest.approx(80.0) and np.degrees(kin.upper[0]) == pytest.approx(45.0)


def test_bad_poses_and_surfaces_are_refused():
    with pytest.raises(ReachError, match="pitch"):
        CornerPose(0.3, 0.2, 120.0)
    with pytest.raises(ReachError, match="finite"):
        CornerPose(float("nan"), 0.2, 0.0)
    with pytest.raises(ReachError, match="unknown surface"):
        solve_plant(LegKinematics(MODEL, "FL", 2), STANDING, "ceiling")
    assert body_clear(STANDING) and not body_clear(CornerPose(0.1, 0.2, 0.0).pose)
