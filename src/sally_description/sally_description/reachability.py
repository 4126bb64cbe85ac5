"""Where each foot can be planted for a given body pose, with the model's own kinematics.

A body pose here is main_frame pitched nose-up toward the wall about the world y axis
(:class:`BodyPose`: distance from the wall, height above the floor, pitch 0-90 deg; no roll, no
yaw, y = 0). A foot is *planted* on a surface when its magnet face lies flat on it: the EE site
``FOOT_STANDOFF`` off the surface, the face normal (EE local -Y) along the surface's inward normal,
every joint of the leg inside its range, and the point on the steel plate. The passive ee2 joint
(a spring about the foot's own axis) is one of the leg's joints here: a magnet holding the face flat
twists it, and without it a pitched body could plant no foot flat (the three bend joints share one
axis). em_z (the magnet's spin about its face normal) changes nothing here and stays at 0.
:func:`solve_plant` finds such a joint set by bounded least squares (MuJoCo forward kinematics and
site Jacobians of the compiled model, seeds from a grid over the leg's actuated joints).

Nothing here checks the legs against each other, the body against the plates beyond the chassis
corners (:func:`body_clear`), or forces: it is the geometry a planner starts from.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import product

import mujoco
import numpy as np
from scipy.optimize import least_squares

from .constants import FLOOR_Z, FOOT_STANDOFF, ROOT_BODY, WALL_X, ee_site, joint_name
from .errors import DescriptionError

LEG_JOINTS = ("hip_pitch", "knee", "wrist", "ee", "ee2")
"""The joints of one leg a plant solves for, base to foot: four actuated, then the passive ee2."""
TWIST_WEIGHT = 0.05
"""Residual per radian of ee2 twist (a preference for an untwisted foot; a position residual of 1
is POSITION_TOLERANCE)."""
SURFACES = {
    "floor": (np.array([0.0, 0.0, 1.0]), FLOOR_Z),
    "wall": (np.array([-1.0, 0.0, 0.0]), -WALL_X),
}
"""Surface -> (outward unit normal n, offset c): the plate's face is the plane n . p = c."""
PLATE_EXTENT = {"floor": ((-2.5, 0.5), (-0.5, 0.5)), "wall": ((-0.5, 0.5), (0.0, 1.0))}
"""Steel on each plate: floor (x range, y range), wall (y range, z range), in m (the MJCF boxes)."""
POSITION_TOLERANCE = 0.001
"""A plant is found when the EE site is this close to its place (m) ..."""
ANGLE_TOLERANCE_DEG = 2.0
"""... and the face normal this close to the surface's inward normal (deg)."""
CHASSIS_HALF = (0.15, 0.1, 0.03)
"""Half sizes of the chassis box (m), for :func:`body_clear`."""


class ReachError(DescriptionError):
    """A body pose or surface that cannot be asked about; the message says which and why."""


@dataclass(frozen=True)
class BodyPose:
    """main_frame's pose in the corner: ``distance`` from its origin to the wall face (m, along
    -x), ``height`` above the floor face (m), ``pitch_deg`` nose up toward the wall (0: level,
    90: belly against the wall)."""

    distance: float
    height: float
    pitch_deg: float

    def __post_init__(self) -> None:
        if not all(math.isfinite(v) for v in (self.distance, self.height, self.pitch_deg)):
            raise ReachError(f"body pose must be finite, got {self}")
        if not -1.0 <= self.pitch_deg <= 91.0:
            raise ReachError(f"pitch must be in [0, 90] deg, got {self.pitch_deg}")

    @property
    def position(self) -> np.ndarray:
        return np.array([WALL_X - self.distance, 0.0, FLOOR_Z + self.height])

    @property
    def rotation(self) -> np.ndarray:
        """World-from-body rotation: about world y by -pitch (nose up when the wall is at +x)."""
        a = math.radians(self.pitch_deg)
        c, s = math.cos(a), math.sin(a)
        return np.array([[c, 0.0, -s], [0.0, 1.0, 0.0], [s, 0.0, c]])

    @property
    def quat(self) -> np.ndarray:
        """(w, x, y, z) of :attr:`rotation`."""
        a = math.radians(self.pitch_deg) / 2.0
        return np.array([math.cos(a), 0.0, -math.sin(a), 0.0])


def body_clear(pose: BodyPose, margin: float = 0.01) -> bool:
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
        within = self.position_error <= POSITION_TOLERANCE and self.angle_error_deg <= ANGLE_TOLERANCE_DEG
        return within and self.on_plate

    @property
    def twist_deg(self) -> float:
        """How far the passive ee2 joint is twisted."""
        return math.degrees(float(self.joints[4]))


class LegKinematics:
    """Forward kinematics of one leg of ``model`` for body poses given as :class:`BodyPose`."""

    def __init__(self, model: mujoco.MjModel, leg: str, seeds_per_joint: int = 5, margin_deg: float = 0.0) -> None:
        """``margin_deg``: how far the knee, wrist and ee joints must stay from their stops (a leg at
        a stop cannot push further, and MuJoCo's soft limits let it sag past)."""
        self.model, self.leg = model, leg
        self.data = mujoco.MjData(model)
        self._root_qpos = int(model.joint(model.body(ROOT_BODY).jntadr[0]).qposadr[0])
        self._qpos = np.array([int(model.joint(joint_name(k, leg)).qposadr[0]) for k in LEG_JOINTS])
        self._dof = np.array([int(model.joint(joint_name(k, leg)).dofadr[0]) for k in LEG_JOINTS])
        self._jacp, self._jacr = np.zeros((3, model.nv)), np.zeros((3, model.nv))
        # the hip may sit at its stop (f2w plants FL and FR so); ee2 is passive: no margin for either
        margin = np.array([0.0] + [math.radians(margin_deg)] * 3 + [0.0])
        self.lower = np.array([model.joint(joint_name(k, leg)).range[0] for k in LEG_JOINTS]) + margin
        self.upper = np.array([model.joint(joint_name(k, leg)).range[1] for k in LEG_JOINTS]) - margin
        self._site = model.site(ee_site(leg)).id
        grid = [np.linspace(lo, hi, seeds_per_joint + 2)[1:-1] for lo, hi in zip(self.lower[:4], self.upper[:4])]
        self.seeds = np.array([(*q, 0.0) for q in product(*grid)])
        """Joint sets spread over the ranges (ends excluded) the solver starts from."""

    def site(self, pose: BodyPose, joints: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(EE site position, face normal), world, for the leg at ``joints`` on a body at ``pose``."""
        q = self.data.qpos
        q[:] = self.model.qpos0
        q[self._root_qpos : self._root_qpos + 3] = pose.position
        q[self._root_qpos + 3 : self._root_qpos + 7] = pose.quat
        q[self._qpos] = joints
        mujoco.mj_kinematics(self.model, self.data)
        face = -self.data.site_xmat[self._site].reshape(3, 3)[:, 1]
        return self.data.site_xpos[self._site].copy(), face

    def jacobians(self) -> tuple[np.ndarray, np.ndarray]:
        """(d site / d joints, angular velocity / d joints), 3 x 4 each, at the last :meth:`site`."""
        mujoco.mj_comPos(self.model, self.data)  # the joint axes mj_jacSite reads
        mujoco.mj_jacSite(self.model, self.data, self._jacp, self._jacr, self._site)
        return self._jacp[:, self._dof], self._jacr[:, self._dof]


def _surface(surface: str) -> tuple[np.ndarray, float]:
    if surface not in SURFACES:
        raise ReachError(f"unknown surface {surface!r}; valid: {sorted(SURFACES)}")
    return SURFACES[surface]


def on_plate(surface: str, point: np.ndarray) -> bool:
    (a0, a1), (b0, b1) = PLATE_EXTENT[surface]
    u, v = (point[0], point[1]) if surface == "floor" else (point[1], point[2])
    return bool(a0 <= u <= a1 and b0 <= v <= b1)


def solve_plant(
    leg: LegKinematics,
    pose: BodyPose,
    surface: str,
    point: np.ndarray | None = None,
    seeds: int = 6,
    start: np.ndarray | None = None,
) -> Plant:
    """Plant ``leg`` on ``surface`` for a body at ``pose``: at ``point`` (the EE site's place, world)
    when given, else anywhere on the plate. Returns the best plant found (``ok`` says whether it is
    one). ``seeds``: how many of the grid's joint sets closest to a plant are refined; ``start``:
    refine only from these joints instead (following one solution branch along a path: a planted
    leg cannot jump to another, e.g. knee-up to knee-down)."""
    normal, offset = _surface(surface)
    inward = -normal
    target = None if point is None else np.asarray(point, float)

    angle_scale = 1.0 / math.radians(ANGLE_TOLERANCE_DEG)

    def residual(q: np.ndarray) -> np.ndarray:
        site, face = leg.site(pose, q)
        angle = np.cross(face, inward) * angle_scale + (face @ inward < 0) * 10.0
        twist = [q[4] * TWIST_WEIGHT]
        if target is not None:
            return np.concatenate([(site - target) / POSITION_TOLERANCE, angle, twist])
        gap = float(normal @ site - offset - FOOT_STANDOFF)
        return np.concatenate([[gap / POSITION_TOLERANCE], angle, twist])

    def jacobian(q: np.ndarray) -> np.ndarray:
        _, face = leg.site(pose, q)
        jp, jr = leg.jacobians()
        dface = np.cross(jr.T, face).T  # d face / d q_i = w_i x face
        dangle = np.cross(dface.T, inward).T * angle_scale
        dpos = jp / POSITION_TOLERANCE if target is not None else (normal @ jp)[None, :] / POSITION_TOLERANCE
        dtwist = np.array([[0.0, 0.0, 0.0, 0.0, TWIST_WEIGHT]])
        return np.vstack([dpos, dangle, dtwist])

    if start is not None:
        scored = [np.clip(np.asarray(start, dtype=float), leg.lower, leg.upper)]
    else:
        scored = sorted(leg.seeds, key=lambda q: float(residual(q) @ residual(q)))[:seeds]
    best: Plant | None = None
    for start in scored:
        fit = least_squares(
            residual, start, jac=jacobian, bounds=(leg.lower, leg.upper), xtol=1e-10, ftol=1e-10, max_nfev=100
        )
        site, face = leg.site(pose, fit.x)
        gap = abs(float(normal @ site - offset - FOOT_STANDOFF))
        err = float(np.linalg.norm(site - target)) if target is not None else gap
        angle = math.degrees(math.acos(min(1.0, max(-1.0, float(face @ inward)))))
        plant = Plant(fit.x, site, err, angle, on_plate(surface, site + FOOT_STANDOFF * inward))
        if best is None or _rank(plant) < _rank(best):
            best = plant
        if best.ok:
            break
    assert best is not None
    return best


def _rank(plant: Plant) -> tuple[bool, float]:
    return (not plant.ok, plant.position_error / POSITION_TOLERANCE + plant.angle_error_deg / ANGLE_TOLERANCE_DEG)
