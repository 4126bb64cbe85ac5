"""Which states the IK solves, and when. No ROS; the caller's clock.

* :class:`StampPairs` pairs a joint state with the odometry carrying the same stamp (the sim
  publishes both for one physics state, on two topics, in no guaranteed order). A pair completes
  when its second half arrives; anything older than a completed pair is never solved and goes.
* :class:`TickWait` (lockstep graphs): a state is solved only once the sequencer has ticked at its
  stamp (sent the target, or an empty tick, for that step), so a run does not depend on whether the
  state or the sequencer's target came first. States wait in order (with an IK latency the sim may
  be a tick ahead). When no tick comes within ``wait`` seconds (the sequencer is gone) the newest
  state is solved without, and the following ones are not held until the sequencer ticks again.
  Before the sequencer's first tick of a run the wait has no limit (the sequencer is still coming
  up; the sim waits the same way for its first answer).

The wait goes on past ``wait`` while ``partner_present()`` says the sequencer is still on the ROS
graph (a slow sequencer on a busy machine), at most :data:`~sally_node_common.partners.SLOW_PARTNER_WAIT`.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Generic, TypeVar

from sally_node_common.partners import given_up

A = TypeVar("A")
B = TypeVar("B")
T = TypeVar("T")


class StampPairs(Generic[A, B]):
    """Pairs two streams by stamp: a pair is given out once both halves of a stamp are in (``pending`` at most wait)."""

    def __init__(self, pending: int = 64) -> None:
        if pending < 1:
            raise ValueError(f"pending must be >= 1, got {pending}")
        self.pending = pending
        """How many unmatched stamps of each kind are kept while their partner is missing."""
        self._first: dict[int, A] = {}
        self._second: dict[int, B] = {}

    def add_first(self, stamp: int, value: A) -> tuple[A, B] | None:
        """The first half of ``stamp``; the pair when the second is in already."""
        self._first[stamp] = value
        return self._match(stamp)

    def add_second(self, stamp: int, value: B) -> tuple[A, B] | None:
        """The second half of ``stamp``; the pair when the first is in already."""
        self._second[stamp] = value
        return self._match(stamp)

    def clear(self) -> None:
        """Forget every half waiting (a new time line)."""
        self._first.clear()
        self._second.clear()

    def __len__(self) -> int:
        return len(self._first) + len(self._second)

    def _match(self, stamp: int) -> tuple[A, B] | None:
        for waiting in (self._first, self._second):
            while len(waiting) > self.pending:
                waiting.pop(next(iter(waiting)))  # the oldest arrival
        if stamp not in self._first or stamp not in self._second:
            return None
        pair = self._first.pop(stamp), self._second.pop(stamp)
        for waiting in (self._first, self._second):
            for old in [t for t in waiting if t < stamp]:
                del waiting[old]
        return pair


class TickWait(Generic[T]):
    """States to solve wait, in order, for the sequencer's tick of their stamp (lockstep); after ``wait`` s, not."""

    def __init__(self, enabled: bool, wait: float = 2.0) -> None:
        self.enabled = enabled
        self.wait = wait
        """Seconds (the caller's clock) a state waits for its tick before it is solved without."""
        self.tick_stamp = -1
        """Newest stamp the sequencer ticked at."""
        self.lost = False
        self.timeouts = 0
        self.dropped = 0
        """States never solved because newer ones waited beside them when the wait ran out."""
        self._waiting: deque[tuple[int, T, float]] = deque()
        self.partner_present: Callable[[], bool] | None = None
        """Whether the sequencer is still on the graph (None: the wait alone decides)."""

    @property
    def waiting_stamp(self) -> int | None:
        """The stamp of the oldest state waiting, if any."""
        return self._waiting[0][0] if self._waiting else None

    def __len__(self) -> int:
        return len(self._waiting)

    def state(self, stamp: int, item: T, now: float, first: bool = False, last_solved: int | None = None) -> list[T]:
        """A state to solve arrived at ``now``: the states to solve now, oldest first (``item``
        unless it waits). The ``first`` state of a run never waits: the sequencer steps on the IK's
        first foot states. Nor does one that comes when the sequencer has answered the IK's last
        solve (``last_solved``, ns) and nothing waits: the sequencer ticks only on foot states, and
        has none past that solve (states skipped: the IK went without odometry for a while). With an
        IK latency the sim runs an IK period ahead of the solves, so the state of the next tick can
        come while one waits: both wait, in order, and each is solved."""
        answered = last_solved is not None and self.tick_stamp > last_solved
        if not self.enabled or first or self.lost or ((self.tick_stamp >= stamp or answered) and not self._waiting):
            return [item]
        if not self._waiting or self._waiting[-1][0] < stamp:  # a state sent again waits once
            self._waiting.append((stamp, item, now))
        return []

    def tick(self, stamp: int) -> list[T]:
        """The sequencer ticked at ``stamp``: the waiting states it releases, oldest first."""
        self.tick_stamp = stamp
        self.lost = False
        out = []
        while self._waiting and self._waiting[0][0] <= stamp:
            out.append(self._waiting.popleft()[1])
        return out

    def check(self, now: float) -> list[T]:
        """The newest waiting state when the oldest one's wait ran out at ``now`` (the sync is lost;
        the others are dropped and counted), else nothing."""
        if self.tick_stamp < 0:
            return []  # no tick yet this run: no limit
        if self._waiting and given_up(now - self._waiting[0][2], self.wait, self.partner_present):
            self.lost = True
            self.timeouts += 1
            self.dropped += len(self._waiting) - 1
            item = self._waiting[-1][1]
            self._waiting.clear()
            return [item]
        return []

    def restart(self) -> None:
        """Forget the ticks and the states waiting (a new time line)."""
        self.tick_stamp, self.lost = -1, False
        self._waiting.clear()
