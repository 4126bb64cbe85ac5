"""The controller's pure core: joint targets in, one answer per state out: servo setpoints (what the
motors' servos track, :meth:`JointController.setpoints`) or, on the effort path, efforts
(:meth:`JointController.step`, a :class:`JointPID` run by the controller itself).

What a node needs around either: targets by joint name (outside the joint limits they are clamped
and reported; non-finite ones are rejected), states by joint name in any order, the period taken
from consecutive state stamps, and exactly one answer per state stamp: a state seen again (a
re-sent lockstep state) gets the same answer, without running the PID twice.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from sally_node_common.inputs import (
    LENGTH,
    MAX_ANGLE,
    MAX_FORCE,
    MAX_RATE,
    NON_FINITE,
    OUT_OF_ORDER,
    OUT_OF_RANGE,
    UNKNOWN,
    InputError,
    joint_arrays,
)
from sally_node_common.pid import JointPID, PIDGains

from .errors import ControllerError


@dataclass(frozen=True)
class Targets:
    """Checked targets of the joints at ``indices``: positions (clamped to the limits), velocities
    and feed-forward efforts (each empty when not given)."""

    indices: np.ndarray
    positions: np.ndarray
    velocities: np.ndarray
    clamped: tuple[str, ...]
    efforts: np.ndarray = field(default_factory=lambda: np.zeros(0))
    """N m the sender adds (the IK: the body's weight on the stance feet), on top of the controller's own."""


@dataclass(frozen=True)
class Setpoints:
    """What the servos track after a state: positions (rad, within the limits), velocities (rad/s)
    and feed-forward efforts (N m, within the effort limits)."""

    position: np.ndarray
    velocity: np.ndarray
    effort: np.ndarray


@dataclass(frozen=True)
class TargetReport:
    """What :meth:`JointController.apply_targets` did with a target message."""

    clamped: tuple[str, ...]
    """Joints whose requested position was outside its limits (clamped to the nearest limit)."""


class JointController:
    """The joint PID of the controller node, pure: targets in, efforts out, within the joints' limits."""

    def __init__(self, names: Sequence[str], lower: np.ndarray, upper: np.ndarray, gains: PIDGains) -> None:
        if len(gains) != len(names) or len(lower) != len(names) or len(upper) != len(names):
            raise ControllerError("names, limits and gains must all have one entry per joint")
        self.names = tuple(names)
        self.lower, self.upper = np.asarray(lower, float), np.asarray(upper, float)
        self._index = {n: i for i, n in enumerate(self.names)}
        self.pid = JointPID(gains)
        self.target = np.zeros(len(names))
        self.target_velocity: np.ndarray | None = None
        self.target_effort = np.zeros(len(names))
        """The targets' feed-forward (N m), added to every answer's own."""
        self.targets_received = 0
        self.clamped_total = 0
        self._hold_start = True
        """No target yet in this run: the first state's pose becomes the target (where the run
        starts: the baked pose, q = 0, on the floor; the wall start on the wall)."""
        self._last_stamp: int | None = None
        self._last_answer: np.ndarray | Setpoints = np.zeros(len(names))

    def set_gains(self, gains: PIDGains) -> None:
        """Use ``gains`` from the next update on, keeping the integral."""
        integral = self.pid.integral.copy()
        self.pid = JointPID(gains)
        self.pid.integral[:] = integral

    def set_targets(
        self,
        names: Sequence[str],
        positions: Sequence[float],
        velocities: Sequence[float] = (),
        efforts: Sequence[float] = (),
    ) -> TargetReport:
        """Set the targets of the named joints (others keep theirs; so do velocities and efforts
        not given)."""
        return self.apply_targets(self.check_targets(names, positions, velocities, efforts))

    def check_targets(
        self,
        names: Sequence[str],
        positions: Sequence[float],
        velocities: Sequence[float] = (),
        efforts: Sequence[float] = (),
    ) -> Targets:
        """Targets validated (raises ControllerError with a reason) and clamped, not yet applied."""
        names = list(names)
        position = np.asarray(positions, dtype=float)
        velocity = np.asarray(velocities, dtype=float)
        effort = np.asarray(efforts, dtype=float)
        if not names or len(position) != len(names):
            raise ControllerError(
                f"joint targets need one position per name: {len(names)} names, {len(position)} positions", LENGTH
            )
        if len(velocity) not in (0, len(names)):
            raise ControllerError(f"joint target velocities must be empty or one per name, got {len(velocity)}", LENGTH)
        if len(effort) not in (0, len(names)):
            raise ControllerError(f"joint target efforts must be empty or one per name, got {len(effort)}", LENGTH)
        unknown = [n for n in names if n not in self._index]
        if unknown:
            raise ControllerError(
                f"joint targets name unknown joints {unknown}; controlled joints: {list(self.names)}", UNKNOWN
            )
        if len(set(names)) != len(names):
            raise ControllerError("joint targets name a joint twice", "duplicate")
        if not (np.isfinite(position).all() and np.isfinite(velocity).all() and np.isfinite(effort).all()):
            raise ControllerError(f"joint targets must be finite, got positions {position.tolist()}", NON_FINITE)
        if len(effort) and np.abs(effort).max() > MAX_FORCE:
            raise ControllerError(f"joint target efforts beyond +-{MAX_FORCE:g} N m: {effort.tolist()}", OUT_OF_RANGE)
        if np.abs(position).max() > MAX_ANGLE or (len(velocity) and np.abs(velocity).max() > MAX_RATE):
            raise ControllerError(
                f"joint targets beyond +-{MAX_ANGLE:g} rad or +-{MAX_RATE:g} rad/s: {position.tolist()}", OUT_OF_RANGE
            )
        idx = np.array([self._index[n] for n in names])
        clipped = np.minimum(np.maximum(position, self.lower[idx]), self.upper[idx])  # np.clip's bits, faster
        clamped = tuple(names[i] for i in np.flatnonzero(position != clipped))
        return Targets(idx, clipped, velocity, clamped, effort)

    def apply_targets(self, targets: Targets) -> TargetReport:
        """Take the named joints' new targets (positions clamped into their limits); which were clamped."""
        self._hold_start = False
        target = self.target.copy()
        target[targets.indices] = targets.positions
        self.target = target
        if len(targets.velocities):
            tv = np.zeros(len(self.names)) if self.target_velocity is None else self.target_velocity.copy()
            tv[targets.indices] = targets.velocities
            self.target_velocity = tv
        if len(targets.efforts):
            effort = self.target_effort.copy()
            effort[targets.indices] = targets.efforts
            self.target_effort = effort
        self.targets_received += 1
        self.clamped_total += len(targets.clamped)
        return TargetReport(targets.clamped)

    def check_state(
        self, names: Sequence[str], position: Sequence[float], velocity: Sequence[float]
    ) -> tuple[np.ndarray, np.ndarray]:
        """The controlled joints' positions and velocities from a state message's arrays; raises
        ControllerError with a reason when the lengths, names or values are unusable."""
        try:
            return joint_arrays(names, position, velocity, self.names)
        except InputError as exc:
            raise ControllerError(str(exc), exc.reason) from None

    def update(
        self,
        stamp_ns: int,
        names: Sequence[str],
        position: Sequence[float],
        velocity: Sequence[float],
        feed_forward: Callable[[Sequence[float]], np.ndarray] | None = None,
    ) -> np.ndarray:
        """Efforts answering the state stamped ``stamp_ns``; the same state again gets the same answer.

        ``feed_forward(positions of the whole message)`` adds torques (e.g. gravity) before the
        effort limits apply."""
        q, qdot = self.check_state(names, position, velocity)
        return self.step(stamp_ns, q, qdot, None if feed_forward is None else lambda: feed_forward(position))

    def step(
        self, stamp_ns: int, q: np.ndarray, qdot: np.ndarray, feed_forward: Callable[[], np.ndarray] | None = None
    ) -> np.ndarray:
        """The efforts (the PID's, plus ``feed_forward()``, within the effort limits) answering the
        state stamped ``stamp_ns`` (checked: :meth:`check_state`); the same state again gets the
        same answer."""
        if self._seen(stamp_ns):
            assert isinstance(self._last_answer, np.ndarray), "one controller answers one way"
            return self._last_answer
        dt = self._take(stamp_ns, q)
        efforts = self.pid.update(self.target, q, qdot, dt, self.target_velocity)
        if feed_forward is not None or self.target_effort.any():
            own = self.target_effort if feed_forward is None else feed_forward() + self.target_effort
            limit = self.pid.gains.effort_limit
            efforts = np.clip(efforts + own, -limit, limit)
        self._last_answer = efforts
        return efforts

    def setpoints(
        self, stamp_ns: int, q: np.ndarray, feed_forward: Callable[[], np.ndarray] | None = None
    ) -> Setpoints:
        """What the servos track from the state stamped ``stamp_ns`` on (its positions ``q``,
        checked): the targets, their velocities, and ``feed_forward()`` within the effort limits;
        the same state again gets the same answer."""
        if self._seen(stamp_ns):
            assert isinstance(self._last_answer, Setpoints), "one controller answers one way"
            return self._last_answer
        self._take(stamp_ns, q)
        n = len(self.names)
        limit = self.pid.gains.effort_limit
        own = self.target_effort if feed_forward is None else feed_forward() + self.target_effort
        effort = np.clip(own, -limit, limit)
        velocity = np.zeros(n) if self.target_velocity is None else self.target_velocity
        answer = Setpoints(self.target, velocity, effort)
        self._last_answer = answer
        return answer

    def _seen(self, stamp_ns: int) -> bool:
        """Whether the state stamped ``stamp_ns`` was answered already (raises for an older one)."""
        if self._last_stamp is not None and stamp_ns <= self._last_stamp:
            if stamp_ns == self._last_stamp:
                return True
            raise ControllerError(
                f"joint state stamped {stamp_ns} ns arrived after one stamped {self._last_stamp} ns", OUT_OF_ORDER
            )
        return False

    def _take(self, stamp_ns: int, q: np.ndarray) -> float:
        """The state stamped ``stamp_ns`` is answered now: the seconds since the last (0 for the
        first, whose pose is held until a target comes)."""
        if self._hold_start and self._last_stamp is None:
            self.target = np.clip(q, self.lower, self.upper)
        dt = 0.0 if self._last_stamp is None else (stamp_ns - self._last_stamp) * 1e-9
        self._last_stamp = stamp_ns
        return dt

    def reset(self) -> None:
        """As constructed (a new run): no integral, no last state, no target (the run's first state
        is held until one comes)."""
        self.pid.reset()
        self._last_stamp = None
        self._hold_start = True
        self.target = np.zeros(len(self.names))
        self.target_velocity = None
        self.target_effort = np.zeros(len(self.names))
        self._last_answer = np.zeros(len(self.names))
