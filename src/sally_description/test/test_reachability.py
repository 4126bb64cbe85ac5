"""Planting feet flat with the model's kinematics: the standing pose, the wall, any corner's surfaces
in its own frame, limits, bad input."""

import numpy as np
import pytest

from sally_description import build_model
from sally_description.constants import FOOT_STANDOFF, WALL_X
from sally_description.leg_ik import LegKinematics
from sally_description.reachability import CornerPose, ReachError, body_clear, solve_plant
from sally_description.scene import scene

MODEL = build_model()
STANDING = CornerPose(WALL_X - float(MODEL.qpos0[0]), float(MODEL.qpos0[2]), 0.0).pose
CORNER = scene("floor_wall")
FLOOR, WALL = CORNER.in_corner("floor"), CORNER.in_corner("wall")


def test_every_foot_stands_on_the_floor_where_the_model_puts_it():
    for leg in ("FL", "FR", "BL", "BR"):
        kin = LegKinematics(MODEL, leg, 4)
        site, face = kin.site(STANDING, np.zeros(5))
        found = solve_plant(kin, STANDING, FLOOR, site)
        assert found.ok and found.position_error < 1e-4 and abs(found.twist_deg) < 1.0


def test_front_feet_reach_the_wall_from_the_floor_pose_and_back_feet_do_not():
    fl = solve_plant(LegKinematics(MODEL, "FL", 4), STANDING, WALL)
    assert fl.ok and fl.site[0] == pytest.approx(WALL_X - FOOT_STANDOFF, abs=1e-3)
    assert not solve_plant(LegKinematics(MODEL, "BL", 4), STANDING, WALL).ok


def test_the_wall_ceiling_corner_seen_from_its_frame_is_planted_as_the_floor_wall_corner():
    """corner3's frame stands on the room's wall and climbs its ceiling: the ceiling there is where
    floor_wall's wall is, a plant on it is as good, and a point off the ceiling's steel is no plant."""
    ceiling = scene("corner3").in_corner("ceiling")
    assert ceiling.normal == pytest.approx(WALL.normal, abs=1e-12)
    assert ceiling.height([0.1, 0.2, 0.3]) == pytest.approx(WALL.height([0.1, 0.2, 0.3]), abs=1e-12)
    there = solve_plant(LegKinematics(MODEL, "FL", 4), STANDING, ceiling)
    # 1e-5: the leg solve stops within a few um (one CPU's ended 1.29e-6 off, past the 1e-6 held before)
    assert there.ok and there.site[0] == pytest.approx(WALL_X - FOOT_STANDOFF, abs=1e-5)
    assert ceiling.covers(there.site + [FOOT_STANDOFF, 0.0, 0.0])
    assert not ceiling.covers(there.site + [FOOT_STANDOFF, 0.6, 0.0])  # beyond the ceiling's side
    assert not WALL.covers([WALL_X, 0.0, -0.01]) and FLOOR.covers([WALL_X, 0.0, 0.0])  # the corner's edge


def test_a_margin_keeps_the_bend_joints_off_their_stops():
    kin = LegKinematics(MODEL, "FL", 4, margin_deg=10.0)
    assert np.degrees(kin.upper[1]) == pytest.approx(80.0) and np.degrees(kin.upper[0]) == pytest.approx(45.0)


def test_bad_poses_and_surfaces_are_refused():
    with pytest.raises(ReachError, match="pitch"):
        CornerPose(0.3, 0.2, 120.0)
    with pytest.raises(ReachError, match="finite"):
        CornerPose(float("nan"), 0.2, 0.0)
    assert body_clear(STANDING) and not body_clear(CornerPose(0.1, 0.2, 0.0).pose)
