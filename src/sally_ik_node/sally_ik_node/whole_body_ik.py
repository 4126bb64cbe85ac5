"""Whole-body differential IK for Sally with mink, robust to bad starting poses and targets.

Only the motor joints (and the floating base, which the stance legs carry) move: the passive ee2 and
em_z joints are frozen (as a DofFreezingTask constraint would; :mod:`.reduced_solve`), since no
target can move them and a correction spent on them would never happen. Tasks: a FrameTask per
foot (the swing foot follows its :class:`~sally_node_common.ik_target.IKTarget`; POSITION stance
feet are locked in position where they were when they entered it; POSE stance feet are locked in
full SE3, snapshotted when they entered it, orientation cost 30 on the face's tilt: the magnet spins
freely about its normal), a FrameTask on main_frame (its orientation is always held: freeing it
under a face axis rolled the body with FL on the wall), a PostureTask toward the baked pose, and a
ConfigurationLimit. One :meth:`WholeBodyIK.solve` is one differential step of ``dt`` from the
configuration last given.

The swing leg is then solved once more with the base and every other joint frozen at the measured
configuration: the whole-body step holds the body at its pose (the stance legs' targets restore a
body that sagged), but the swing foot must reach its world target from where the body really is,
or it would sit low by the sag until the stance legs' integral terms lift the body.

Each solve says how it went (:class:`IKCode`): RECOVERING when the configuration it started from
was outside the joint limits (the limit pushes it back in), INFEASIBLE when the QP has no solution
or the target lies beyond the leg's reach (the best effort is still returned), STALLED when an
unmet target has seen no progress for ``stall_solves`` solves, else SUCCESS. A result is never
non-finite: on a failed solve the configuration it started from is returned.
"""

from __future__ import annotations

import math
import struct
import time
from dataclasses import dataclass

import mink
import mujoco
import numpy as np

from sally_description import LEGS
from sally_description.constants import (
    ACTUATED_KINDS,
    FACE_AXIS_LOCAL,
    PASSIVE_KINDS,
    ROOT_BODY,
    ee_site,
    hip_site,
    joint_name,
)
from sally_description.pose import Pose
from sally_node_common.ik_status_msg import IKCode
from sally_node_common.ik_target import IKTarget
from sally_node_common.stance import StanceMode
from sally_node_common.time_contract import IK_PERIOD

from .errors import IKError
from .reduced_solve import free_dofs, solve_velocity

ROOT_DOFS = 7  # free joint qpos
_LOCKS = struct.Struct("<B4B8d28d7d3d9d")
"""What a whole-body IK carries from one solve to the next that its inputs do not give again (its
:meth:`WholeBodyIK.state`): conform, each foot's stance mode, each foot task's (position, orientation)
cost and target (w x y z, x y z), the body task's target, and the swing face's rotation (its axis
first; nan: none)."""
STATE_BYTES = _LOCKS.size
TILT_AXES = 1.0 - np.abs(np.asarray(FACE_AXIS_LOCAL, dtype=float))
"""Foot orientation costs act on the face's tilt only (mink's frame error is in the site's own
axes): the magnet turns freely about its face normal on the passive em_z joint, so a cost on that
turn would make the IK roll the body to undo a spin no motor can make."""


@dataclass(frozen=True)
class IKConfig:
    """The whole-body IK's step, costs and limits."""

    dt: float = IK_PERIOD
    """Differential step (s): one solve every IK period (:data:`~sally_node_common.time_contract.IK_PERIOD`)."""
    damping: float = 1e-3
    solver: str = "daqp"
    posture_cost: float = 1e-3
    """Weight of the pull toward the baked pose (dimensionless): weak enough that a seating foot
    reaches its target with the wrist near its end stop (the figures behind it: design notes,
    "Why these values")."""
    body_position_cost: float = 10.0
    body_orientation_cost: float = 10.0
    """The body holds its pose as firmly as the stance feet (dimensionless weights; a weaker body
    lets the swing trade body pose for its target: design notes, "Why these values")."""
    stance_position_cost: float = 10.0
    stance_orientation_cost: float = 30.0
    position_tolerance: float = 1e-3
    orientation_tolerance: float = np.radians(1.0)
    limit_slack: float = 0.01
    """A measured joint this far (rad) past a stop is read as at the stop. MuJoCo's limits are soft,
    so a joint held at a stop (the hips after a 45 deg swing) reads a few tenths of a degree past
    it; as a hard QP constraint that would pull a wall-locked leg back in by moving the body."""
    stall_solves: int = 40
    stall_progress: float = 1e-4
    """Error reduction (m) over ``stall_solves`` solves below which an unmet target is STALLED."""


@dataclass(frozen=True)
class IKResult:
    """One IK step: the configuration reached, how it went and how far the swing foot is from its target."""

    qpos: np.ndarray
    """The configuration after this step: its joint part is the joint targets."""
    code: IKCode
    foot: str
    position_error: float
    orientation_error: float
    solve_time: float
    message: str = ""


@dataclass(frozen=True)
class SwingLeg:
    """The swing leg's own step (its motors only, from the measured base and the other joints)."""

    configuration: mink.Configuration
    qpos: dict[str, np.ndarray]
    """Each leg's motor joints' qpos addresses."""
    free: dict[str, np.ndarray]
    """The dofs the swing leg's own step moves: its four motors'."""

    @staticmethod
    def of(model: mujoco.MjModel) -> SwingLeg:
        """The swing leg's step in ``model``."""
        joints = {leg: [model.joint(joint_name(k, leg)) for k in ACTUATED_KINDS] for leg in LEGS}
        return SwingLeg(
            mink.Configuration(model),
            {leg: np.array([j.qposadr[0] for j in js]) for leg, js in joints.items()},
            {leg: np.array([j.dofadr[0] for j in js]) for leg, js in joints.items()},
        )


class WholeBodyIK:
    """Whole-body differential IK with mink: stance feet locked, the swing foot and the body moved to their targets."""

    def __init__(self, model: mujoco.MjModel, config: IKConfig = IKConfig()) -> None:
        self.model = model
        self.config = config
        self.configuration = mink.Configuration(model)
        self.configuration.update(model.qpos0)
        self.body_task = mink.FrameTask(
            ROOT_BODY, "body", position_cost=config.body_position_cost, orientation_cost=config.body_orientation_cost
        )
        self.posture_task = mink.PostureTask(model, cost=config.posture_cost)
        self.posture_task.set_target(model.qpos0)
        self.limits = [mink.ConfigurationLimit(model)]
        self._passive = [model.joint(joint_name(kind, leg)).dofadr[0] for leg in LEGS for kind in PASSIVE_KINDS]
        self._free = free_dofs(model.nv, self._passive)
        """The dofs a step moves: all but the passive joints'."""
        self._ee2_dof = {leg: model.joint(joint_name("ee2", leg)).dofadr[0] for leg in LEGS}
        self.conform = False
        """Set once the body is moved (:meth:`set_body_target`): every stance foot keeps its face
        flat (POSITION feet too) and its passive ee2 twist is free in the solve, as a magnet holding
        the face flat twists it; without it a pitched body asks the floor feet to tilt."""
        self._conform: tuple[tuple[int, ...] | None, np.ndarray] = (None, self._free)
        """(the stance feet's ee2 dofs, the dofs a conforming step moves), for the last set of stances."""
        self._leg = SwingLeg.of(model)
        self.modes = {leg: StanceMode.POSITION for leg in LEGS}
        self._foot_tasks: dict[str, mink.FrameTask] = {}
        self._foot_costs: dict[str, tuple[float, float]] = {}
        self.targets: dict[str, IKTarget] = {}
        self._face_cache: tuple[tuple[float, ...], np.ndarray] | None = None
        self._range = (model.jnt_range[1:, 0], model.jnt_range[1:, 1])
        """Each joint's (lower, upper) limits (the free joint aside)."""
        self._history: list[float] = []
        self.reach = self._leg_reach()
        self.hold_body()
        for leg in LEGS:
            self.set_stance(leg, StanceMode.POSITION)

    # --- state and commands -------------------------------------------------------------------
    def state(self) -> bytes:
        """The stance locks and what else a restarted IK needs to go on as this one would, as bytes
        (:meth:`restore`): every foot's lock where it was taken, not where the foot is now."""
        costs = [c for leg in LEGS for c in self._foot_costs[leg]]
        locks = [v for leg in LEGS for v in self._target_of(self._foot_tasks[leg])]
        axis, rotation = self._face_cache if self._face_cache is not None else ((math.nan,) * 3, np.full(9, math.nan))
        return _LOCKS.pack(
            self.conform, *(int(self.modes[leg]) for leg in LEGS), *costs, *locks, *self._target_of(self.body_task),
            *axis, *np.ravel(rotation),
        )  # fmt: skip

    def restore(self, state: bytes) -> None:
        """The locks :meth:`state` gave, taken up (ValueError for bytes that are not one)."""
        try:
            values = _LOCKS.unpack(state[: _LOCKS.size])
        except struct.error:
            raise ValueError(f"not a whole-body IK's state ({len(state)} bytes)") from None
        self.conform = bool(values[0])
        costs, locks = values[5:13], np.array(values[13:41]).reshape(4, 7)
        for i, leg in enumerate(LEGS):
            self.modes[leg] = StanceMode(values[1 + i])
            self._foot_task(leg, costs[2 * i], costs[2 * i + 1]).set_target(mink.SE3(locks[i].copy()))
        self.body_task.set_target(mink.SE3(np.array(values[41:48])))
        axis = values[48:51]
        self._face_cache = None if math.isnan(axis[0]) else (tuple(axis), np.array(values[51:60]).reshape(3, 3))
        self.targets.clear()
        self._history.clear()

    @staticmethod
    def _target_of(task: mink.FrameTask) -> np.ndarray:
        target = task.transform_target_to_world
        assert target is not None, "every task of the IK always has its target"
        return target.wxyz_xyz

    def update(self, qpos: np.ndarray) -> None:
        """The measured configuration (free joint + joints) to take the next step from."""
        qpos = np.asarray(qpos, dtype=float)
        if qpos.shape != (self.model.nq,) or not np.isfinite(qpos).all():
            raise IKError(f"configuration must be {self.model.nq} finite numbers")
        joints = qpos[ROOT_DOFS:]
        lower, upper = self._range
        near = (joints > lower - self.config.limit_slack) & (joints < upper + self.config.limit_slack)
        qpos = qpos.copy()
        qpos[ROOT_DOFS:] = np.where(near, np.clip(joints, lower, upper), joints)
        self.configuration.update(qpos)

    def hold_body(self) -> None:
        """Keep main_frame where it is now."""
        self.body_task.set_target(self.configuration.get_transform_frame_to_world(ROOT_BODY, "body"))

    def set_body_target(self, body: Pose) -> None:
        """Move main_frame toward ``body`` (world; the stance feet stay locked, faces flat)."""
        if not self.conform:
            self.conform = True
            for leg, mode in self.modes.items():
                if mode is StanceMode.POSITION:  # the same lock, with the face's tilt
                    locked = self._foot_tasks[leg].transform_target_to_world
                    assert locked is not None, "a stance foot's task always has its lock"
                    task = self._foot_task(leg, self.config.stance_position_cost, self.config.stance_orientation_cost)
                    task.set_target(locked)
        self.body_task.set_target(mink.SE3(np.concatenate([body.quat, body.position])))

    def set_stance(self, foot: str, mode: StanceMode) -> None:
        """POSITION locks the foot's position where it is; POSE locks its full pose; SWING frees it."""
        _check_foot(foot)
        mode = StanceMode(mode)
        pose = self.configuration.get_transform_frame_to_world(ee_site(foot), "site")
        if mode is StanceMode.POSITION:
            tilt = self.config.stance_orientation_cost if self.conform else 0.0
            self._foot_task(foot, self.config.stance_position_cost, tilt).set_target(pose)
        elif mode is StanceMode.POSE:
            costs = self.config.stance_position_cost, self.config.stance_orientation_cost
            self._foot_task(foot, *costs).set_target(pose)
        else:
            self._foot_task(foot, 1.0, 0.0).set_target(pose)  # hold where it is until a target comes
        self.modes[foot] = mode
        self.targets.pop(foot, None)
        self._history.clear()

    def set_target(self, foot: str, target: IKTarget) -> None:
        """The swing ``foot``'s target from now on (refused for a foot in stance)."""
        _check_foot(foot)
        if self.modes[foot] is not StanceMode.SWING:
            raise IKError(f"foot {foot} is in {self.modes[foot].name} stance; only a SWING foot takes targets")
        previous = self.targets.get(foot)
        # np.allclose(previous, target, atol=1e-9) written out (both finite): a tenth of its time, every tick
        moved = (
            previous is None
            or not (np.abs(previous.position - target.position) <= 1e-9 + 1e-5 * np.abs(target.position)).all()
        )
        if moved:
            self._history.clear()
        self.targets[foot] = target

    # --- solving --------------------------------------------------------------------------------
    def solve(self) -> IKResult:
        """One differential step of ``dt`` from the configuration last given; the result."""
        cfg = self.config
        start = time.perf_counter()
        q0 = self.configuration.q.copy()
        joints = q0[ROOT_DOFS:]
        lower, upper = self._range
        outside = bool(((joints < lower - 1e-9) | (joints > upper + 1e-9)).any())
        swing = next(
            (leg for leg, mode in self.modes.items() if mode is StanceMode.SWING and leg in self.targets), None
        )
        self._update_swing_task(swing)
        tasks = [self.body_task, self.posture_task, *self._foot_tasks.values()]
        code, message = IKCode.SUCCESS, ""
        try:
            velocity = solve_velocity(
                self.configuration, tasks, cfg.dt, cfg.solver, cfg.damping, self.limits, self._moving()
            )
            if not np.isfinite(velocity).all():
                raise mink.NoSolutionFound("non-finite velocity")
            self.configuration.integrate_inplace(velocity, cfg.dt)
        except (mink.NoSolutionFound, ValueError) as exc:
            self.configuration.update(q0)
            code, message = IKCode.INFEASIBLE, f"no IK solution this step ({exc}); holding"
        if not np.isfinite(self.configuration.q).all():
            self.configuration.update(q0)
            code, message = IKCode.INFEASIBLE, "non-finite configuration; holding"
        if swing is not None and code is IKCode.SUCCESS:
            code, message = self._swing_leg_step(swing, q0, tasks)
        pos_err, ori_err = self._errors(swing, self._leg.configuration if swing is not None else self.configuration)
        if code is IKCode.SUCCESS:
            code, message = self._classify(swing, outside, pos_err, ori_err)
        return IKResult(
            self.configuration.q.copy(), code, swing or "", pos_err, ori_err, time.perf_counter() - start, message
        )

    def _moving(self) -> np.ndarray:
        """The dofs a step moves: all but the passive joints, and (once the body moves) the stance
        feet's ee2 too."""
        if not self.conform:
            return self._free
        free = {self._ee2_dof[leg] for leg, mode in self.modes.items() if mode is not StanceMode.SWING}
        key = tuple(sorted(free))
        if self._conform[0] != key:
            self._conform = (key, free_dofs(self.model.nv, [d for d in self._passive if d not in free]))
        return self._conform[1]

    def _swing_leg_step(self, swing: str, q0: np.ndarray, tasks: list) -> tuple[IKCode, str]:
        """The swing leg's motor joints again, from the measured base and the other joints."""
        cfg = self.config
        leg, adr = self._leg.configuration, self._leg.qpos[swing]
        # the other joints are frozen here and do not move the swing leg's chain, but one outside its
        # limits (a wall foot the magnet pulled past a stop) would make the limit constraints infeasible
        seed = q0.copy()
        seed[ROOT_DOFS:] = np.clip(q0[ROOT_DOFS:], *self._range)
        seed[adr] = q0[adr]
        leg.update(seed)
        try:
            velocity = solve_velocity(
                leg, [self._foot_tasks[swing], self.posture_task], cfg.dt, cfg.solver, cfg.damping, self.limits,
                self._leg.free[swing],
            )  # fmt: skip
            if not np.isfinite(velocity).all():
                raise mink.NoSolutionFound("non-finite velocity")
            leg.integrate_inplace(velocity, cfg.dt)
        except (mink.NoSolutionFound, ValueError) as exc:
            leg.update(q0)
            return IKCode.INFEASIBLE, f"no IK solution for the {swing} leg this step ({exc})"
        q = self.configuration.q.copy()
        q[adr] = leg.q[adr]
        self.configuration.update(q)
        return IKCode.SUCCESS, ""

    def _classify(self, swing: str | None, outside: bool, pos_err: float, ori_err: float) -> tuple[IKCode, str]:
        cfg = self.config
        if outside:
            return IKCode.RECOVERING, "configuration outside the joint limits; bringing it back"
        if swing is None:
            return IKCode.SUCCESS, ""
        target = self.targets[swing]
        hip = self.configuration.get_transform_frame_to_world(hip_site(swing), "site").translation()
        if np.linalg.norm(target.position - hip) > self.reach:
            return (
                IKCode.INFEASIBLE,
                f"target {np.linalg.norm(target.position - hip):.3f} m from the {swing} hip, beyond its "
                f"{self.reach:.3f} m reach",
            )
        met = pos_err <= cfg.position_tolerance and (target.face_axis is None or ori_err <= cfg.orientation_tolerance)
        self._history.append(pos_err)
        if met:
            self._history.clear()
            return IKCode.SUCCESS, ""
        if len(self._history) > cfg.stall_solves:
            progress = self._history[-cfg.stall_solves - 1] - pos_err
            if progress < cfg.stall_progress:
                return IKCode.STALLED, f"{swing} {pos_err * 1e3:.1f} mm from its target without progress"
        return IKCode.SUCCESS, ""

    # --- tasks ----------------------------------------------------------------------------------
    def _foot_task(self, foot: str, position_cost: float, orientation_cost: float) -> mink.FrameTask:
        """The foot's task, rebuilt when its costs change (mink bakes weights into the task)."""
        if self._foot_costs.get(foot) != (position_cost, orientation_cost):
            self._foot_tasks[foot] = mink.FrameTask(
                ee_site(foot), "site", position_cost=position_cost, orientation_cost=orientation_cost * TILT_AXES
            )
            self._foot_costs[foot] = (position_cost, orientation_cost)
        return self._foot_tasks[foot]

    def _update_swing_task(self, swing: str | None) -> None:
        face = None if swing is None else self.targets[swing].face_axis
        if face is None:
            self._face_cache = None  # the next orientation phase computes a fresh rotation
        if swing is None:
            return
        target = self.targets[swing]
        task = self._foot_task(swing, target.position_cost, target.orientation_cost if face is not None else 0.0)
        current = self.configuration.get_transform_frame_to_world(ee_site(swing), "site")
        rotation = current.rotation().as_matrix() if face is None else self._face_rotation(swing, face)
        task.set_target(mink.SE3.from_rotation_and_translation(mink.SO3.from_matrix(rotation), target.position))

    def _face_rotation(self, foot: str, face: np.ndarray) -> np.ndarray:
        """Rotation turning the foot's face normal onto ``face`` (Rodrigues), computed once per axis."""
        key = tuple(np.round(face, 12))
        if self._face_cache is None or self._face_cache[0] != key:
            current = self.configuration.get_transform_frame_to_world(ee_site(foot), "site").rotation().as_matrix()
            self._face_cache = (key, rodrigues(current @ np.asarray(FACE_AXIS_LOCAL), face) @ current)
        return self._face_cache[1]

    def _errors(self, swing: str | None, configuration: mink.Configuration) -> tuple[float, float]:
        if swing is None:
            return 0.0, 0.0
        target = self.targets[swing]
        pose = configuration.get_transform_frame_to_world(ee_site(swing), "site")
        pos_err = float(np.linalg.norm(pose.translation() - target.position))
        if target.face_axis is None:
            return pos_err, 0.0
        normal = pose.rotation().as_matrix() @ np.asarray(FACE_AXIS_LOCAL)
        return pos_err, float(np.arccos(np.clip(normal @ target.face_axis, -1.0, 1.0)))

    def foot_pose(self, foot: str) -> mink.SE3:
        """``foot``'s EE site pose in the world, at the current configuration."""
        return self.configuration.get_transform_frame_to_world(ee_site(_check_foot(foot)), "site")

    def _leg_reach(self) -> float:
        """Hip pivot to EE site with every link in line: the most any foot can be from its hip."""
        m = self.model
        reach = 0.0
        body = m.site(ee_site(LEGS[0])).bodyid
        reach += float(np.linalg.norm(m.site(ee_site(LEGS[0])).pos))
        hip_body = m.site(hip_site(LEGS[0])).bodyid
        while body != hip_body:
            reach += float(np.linalg.norm(m.body_pos[body]))
            body = m.body_parentid[body]
        return reach


def rodrigues(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The smallest rotation taking unit vector ``a`` onto unit vector ``b``."""
    a, b = a / np.linalg.norm(a), b / np.linalg.norm(b)
    axis = np.cross(a, b)
    s, c = float(np.linalg.norm(axis)), float(a @ b)
    if s < 1e-12:
        if c > 0:
            return np.eye(3)
        perp = np.cross(a, [1.0, 0.0, 0.0] if abs(a[0]) < 0.9 else [0.0, 1.0, 0.0])
        axis, s, c = perp / np.linalg.norm(perp), 0.0, -1.0
        k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
        return np.eye(3) + 2 * k @ k
    k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]]) / s
    return np.eye(3) + s * k + (1 - c) * k @ k


def _check_foot(foot: str) -> str:
    if foot not in LEGS:
        raise IKError(f"unknown foot {foot!r}; valid: {list(LEGS)}")
    return foot
