"""One raw subscription per topic of a graph, fanned out to sinks (the MCAP file, Foxglove).

Each topic is read once, as the serialized CDR the nodes sent (rclpy ``raw=True``: nothing is
converted in Python), and every sink gets ``(topic, data, log_time_ns)``. Topics whose publishers
keep their history (transient local) are read the same way, so what was published before the tap
matched (the robot description, /tf_static, the kept targets) arrives too.
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable, Mapping, Sequence

from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy

from .topology import RECORDED
from .topology import TOPICS as TOPICS_DECLARED

Sink = Callable[[str, bytes, int], None]

TOPICS: dict[str, str] = RECORDED
"""Every topic the graphs use that a recording takes, with its type (:data:`.topology.RECORDED`)."""
KEPT_TOPICS = frozenset(name for name, topic in TOPICS_DECLARED.items() if topic.kept)
"""Topics whose publishers keep their history (transient local)."""
DEPTH = 10000
"""Messages a subscription holds while the sinks are busy: ten seconds of /clock (1 kHz). One
second was not enough: with three graphs side by side on two cores the runner's tap fell more than
a second behind now and then, and 6-45 % of /clock went unrecorded in gaps of 10-200 ms (the 200 Hz
streams, five seconds deep, lost nothing). 31 subscriptions this deep cost the runner 11 MB."""
QUIET_S = 0.25
"""s without a message after which a drained tap (:meth:`RawTap.drain`) counts as caught up."""


def message_class(type_name: str):
    """The generated class of ``pkg/msg/Type``."""
    package, kind, name = type_name.split("/")
    return getattr(importlib.import_module(f"{package}.{kind}"), name)


def qos_for(topic: str) -> QoSProfile:
    """The QoS the tap reads ``topic`` with: reliable, transient local for a kept topic."""
    durability = DurabilityPolicy.TRANSIENT_LOCAL if topic in KEPT_TOPICS else DurabilityPolicy.VOLATILE
    return QoSProfile(depth=DEPTH, reliability=ReliabilityPolicy.RELIABLE, durability=durability)


class RawTap:
    """Subscribes ``node`` to ``topics`` (name -> ``pkg/msg/Type``) raw, feeding ``sinks``."""

    def __init__(self, node, sinks: Sequence[Sink], topics: Mapping[str, str] = TOPICS) -> None:
        self.node, self.sinks, self.topics = node, list(sinks), dict(topics)
        self.last_fed_ns = time.time_ns()
        """Wall time (ns) of the latest message fed to the sinks."""
        self._subscriptions = [
            node.create_subscription(message_class(type_name), topic, self._feeder(topic), qos_for(topic), raw=True)
            for topic, type_name in self.topics.items()
        ]

    def _feeder(self, topic: str) -> Callable[[bytes], None]:
        def feed(data: bytes) -> None:
            now = self.last_fed_ns = time.time_ns()
            for sink in self.sinks:
                sink(topic, data, now)

        return feed

    def subscriptions_of(self, topics: Sequence[str]) -> list:
        """The tap's subscriptions of those of ``topics`` it reads (to wait for their publishers)."""
        return [sub for sub in self._subscriptions if sub.topic_name in topics]

    def drain(self, timeout: float) -> bool:
        """Wait (the node spinning elsewhere) until no message has come for :data:`QUIET_S`, at
        most ``timeout`` s: a tap behind its publishers when the graph stops still takes what its
        subscriptions hold. Whether it caught up."""
        deadline = time.monotonic() + timeout
        while time.time_ns() - self.last_fed_ns < QUIET_S * 1e9:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.02)
        return True

    def close(self) -> None:
        """No more messages to the sinks."""
        for subscription in self._subscriptions:
            self.node.destroy_subscription(subscription)
        self._subscriptions = []
