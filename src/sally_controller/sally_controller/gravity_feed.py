"""The controller's gravity feed-forward on the states' stamps: each leg's gravity torque at the
measured joints and the body's orientation, recomputed once per ``period_ns`` of sim time. No ROS.

The body orientation used for the state stamped ``t`` is the newest odometry at least one period
older than ``t``: in lockstep it has surely arrived, so the torque does not depend on which message
came first (level before any).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from sally_description import JOINT_NAMES

from .errors import ControllerError
from .gravity import GravityModel

KEPT_ORIENTATIONS = 64
"""How many odometry orientations are kept (the newest)."""


class GravityFeed:
    """Gravity torques by stamp, from the states and the odometry."""

    def __init__(self, gravity: GravityModel, period_ns: int) -> None:
        self.gravity = gravity
        self.period_ns = period_ns
        """Sim ns between recomputations (the torque changes slowly)."""
        self._orientations: dict[int, tuple[float, float, float, float]] = {}  # odom stamp -> body quaternion
        self._joint_map: dict[tuple[str, ...], np.ndarray] = {}
        self._cache: tuple[int, np.ndarray] | None = None

    def orientation(self, stamp: int, quat_wxyz: Sequence[float]) -> None:
        """The body's orientation at ``stamp`` (the odometry)."""
        self._orientations[stamp] = tuple(quat_wxyz)  # type: ignore[assignment]
        while len(self._orientations) > KEPT_ORIENTATIONS:
            self._orientations.pop(min(self._orientations))

    def body_orientation(self, stamp: int) -> tuple[float, float, float, float]:
        """The newest body orientation at least one period older than ``stamp`` (level before any)."""
        older = [t for t in self._orientations if t <= stamp - self.period_ns]
        return self._orientations[max(older)] if older else (1.0, 0.0, 0.0, 0.0)

    def torques(self, stamp: int, names: Sequence[str], position: Sequence[float]) -> np.ndarray:
        """The gravity torques of the state stamped ``stamp`` (joints ``names`` at ``position``);
        ControllerError names the joints a state lacks."""
        if self._cache is not None and 0 <= stamp - self._cache[0] < self.period_ns:
            return self._cache[1]
        key = tuple(names)
        idx = self._joint_map.get(key)
        if idx is None:
            where = {n: i for i, n in enumerate(key)}
            missing = [n for n in JOINT_NAMES if n not in where]
            if missing:
                raise ControllerError(f"gravity compensation needs every joint; the state lacks {missing}")
            idx = self._joint_map[key] = np.array([where[n] for n in JOINT_NAMES])
        torques = self.gravity.torques(np.asarray(position, dtype=float)[idx], self.body_orientation(stamp))
        self._cache = (stamp, torques)
        return torques

    def clear(self) -> None:
        """Forget the orientations and the last torques (a new time line)."""
        self._orientations.clear()
        self._cache = None
