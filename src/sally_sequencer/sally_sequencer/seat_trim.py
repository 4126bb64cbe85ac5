"""SeatTrim: a seating foot's target moved in the plate's plane until the measured foot is on it.

The leg's joints track their targets 0.5-1 deg behind (the PID's integral takes ~2.5 s, gravity and
the leg's own load do the rest), which at a 0.3 m leg put the back feet 4 mm beside their plant
points on the wall although the IK's own solution was within 1 mm. The trim integrates the
measured error in the plate's plane (never along its normal: the plate stops the foot there) and
adds it to the target, an outer loop around IK and controller that needs no model of either.
Pure: times are sim seconds, positions world metres.
"""

from __future__ import annotations

import numpy as np

from .errors import SequenceError

TRIM_RATE = 6.0
"""1/s: the trim closes an error with a 0.17 s time constant (95 % within a 0.5 s seat), slow
against the ~60 ms joint loop."""
TRIM_LIMIT = 0.01
"""m: the most the target is moved; a larger error is not tracking lag and the trim does not chase it."""


class SeatTrim:
    """Moves a seating foot's target in the plate's plane by the measured foot's integrated error, within a limit."""

    def __init__(self, normal: np.ndarray, rate: float = TRIM_RATE, limit: float = TRIM_LIMIT) -> None:
        """``normal``: the plate's normal (any length, world); ``rate`` in 1/s; ``limit`` in m."""
        normal = np.asarray(normal, dtype=float)
        if normal.shape != (3,) or not np.isfinite(normal).all() or np.linalg.norm(normal) < 1e-9:
            raise SequenceError(f"seat trim normal must be a finite non-zero 3-vector, got {normal!r}")
        if not (np.isfinite(rate) and rate >= 0 and np.isfinite(limit) and limit >= 0):
            raise SequenceError(f"seat trim rate and limit must be non-negative and finite, got {rate!r}, {limit!r}")
        self.normal = normal / np.linalg.norm(normal)
        self.rate, self.limit = float(rate), float(limit)
        self.offset = np.zeros(3)
        self._last_t: float | None = None

    def update(self, t: float, target: np.ndarray, measured: np.ndarray) -> np.ndarray:
        """The trimmed target for sim time ``t`` (non-decreasing) given the nominal ``target`` and
        the ``measured`` foot; the first call only starts the clock."""
        target = np.asarray(target, dtype=float)
        if self._last_t is not None:
            if t < self._last_t:
                raise SequenceError(f"seat trim time went back from {self._last_t!r} to {t!r}")
            error = target - np.asarray(measured, dtype=float)
            error -= (error @ self.normal) * self.normal
            self.offset += self.rate * (t - self._last_t) * error
            size = float(np.linalg.norm(self.offset))
            if size > self.limit:
                self.offset *= self.limit / size
        self._last_t = t
        return target + self.offset
