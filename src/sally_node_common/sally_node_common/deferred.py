"""Work that can wait for a spare moment, done in the order it came.

A composed graph's loop thread spends much of each control period waiting for the physics thread
(in the composed f2w graph, about a third of its time). The run's record and recording need not be
made the instant a message is published: the messages are not changed afterwards, and each carries
the wall time it was published at. So the host puts that work here (:meth:`Deferred.add`), and the
sim's loop does it while it waits (:meth:`Deferred.run` with ``until``: the physics run is done).
Nothing else is changed: what is written is what would have been written, in the same order.

When nobody does the work (no sim in the process, or no wait to spare), at most :attr:`limit` items
wait: adding one more does the oldest first, so memory stays bounded and nothing is lost. Whoever
ends the process runs what is left (:meth:`run` with no ``until``) before it closes the files.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable

LIMIT = 4096
"""Items that may wait (the composed f2w graph records ~4500 messages per second of sim time)."""


class Deferred:
    """A FIFO of zero-argument callables; safe to add to from any thread, run by one thread at a time."""

    def __init__(self, limit: int = LIMIT) -> None:
        if limit < 1:
            raise ValueError(f"limit must be at least 1, got {limit}")
        self.limit = limit
        self._items: deque[Callable[[], object]] = deque()
        self._running = threading.RLock()
        """Held while work runs: one thread at a time (the same thread may run more, if work adds work)."""

    def __len__(self) -> int:
        return len(self._items)

    def add(self, work: Callable[[], object]) -> None:
        """Queue ``work``; past :attr:`limit` waiting, do the oldest now (in this thread) until half are left."""
        self._items.append(work)
        if len(self._items) > self.limit:
            self.run(lambda: len(self._items) <= self.limit // 2)

    def run(self, until: Callable[[], bool] | None = None) -> int:
        """Do the waiting work, oldest first, until ``until()`` says stop (asked before each item)
        or none is left; how many were done. An error in one item goes to the caller, the rest wait."""
        done = 0
        with self._running:
            while self._items and (until is None or not until()):
                self._items.popleft()()
                done += 1
        return done
