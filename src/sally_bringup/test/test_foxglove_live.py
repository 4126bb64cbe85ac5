"""Foxglove live: the runner's tap served over the Foxglove WebSocket protocol; a WebSocket client
sees every channel advertised with its ros2msg schema and gets messages it decodes as ROS 2 CDR."""

import json
import struct
import time

import pytest
from rclpy.serialization import deserialize_message
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import JointState
from websockets.sync.client import connect

from sally_bringup.foxglove_live import FoxgloveLive
from sally_bringup.probe import Probe
from sally_bringup.raw_tap import RawTap, message_class

pytestmark = pytest.mark.graph

TOPICS = {
    "/clock": "rosgraph_msgs/msg/Clock",
    "/joint_states": "sensor_msgs/msg/JointState",
    "/tf": "tf2_msgs/msg/TFMessage",
}


def advertised_channels(ws, count: int, timeout: float = 10.0) -> dict[str, dict]:
    """The channels a Foxglove server advertises, by topic, once ``count`` are in (or ``timeout``)."""
    advertised: dict[str, dict] = {}
    deadline = time.monotonic() + timeout
    while len(advertised) < count and time.monotonic() < deadline:
        frame = json.loads(ws.recv(timeout=5.0))
        if frame.get("op") == "advertise":
            advertised.update({c["topic"]: c for c in frame["channels"]})
    return advertised


def test_a_websocket_client_sees_the_channels_and_decodes_their_messages(ros_domain):
    tap_probe, source = Probe(ros_domain, "tap"), Probe(ros_domain, "source")
    live = FoxgloveLive(port=0, topics=TOPICS)  # port 0: any free port
    tap = RawTap(tap_probe.node, [live], TOPICS)
    try:
        publishers = {topic: source.publisher(message_class(t), topic) for topic, t in TOPICS.items()}
        for publisher in publishers.values():
            source.wait_for_subscribers(publisher, timeout=30.0)
        with connect(live.url, subprotocols=["foxglove.sdk.v1"], open_timeout=10) as ws:
            advertised = advertised_channels(ws, len(TOPICS))
            assert set(advertised) == set(TOPICS)
            for topic, channel in advertised.items():
                assert (channel["encoding"], channel["schemaName"], channel["schemaEncoding"]) == (
                    "cdr",
                    TOPICS[topic],
                    "ros2msg",
                )
            assert "MSG: std_msgs/Header" in advertised["/joint_states"]["schema"]
            ids = {c["id"]: topic for topic, c in advertised.items()}
            ws.send(json.dumps({"op": "subscribe", "subscriptions": [{"id": cid, "channelId": cid} for cid in ids]}))
            received: dict[str, object] = {}
            deadline = time.monotonic() + 15.0
            while len(received) < len(TOPICS) and time.monotonic() < deadline:
                tick = Clock()
                tick.clock.sec = 7
                publishers["/clock"].publish(tick)
                publishers["/joint_states"].publish(JointState(name=["knee_FL"], position=[0.5]))
                publishers["/tf"].publish(message_class(TOPICS["/tf"])())
                try:
                    frame = ws.recv(timeout=0.5)
                except TimeoutError:
                    continue
                if isinstance(frame, bytes) and frame[0] == 0x01:  # message data: subscription id, log time, payload
                    (sub,) = struct.unpack_from("<I", frame, 1)
                    topic = ids[sub]
                    received[topic] = deserialize_message(frame[13:], message_class(TOPICS[topic]))
            assert set(received) == set(TOPICS)
            assert received["/clock"].clock.sec == 7
            assert list(received["/joint_states"].name) == ["knee_FL"] and received["/joint_states"].position[0] == 0.5
    finally:
        tap.close()
        live.close()
        tap_probe.close()
        source.close()


def test_a_composed_graph_serves_foxglove_itself_with_every_topic(graph):
    """``foxglove_to:=0``: the container's outlet process serves every topic of the graph where the
    messages are published (no DDS reader outside); a client decodes the 1 kHz streams."""
    import re

    from sally_bringup.processes import wait_until
    from sally_bringup.raw_tap import TOPICS as GRAPH_TOPICS

    container = graph.start("graph", "sally_composed", argv=["hold", "pacing:=realtime", "foxglove_to:=0"])
    found: list[str] = []

    def url() -> bool:
        found[:] = re.findall(r"ws://127\.0\.0\.1:\d+", container.log_text())
        return bool(found)

    assert wait_until(url, 60.0), f"no Foxglove address in the container's log:\n{container.log_text()[-2000:]}"
    # the outlet serves before the sim has loaded its model: the streams' time limit starts once it steps
    ready = wait_until(lambda: "Sally sim ready" in container.log_text(), 120.0)
    assert ready, f"the sim never became ready:\n{container.log_text()[-2000:]}"
    with connect(found[0], subprotocols=["foxglove.sdk.v1"], open_timeout=10) as ws:
        advertised = advertised_channels(ws, len(GRAPH_TOPICS))
        assert set(advertised) == set(GRAPH_TOPICS)
        wanted = {"/clock", "/joint_states"}
        ids = {advertised[t]["id"]: t for t in wanted}
        ws.send(json.dumps({"op": "subscribe", "subscriptions": [{"id": cid, "channelId": cid} for cid in ids]}))
        received: dict[str, list] = {t: [] for t in wanted}
        deadline = time.monotonic() + 30.0
        while min(len(v) for v in received.values()) < 50 and time.monotonic() < deadline:
            try:
                frame = ws.recv(timeout=max(0.1, deadline - time.monotonic()))
            except TimeoutError:
                break
            if isinstance(frame, bytes) and frame[0] == 0x01:
                (sub,) = struct.unpack_from("<I", frame, 1)
                topic = ids[sub]
                received[topic].append(deserialize_message(frame[13:], message_class(GRAPH_TOPICS[topic])))
    assert min(len(v) for v in received.values()) >= 50, {t: len(v) for t, v in received.items()}
    stamps = [m.clock.sec * 10**9 + m.clock.nanosec for m in received["/clock"]]
    assert stamps == sorted(stamps) and stamps[-1] > stamps[0], "sim time runs on"
    assert len(received["/joint_states"][-1].name) == 24
    assert container.running
