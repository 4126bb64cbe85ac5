"""The runner's tap under a backlog: a sink slower than the publisher loses nothing, and the tap
drained after the publisher stopped has fed every message in order."""

import time

import pytest
from rclpy.qos import HistoryPolicy, QoSProfile, ReliabilityPolicy
from rclpy.serialization import deserialize_message
from rosgraph_msgs.msg import Clock

from sally_bringup.probe import Probe
from sally_bringup.raw_tap import DEPTH, RawTap

pytestmark = pytest.mark.graph

BURST = 3000
"""/clock messages sent at once: three times the depth the tap had when a loaded runner lost 6-45 %."""


def test_a_slow_sink_behind_a_burst_loses_nothing_and_drains(ros_domain):
    assert DEPTH >= BURST, "the tap holds a burst this long"
    tap_probe, source = Probe(ros_domain, "tap"), Probe(ros_domain, "source")
    fed: list[int] = []

    def slow_sink(topic: str, data: bytes, log_time_ns: int) -> None:
        stamp = deserialize_message(data, Clock).clock
        fed.append(stamp.sec * 1_000_000_000 + stamp.nanosec)
        time.sleep(0.0005)  # 0.5 ms a message: the burst goes out far faster

    tap = RawTap(tap_probe.node, [slow_sink], {"/clock": "rosgraph_msgs/msg/Clock"})
    try:
        writer = source.node.create_publisher(
            Clock,
            "/clock",
            QoSProfile(depth=BURST, reliability=ReliabilityPolicy.RELIABLE, history=HistoryPolicy.KEEP_LAST),
        )
        source.wait_for_subscribers(writer, timeout=30.0)
        for i in range(BURST):
            msg = Clock()
            msg.clock.sec, msg.clock.nanosec = divmod(i * 1_000_000, 1_000_000_000)
            writer.publish(msg)
        sent = time.monotonic()
        assert tap.drain(timeout=60.0), "the tap caught up"
        assert time.monotonic() - sent > BURST * 0.0005 * 0.9, "the sink was behind the burst"
        assert fed == [i * 1_000_000 for i in range(BURST)], f"{len(fed)} of {BURST} fed, in order"
    finally:
        tap.close()
        tap_probe.close()
        source.close()


def test_a_tap_that_keeps_hearing_messages_does_not_count_as_drained(ros_domain):
    tap_probe, source = Probe(ros_domain, "tap"), Probe(ros_domain, "source")
    tap = RawTap(tap_probe.node, [lambda *_: None], {"/clock": "rosgraph_msgs/msg/Clock"})
    try:
        writer = source.publisher(Clock, "/clock")
        source.wait_for_subscribers(writer, timeout=30.0)
        timer = source.node.create_timer(0.01, lambda: writer.publish(Clock()))
        assert not tap.drain(timeout=1.0)
        source.node.destroy_timer(timer)
        assert tap.drain(timeout=10.0)
    finally:
        tap.close()
        tap_probe.close()
        source.close()
