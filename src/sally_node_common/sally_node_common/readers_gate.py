"""A node's first one-off commands wait until they will reach their readers
(:mod:`.readiness`): a gate polled on the wall clock that opens once."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from .readiness import missing_readers
from .wall_timers import wall_timer


class ReadersGate:
    """Opens (calls ``on_open`` once) when every publisher of ``publishers`` has matched readers
    and the nodes named in ``readers`` are among them, polled every ``period`` wall seconds."""

    def __init__(
        self,
        node,
        publishers: Sequence,
        readers: Iterable[str],
        on_open: Callable[[], None],
        period: float = 0.01,
    ) -> None:
        self.node, self.publishers, self.readers, self.on_open = node, tuple(publishers), list(readers), on_open
        self.open = False
        """Whether the outputs reach their readers (and ``on_open`` ran)."""
        self._timer = wall_timer(node, period, self._check)

    def _check(self) -> None:
        info = self.node.get_subscriptions_info_by_topic
        seen = {p.topic_name: [i.node_name for i in info(p.topic_name)] for p in self.publishers}
        matched = {p.topic_name: p.get_subscription_count() for p in self.publishers}
        waiting = missing_readers(seen, matched, self.readers)
        if waiting:
            self.node.get_logger().info(f"waiting for {', '.join(waiting)}", throttle_duration_sec=5.0)
            return
        self.open = True
        self._timer.cancel()
        self.node.get_logger().info(f"commands reach {', '.join(sorted({n for v in seen.values() for n in v}))}")
        self.on_open()
