"""The controller's pure core: joint targets in, efforts out, one answer per state.

Wraps :class:`JointPID` with what a node needs: targets by joint name (outside the joint limits
they are clamped and reported; non-finite ones are rejected), states by joint name in any order,
the period taken from consecutive state stamps, and exactly one answer per state stamp: a state
seen again (a re-sent lockstep state) gets the same efforts, without running the PID twice.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from .errors import ControllerError
from .pid import JointPID, PIDGains


@dataclass(frozen=True)
class TargetReport:
    clamped: tuple[str, ...]
    """Joints whose requested position was outside its limits (clamped to the nearest limit)."""


class JointController:
    def __init__(self, names: Sequence[str], lower: np.ndarray, upper: np.ndarray, gains: PIDGains) -> None:
        if len(gains) != len(names) or len(lower) != len(names) or len(upper) != len(names):
            raise ControllerError("names, limits and gains must all have one entry per joint")
        self.names = tuple(names)
        self.lower, self.upper = np.asarray(lower, float), np.asarray(upper, float)
        self._index = {n: i for i, n in enumerate(self.names)}
        self.pid = JointPID(gains)
        self.target = np.zeros(len(names))
        self.target_velocity: np.ndarray | None = None
        self.targets_received = 0
        self.clamped_total = 0
        self._state_maps: dict[tuple[str, ...], np.ndarray] = {}
        self._last_stamp: int | None = None
        self._last_efforts = np.zeros(len(names))

    def set_gains(self, gains: PIDGains) -> None:
        integral = self.pid.integral.copy()
        self.pid = JointPID(gains)
        self.pid.integral[:] = integral

    def set_targets(self, names: Sequence[str], positions: Sequence[float], velocities: Sequence[float] = ()) -> TargetReport:
        """Set the targets of the named joints (others keep theirs)."""
        names = list(names)
        positions = np.asarray(positions, dtype=float)
        velocities = np.asarray(velocities, dtype=float)
        if not names or len(positions) != len(names):
            raise ControllerError(f"joint targets need one position per name: {len(names)} names, {len(positions)} positions")
        if len(velocities) not in (0, len(names)):
            raise ControllerError(f"joint target velocities must be empty or one per name, got {len(velocities)}")
        unknown = [n for n in names if n not in self._index]
        if unknown:
            raise ControllerError(f"joint targets name unknown joints {unknown}; controlled joints: {list(self.names)}")
        if len(set(names)) != len(names):
            raise ControllerError("joint targets name a joint twice")
        if not (np.isfinite(positions).all() and np.isfinite(velocities).all()):
            raise ControllerError(f"joint targets must be finite, got positions {positions.tolist()}")
        idx = np.array([self._index[n] for n in names])
        clipped = np.clip(positions, self.lower[idx], self.upper[idx])
        clamped = tuple(n for n, a, b in zip(names, positions, clipped) if a != b)
        target = self.target.copy()
        target[idx] = clipped
        self.target = target
        if len(velocities):
            tv = np.zeros(len(self.names)) if self.target_velocity is None else self.target_velocity.copy()
            tv[idx] = velocities
            self.target_velocity = tv
        self.targets_received += 1
        self.clamped_total += len(clamped)
        return TargetReport(clamped)

    def state_map(self, names: Sequence[str]) -> np.ndarray:
        """Indices into a joint-state message of each controlled joint (cached per name list)."""
        key = tuple(names)
        found = self._state_maps.get(key)
        if found is None:
            where = {n: i for i, n in enumerate(key)}
            missing = [n for n in self.names if n not in where]
            if missing:
                raise ControllerError(f"joint state lacks controlled joints {missing}")
            found = self._state_maps[key] = np.array([where[n] for n in self.names])
        return found

    def update(
        self,
        stamp_ns: int,
        names: Sequence[str],
        position: Sequence[float],
        velocity: Sequence[float],
        feed_forward: Callable[[np.ndarray], np.ndarray] | None = None,
    ) -> np.ndarray:
        """Efforts answering the state stamped ``stamp_ns``; the same state again gets the same answer.

        ``feed_forward(positions of the whole message)`` adds torques (e.g. gravity) before the
        effort limits apply."""
        if self._last_stamp is not None and stamp_ns <= self._last_stamp:
            if stamp_ns == self._last_stamp:
                return self._last_efforts
            raise ControllerError(f"joint state stamped {stamp_ns} ns arrived after one stamped {self._last_stamp} ns")
        position, velocity = np.asarray(position, dtype=float), np.asarray(velocity, dtype=float)
        if len(position) != len(names) or len(velocity) != len(names):
            raise ControllerError(f"joint state has {len(names)} names, {len(position)} positions, {len(velocity)} velocities")
        idx = self.state_map(names)
        q, qdot = position[idx], velocity[idx]
        if not (np.isfinite(q).all() and np.isfinite(qdot).all()):
            raise ControllerError("joint state has non-finite positions or velocities")
        dt = 0.0 if self._last_stamp is None else (stamp_ns - self._last_stamp) * 1e-9
        self._last_stamp = stamp_ns
        efforts = self.pid.update(self.target, q, qdot, dt, self.target_velocity)
        if feed_forward is not None:
            limit = self.pid.gains.effort_limit
            efforts = np.clip(efforts + feed_forward(position), -limit, limit)
        self._last_efforts = efforts
        return efforts

    def reset(self) -> None:
        self.pid.reset()
        self._last_stamp = None
