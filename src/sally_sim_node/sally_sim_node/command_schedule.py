"""Commands that take effect at the sim time their stamp names. No ROS.

A sequencer stamps its magnet switch for its next IK tick, so a lockstep run applies it at the same
physics step every time, whichever thread or process delivered it and when. A command whose stamp
is not ahead of sim time (or that has none) is due at once, before the next step. Commands due at
the same time run in the order they came.

Thread-safe: callbacks add, the physics loop takes what is due.
"""

from __future__ import annotations

import bisect
import threading
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")

NOTHING_SCHEDULED = 1 << 62
"""Steps until the next command when none is scheduled (more than any run asks for)."""


class CommandSchedule(Generic[T]):
    """Commands waiting for the sim time they are stamped for, taken in stamp order (thread-safe)."""

    def __init__(self) -> None:
        self._stamps: list[int] = []
        self._items: list[T] = []
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._items)  # read unlocked by the loop: a list's length is read atomically

    def add(self, stamp: int, item: T) -> None:
        """``item`` takes effect at sim time ``stamp`` (ns; 0 or past: before the next step)."""
        stamp = max(int(stamp), 0)
        with self._lock:
            at = bisect.bisect_right(self._stamps, stamp)  # after those with the same stamp: arrival order
            self._stamps.insert(at, stamp)
            self._items.insert(at, item)

    def take_due(self, now: int) -> list[T]:
        """The items whose time has come at sim time ``now`` (ns), oldest first; they leave the schedule."""
        with self._lock:
            n = bisect.bisect_right(self._stamps, now)
            due = self._items[:n]
            del self._stamps[:n], self._items[:n]
        return due

    def steps_until_next(self, now: int, step_ns: int) -> int:
        """Whole physics steps of ``step_ns`` before the next item falls due (at least 1)."""
        with self._lock:
            following = self._stamps[0] if self._stamps else None
        if following is None:
            return NOTHING_SCHEDULED
        return max(1, -(-(following - now) // step_ns))

    def clear(self) -> None:
        """Drop every command waiting."""
        with self._lock:
            self._stamps.clear()
            self._items.clear()


Action = Callable[[], None]
"""What the sim node schedules: a function that changes the physics (a magnet switch, a load)."""


def run_due(schedule: CommandSchedule[Action], now: int, step_ns: int) -> int:
    """Run the actions due at ``now``; the whole steps until the next one."""
    for action in schedule.take_due(now):
        action()
    return schedule.steps_until_next(now, step_ns)
