"""Where each foot can be planted for a given body pose, with the model's own kinematics.

A body pose here is main_frame pitched nose-up toward the wall about the world y axis
(:class:`CornerPose`: distance from the wall, height above the floor, pitch 0-90 deg; no roll, no
yaw, y = 0; its :attr:`CornerPose.pose` is the :class:`~.pose.Pose`). A foot is *planted* on a
surface (a :class:`~.surfaces.Surface`, given in the frame the body pose is in: a scene's
:meth:`~.scene.Scene.in_corner`) when its magnet face lies flat on it: the EE site ``FOOT_STANDOFF``
off the face, the face normal (EE local -Y) along the surface's inward normal, every joint of the leg
inside its range, and the point over the surface's steel. The passive ee2 joint (a spring about the
foot's own axis) is one of the leg's joints here: a magnet holding the face flat twists it, and
without it a pitched body could plant no foot flat (the three bend joints share one axis). em_z (the
magnet's spin about its face normal) changes nothing here and stays at 0. :func:`solve_plant` finds
such a joint set with the leg IK (:func:`.leg_ik.solve_leg`), from seeds on a grid over the leg's
actuated joints.

Nothing here checks the legs against each other, the body against the plates beyond the chassis
corners (:func:`body_clear`), or forces: it is the geometry a planner starts from.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import product

import mujoco
import numpy as np

from .constants import FLOOR_Z, FOOT_STANDOFF, WALL_X
from .errors import DescriptionError
from .leg_ik import (
    ANGLE_TOLERANCE_DEG,
    POSITION_TOLERANCE,
    LegGoal,
    LegKinematics,
    leg_cost,
    solve_leg,
    within_tolerance,
)
from .pose import Pose
from .surfaces import Surface

CHASSIS_HALF = (0.15, 0.1, 0.03)
"""Half sizes of the chassis box (m), for :func:`body_clear`."""


class ReachError(DescriptionError):
    """A body pose or surface that cannot be asked about; the message says which and why."""


@dataclass(frozen=True)
class CornerPose:
    """main_frame's place in the corner, in three numbers: ``distance`` from its origin to the wall
    face (m, along -x), ``height`` above the floor face (m), ``pitch_deg`` nose up toward the wall
    (0: level, 90: belly against the wall). :attr:`pose` is the world pose they stand for."""

    distance: float
    height: float
    pitch_deg: float

    def __post_init__(self) -> None:
        """Refuse a pose that is not finite or pitched outside [0, 90] deg."""
        if not all(math.isfinite(v) for v in (self.distance, self.height, self.pitch_deg)):
            raise ReachError(f"body pose must be finite, got {self}")
        if not -1.0 <= self.pitch_deg <= 91.0:
            raise ReachError(f"pitch must be in [0, 90] deg, got {self.pitch_deg}")

    @property
    def pose(self) -> Pose:
        """The world pose: turned about world y by -pitch (nose up when the wall is at +x)."""
        quat = np.zeros(4)
        mujoco.mju_axisAngle2Quat(quat, np.array([0.0, -1.0, 0.0]), math.radians(self.pitch_deg))
        return Pose(np.array([WALL_X - self.distance, 0.0, FLOOR_Z + self.height]), quat)


def body_clear(pose: Pose, margin: float = 0.01) -> bool:
    """Whether every corner of the chassis box is ``margin`` off the floor and the wall."""
    corners = np.array(list(product(*[(-h, h) for h in CHASSIS_HALF])))
    world = corners @ pose.rotation.T + pose.position
    return bool((world[:, 2] >= FLOOR_Z + margin).all() and (world[:, 0] <= WALL_X - margin).all())


@dataclass(frozen=True)
class Plant:
    """One foot planted (or the best try): the leg's joint angles (rad, LEG_JOINTS order), where
    the EE site ends up (world, m), the residual errors, and whether they are within tolerance."""

    joints: np.ndarray
    site: np.ndarray
    position_error: float
    angle_error_deg: float
    on_plate: bool

    @property
    def ok(self) -> bool:
        """Whether the plant is within tolerance and on the plate's steel."""
        return within_tolerance(self.position_error, self.angle_error_deg) and self.on_plate

    @property
    def twist_deg(self) -> float:
        """How far the passive ee2 joint is twisted."""
        return math.degrees(float(self.joints[4]))


def solve_plant(
    leg: LegKinematics,
    pose: Pose,
    surface: Surface,
    point: np.ndarray | None = None,
    seeds: int = 6,
    start: np.ndarray | None = None,
) -> Plant:
    """Plant ``leg`` on ``surface`` for a body at ``pose`` (both in one frame): at ``point`` (the EE
    site's place, in that frame) when given, else anywhere on the surface's plane. Returns the best
    plant found (``ok`` says whether it is one). ``seeds``: how many of the grid's joint sets closest
    to a plant are refined; ``start``: refine only from these joints instead (following one solution
    branch along a path: a planted leg cannot jump to another, e.g. knee-up to knee-down)."""
    normal, offset = surface.normal, surface.offset
    inward = -normal
    if point is None:
        goal = LegGoal(plane=(normal, offset + FOOT_STANDOFF), face=inward)
    else:
        goal = LegGoal(point=np.asarray(point, float), face=inward)
    if start is not None:
        starts = [np.clip(np.asarray(start, dtype=float), leg.lower, leg.upper)]
    else:
        starts = sorted(leg.seeds, key=lambda q: leg_cost(leg, pose, goal, q))[:seeds]
    best: Plant | None = None
    for joints in starts:
        found = solve_leg(leg, pose, goal, joints)
        plant = Plant(
            found.joints,
            found.site,
            found.position_error,
            found.angle_error_deg,
            surface.covers(found.site + FOOT_STANDOFF * inward),
        )
        if best is None or _rank(plant) < _rank(best):
            best = plant
        if best.ok:
            break
    assert best is not None
    return best


def _rank(plant: Plant) -> tuple[bool, float]:
    return (not plant.ok, plant.position_error / POSITION_TOLERANCE + plant.angle_error_deg / ANGLE_TOLERANCE_DEG)
