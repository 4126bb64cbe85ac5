"""The sim's /tf: bytes made from its arrays for the recording and DDS, a message for a node hosted
beside it (hosted readers take objects)."""

from __future__ import annotations

import pytest
import rclpy
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from rclpy.serialization import deserialize_message
from rclpy.signals import SignalHandlerOptions

from sally_node_common.host import Host
from sally_sim_node import Simulator, visuals
from sally_sim_node.frames import BodyFrames
from sally_sim_node.scene_outputs import SceneOutputs
from tf2_msgs.msg import TFMessage

TF_QOS = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.VOLATILE)
"""tf2's QoS for /tf, as its listeners (rviz's included) read it: the sim's /tf writer must match it."""


class Scene(Node):
    def __init__(self, sim, **kwargs) -> None:
        super().__init__("scene", **kwargs)
        self.outputs = SceneOutputs(self, sim, 0)


class TfReader(Node):
    def __init__(self, **kwargs) -> None:
        super().__init__("tf_reader", **kwargs)
        self.heard: list[object] = []
        self.create_subscription(TFMessage, "/tf", self.heard.append, TF_QOS)


@pytest.fixture
def context(ros_domain):
    context = rclpy.Context()
    rclpy.init(args=[], context=context, domain_id=ros_domain, signal_handler_options=SignalHandlerOptions.NO)
    yield context
    context.try_shutdown()


@pytest.mark.parametrize("hosted_reader", [False, True])
def test_tf_goes_to_the_tap_as_bytes_and_to_a_hosted_reader_as_a_message(context, hosted_reader, monkeypatch):
    sim = Simulator()
    built: list[int] = []
    make = visuals.tf_message
    monkeypatch.setattr(visuals, "tf_message", lambda *args: built.append(1) or make(*args))
    host = Host()
    taken: list[object] = []
    host.tap(lambda topic, data, log_time: taken.append(data), ["/tf"], serialized=True)
    scene = host.create(Scene, sim, context=context)
    reader = host.create(TfReader, context=context) if hosted_reader else None
    try:
        built.clear()  # (/tf_static, at start)
        scene.outputs.tf(1_500_000_000)()
        assert len(built) == (1 if hosted_reader else 0)  # no message built for bytes alone
        assert len(taken) == 1 and isinstance(taken[0], bytes)
        message = deserialize_message(taken[0], TFMessage)
        names = [(t.header.frame_id, t.child_frame_id) for t in message.transforms]
        assert names == BodyFrames(sim.model).moving_names
        assert {t.header.stamp.sec for t in message.transforms} == {1}
        assert {t.header.stamp.nanosec for t in message.transforms} == {500_000_000}
        if reader is not None:
            assert len(reader.heard) == 1 and isinstance(reader.heard[0], TFMessage)
            assert reader.heard[0].transforms == message.transforms
    finally:
        for node in host.nodes:
            node.destroy_node()
