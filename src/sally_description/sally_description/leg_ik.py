"""One leg's inverse kinematics: the joint angles that put its foot at a place, face along a direction.

The one leg-IK solver of the stack. The reachability map (:mod:`.reachability`), the back legs'
swing planner and the numerical cross-check of the whole-body IK all call :func:`solve_leg`; they
differ only in what they ask (:class:`LegGoal`), where they start and within which bounds.

The body is held at a :class:`~.pose.Pose` and the other legs are irrelevant (a leg's chain starts at
main_frame). The solution is bounded least squares (``scipy.optimize.least_squares``, trust region
reflective) on MuJoCo's forward kinematics and site Jacobians of the compiled model. The residual is
dimensionless: the foot's position error in units of :data:`POSITION_TOLERANCE`, the face's angle in
units of :data:`ANGLE_TOLERANCE_DEG`, and, when the passive ee2 twist is solved for, the twist
weighted by :data:`TWIST_WEIGHT` (a preference for an untwisted foot).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import product

import mujoco
import numpy as np

from .constants import FACE_AXIS_LOCAL, ROOT_BODY, ee_site, joint_name
from .errors import DescriptionError
from .pose import Pose

LEG_JOINTS = ("hip_pitch", "knee", "wrist", "ee", "ee2")
"""The joints of one leg, base to foot: four actuated, then the passive ee2 (a spring about the
foot's own axis; a magnet holding the face flat twists it)."""
ACTUATED = 4
"""How many of :data:`LEG_JOINTS` are actuated (the first four)."""
POSITION_TOLERANCE = 0.001
"""A foot is in place when its EE site is this close to its goal (m) ..."""
ANGLE_TOLERANCE_DEG = 2.0
"""... and its face normal this close to the wanted direction (deg)."""
TWIST_WEIGHT = 0.05
"""Residual per radian of ee2 twist when the twist is solved for (a position residual of 1 is
:data:`POSITION_TOLERANCE`)."""
BACKWARD_PENALTY = 10.0
"""Residual added to each face component while the face points away from the wanted direction (the
cross product alone is as small there as at the goal)."""
XTOL = FTOL = 1e-10
"""``least_squares`` stopping tolerances (relative step, relative cost)."""


class LegIKError(DescriptionError):
    """A goal or start that cannot be solved for; the message says which and why."""


class LegKinematics:
    """Forward kinematics and Jacobians of one leg of ``model``, the body held at a :class:`Pose`."""

    def __init__(self, model: mujoco.MjModel, leg: str, seeds_per_joint: int = 5, margin_deg: float = 0.0) -> None:
        """``seeds_per_joint``: grid points per actuated joint in :attr:`seeds`. ``margin_deg``: how far
        the knee, wrist and ee joints must stay from their stops (a leg at a stop cannot push further,
        and MuJoCo's soft limits let it sag past)."""
        self.model, self.leg = model, leg
        self.data = mujoco.MjData(model)
        self._root_qpos = int(model.joint(model.body(ROOT_BODY).jntadr[0]).qposadr[0])
        self._qpos = np.array([int(model.joint(joint_name(k, leg)).qposadr[0]) for k in LEG_JOINTS])
        self._dof = np.array([int(model.joint(joint_name(k, leg)).dofadr[0]) for k in LEG_JOINTS])
        self._jacp, self._jacr = np.zeros((3, model.nv)), np.zeros((3, model.nv))
        # the hip may sit at its stop (f2w plants FL and FR so); ee2 is passive: no margin for either
        margin = np.array([0.0] + [math.radians(margin_deg)] * 3 + [0.0])
        self.lower = np.array([model.joint(joint_name(k, leg)).range[0] for k in LEG_JOINTS]) + margin
        """Lower joint bounds (rad, :data:`LEG_JOINTS` order)."""
        self.upper = np.array([model.joint(joint_name(k, leg)).range[1] for k in LEG_JOINTS]) - margin
        """Upper joint bounds (rad, :data:`LEG_JOINTS` order)."""
        self._site = model.site(ee_site(leg)).id
        self._face_local = np.asarray(FACE_AXIS_LOCAL, dtype=float)
        grid = [np.linspace(lo, hi, seeds_per_joint + 2)[1:-1] for lo, hi in zip(self.lower[:4], self.upper[:4])]
        self.seeds = np.array([(*q, 0.0) for q in product(*grid)])
        """Joint sets spread over the actuated joints' ranges (ends excluded, ee2 at 0)."""

    def site(self, pose: Pose, joints: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(EE site position, face normal), world, for the leg at ``joints`` (:data:`LEG_JOINTS`
        order, rad) on a body at ``pose``."""
        q = self.data.qpos
        q[:] = self.model.qpos0
        q[self._root_qpos : self._root_qpos + 3] = pose.position
        q[self._root_qpos + 3 : self._root_qpos + 7] = pose.quat
        q[self._qpos] = joints
        mujoco.mj_kinematics(self.model, self.data)
        face = self.data.site_xmat[self._site].reshape(3, 3) @ self._face_local
        return self.data.site_xpos[self._site].copy(), face

    def jacobians(self) -> tuple[np.ndarray, np.ndarray]:
        """(d site / d joints, angular velocity / d joints), 3 x 5 each, at the last :meth:`site`."""
        mujoco.mj_comPos(self.model, self.data)  # the joint axes mj_jacSite reads
        mujoco.mj_jacSite(self.model, self.data, self._jacp, self._jacr, self._site)
        return self._jacp[:, self._dof], self._jacr[:, self._dof]


@dataclass(frozen=True)
class LegGoal:
    """Where a foot should be: its EE site at ``point`` (world, m), or on the plane ``plane`` = (unit
    normal n, offset c: the points p with n . p = c); its face normal along ``face`` (world unit
    vector) when given. Exactly one of ``point`` and ``plane``."""

    point: np.ndarray | None = None
    plane: tuple[np.ndarray, float] | None = None
    face: np.ndarray | None = None

    def __post_init__(self) -> None:
        """Check the goal: one place, finite vectors, unit directions."""
        if (self.point is None) == (self.plane is None):
            raise LegIKError("a leg goal needs exactly one of point= and plane=")
        if self.point is not None:
            point = np.asarray(self.point, dtype=float)
            if point.shape != (3,) or not np.isfinite(point).all():
                raise LegIKError(f"a leg goal's point must be a finite 3-vector, got {self.point!r}")
            object.__setattr__(self, "point", point)
        if self.plane is not None:
            object.__setattr__(self, "plane", (_unit(self.plane[0], "plane normal"), float(self.plane[1])))
        if self.face is not None:
            object.__setattr__(self, "face", _unit(self.face, "face"))


@dataclass(frozen=True)
class LegSolution:
    """A leg's joints (rad, :data:`LEG_JOINTS` order), where its EE site and face normal end up
    (world), and how far from the goal (m, deg; the face error is 0 for a goal with no face)."""

    joints: np.ndarray
    site: np.ndarray
    face: np.ndarray
    position_error: float
    angle_error_deg: float
    cost: float
    """The least-squares cost at the solution (half the squared residual)."""

    @property
    def within_tolerance(self) -> bool:
        """Whether the foot is within :data:`POSITION_TOLERANCE` and :data:`ANGLE_TOLERANCE_DEG`."""
        return within_tolerance(self.position_error, self.angle_error_deg)


def within_tolerance(position_error: float, angle_error_deg: float) -> bool:
    """Whether a foot ``position_error`` m and ``angle_error_deg`` deg off its goal is in place."""
    return position_error <= POSITION_TOLERANCE and angle_error_deg <= ANGLE_TOLERANCE_DEG


class _Problem:
    """The residual and its Jacobian for one goal, body pose and set of solved joints."""

    def __init__(self, kin: LegKinematics, pose: Pose, goal: LegGoal, start: np.ndarray, twist: bool) -> None:
        """``start``: all the leg's joints; the first :attr:`n` are solved for, the rest stay."""
        self.kin, self.pose, self.goal, self.twist = kin, pose, goal, twist
        self.n = len(LEG_JOINTS) if twist else ACTUATED
        self.fixed = start[self.n :]
        self.angle_scale = 1.0 / math.radians(ANGLE_TOLERANCE_DEG)

    def joints(self, x: np.ndarray) -> np.ndarray:
        return np.concatenate([x, self.fixed])

    def residual(self, x: np.ndarray) -> np.ndarray:
        goal = self.goal
        site, face = self.kin.site(self.pose, self.joints(x))
        if goal.point is not None:
            parts = [(site - goal.point) / POSITION_TOLERANCE]
        else:
            normal, offset = goal.plane  # type: ignore[misc]
            parts = [np.array([(normal @ site - offset) / POSITION_TOLERANCE])]
        if goal.face is not None:
            parts.append(np.cross(face, goal.face) * self.angle_scale + (face @ goal.face < 0) * BACKWARD_PENALTY)
        if self.twist:
            parts.append(np.array([x[4] * TWIST_WEIGHT]))
        return np.concatenate(parts)

    def jacobian(self, x: np.ndarray) -> np.ndarray:
        goal, n = self.goal, self.n
        _, face = self.kin.site(self.pose, self.joints(x))
        jp, jr = self.kin.jacobians()
        jp, jr = jp[:, :n], jr[:, :n]
        if goal.point is not None:
            rows = [jp / POSITION_TOLERANCE]
        else:
            rows = [(goal.plane[0] @ jp)[None, :] / POSITION_TOLERANCE]  # type: ignore[index]
        if goal.face is not None:
            dface = np.cross(jr.T, face).T  # d face / d q_i = w_i x face
            rows.append(np.cross(dface.T, goal.face).T * self.angle_scale)
        if self.twist:
            rows.append(np.eye(1, n, 4) * TWIST_WEIGHT)
        return np.vstack(rows)


def leg_cost(kin: LegKinematics, pose: Pose, goal: LegGoal, joints: np.ndarray, twist: bool = True) -> float:
    """The least-squares cost :func:`solve_leg` minimises (half the squared residual), at ``joints``
    (:data:`LEG_JOINTS` order, rad): how far they are from ``goal``, to rank starts by."""
    joints = _joints(joints)
    problem = _Problem(kin, pose, goal, joints, twist)
    r = problem.residual(joints[: problem.n])
    return 0.5 * float(r @ r)


def solve_leg(
    kin: LegKinematics,
    pose: Pose,
    goal: LegGoal,
    start: np.ndarray,
    *,
    twist: bool = True,
    lower: np.ndarray | None = None,
    upper: np.ndarray | None = None,
    max_nfev: int = 100,
) -> LegSolution:
    """Solve ``kin``'s leg for ``goal`` with the body at ``pose``, from ``start`` (:data:`LEG_JOINTS`
    order, rad; clipped into the bounds). ``twist``: solve for the passive ee2 joint too (else it
    stays at ``start``'s value). ``lower``/``upper``: bounds of the solved joints (default the
    leg's own); ``max_nfev``: the solver's budget of residual evaluations."""
    start = _joints(start)
    problem = _Problem(kin, pose, goal, start, twist)
    n = problem.n
    lo = kin.lower[:n] if lower is None else np.asarray(lower, dtype=float)
    hi = kin.upper[:n] if upper is None else np.asarray(upper, dtype=float)
    if lo.shape != (n,) or hi.shape != (n,) or (lo > hi).any():
        raise LegIKError(f"bounds must be {n} pairs with lower <= upper, got {lo} and {hi}")
    from scipy.optimize import least_squares  # here: 0.35-0.5 s to import, and the runner never solves a leg

    fit = least_squares(
        problem.residual,
        np.clip(start[:n], lo, hi),
        jac=problem.jacobian,
        bounds=(lo, hi),
        xtol=XTOL,
        ftol=FTOL,
        max_nfev=max_nfev,
    )
    solved = problem.joints(fit.x)
    site, face = kin.site(pose, solved)
    if goal.point is not None:
        position_error = float(np.linalg.norm(site - goal.point))
    else:
        position_error = abs(float(goal.plane[0] @ site - goal.plane[1]))  # type: ignore[index]
    angle = 0.0 if goal.face is None else math.degrees(math.acos(min(1.0, max(-1.0, float(face @ goal.face)))))
    return LegSolution(solved, site, face, position_error, angle, float(fit.cost))


def _joints(joints: np.ndarray) -> np.ndarray:
    q = np.asarray(joints, dtype=float)
    if q.shape != (len(LEG_JOINTS),) or not np.isfinite(q).all():
        raise LegIKError(f"a leg's joints must be {len(LEG_JOINTS)} finite angles {LEG_JOINTS}, got {joints!r}")
    return q


def _unit(vector: np.ndarray, what: str) -> np.ndarray:
    v = np.asarray(vector, dtype=float)
    norm = float(np.linalg.norm(v)) if v.shape == (3,) else 0.0
    if not np.isfinite(v).all() or not norm > 1e-9:
        raise LegIKError(f"a leg goal's {what} must be a finite non-zero 3-vector, got {vector!r}")
    return v / norm
