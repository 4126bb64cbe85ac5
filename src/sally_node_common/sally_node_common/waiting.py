"""Stamped items that wait for the readings of their stamp (pure, no ROS).

A node's tick (the state estimator's joint state, the sequencer's foot states) needs readings that
come on other topics (the IMU, the magnets' telemetry, the feet's ranges). It waits for them, so a
lockstep run takes the same readings on every host however late a message comes, and a realtime run
on a starved CPU takes its late readings rather than going on without. The wait is bounded: once
more than :attr:`Waiting.limit` items wait, the oldest goes on without what it waited for.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

T = TypeVar("T")


class Waiting(Generic[T]):
    """Items by stamp (ns), oldest first, at most :attr:`limit` of them."""

    def __init__(self, limit: int) -> None:
        if limit < 1:
            raise ValueError(f"a wait holds at least one item, got limit {limit}")
        self.limit = limit
        self._items: deque[tuple[int, T]] = deque()

    def __len__(self) -> int:
        return len(self._items)

    def put(self, stamp: int, item: T) -> list[tuple[int, T]]:
        """``item`` of ``stamp`` waits (in place of one of the same stamp: sent again, the newest
        counts). Returns the oldest beyond :attr:`limit`, taken out: what they waited for never
        came, and the caller goes on without it."""
        same = [i for i, (s, _) in enumerate(self._items) if s == stamp]
        if same:
            self._items[same[0]] = (stamp, item)
        else:
            self._items.append((stamp, item))
        over = []
        while len(self._items) > self.limit:
            over.append(self._items.popleft())
        return over

    def ready(self, arrived: Callable[[int], bool]) -> Iterator[tuple[int, T]]:
        """Take out the oldest items, in order, for as long as ``arrived(stamp)`` says their readings
        are in; the first still waiting stops it (later ones wait behind it)."""
        while self._items and arrived(self._items[0][0]):
            yield self._items.popleft()

    def drop_before(self, stamp: int) -> None:
        """Forget the items stamped before ``stamp`` (a time line a sim reset ended)."""
        self._items = deque(entry for entry in self._items if entry[0] >= stamp)

    def clear(self) -> None:
        """Forget every item (a new sim)."""
        self._items.clear()
