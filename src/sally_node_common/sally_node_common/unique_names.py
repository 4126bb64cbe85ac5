"""One node of a name in a ROS domain: a node that finds another of its name as it starts refuses to run.

ROS 2 lets two nodes share a name and then mixes them up: their parameters, services and
diagnostics answer under one name, and two sims publish two interleaved ``/clock`` streams. A
second graph started on a domain that already runs one is the usual way this happens. So a node
watches the graph during its first :data:`START_WINDOW` wall seconds (discovery of the nodes
already running takes up to a few seconds on loopback); if a node of its own full name shows up
there, the newcomer stops and exits 2 with the reason. A node past its window keeps running: it
was there first.

Two nodes of one name started within a window of each other both stop: neither can tell that it
came first. That needs each to see the other, and discovery is not symmetric in time: one side can
see the clash seconds before the other (a participant announces itself again only every few
seconds). So a node that refuses says so at once but stays in the graph, idle, until the clash is
over (the other went too) or for :data:`LINGER` s (the other was there first and stays); only then
does it exit. Without that, the first to see the clash was gone before the other could see it, and
the other ran on beside whatever the first had already sent.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence

START_WINDOW = 5.0
"""Wall seconds after start during which a node looks for another node of its name."""
POLL = 0.2
"""Wall seconds between two looks at the graph."""
LINGER = START_WINDOW
"""Wall seconds a refusing node at most stays in the graph so the other node of its name, if it
is still in its own window, sees the clash too."""


def full_name(name: str, namespace: str) -> str:
    """``/namespace/name`` as ROS prints it (``/name`` in the root namespace)."""
    return f"{namespace.rstrip('/')}/{name}"


def duplicated(graph_names: Iterable[tuple[str, str]], ours: Sequence[str]) -> list[str]:
    """The full names among ``ours`` that ``graph_names`` ((name, namespace) of every node the
    graph knows, ours included) holds more than once."""
    counts = Counter(full_name(name, namespace) for name, namespace in graph_names)
    return [name for name in ours if counts[name] > 1]


class UniqueNameWatch:
    """Looks at the graph (``graph_names()``) every :data:`POLL` s for ``window`` s after
    :meth:`start`; on a duplicate of one of ``ours`` it sets :attr:`refusal` and then ``stop``."""

    def __init__(
        self,
        graph_names: Callable[[], Iterable[tuple[str, str]]],
        ours: Sequence[str],
        stop: threading.Event,
        domain_id: int | None = None,
        window: float = START_WINDOW,
    ) -> None:
        self._graph_names, self.ours, self._stop = graph_names, list(ours), stop
        self.domain_id, self.window = domain_id, window
        self.refusal: str | None = None
        """Why this process must not run (None while it may)."""

    def check(self) -> bool:
        """One look: True (and :attr:`refusal` set) when a name of ours is taken twice."""
        twice = duplicated(self._graph_names(), self.ours)
        if twice:
            where = "this ROS domain" if self.domain_id is None else f"ROS domain {self.domain_id}"
            self.refusal = (
                f"another node named {', '.join(twice)} is already running in {where} (a second graph on the "
                "same domain?); this one stops. Give each graph its own ROS_DOMAIN_ID."
            )
        return self.refusal is not None

    def linger(self, timeout: float = LINGER) -> bool:
        """After a refusal: wait (polling every :data:`POLL` s, at most ``timeout`` s) while a name
        of ours is still taken twice, so the other node sees us before we go. True when the clash
        ended (the other stopped too), False when the time ran out (it stays: it came first)."""
        deadline = time.monotonic() + timeout
        while duplicated(self._graph_names(), self.ours):
            if time.monotonic() >= deadline:
                return False
            time.sleep(POLL)
        return True

    def start(self) -> threading.Thread:
        """Watch in a daemon thread; it ends with the window, a refusal or ``stop``."""

        def watch() -> None:
            deadline = time.monotonic() + self.window
            while time.monotonic() < deadline and not self._stop.wait(POLL):
                if self.check():
                    self._stop.set()
                    return

        thread = threading.Thread(target=watch, name="unique name watch", daemon=True)
        thread.start()
        return thread
