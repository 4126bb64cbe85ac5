"""Every topic of a graph run into ``run.mcap``, as the serialized CDR the nodes sent.

The subscriptions are raw (rclpy ``raw=True``): a message is written as the bytes that came off the
wire, never converted in Python. Each channel carries its type's full ``ros2msg`` definition as its
schema (:mod:`.msg_definitions`), the ``ros2`` MCAP profile, so ``ros2 bag info`` / ``ros2 bag
play``, Foxglove and PlotJuggler open the file, and the ``mcap-ros2-support`` decoder reads it back.
Log time is the wall clock at arrival (ns); the messages' own stamps are sim time.
"""

from __future__ import annotations

import importlib
import threading
import time
from collections import Counter
from collections.abc import Mapping
from pathlib import Path

from mcap.writer import CompressionType, Writer
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy

from .msg_definitions import schema_text

TOPICS: dict[str, str] = {
    "/clock": "rosgraph_msgs/msg/Clock",
    "/joint_states": "sensor_msgs/msg/JointState",
    "/sally/odom": "nav_msgs/msg/Odometry",
    "/sally/joint_efforts": "sensor_msgs/msg/JointState",
    "/sally/joint_targets": "sensor_msgs/msg/JointState",
    "/sally/magnets": "sally_interfaces/msg/MagnetArray",
    "/sally/magnet_cmd": "sally_interfaces/msg/MagnetCommand",
    "/sally/ik_target": "sally_interfaces/msg/IKTarget",
    "/sally/stance": "sally_interfaces/msg/StanceCommand",
    "/sally/foot_states": "sally_interfaces/msg/FootStates",
    "/sally/ik_status": "sally_interfaces/msg/IKStatus",
    "/sally/sequence_status": "sally_interfaces/msg/SequenceStatus",
    "/sally/sequence_result": "sally_interfaces/msg/SequenceStatus",
    "/sally/pulloff_result": "sally_interfaces/msg/PullOffResult",
    "/sally_sim/external_force": "sally_interfaces/msg/ExternalForce",
    "/sally_sim/holding": "std_msgs/msg/Bool",
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
        "/sally/sequence_result",
        "/sally/pulloff_result",
        "/sally/joint_targets",
        "/sally/foot_states",
        "/sally/ik_target",
        "/sally/stance",
    }
)
"""Topics whose publishers keep their history (transient local): read the same way, so that what
was published before the recorder matched is in the file too."""
DEPTH = 1000
"""Messages a subscription holds while the writer is busy: a second of the 1 kHz streams."""


def message_class(type_name: str):
    package, kind, name = type_name.split("/")
    return getattr(importlib.import_module(f"{package}.{kind}"), name)


class McapRecorder:
    """Writes ``topics`` (name -> ``pkg/msg/Type``) as they arrive at ``node`` into ``path``."""

    def __init__(self, node, path: Path, topics: Mapping[str, str] = TOPICS) -> None:
        self.path = Path(path)
        self.counts: Counter[str] = Counter()
        self._lock = threading.Lock()
        self._file = open(self.path, "wb")
        self._writer = Writer(self._file, compression=CompressionType.LZ4)
        self._writer.start(profile="ros2", library="sally_bringup.mcap_recording")
        self._sequence = 0
        self._closed = False
        self._subscriptions = []
        schemas: dict[str, int] = {}
        for topic, type_name in topics.items():
            if type_name not in schemas:
                schemas[type_name] = self._writer.register_schema(type_name, "ros2msg", schema_text(type_name).encode())
            channel = self._writer.register_channel(topic, "cdr", schemas[type_name])
            durability = DurabilityPolicy.TRANSIENT_LOCAL if topic in KEPT_TOPICS else DurabilityPolicy.VOLATILE
            qos = QoSProfile(depth=DEPTH, reliability=ReliabilityPolicy.RELIABLE, durability=durability)
            callback = self._writer_for(topic, channel)
            self._subscriptions.append(
                node.create_subscription(message_class(type_name), topic, callback, qos, raw=True)
            )

    def _writer_for(self, topic: str, channel: int):
        def write(data: bytes) -> None:
            now = time.time_ns()
            with self._lock:
                if self._closed:
                    return
                self._writer.add_message(channel, log_time=now, data=data, publish_time=now, sequence=self._sequence)
                self._sequence += 1
                self.counts[topic] += 1

        return write

    def close(self, node=None) -> None:
        """Stop taking messages (``node``: destroy the subscriptions) and finish the file."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._writer.finish()
            self._file.close()
        if node is not None:
            for subscription in self._subscriptions:
                node.destroy_subscription(subscription)
