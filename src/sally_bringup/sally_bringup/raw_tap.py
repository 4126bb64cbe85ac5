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

Sink = Callable[[str, bytes, int], None]

TOPICS: dict[str, str] = {
    "/clock": "rosgraph_msgs/msg/Clock",
    "/joint_states": "sensor_msgs/msg/JointState",
    "/sally/odom": "nav_msgs/msg/Odometry",
    "/sally/servo_commands": "sally_interfaces/msg/ServoCommand",
    "/sally/joint_efforts": "sensor_msgs/msg/JointState",
    "/sally/joint_commands": "sensor_msgs/msg/JointState",
    "/sally/joint_targets": "sensor_msgs/msg/JointState",
    "/sally/magnets": "sally_interfaces/msg/MagnetArray",
    "/sally/magnet_cmd": "sally_interfaces/msg/MagnetCommand",
    "/sally/ik_target": "sally_interfaces/msg/IKTarget",
    "/sally/foot_states": "sally_interfaces/msg/FootStates",
    "/sally/ik_status": "sally_interfaces/msg/IKStatus",
    "/sally/sequence_status": "sally_interfaces/msg/SequenceStatus",
    "/sally/sequence_result": "sally_interfaces/msg/SequenceStatus",
    "/sally/pulloff_result": "sally_interfaces/msg/PullOffResult",
    "/sally_sim/external_force": "sally_interfaces/msg/ExternalForce",
    "/sally_sim/holding": "std_msgs/msg/Bool",
    "/sally_sim/reset": "std_msgs/msg/Header",
    "/diagnostics": "diagnostic_msgs/msg/DiagnosticArray",
    "/tf": "tf2_msgs/msg/TFMessage",
    "/tf_static": "tf2_msgs/msg/TFMessage",
    "/robot_description": "std_msgs/msg/String",
    "/sally/markers": "visualization_msgs/msg/MarkerArray",
    **{
        f"/sally/feet/{foot}/{kind}_wrench": "geometry_msgs/msg/WrenchStamped"
        for foot in ("FL", "FR", "BL", "BR")
        for kind in ("magnet", "contact")
    },
}
"""Every topic the graphs use, with its type."""
KEPT_TOPICS = frozenset(
    {
        "/tf_static",
        "/robot_description",
        "/sally_sim/holding",
        "/sally_sim/reset",
        "/sally/sequence_result",
        "/sally/pulloff_result",
        "/sally/joint_targets",
        "/sally/foot_states",
        "/sally/ik_target",
    }
)
"""Topics whose publishers keep their history (transient local)."""
DEPTH = 1000
"""Messages a subscription holds while the sinks are busy: a second of /clock (1 kHz)."""


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
        self._subscriptions = [
            node.create_subscription(message_class(type_name), topic, self._feeder(topic), qos_for(topic), raw=True)
            for topic, type_name in self.topics.items()
        ]

    def _feeder(self, topic: str) -> Callable[[bytes], None]:
        def feed(data: bytes) -> None:
            now = time.time_ns()
            for sink in self.sinks:
                sink(topic, data, now)

        return feed

    def subscriptions_of(self, topics: Sequence[str]) -> list:
        """The tap's subscriptions of those of ``topics`` it reads (to wait for their publishers)."""
        return [sub for sub in self._subscriptions if sub.topic_name in topics]

    def close(self) -> None:
        """No more messages to the sinks."""
        for subscription in self._subscriptions:
            self.node.destroy_subscription(subscription)
        self._subscriptions = []
