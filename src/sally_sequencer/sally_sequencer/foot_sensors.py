"""Each foot's sensors as the sequencer reads them: its range sensor and its contact reading, by
stamp, and the reading a tick may use (pure, no ROS).

A tick at the foot states of ``t`` takes, per foot, the newest reading stamped at or before
``t - READING_AGE_NS``: a reading that old has reached every reader by then, so the choice depends
on sim time alone, not on when the message came (a lockstep run stays repeatable across hosts).
"""

from __future__ import annotations

import math
from collections import deque

READING_AGE_NS = 20_000_000
"""ns: a tick uses readings at least this old (one period of the feet's 50 Hz sensors)."""
KEPT = 16
"""Readings kept per foot and sensor (0.3 s at 50 Hz)."""
RANGE, CONTACT = "range", "contact"


class FootSensors:
    """Per foot, its latest readings: ``range`` (m from the magnet's face along its normal; inf:
    nothing within the sensor's reach) and ``contact`` (1.0 where the contact sensor says contact)."""

    def __init__(self) -> None:
        self._readings: dict[tuple[str, str], deque[tuple[int, float]]] = {}

    def add(self, sensor: str, foot: str, stamp_ns: int, value: float) -> None:
        """A reading of ``foot``'s ``sensor`` stamped ``stamp_ns``; a stamp not after the newest
        kept starts a new time line (a reset, a new sim): what came before is dropped."""
        kept = self._readings.setdefault((sensor, foot), deque(maxlen=KEPT))
        if kept and stamp_ns <= kept[-1][0]:
            kept.clear()
        kept.append((stamp_ns, float(value)))

    def at(self, sensor: str, foot: str, tick_ns: int) -> float:
        """``foot``'s ``sensor`` for the tick at ``tick_ns`` (nan: no reading old enough)."""
        due = tick_ns - READING_AGE_NS
        return next((v for s, v in reversed(self._readings.get((sensor, foot), ())) if s <= due), math.nan)

    def range(self, foot: str, tick_ns: int) -> float:
        """``foot``'s range for the tick at ``tick_ns`` (m; nan: none yet)."""
        return self.at(RANGE, foot, tick_ns)

    def contact(self, foot: str, tick_ns: int) -> bool:
        """Whether ``foot``'s contact sensor says contact for the tick at ``tick_ns``."""
        return self.at(CONTACT, foot, tick_ns) == 1.0
