"""Readings of a sensor (or a switch) kept by stamp, and the one a node's tick may use (pure, no ROS).

A tick at the state of ``t`` takes, per key, the newest reading stamped at or before
``t - READING_AGE_NS``: a reading that old has reached every reader by then (the graph has answered
several states since it was published), so the choice depends on sim time alone, not on when the
message came, and a lockstep run stays repeatable across hosts. The sequencer keeps each foot's
range and contact readings so; the state estimator which feet hold.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Hashable

READING_AGE_NS = 20_000_000
"""ns: a tick uses readings at least this old (one period of the feet's 50 Hz telemetry)."""
KEPT = 16
"""Readings kept per key (0.3 s at 50 Hz)."""


class StampedReadings:
    """Per key (a foot, a (sensor, foot) pair), its latest readings by stamp."""

    def __init__(self) -> None:
        self._readings: dict[Hashable, deque[tuple[int, float]]] = {}

    def add(self, key: Hashable, stamp_ns: int, value: float) -> None:
        """A reading of ``key`` stamped ``stamp_ns``; the newest's stamp again is the same reading
        (sent twice: kept once), an older stamp starts a new time line (a reset, a new sim): what
        came before is dropped."""
        kept = self._readings.setdefault(key, deque(maxlen=KEPT))
        if kept and stamp_ns == kept[-1][0]:
            return
        if kept and stamp_ns < kept[-1][0]:
            kept.clear()
        kept.append((stamp_ns, float(value)))

    def at(self, key: Hashable, tick_ns: int) -> float:
        """``key``'s reading for the tick at ``tick_ns`` (nan: none old enough)."""
        due = tick_ns - READING_AGE_NS
        return next((v for s, v in reversed(self._readings.get(key, ())) if s <= due), math.nan)

    def caught_up(self, key: Hashable, tick_ns: int, start_ns: int = 0, period_ns: int = READING_AGE_NS) -> bool:
        """Whether the reading of ``key`` a tick at ``tick_ns`` takes is final: no reading that old
        can exist on this time line yet (it started at ``start_ns``, its first reading comes a
        ``period_ns`` in), or one stamped within a period of ``tick_ns - READING_AGE_NS``, or later,
        is in (readings of one writer come in order). A node that is not caught up waits for the
        reading (or, in lockstep, for its next input)."""
        due = tick_ns - READING_AGE_NS
        if due < start_ns + period_ns:
            return True
        kept = self._readings.get(key)
        return kept is not None and len(kept) > 0 and kept[-1][0] > due - period_ns

    def drop_before(self, stamp_ns: int) -> None:
        """Every reading stamped before ``stamp_ns`` forgotten: a time line that ended there (a sim
        reset; its notice may come after the first readings of the new one, which are kept)."""
        for kept in self._readings.values():
            while kept and kept[0][0] < stamp_ns:
                kept.popleft()

    def clear(self) -> None:
        """Every reading forgotten."""
        self._readings.clear()
