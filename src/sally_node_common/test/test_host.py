"""The host: nodes in one process hand messages over as Python objects; DDS still carries every
topic to and from outside the host (a second rclpy context here), and nothing is delivered twice."""

from __future__ import annotations

import threading
import time

import pytest
import rclpy
from rclpy.experimental import EventsExecutor
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from rclpy.signals import SignalHandlerOptions
from std_msgs.msg import Int32

from sally_node_common.host import Host, compatible
from sally_node_common.qos import KEPT, LATCHED, RELIABLE_DEEP

VOLATILE = RELIABLE_DEEP
BEST_EFFORT = QoSProfile(depth=10, reliability=ReliabilityPolicy.BEST_EFFORT)


def wait_until(predicate, timeout: float = 10.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.01)
    return predicate()


class Talker(Node):
    def __init__(self, topic: str = "/numbers", qos: QoSProfile = VOLATILE, **kwargs) -> None:
        super().__init__("talker", **kwargs)
        self.pub = self.create_publisher(Int32, topic, qos)


class Listener(Node):
    def __init__(
        self,
        name: str = "listener",
        topic: str = "/numbers",
        qos: QoSProfile = VOLATILE,
        echo: str | None = None,
        **kwargs,
    ) -> None:
        super().__init__(name, **kwargs)
        self.heard: list[Int32] = []
        self.echo = self.create_publisher(Int32, echo, VOLATILE) if echo else None
        self.create_subscription(Int32, topic, self._on, qos)

    def _on(self, msg: Int32) -> None:
        self.heard.append(msg)
        if self.echo is not None:
            self.echo.publish(Int32(data=msg.data * 10))


class Side:
    """A context (a DDS participant) with an executor spun on a thread: the host's, or the outside."""

    def __init__(self, domain: int) -> None:
        self.context = rclpy.Context()
        rclpy.init(args=[], context=self.context, domain_id=domain, signal_handler_options=SignalHandlerOptions.NO)
        self.executor = EventsExecutor(context=self.context)
        self._thread = threading.Thread(target=self._spin, daemon=True)
        self._thread.start()

    def _spin(self) -> None:
        while self.context.ok():
            try:
                self.executor.spin_once(timeout_sec=0.02)
            except Exception:  # noqa: BLE001 - shut down under us
                return

    def add(self, node: Node) -> Node:
        self.executor.add_node(node)
        return node

    def close(self) -> None:
        self.context.try_shutdown()
        self._thread.join(timeout=5.0)


@pytest.fixture
def sides(ros_domain):
    host_side, outside = Side(ros_domain), Side(ros_domain)
    yield host_side, outside
    host_side.close()
    outside.close()


def test_hosted_readers_get_the_published_object_without_dds(sides):
    side, _ = sides
    host = Host()
    talker = side.add(host.create(Talker, context=side.context))
    listener = side.add(host.create(Listener, context=side.context))
    msg = Int32(data=7)
    talker.pub.publish(msg)
    assert [m for m in listener.heard] == [msg] and listener.heard[0] is msg  # at once, the same object
    assert not host.is_copy("/numbers", b"") and "/numbers" not in host._recent  # nothing serialized: nobody outside


def test_a_hosted_reader_added_after_publications_gets_the_next_ones(sides):
    """A publisher keeps its hosted readers between publications; a reader added later is not missed."""
    side, _ = sides
    host = Host()
    talker = side.add(host.create(Talker, context=side.context))
    first = side.add(host.create(Listener, context=side.context))
    talker.pub.publish(Int32(data=1))
    second = side.add(host.create(Listener, "second", context=side.context))
    talker.pub.publish(Int32(data=2))
    assert [m.data for m in first.heard] == [1, 2] and [m.data for m in second.heard] == [2]


def test_nested_publications_are_delivered_depth_first_in_creation_order(sides):
    side, _ = sides
    host = Host()
    talker = side.add(host.create(Talker, context=side.context))
    first = side.add(host.create(Listener, "first", echo="/tens", context=side.context))
    tens = side.add(host.create(Listener, "tens", topic="/tens", context=side.context))
    second = side.add(host.create(Listener, "second", context=side.context))
    order: list[str] = []
    for node in (first, tens, second):
        node.heard = _Log(order, node.get_name())
    talker.pub.publish(Int32(data=1))
    talker.pub.publish(Int32(data=2))
    assert order == ["first 1", "tens 10", "second 1", "first 2", "tens 20", "second 2"]


class _Log(list):
    def __init__(self, order: list[str], name: str) -> None:
        super().__init__()
        self.order, self.name = order, name

    def append(self, msg) -> None:
        super().append(msg)
        self.order.append(f"{self.name} {msg.data}")


def test_outside_readers_and_writers_reach_hosted_nodes_and_nothing_arrives_twice(sides):
    side, outside = sides
    host = Host()
    talker = side.add(host.create(Talker, context=side.context))
    listener = side.add(host.create(Listener, context=side.context))
    observer = outside.add(Listener("observer", context=outside.context))
    writer = outside.add(Talker("/numbers", context=outside.context))
    assert wait_until(lambda: talker.pub.get_subscription_count() >= 2 and writer.pub.get_subscription_count() >= 2)
    for i in range(5):
        talker.pub.publish(Int32(data=i))
    writer.pub.publish(Int32(data=100))
    assert wait_until(lambda: len(observer.heard) >= 6 and len(listener.heard) >= 6)
    # this participant matches its own endpoints: each publication's copy comes back to the hosted
    # listener's DDS reader and is dropped; once the five have, no other copy can come
    assert wait_until(lambda: host.copies_dropped >= 5)
    assert sorted(m.data for m in observer.heard) == [0, 1, 2, 3, 4, 100]
    assert sorted(m.data for m in listener.heard) == [0, 1, 2, 3, 4, 100]  # each once: hosted ones not again from DDS


CONTAINER_RUN = """
import json, sys, time
sys.path.insert(0, sys.argv[2])
from test_host import Listener, Side, Talker, wait_until
from sally_node_common.discovery import container_profile, default_to_loopback
from sally_node_common.host import Host
from std_msgs.msg import Int32

default_to_loopback()
assert container_profile()
side, outside = Side(int(sys.argv[1])), Side(int(sys.argv[1]))
host = Host(own_endpoints_ignored=True)
talker = side.add(host.create(Talker, context=side.context))
listener = side.add(host.create(Listener, context=side.context))
quiet = side.add(host.create(Talker, "/quiet", context=side.context))
side.add(host.create(Listener, "quiet_listener", "/quiet", context=side.context))
hosted_only = quiet.pub.get_subscription_count()
observer = outside.add(Listener("observer", context=outside.context))
writer = outside.add(Talker("/numbers", context=outside.context))
assert wait_until(lambda: talker.pub.get_subscription_count() >= 2 and writer.pub.get_subscription_count() >= 1, 30)
for i in range(5):
    talker.pub.publish(Int32(data=i))
writer.pub.publish(Int32(data=100))
# the observer shares its participant with the writer, which ignores its own: the talker's 5 only
wait_until(lambda: len(observer.heard) >= 5 and len(listener.heard) >= 6, 30)
# no copy can come: the talker's DDS publisher is matched by the observer alone (real_matched, below)
print(json.dumps({
    "observer": sorted(m.data for m in observer.heard), "listener": sorted(m.data for m in listener.heard),
    "copies_dropped": host.copies_dropped, "matched": talker.pub.get_subscription_count(),
    "real_matched": talker.pub.real.get_subscription_count(), "hosted_only": hosted_only,
}))
side.close(); outside.close()
"""


def test_a_container_whose_participant_ignores_its_own_endpoints_takes_no_copies(ros_domain):
    """With CONTAINER_PROFILE (a fresh process: Fast DDS reads profiles once), outside readers and
    writers still reach the hosted nodes, each message arrives once, and no hosted subscription
    takes its own host's DDS copies; a publisher's count still includes its hosted readers."""
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    env = {k: v for k, v in os.environ.items() if k != "FASTDDS_DEFAULT_PROFILES_FILE"}
    folder = str(Path(__file__).parent)
    done = subprocess.run(
        [sys.executable, "-c", CONTAINER_RUN, str(ros_domain), folder],
        env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    # (the outside writer and observer share a participant that, in this process, ignores its own too)
    assert seen["observer"] == [0, 1, 2, 3, 4]
    assert seen["listener"] == [0, 1, 2, 3, 4, 100]  # each once
    assert seen["copies_dropped"] == 0  # none came back: the participant ignores its own endpoints
    assert seen["real_matched"] == 1 and seen["matched"] == 2  # the observer on DDS; the hosted listener counted
    assert seen["hosted_only"] == 1  # a hosted reader alone still counts (readiness waits on it)


def test_kept_topics_reach_late_hosted_and_outside_readers(sides):
    side, outside = sides
    host = Host()
    talker = side.add(host.create(Talker, "/latched", LATCHED, context=side.context))
    talker.pub.publish(Int32(data=1))
    talker.pub.publish(Int32(data=2))  # LATCHED keeps the last one
    late = side.add(host.create(Listener, "late", "/latched", LATCHED, context=side.context))
    volatile = side.add(host.create(Listener, "volatile", "/latched", VOLATILE, context=side.context))
    assert [m.data for m in late.heard] == [2] and volatile.heard == []  # history only for kept readers
    observer = outside.add(Listener("observer", "/latched", LATCHED, context=outside.context))
    assert wait_until(lambda: [m.data for m in observer.heard] == [2])
    # the history's copy reaches the late reader's DDS reader too (this participant matches its own
    # endpoints) and is dropped: once it has, nothing more can come
    assert wait_until(lambda: host.copies_dropped >= 1)
    assert [m.data for m in late.heard] == [2]  # not again through DDS


def test_a_constructor_publication_waits_until_the_node_is_built(sides):
    side, _ = sides
    host = Host()
    listener = side.add(host.create(Listener, "early", "/hello", KEPT, context=side.context))

    class Greeter(Node):
        def __init__(self, **kwargs) -> None:
            super().__init__("greeter", **kwargs)
            self.create_subscription(Int32, "/hello", self._on, VOLATILE)
            self.create_publisher(Int32, "/hello", KEPT).publish(Int32(data=5))
            self.seen: list[int] = []  # after the publication: a delivery during __init__ would fail here

        def _on(self, msg: Int32) -> None:
            self.seen.append(msg.data)

    greeter = side.add(host.create(Greeter, context=side.context))
    assert greeter.seen == [5] and [m.data for m in listener.heard] == [5]


@pytest.mark.parametrize(
    "publisher, subscription, matched",
    [
        (VOLATILE, VOLATILE, True),
        (KEPT, VOLATILE, True),
        (VOLATILE, KEPT, False),
        (KEPT, KEPT, True),
        (BEST_EFFORT, VOLATILE, False),
        (VOLATILE, BEST_EFFORT, True),
    ],
)
def test_hosted_delivery_follows_dds_qos_matching(publisher, subscription, matched):
    assert compatible(publisher, subscription) is matched
    assert subscription.durability in (DurabilityPolicy.VOLATILE, DurabilityPolicy.TRANSIENT_LOCAL)


def test_a_tap_gets_every_tapped_publication_once_and_counts_as_a_reader(sides):
    side, outside = sides
    host = Host()
    taken: list[tuple[str, object]] = []
    host.tap(lambda topic, msg, log_time: taken.append((topic, msg)), {"/numbers"})
    talker = side.add(host.create(Talker, context=side.context))
    first = side.add(host.create(Listener, "first", context=side.context))
    second = side.add(host.create(Listener, "second", context=side.context))
    other = side.add(host.create(Talker, "/untapped", context=side.context))
    assert talker.pub.get_subscription_count() == 3  # two hosted readers on DDS, and the tap
    assert other.pub.get_subscription_count() == 0
    mine = Int32(data=1)
    talker.pub.publish(mine)
    other.pub.publish(Int32(data=2))
    assert taken == [("/numbers", mine)]  # the object itself, not serialized
    writer = outside.add(Talker("/numbers", context=outside.context))
    assert wait_until(lambda: writer.pub.get_subscription_count() >= 2)
    writer.pub.publish(Int32(data=100))
    # it reaches each hosted reader's DDS reader; once both have it, no second copy can come
    assert wait_until(lambda: all(100 in [m.data for m in n.heard] for n in (first, second)))
    assert len(taken) == 2 and isinstance(taken[1][1], bytes)  # an outside message, as the bytes that came


def test_a_publication_is_serialized_once_for_the_byte_taps_and_dds(sides, monkeypatch):
    from rclpy.serialization import serialize_message

    from sally_node_common import host as hosting

    side, outside = sides
    made: list[object] = []
    monkeypatch.setattr(hosting, "serialize_message", lambda msg: made.append(msg) or serialize_message(msg))
    host = Host()
    first: list[object] = []
    second: list[object] = []
    objects: list[object] = []
    host.tap(lambda topic, data, log_time: first.append(data), {"/numbers"}, serialized=True)
    host.tap(lambda topic, data, log_time: second.append(data), {"/numbers"}, serialized=True)
    host.tap(lambda topic, msg, log_time: objects.append(msg), {"/numbers"})
    talker = side.add(host.create(Talker, context=side.context))
    mine = Int32(data=5)
    talker.pub.publish(mine)  # nobody outside: serialized for the taps alone
    assert made == [mine] and first == second == [serialize_message(mine)] and objects == [mine]
    listener = outside.add(Listener("outside", context=outside.context))
    assert wait_until(lambda: talker.pub.real.get_subscription_count() >= 1)
    made.clear()
    again = Int32(data=6)
    talker.pub.publish(again)
    assert made == [again]  # once, for both taps and DDS
    assert first[-1] is second[-1] and first[-1] == serialize_message(again)
    assert wait_until(lambda: [m.data for m in listener.heard] == [6])


def test_a_deferred_tap_is_fed_in_order_when_the_host_has_a_moment(sides):
    from rclpy.serialization import serialize_message

    side, outside = sides
    host = Host()
    now: list[object] = []
    later: list[object] = []
    host.tap(lambda topic, msg, log_time: now.append(msg), {"/numbers"})
    host.tap(lambda topic, data, log_time: later.append((data, log_time)), {"/numbers"}, serialized=True, deferred=True)
    talker = side.add(host.create(Talker, context=side.context))
    side.add(host.create(Listener, context=side.context))
    sent = [Int32(data=i) for i in range(3)]
    for msg in sent:
        talker.pub.publish(msg)
    assert now == sent and later == [] and len(host.later) == 3  # the others are fed at once
    writer = outside.add(Talker("/numbers", context=outside.context))
    assert wait_until(lambda: writer.pub.get_subscription_count() >= 1)
    writer.pub.publish(Int32(data=100))  # an outside message: queued behind the hosted ones
    assert wait_until(lambda: len(host.later) == 4)
    assert host.later.run() == 4
    assert [data for data, _ in later] == [*(serialize_message(m) for m in sent), serialize_message(Int32(data=100))]
    stamps = [log_time for _, log_time in later]
    assert stamps == sorted(stamps)  # each with the wall time it was published at
