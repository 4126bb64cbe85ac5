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


def test_a_websocket_client_sees_the_channels_and_decodes_their_messages(ros_domain):
    tap_probe, source = Probe(ros_domain, "tap"), Probe(ros_domain, "source")
    live = FoxgloveLive(port=0, topics=TOPICS)  # port 0: any free port
    tap = RawTap(tap_probe.node, [live], TOPICS)
    try:
        publishers = {topic: source.publisher(message_class(t), topic) for topic, t in TOPICS.items()}
        for publisher in publishers.values():
            source.wait_for_subscribers(publisher, timeout=30.0)
        with connect(live.url, subprotocols=["foxglove.sdk.v1"], open_timeout=10) as ws:
            advertised = {}
            deadline = time.monotonic() + 10.0
            while len(advertised) < len(TOPICS) and time.monotonic() < deadline:
                frame = json.loads(ws.recv(timeout=5.0))
                if frame.get("op") == "advertise":
                    advertised.update({c["topic"]: c for c in frame["channels"]})
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
