"""Sally standing on the wall, as the model's start: the body pitched 90 deg, every foot planted.

A *wall stance* is main_frame at :class:`~.reachability.CornerPose` (``distance`` from the wall,
``height`` up, pitched 90 deg: belly to the wall) and beside it at world ``y``, with each foot's EE
site on the wall at (``side``, ``reach``) from main_frame in the wall's plane: the front feet
``reach`` above it, the back feet ``reach`` below, the left feet ``side`` to +y. The leg IK
(:func:`.reachability.solve_plant`) gives each leg's joints; :func:`add_wall_start` writes them, with
the body's pose, into the spec as the keyframe :data:`START_KEY`, which the sim resets to. Nothing
is written to disk.

Why these numbers (``sally-reach``'s leg IK, 5 deg off the knee, wrist and ee stops): with the body
0.35 m from the wall, a front foot at y 0.12-0.20 m can be planted from 0.13 to 0.42-0.44 m above
main_frame (below 0.13 m the hip reaches its stop), a back foot from 0.13 to 0.42-0.44 m below
it; sideways each foot plants from 0.08 to 0.28 m off the body's centre line. :data:`WALL_STANCE`
stands every foot inside both bands with room for a 0.10 m step either way along the wall.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import mujoco
import numpy as np

from .constants import FOOT_STANDOFF, LEGS, WALL_X, joint_name
from .errors import DescriptionError
from .leg_ik import LEG_JOINTS, LegKinematics
from .pose import Pose
from .reachability import CornerPose, solve_plant
from .scene import DEFAULT_SCENE, scene

WALL = scene(DEFAULT_SCENE).in_corner("wall")
"""The wall the start stands on, as the planners see it (in the floor-wall corner's frame)."""

START_KEY = "start"
"""The keyframe the sim resets to when the model has one (a model without it starts at qpos0)."""
MAX_TURN_DEG = 10.0
"""The most a wall stance may be turned about the wall's normal (deg; perturbed starts use 3)."""


@dataclass(frozen=True)
class WallStance:
    """Where the body and the feet stand on the wall (m): main_frame ``distance`` from the wall face,
    ``height`` above the floor and at world ``y``, turned ``turn_deg`` about the wall's normal
    (positive: its nose toward +y); each foot ``reach`` ahead of (front) or behind (back) main_frame
    and ``side`` beside it (left feet toward +y), in the body's own directions on the wall."""

    distance: float = 0.35
    height: float = 0.40
    y: float = 0.0
    reach: float = 0.24
    side: float = 0.16
    turn_deg: float = 0.0

    def __post_init__(self) -> None:
        """Refuse numbers that are not finite or put a foot off the body's side of the wall."""
        values = (self.distance, self.height, self.y, self.reach, self.side, self.turn_deg)
        if not all(math.isfinite(v) for v in values):
            raise DescriptionError(f"wall stance must be finite, got {self}")
        if self.distance <= 0 or self.height <= 0 or self.reach <= 0 or self.side <= 0:
            raise DescriptionError(f"wall stance distance, height, reach and side must be positive, got {self}")
        if abs(self.turn_deg) > MAX_TURN_DEG:
            raise DescriptionError(f"wall stance turn must be within +-{MAX_TURN_DEG:g} deg, got {self.turn_deg}")

    @property
    def _turn(self) -> np.ndarray:
        """The turn about the wall's normal, as a quaternion (world)."""
        quat = np.zeros(4)
        mujoco.mju_axisAngle2Quat(quat, np.array([-1.0, 0.0, 0.0]), math.radians(self.turn_deg))
        return quat

    @property
    def body(self) -> Pose:
        """main_frame's world pose."""
        pose = CornerPose(self.distance, self.height, 90.0).pose
        quat = np.zeros(4)
        mujoco.mju_mulQuat(quat, self._turn, pose.quat)
        return Pose(pose.position + [0.0, self.y, 0.0], quat)

    def foot(self, leg: str) -> np.ndarray:
        """Where ``leg``'s EE site stands (world, m): on the wall, ``FOOT_STANDOFF`` off its face."""
        if leg not in LEGS:
            raise DescriptionError(f"unknown leg {leg!r}; valid: {list(LEGS)}")
        up = self.reach if leg.startswith("F") else -self.reach
        left = self.side if leg.endswith("L") else -self.side
        offset = np.zeros(3)
        mujoco.mju_rotVecQuat(offset, np.array([0.0, left, up]), self._turn)
        return np.array([WALL_X - FOOT_STANDOFF, self.y + offset[1], self.height + offset[2]])


WALL_STANCE = WallStance()
"""The wall start's stance (``start:=wall``)."""
STAND_DISTANCE = 0.12364756
"""How far main_frame stands off the surface under it at the model's start on the floor (m)."""
STAND_REACH, STAND_SIDE = 0.33025893, 0.28025893
"""How far each EE site stands ahead of (front) or behind (back) main_frame and beside it at the
model's start on the floor (m)."""


def standing(height: float, y: float = 0.0) -> WallStance:
    """Sally standing on the wall as she stands on the floor at the model's start (main_frame
    :data:`STAND_DISTANCE` off it, the feet :data:`STAND_REACH` along and :data:`STAND_SIDE` beside),
    main_frame ``height`` up and at ``y``: where a climb through the wall's top corner starts, as the
    climb onto the wall starts from the floor."""
    return WallStance(STAND_DISTANCE, height, y, STAND_REACH, STAND_SIDE)


def wall_pose_refusal(pose: Sequence[float]) -> str | None:
    """Why a wall start at ``pose`` = [y m, height m, turn deg] is refused (None: it is not): it
    must keep every foot on the wall plate."""
    y, height, turn = (float(v) for v in pose)
    if abs(y) > 0.3 or not 0.2 <= height <= 0.7 or abs(turn) > MAX_TURN_DEG:
        limits = f"|y| <= 0.3 m, height 0.2-0.7 m, |turn| <= {MAX_TURN_DEG:g} deg"
        return f"must keep every foot on the wall plate ({limits})"
    return None


def wall_stance(start: str, pose: Sequence[float]) -> WallStance:
    """The wall start's stance at ``pose`` = [y m, height m, turn deg] (refused when it is moved on
    a floor start, where it would silently do nothing)."""
    y, height, turn = (float(v) for v in pose)
    stance = replace(WALL_STANCE, y=y, height=height, turn_deg=turn)
    if start != "wall" and stance != WALL_STANCE:
        raise DescriptionError(f"wall_pose {list(pose)} places a wall start; this sim starts on the {start}")
    return stance


def wall_start_qpos(model: mujoco.MjModel, stance: WallStance = WALL_STANCE) -> np.ndarray:
    """The model's qpos with the body and every foot where ``stance`` puts them (refused, naming the
    foot, when a leg cannot plant its foot there)."""
    body = stance.body
    qpos = model.qpos0.copy()
    root = int(model.joint(model.body("main_frame").jntadr[0]).qposadr[0])
    qpos[root : root + 3], qpos[root + 3 : root + 7] = body.position, body.quat
    for leg in LEGS:
        plant = solve_plant(LegKinematics(model, leg), body, WALL, stance.foot(leg))
        if not plant.ok:
            raise DescriptionError(
                f"wall stance {stance}: {leg} cannot be planted at {stance.foot(leg).round(3).tolist()} "
                f"({plant.position_error * 1e3:.1f} mm, {plant.angle_error_deg:.1f} deg off); "
                "`sally-reach` maps where each foot can stand"
            )
        for kind, angle in zip(LEG_JOINTS, plant.joints):
            qpos[int(model.joint(joint_name(kind, leg)).qposadr[0])] = angle
    return qpos


def add_wall_start(spec: mujoco.MjSpec, stance: WallStance = WALL_STANCE) -> None:
    """Give ``spec`` the keyframe :data:`START_KEY`: Sally on the wall as ``stance`` says."""
    qpos = wall_start_qpos(spec.compile(), stance)
    spec.add_key(name=START_KEY, qpos=qpos.tolist())
