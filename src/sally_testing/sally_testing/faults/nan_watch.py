"""Counts messages carrying a NaN or inf on every topic of a graph.

A fault run compares the counts with what it injected itself (its own messages are heard too: a
probe's subscription receives its participant's publications): any other non-finite message was
published by a node, which must never happen.
"""

from __future__ import annotations

import math
import time
from collections import Counter

import numpy as np
from diagnostic_msgs.msg import DiagnosticArray
from nav_msgs.msg import Odometry
from rcl_interfaces.msg import Log
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import JointState

from sally_interfaces.msg import (
    ExternalForce,
    FootStates,
    IKStatus,
    IKTarget,
    MagnetArray,
    MagnetCommand,
    PullOffResult,
    SequenceStatus,
    StanceCommand,
)

TOPICS = {
    "/clock": Clock,
    "/joint_states": JointState,
    "/sally/odom": Odometry,
    "/sally/magnets": MagnetArray,
    "/sally/joint_efforts": JointState,
    "/sally/joint_targets": JointState,
    "/sally/ik_status": IKStatus,
    "/sally/foot_states": FootStates,
    "/sally/ik_target": IKTarget,
    "/sally/stance": StanceCommand,
    "/sally/magnet_cmd": MagnetCommand,
    "/sally_sim/external_force": ExternalForce,
    "/sally/sequence_status": SequenceStatus,
    "/sally/sequence_result": SequenceStatus,
    "/sally/pulloff_result": PullOffResult,
    "/diagnostics": DiagnosticArray,
    "/rosout": Log,
}
"""Every topic a Sally graph publishes."""


def non_finite(msg) -> bool:
    """Whether any float anywhere in ``msg`` (nested messages, arrays) is NaN or inf."""
    for name, kind in msg.get_fields_and_field_types().items():
        value = getattr(msg, name)
        if kind in ("double", "float"):
            if not math.isfinite(value):
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


class NaNWatch:
    def __init__(self, probe) -> None:
        self.messages: Counter[str] = Counter()
        self.bad: Counter[str] = Counter()
        self.latest_stamp: dict[str, int] = {}
        """topic -> the newest header stamp (ns) heard on it."""
        self.heard_at: dict[str, float] = {}
        """topic -> when (monotonic) its latest message came."""
        for topic, kind in TOPICS.items():
            probe.node.create_subscription(kind, topic, lambda msg, topic=topic: self._on(topic, msg), 1000)

    def _on(self, topic: str, msg) -> None:
        self.messages[topic] += 1
        self.heard_at[topic] = time.monotonic()
        header = getattr(msg, "header", None)
        if header is not None:
            stamp = header.stamp.sec * 1_000_000_000 + header.stamp.nanosec
            self.latest_stamp[topic] = max(stamp, self.latest_stamp.get(topic, 0))
        if non_finite(msg):
            self.bad[topic] += 1
