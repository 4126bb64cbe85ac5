"""Holding states back until the targets of their IK period have come. No ROS; the caller's clock.

With an IK period P > 0 (ns of sim time), the IK stamps its targets with the state it solved, at
multiples of P. A state stamped t is answered only once the targets of the latest multiple of P at
or before t (``latency`` IK periods back, :func:`~sally_node_common.time_contract.targets_for`) are
in; a state that arrives before them is held back (in arrival order) and released when they come.
With a latency, targets usually come while the states before theirs are still answered: they are
kept (:meth:`TargetSync.keep`) and handed over (:meth:`TargetSync.due`) when the first state they
answer is. Then the efforts a lockstep sim gets for t never depend on whether the state or the
targets reached the controller first.

When a held state has waited more than ``wait`` seconds (the IK is gone: with ``partner_present``,
it is also off the ROS graph, see :mod:`sally_node_common.partners`), the sync is *lost*: the
states are answered at once with the latest targets (the robot holds its last pose; of several held
states only the newest is still answered, the others are dropped and counted) until targets come
again, or until an IK that had left the graph is on it again (a restarted one): then the states are
held for its targets as before the silence, so a lockstep sim waits for the IK's first answer instead
of running on without it for as long as the new IK takes to answer (wall time, so every run a
different stretch of sim time). With P = 0 nothing is held: every state is answered with the latest
targets.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Generic, TypeVar

from sally_node_common.partners import given_up, longest_wait
from sally_node_common.time_contract import targets_for

T = TypeVar("T")
LONGEST_WAIT = longest_wait(1)
"""Wall seconds a state is held at most while the IK is on the graph (one link above the IK's own
wait for the sequencer: :mod:`sally_node_common.partners`)."""


class TargetSync(Generic[T]):
    """Holds states back until the IK's targets of their period are in; *lost* after ``wait`` s without them."""

    def __init__(self, period_ns: int = 0, wait: float = 10.0, latency: int = 0) -> None:
        self.period_ns = period_ns
        """IK period (ns); 0: never hold."""
        self.latency = latency
        """IK latency (IK periods): the targets of t answer the states from t + latency periods."""
        self.wait = wait
        """Seconds (the caller's clock) a state is held before the sync counts as lost."""
        self.target_stamp = -1
        """Newest stamp of targets received."""
        self.lost = False
        self.losses = 0
        """How often the sync was lost (targets stopped coming)."""
        self.dropped = 0
        """States never answered because newer ones waited beside them while the sync was lost."""
        self._held: deque[tuple[float, int, T]] = deque()
        self._kept: deque[tuple[int, object]] = deque()
        """Targets (stamp, targets) that came before the first state they answer, oldest first."""
        self.partner_present: Callable[[], bool] | None = None
        """Whether the IK is still on the graph (None: the wait alone decides)."""
        self._gone = False
        """The sync is lost and the IK was seen off the graph since: its return re-arms the sync."""
        self.rearmed = 0
        """How often an IK back on the graph re-armed the lost sync."""

    def __len__(self) -> int:
        return len(self._held)

    def needs_targets(self, stamp: int) -> bool:
        """Whether a state stamped ``stamp`` still waits for its period's targets."""
        return self.period_ns > 0 and not self.lost and self.target_stamp < self._due_stamp(stamp)

    def _due_stamp(self, stamp: int) -> int:
        return targets_for(stamp, self.period_ns, self.latency)

    def keeps(self) -> bool:
        """Whether targets wait for their first state (:meth:`keep`) rather than apply at once:
        with a latency (every one, the IK's solve of the state 0 too: it answers 5 ms on, and the
        states before it must not depend on when it came)."""
        return self.period_ns > 0 and self.latency > 0

    def keep(self, stamp: int, targets: object) -> None:
        """Targets stamped ``stamp`` that apply from the first state they answer (:meth:`due`);
        then call :meth:`targets` for the states they release."""
        self._kept.append((stamp, targets))

    def due(self, stamp: int) -> list:
        """The kept targets to apply, oldest first, before the state stamped ``stamp`` is answered:
        those of its IK period and older (every kept one while the sync is lost)."""
        out = []
        while self._kept and (self.lost or self._kept[0][0] <= self._due_stamp(stamp)):
            out.append(self._kept.popleft()[1])
        return out

    def state(self, stamp: int, item: T, now: float) -> list[T]:
        """A state arrived at ``now``: the states to answer now, oldest first (``item`` among them
        unless it waits)."""
        if self.lost and self.partner_present is not None:
            if not self.partner_present():
                self._gone = True
            elif self._gone:  # an IK is on the graph again: hold states for its targets
                self._gone, self.lost = False, False
                self.rearmed += 1
        if not self._held and not self.needs_targets(stamp):
            return [item]
        self._held.append((now, stamp, item))
        return self._release(now)

    def targets(self, stamp: int) -> list[T]:
        """Targets stamped ``stamp`` arrived (and were applied): the states they release."""
        self.target_stamp = max(self.target_stamp, stamp)
        self.lost = self._gone = False
        return self._release(None)

    def check(self, now: float) -> list[T]:
        """A periodic look at ``now``: states released because their wait ran out."""
        return self._release(now) if self._held else []

    def restart(self) -> None:
        """A new sim (states start over at an older stamp): forget the old one's targets and states."""
        self.target_stamp, self.lost, self._gone = -1, False, False
        self._held.clear()
        self._kept.clear()

    def _release(self, now: float | None) -> list[T]:
        out: list[T] = []
        while self._held:
            held_at, stamp, item = self._held[0]
            if (
                now is not None
                and not self.lost
                and given_up(now - held_at, self.wait, self.partner_present, LONGEST_WAIT)
            ):
                self.lost = True
                self.losses += 1
            if self.needs_targets(stamp):
                break
            self._held.popleft()
            if self.lost and self._held:
                self.dropped += 1  # only the newest state is still waited on
                continue
            out.append(item)
        return out
