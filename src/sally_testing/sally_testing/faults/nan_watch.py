"""Counts messages carrying a NaN or inf on every topic of a graph.

A fault run compares the counts with what it injected itself (its own messages are heard too: a
probe's subscription receives its participant's publications): any other non-finite message was
published by a node, which must never happen.

The watch hears every message of a graph that runs beside it on the same two cores, /clock at 1 kHz
and the rest at up to 200 Hz, so it reads them serialized: a message type whose floats are all float64 is scanned as
8-byte words (every float64 in CDR starts on a 4-byte boundary of the body, so the words at both
4-byte phases cover each one); only a message with a word that is not finite is deserialized and
checked field by field (other bytes, padding included, can look like a NaN; a float64 NaN cannot
hide). A
type with float32 fields is deserialized and checked every time.
"""

from __future__ import annotations

import importlib
import math
import time
from collections import Counter

import numpy as np
from rcl_interfaces.msg import Log
from rclpy.serialization import deserialize_message
from rosidl_parser.definition import AbstractNestedType, BasicType, NamespacedType

from sally_bringup.raw_tap import message_class
from sally_bringup.topology import TOPICS as GRAPH_TOPICS
from sally_node_common.stamps import stamp_ns

TOPICS = {
    **{topic: message_class(declared.type) for topic, declared in GRAPH_TOPICS.items()},
    "/rosout": Log,
}
"""Every topic a Sally graph publishes (:data:`sally_bringup.topology.TOPICS`, the recorded and the
few no recording takes) and the nodes' log. :meth:`NaNWatch.unwatched` names any other a running
graph has."""
MANY_PUBLISHERS = frozenset({"/diagnostics", "/rosout", "/tf_static"})
"""Topics every node (or several) publishes on: their stamps interleave."""
IGNORED = frozenset({"/parameter_events"})
"""Topics every rclpy node has that carry no figures of the graph."""


INFINITE_MEANS = {("sensor_msgs/Range", "range")}
"""Fields where an infinity is a reading, not a fault: a Range's +inf is "nothing within reach" and
its -inf "closer than its minimum" (REP 117). A NaN is a fault everywhere."""


def non_finite(msg) -> bool:
    """Whether any float anywhere in ``msg`` (nested messages, arrays) is NaN or inf (an infinity
    that :data:`INFINITE_MEANS` says is a reading aside)."""
    kind_of = f"{type(msg).__module__.split('.')[0]}/{type(msg).__name__}"
    for name, kind in msg.get_fields_and_field_types().items():
        value = getattr(msg, name)
        if kind in ("double", "float"):
            if math.isnan(value) or (math.isinf(value) and (kind_of, name) not in INFINITE_MEANS):
                return True
        elif "double" in kind or "float" in kind:  # arrays and sequences of numbers
            if len(value) and not np.isfinite(np.asarray(value, dtype=float)).all():
                return True
        elif hasattr(value, "get_fields_and_field_types"):
            if non_finite(value):
                return True
        elif isinstance(value, (list, tuple)) and value and hasattr(value[0], "get_fields_and_field_types"):
            if any(non_finite(v) for v in value):
                return True
    return False


def _message_class(kind: NamespacedType):
    return getattr(importlib.import_module(".".join(kind.namespaces)), kind.name)


def float_kinds(msg_type) -> set[str]:
    """The float type names (``float``, ``double``) anywhere in ``msg_type``, nested types included."""
    found: set[str] = set()
    for slot in msg_type.SLOT_TYPES:
        kind = slot.value_type if isinstance(slot, AbstractNestedType) else slot
        if isinstance(kind, BasicType) and kind.typename in ("float", "double", "long double"):
            found.add(kind.typename)
        elif isinstance(kind, NamespacedType):
            found |= float_kinds(_message_class(kind))
    return found


STAMPS = {("std_msgs", "msg", "Header"), ("builtin_interfaces", "msg", "Time")}
"""First fields whose serialization opens with a time (sec int32, nanosec uint32)."""


def starts_with_stamp(msg_type) -> bool:
    """Whether the first field is a std_msgs/Header or a builtin_interfaces/Time (/clock's): its
    time then opens the serialized body."""
    first = msg_type.SLOT_TYPES[0] if msg_type.SLOT_TYPES else None
    return isinstance(first, NamespacedType) and (*first.namespaces, first.name) in STAMPS


ENCAPSULATION = 4
"""Bytes before a serialized message's CDR body (the encapsulation header)."""


def words_finite(data: bytes) -> bool:
    """Every 8-byte word of a little-endian CDR body, at both 4-byte phases, is a finite float64
    (False for a big-endian body: it is read properly instead)."""
    if len(data) < ENCAPSULATION or not data[1] & 1:
        return False
    for start in (ENCAPSULATION, ENCAPSULATION + 4):
        count = (len(data) - start) // 8
        if count > 0 and not np.isfinite(np.frombuffer(data, dtype="<f8", count=count, offset=start)).all():
            return False
    return True


class NaNWatch:
    """Counts, per topic, the messages with a non-finite float and the latest stamp heard."""

    def __init__(self, probe) -> None:
        self.messages: Counter[str] = Counter()
        self.bad: Counter[str] = Counter()
        self.latest_stamp: dict[str, int] = {}
        """topic -> the newest header stamp (ns) heard on it."""
        self.heard_at: dict[str, float] = {}
        """topic -> when (monotonic) its latest message came."""
        self.last_stamp: dict[str, int] = {}
        """topic -> the stamp (ns) of the latest message heard on it (/clock's time: sim time)."""
        self.went_back: Counter[str] = Counter()
        """topic -> messages stamped before the one heard before them (topics of one publisher;
        :data:`MANY_PUBLISHERS` aside)."""
        self.first_back: dict[str, tuple[int, int]] = {}
        """topic -> (the stamp heard before, the earlier stamp after it) of its first step back (ns)."""
        self.first_stamp: dict[str, int] = {}
        """topic -> the stamp (ns) of the first message heard on it on this time line: a message stamped
        before it is history the watch joined late for (a kept topic's writer sends its history to a
        reader that matched it late, after the first live message: seen once, /sally/joint_targets
        3.395 s heard after 3.810 s), not a step back."""
        self._node = probe.node
        for topic, kind in TOPICS.items():
            if float_kinds(kind) <= {"double"}:  # scanned serialized (module docstring)
                stamped = starts_with_stamp(kind)
                callback = lambda data, t=topic, k=kind, h=stamped: self._on_raw(t, k, h, data)  # noqa: E731
                probe.node.create_subscription(kind, topic, callback, 1000, raw=True)
            else:
                probe.node.create_subscription(kind, topic, lambda msg, topic=topic: self._on(topic, msg), 1000)

    def new_timeline(self) -> None:
        """A new sim is coming (sim time from 0 again): the stamps heard so far are not compared
        with its."""
        self.last_stamp.clear()
        self.first_stamp.clear()

    def unwatched(self) -> list[str]:
        """Topics on the probe's ROS graph now that the watch does not read (hidden ones, an
        action's ``_action`` topics, and :data:`IGNORED` aside): empty when it reads every topic the
        graph publishes."""
        names = (name for name, _ in self._node.get_topic_names_and_types())
        return sorted(
            name
            for name in names
            if name not in TOPICS and name not in IGNORED and not any(p.startswith("_") for p in name.split("/"))
        )

    def _on_raw(self, topic: str, kind, stamped: bool, data: bytes) -> None:
        if not words_finite(data):  # perhaps a NaN: read it properly
            self._on(topic, deserialize_message(data, kind))
            return
        stamp = None
        if stamped and len(data) >= ENCAPSULATION + 8:
            sec, nanosec = np.frombuffer(data, dtype="<i4", count=2, offset=ENCAPSULATION).tolist()
            stamp = sec * 1_000_000_000 + (nanosec & 0xFFFFFFFF)
        self._heard(topic, stamp)

    def _on(self, topic: str, msg) -> None:
        time_ = msg.header.stamp if hasattr(msg, "header") else getattr(msg, "clock", None)
        self._heard(topic, None if time_ is None else stamp_ns(time_))
        if non_finite(msg):
            self.bad[topic] += 1

    def _heard(self, topic: str, stamp: int | None) -> None:
        """Count a message on ``topic`` and keep its stamp (ns), if it has one."""
        self.messages[topic] += 1
        self.heard_at[topic] = time.monotonic()
        if stamp is not None:
            first = self.first_stamp.setdefault(topic, stamp)
            if topic not in MANY_PUBLISHERS and first <= stamp < self.last_stamp.get(topic, stamp):
                self.went_back[topic] += 1
                self.first_back.setdefault(topic, (self.last_stamp[topic], stamp))
            self.last_stamp[topic] = stamp
            self.latest_stamp[topic] = max(stamp, self.latest_stamp.get(topic, 0))
