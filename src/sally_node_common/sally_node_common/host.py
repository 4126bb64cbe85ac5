"""Nodes hosted together in one process, handing messages to each other as Python objects.

ROS 2's C++ answer to per-message cost is composition with intra-process communication; rclpy has
no intra-process path: two rclpy nodes in one process still serialize every message, pass it
through the middleware and convert it back. :class:`Host` is that path for rclpy. Any node class
can be hosted (:meth:`Host.create` builds it as a subclass whose ``create_publisher``,
``create_subscription`` and ``create_timer`` go through the host); nothing in the node changes.

Delivery, between nodes of one host:

* A message published by a hosted node is handed, as the same object, to the callback of every
  hosted subscription of that topic whose QoS would match the publisher's (durability,
  reliability), at once, in the publishing thread, in the order the subscriptions were created.
  Nested publications are delivered the same way, depth first, so a lockstep graph runs the same
  way every time. A published message belongs to its readers: publishers must not change it after
  publishing (build a new one each time).
* Every hosted callback (subscription or timer) runs under the host's lock (re-entrant), so hosted
  nodes see their callbacks one at a time, as on one executor, whichever thread publishes (the sim
  node publishes from its physics thread). A hosted subscription callback must therefore not wait
  for a lock that a thread holds while it publishes.
* A transient-local publisher's last ``depth`` messages are kept and handed to a transient-local
  hosted subscription created after them (kept and latched topics work for late hosted readers).

With the world outside the host (rviz, a recorder, a test probe, a hardware driver, a fault
injector), every topic stays on DDS:

* Each hosted publisher is a real publisher. A message goes out on DDS, serialized once, when a
  subscription outside the host is matched. On a transient-local topic, when the first outside
  reader matches, the kept messages go out at once (a late outside reader gets the history, as from
  a transient-local writer), then every new one while it stays. With nobody outside, nothing is
  serialized (and no hosted subscription takes its own host's copies).
* Each hosted subscription is also a real (raw) DDS subscription, so outside publishers reach it.
  In a container whose DDS participant ignores its own endpoints (``Host(own_endpoints_ignored=True)``,
  Fast DDS's ``fastdds.ignore_local_endpoints``, :data:`~sally_node_common.discovery.CONTAINER_PROFILE`)
  a hosted subscription never receives what a hosted publisher sends on DDS, and a publisher's DDS
  match count is the readers outside alone. Otherwise what it receives from a hosted publisher
  through DDS (byte for byte a message the host published on that topic recently) is taken off
  DDS and dropped there, before it is converted (:attr:`Host.copies_dropped`): nothing is delivered
  twice. An outside message byte-identical to one of those is dropped too. A hosted subscription
  that asks for raw bytes is an outside reader as far as the host goes: it hears hosted publishers
  only through DDS, so not at all where own endpoints are ignored.

A recorder in the host (:meth:`Host.tap`; there may be several) gets every message published by a
hosted node on the topics it names: the object itself (it may keep it, since a published message
is not changed afterwards), or, for a tap that asks for bytes, the message serialized, once per
publication for every such tap and DDS. It gets every outside message a hosted subscription
receives on them as the bytes that came. A tap is fed in the publishing thread, or, if deferred,
later and in order, by whoever runs the host's deferred work (:attr:`Host.later`). For
a hosted publisher, each tap of its topic counts as one more matched subscription (nodes that
publish only while someone listens, like the sim's /tf, publish for it).
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict, defaultdict, deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rclpy.event_handler import PublisherEventCallbacks
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from rclpy.serialization import deserialize_message, serialize_message

from .deferred import Deferred

RECENT_COPIES = 512
"""Per topic, how many serialized publications the host remembers to recognise their DDS copies."""


def _profile(qos: QoSProfile | int) -> QoSProfile:
    return QoSProfile(depth=qos) if isinstance(qos, int) else qos


def compatible(publisher: QoSProfile, subscription: QoSProfile) -> bool:
    """Whether DDS would match ``subscription`` with ``publisher`` (durability and reliability:
    a transient-local reader needs a transient-local writer, a reliable reader a reliable writer)."""
    if (
        subscription.durability == DurabilityPolicy.TRANSIENT_LOCAL
        and publisher.durability != DurabilityPolicy.TRANSIENT_LOCAL
    ):
        return False
    return not (
        subscription.reliability == ReliabilityPolicy.RELIABLE
        and publisher.reliability == ReliabilityPolicy.BEST_EFFORT
    )


@dataclass(frozen=True)
class Tap:
    """A sink of the host's publications on some topics: ``sink(topic, message, wall ns)``, given
    the message's bytes when ``serialized`` (made once per publication, shared with DDS), else the
    message itself (bytes for what came from outside)."""

    sink: Callable[[str, Any, int], None]
    serialized: bool = False
    deferred: bool = False
    """Fed from :attr:`Host.later`, when the process has a moment to spare, in publication order."""


@dataclass
class _Reader:
    node: Node
    callback: Callable[[Any], None]
    qos: QoSProfile


class _RecentBytes:
    """The last ``size`` serialized messages of one topic (a multiset, oldest forgotten first)."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._counts: OrderedDict[bytes, int] = OrderedDict()

    def add(self, data: bytes) -> None:
        self._counts[data] = self._counts.get(data, 0) + 1
        self._counts.move_to_end(data)
        while len(self._counts) > self._size:
            self._counts.popitem(last=False)

    def __contains__(self, data: bytes) -> bool:
        return data in self._counts


class HostedPublisher:
    """A real rclpy publisher whose messages also reach hosted readers directly."""

    def __init__(self, host: Host, publisher, qos: QoSProfile) -> None:
        self._host, self.real, self.qos = host, publisher, qos
        self.topic = publisher.topic_name
        self._latched = qos.durability == DurabilityPolicy.TRANSIENT_LOCAL
        self._kept: deque | None = deque(maxlen=max(1, qos.depth)) if self._latched else None
        self._outside = False
        """A transient-local topic is being published on DDS: a reader outside the host is matched."""
        self._readers: tuple[int, list] = (-1, [])
        """The hosted readers this publisher reaches, as of the host's :attr:`Host.generation`."""
        self._lock = threading.Lock()
        """Keeps the kept messages, the outside flag and what went to DDS consistent between the
        publishing threads and the executor's matched events."""

    def publish(self, msg) -> None:
        """Publish ``msg``: handed to the hosted readers, the taps and, when someone outside reads,
        DDS; serialized at most once, for the taps that take bytes and DDS alike."""
        if isinstance(msg, (bytes, bytearray)):  # already serialized: for the taps and DDS only
            self._tap(msg, msg)
            self.real.publish(msg)
            return
        readers = self.readers()
        outside = self._kept is None and self._outside_readers(readers)
        data = self._tap(msg, serialize_message(msg) if outside else None)  # (made once for DDS and the taps)
        if self._kept is None:
            if outside:
                self._to_dds(msg, data)
        else:
            with self._lock:
                self._kept.append(msg)
                self._follow_outside(readers, msg, data)
        self._host.deliver(readers, msg)

    def _tap(self, msg, data: bytes | None = None) -> bytes | None:
        """Hand ``msg`` to the host's taps of this topic (its bytes, ``data`` or serialized here,
        to those that take bytes; the deferred ones later); the bytes if they were made."""
        taps = self._host.taps_for(self.topic)
        if taps:
            data = self._host.feed_taps(taps, self.topic, msg, data, time.time_ns())
        return data

    def readers(self) -> list:
        """The hosted readers of this topic whose QoS matches this publisher's (looked up again
        only when a hosted reader was added since)."""
        generation, readers = self._readers
        if generation != self._host.generation:
            generation = self._host.generation
            readers = self._host.readers(self.topic, self.qos)
            self._readers = (generation, readers)
        return readers

    def _outside_readers(self, readers: list) -> bool:
        """Whether a reader outside the host is matched (``readers``: the hosted ones)."""
        own = 0 if self._host.own_endpoints_ignored else len(readers)
        return self.real.get_subscription_count() > own

    def _to_dds(self, msg, data: bytes | None = None) -> None:
        """Send ``msg`` on DDS (``data``: its bytes, when made already)."""
        data = serialize_message(msg) if data is None else data
        if not self._host.own_endpoints_ignored:
            self._host.remember(self.topic, data)
        self.real.publish(data)

    def _follow_outside(self, readers: list, msg=None, data: bytes | None = None) -> None:
        """(Under ``_lock``, transient-local only.) Publish on DDS while a reader outside the host is
        matched: when one appears, the kept messages first (late readers get their history, as from
        a transient-local writer), then each new one (``msg``); with none, nothing is serialized."""
        outside = self._outside_readers(readers)
        if outside and not self._outside:
            for kept in self._kept or ():
                self._to_dds(kept)
        elif outside and msg is not None:
            self._to_dds(msg, data)
        self._outside = outside

    def on_matched(self, _info=None) -> None:
        """A reader matched or left (the executor's event): a late outside reader gets the kept
        messages at once, not at the next publication (a latched topic may never publish again)."""
        if self._kept is None:
            return
        with self._lock:
            self._follow_outside(self.readers())

    def kept(self) -> list:
        """The messages a transient-local publisher keeps for late readers."""
        return list(self._kept or ())

    def get_subscription_count(self) -> int:
        """Matched subscriptions, hosted ones included (each hosted one is also on DDS, or, where own
        endpoints are ignored, counted here), and each of the host's taps of this topic."""
        hosted = len(self.readers()) if self._host.own_endpoints_ignored else 0
        return self.real.get_subscription_count() + hosted + len(self._host.taps_for(self.topic))

    def __getattr__(self, name: str):
        return getattr(self.real, name)


class Host:
    """Hosts nodes in this process (see the module's text for the rules).

    ``own_endpoints_ignored``: this process's DDS participant does not match its own readers with
    its own writers (set only when its profile says so)."""

    def __init__(self, own_endpoints_ignored: bool = False) -> None:
        self.own_endpoints_ignored = own_endpoints_ignored
        self.copies_dropped = 0
        """Hosted publications taken off DDS by a hosted subscription and dropped (0 where own
        endpoints are ignored)."""
        self.lock = threading.RLock()
        self._readers: dict[str, list[_Reader]] = defaultdict(list)
        self._publishers: dict[str, list[HostedPublisher]] = defaultdict(list)
        self._recent: dict[str, _RecentBytes] = defaultdict(lambda: _RecentBytes(RECENT_COPIES))
        self._constructing: list[tuple[list[_Reader], Any]] | None = None
        self._late: list[tuple[_Reader, HostedPublisher]] = []
        self._taps: dict[str, tuple[Tap, ...]] = {}
        self.later = Deferred()
        """The deferred taps' work (:mod:`.deferred`): whoever waits with time to spare runs it (the
        composed sim's loop while the physics steps), and whoever ends the process runs the rest."""
        self.nodes: list[Node] = []
        self.generation = 0
        """Counts the hosted readers added (a publisher's cached readers are older when it differs)."""

    def tap(
        self, sink: Callable[[str, Any, int], None], topics, serialized: bool = False, deferred: bool = False
    ) -> None:
        """Hand ``sink(topic, message or bytes, wall ns)`` everything published on ``topics`` (see
        the module's text), as bytes when ``serialized``, through :attr:`later` when ``deferred``;
        added before the nodes are built, so it sees their first messages."""
        for topic in topics:
            self._taps[topic] = (*self._taps.get(topic, ()), Tap(sink, serialized, deferred))

    def feed_taps(self, taps: tuple[Tap, ...], topic: str, msg, data: bytes | None, now: int) -> bytes | None:
        """Feed ``taps`` the message ``msg`` of ``topic`` published at wall time ``now`` (``data``: its
        bytes, if made; an outside message comes as its bytes alone): the deferred taps through
        :attr:`later`, the others now; the bytes if they were made."""
        data = self._feed(taps, False, topic, msg, data, now)
        if any(tap.deferred for tap in taps):
            self.later.add(lambda: self._feed(taps, True, topic, msg, data, now))
        return data

    @staticmethod
    def _feed(taps: tuple[Tap, ...], deferred: bool, topic: str, msg, data: bytes | None, now: int) -> bytes | None:
        """Feed those of ``taps`` that are ``deferred`` (or not), serializing ``msg`` at most once."""
        for tap in taps:
            if tap.deferred is deferred:
                if tap.serialized and data is None:
                    data = serialize_message(msg)
                tap.sink(topic, data if tap.serialized else msg, now)
        return data

    def taps_for(self, topic: str) -> tuple[Tap, ...]:
        """The sinks that take ``topic`` (empty: none)."""
        return self._taps.get(topic, ())

    # --- building nodes -------------------------------------------------------------------------
    def create(self, node_class: type[Node], *args, **kwargs) -> Node:
        """Construct ``node_class(*args, **kwargs)`` hosted. Deliveries its constructor causes
        (its own publications, history for its kept subscriptions) wait until it is built."""
        with self.lock:
            outer, self._constructing = self._constructing, []
            try:
                node = hosted_class(node_class, self)(*args, **kwargs)
            finally:
                pending, self._constructing = self._constructing, outer
            self.nodes.append(node)
            for reader, publisher in self._late:
                for msg in publisher.kept():
                    reader.callback(msg)
            self._late.clear()
            for readers, msg in pending:
                self.deliver(readers, msg)
        return node

    def add_publisher(self, publisher: HostedPublisher) -> None:
        """Register a hosted publisher."""
        self._publishers[publisher.topic].append(publisher)

    def add_reader(self, topic: str, reader: _Reader) -> None:
        """Register a hosted reader of ``topic`` (a transient-local one gets the kept messages)."""
        self._readers[topic].append(reader)
        self.generation += 1
        if reader.qos.durability == DurabilityPolicy.TRANSIENT_LOCAL:
            self._late.extend((reader, p) for p in self._publishers[topic] if compatible(p.qos, reader.qos))

    def has_publishers(self, topic: str) -> bool:
        """Whether any hosted node publishes ``topic``."""
        return bool(self._publishers.get(topic))

    # --- delivery -------------------------------------------------------------------------------
    def has_readers(self, topic: str) -> bool:
        """Whether any hosted node reads ``topic``."""
        return bool(self._readers.get(topic))

    def readers(self, topic: str, qos: QoSProfile) -> list[_Reader]:
        """The hosted readers of ``topic`` whose QoS matches a publisher's ``qos``."""
        return [r for r in self._readers.get(topic, ()) if compatible(qos, r.qos)]

    def deliver(self, readers: list[_Reader], msg) -> None:
        """Hand ``msg`` to ``readers`` (queued while a node is being constructed)."""
        if not readers:
            return
        with self.lock:
            if self._constructing is not None:
                self._constructing.append((readers, msg))
                return
            for reader in readers:
                reader.callback(msg)

    def remember(self, topic: str, data: bytes) -> None:
        """Note that ``data`` on ``topic`` was delivered in the host already (its DDS copy is dropped)."""
        self._recent[topic].add(data)

    def is_copy(self, topic: str, data: bytes) -> bool:
        """Whether ``data`` came from a hosted publisher (and so was delivered already)."""
        recent = self._recent.get(topic)
        return recent is not None and data in recent

    def locked(self, callback: Callable[[Any], Any]) -> Callable[[Any], Any]:
        """A subscription ``callback(msg)`` run under the host's lock."""

        def run(msg):
            with self.lock:
                return callback(msg)

        return run

    def locked_timer(self, callback: Callable[[], Any]) -> Callable[[], Any]:
        """A timer ``callback()`` run under the host's lock."""

        def run():
            with self.lock:
                return callback()

        return run


def hosted_class(node_class: type[Node], host: Host) -> type[Node]:
    """``node_class`` with its publishers, subscriptions and timers going through ``host``."""
    return type(f"Hosted{node_class.__name__}", (_HostedMixin, node_class), {"_host": host})


class _HostedMixin(Node):
    """Put before a node class (:func:`hosted_class`): its creations go through ``_host``; a
    Node subclass itself only so that ``super()`` and the types resolve to rclpy's Node."""

    _host: Host

    def create_publisher(self, msg_type, topic, qos_profile, **kwargs):
        qos = _profile(qos_profile)
        made: list[HostedPublisher] = []
        if qos.durability == DurabilityPolicy.TRANSIENT_LOCAL:
            events = kwargs.setdefault("event_callbacks", PublisherEventCallbacks())
            if events.matched is None:
                events.matched = lambda info: made[0].on_matched(info) if made else None
        real = super().create_publisher(msg_type, topic, qos, **kwargs)
        publisher = HostedPublisher(self._host, real, qos)
        made.append(publisher)
        self._host.add_publisher(publisher)
        return publisher

    def create_subscription(self, msg_type, topic, callback, qos_profile, **kwargs):
        qos = _profile(qos_profile)
        if kwargs.pop("raw", False):  # wants bytes: an outside reader as far as the host goes
            return super().create_subscription(msg_type, topic, self._host.locked(callback), qos, raw=True, **kwargs)
        host, name = self._host, self.resolve_topic_name(topic)
        first = not host.has_readers(name)  # the subscription whose outside messages are recorded

        def from_dds(data: bytes) -> None:
            if not host.own_endpoints_ignored and host.is_copy(name, data):
                host.copies_dropped += 1
                return  # a hosted publisher's message: already delivered
            if first:  # an outside publisher's: recorded once, as it came
                host.feed_taps(host.taps_for(name), name, data, data, time.time_ns())
            msg = deserialize_message(data, msg_type)
            with host.lock:
                callback(msg)

        subscription = super().create_subscription(msg_type, topic, from_dds, qos, raw=True, **kwargs)
        host.add_reader(name, _Reader(self, callback, qos))
        return subscription

    def create_timer(self, timer_period_sec, callback, *args, **kwargs):
        return super().create_timer(timer_period_sec, self._host.locked_timer(callback), *args, **kwargs)
