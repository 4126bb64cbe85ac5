"""The bad-input matrix: for every topic a Sally node reads, the bad messages of each kind (NaN,
inf, huge values, wrong array lengths, unknown joint/foot/frame names, out-of-order stamps), the
nodes that read it and the reason each must give (:mod:`sally_node_common.inputs`).

``prime`` messages are valid no-ops sent first on command topics that carry no stream, so that an
older stamp has something to be out of order against.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

from geometry_msgs.msg import Vector3
from nav_msgs.msg import Odometry
from sensor_msgs.msg import Imu, JointState, Range

from sally_description import JOINT_NAMES
from sally_description.constants import ACTUATED_JOINT_NAMES, LEGS
from sally_interfaces.msg import (
    ExternalForce,
    FootState,
    FootStates,
    IKStatus,
    IKTarget,
    MagnetArray,
    MagnetCommand,
    MagnetState,
    MagnetTruth,
    MagnetTruthArray,
    ServoCommand,
)
from sally_node_common.stamps import set_stamp

KINDS = ("nan", "inf", "huge", "length", "unknown", "out_of_order")
REASONS = {
    "nan": "non_finite",
    "inf": "non_finite",
    "huge": "out_of_range",
    "length": "length",
    "unknown": "unknown",
    "out_of_order": "out_of_order",
}
OLD = 1
"""ns: the stamp of the out-of-order messages (older than anything a running graph has sent)."""
HUGE = 1e12
FEET = LEGS


@dataclass
class TopicCase:
    """One topic's bad-message case: its type, who reads it and how to build each kind of bad message."""

    topic: str
    kind: type
    readers: tuple[str, ...]
    """Nodes that subscribe (each counts the rejection)."""
    make: Callable[[str, int], object | None]
    """(bad kind, now ns) -> the message, or None where the kind cannot be expressed in this type."""
    prime: Callable[[int], object] | None = None
    graphs: tuple[str, ...] = ("f2w",)
    kinds: tuple[str, ...] = field(default=KINDS)
    stream: bool = False
    """A state stream: its readers take an older stamp as a new time line once the stream has been
    silent for ``inputs.NEW_TIMELINE_GAP``, so its out-of-order message must come within that."""


def _value(kind: str, good: float) -> float:
    return {"nan": math.nan, "inf": math.inf, "huge": HUGE}.get(kind, good)


def _stamp(msg, kind: str, now: int):
    set_stamp(msg.header, OLD if kind == "out_of_order" else now)
    return msg


def joint_message(names, kind: str, now: int, field_name: str, good: float = 0.0) -> JointState:
    """A JointState of ``names`` with one bad value (or list length) in ``field_name``, of ``kind``."""
    names = list(names)
    values = [good] * len(names)
    if kind in ("nan", "inf", "huge"):
        values[0] = _value(kind, good)
    if kind == "length":
        values = values[:-1]
    if kind == "unknown":
        names = [f"bogus_joint_{i}" for i in range(len(names))]
    msg = JointState(name=names)
    setattr(msg, field_name, values)
    if field_name == "position":
        msg.velocity = [0.0] * len(names)
    return _stamp(msg, kind, now)


def servo_command(kind: str, now: int) -> ServoCommand:
    """A ServoCommand of every motor with one bad position (or list length, or names) of ``kind``."""
    names, position = list(ACTUATED_JOINT_NAMES), [0.0] * len(ACTUATED_JOINT_NAMES)
    if kind in ("nan", "inf", "huge"):
        position[0] = _value(kind, 0.0)
    if kind == "length":
        position = position[:-1]
    if kind == "unknown":
        names = [f"bogus_joint_{i}" for i in range(len(names))]
    return _stamp(ServoCommand(name=names, position=position), kind, now)


def odometry(kind: str, now: int) -> Odometry | None:
    """A bad Odometry of ``kind`` (None: the type cannot be bad that way)."""
    if kind == "length":
        return None  # fixed-size fields only
    msg = Odometry()
    msg.header.frame_id, msg.child_frame_id = ("mars", "main_frame") if kind == "unknown" else ("world", "main_frame")
    msg.pose.pose.position.z = _value(kind, 0.15)
    msg.pose.pose.orientation.w = 1.0
    return _stamp(msg, kind, now)


def magnet_command(kind: str, now: int) -> MagnetCommand | None:
    """A bad MagnetCommand of ``kind`` (None: the type cannot be bad that way)."""
    if kind in ("nan", "inf", "huge"):
        return None  # booleans only
    feet, enable = list(FEET), [True] * 4
    if kind == "length":
        enable = enable[:2]
    if kind == "unknown":
        feet = ["XL", "FR", "BL", "BR"]
    return _stamp(MagnetCommand(feet=feet, enable=enable), kind, now)


def external_force(kind: str, now: int) -> ExternalForce | None:
    """A bad ExternalForce of ``kind`` (None: the type cannot be bad that way)."""
    if kind == "length":
        return None
    msg = ExternalForce(foot="XL" if kind == "unknown" else "FL")
    msg.force.z = _value(kind, 0.0)
    return _stamp(msg, kind, now)


def ik_target(kind: str, now: int) -> IKTarget | None:
    """A bad IKTarget of ``kind``: a target (its foot unknown, its numbers bad) or stances that do
    not pair up (``length``)."""
    if kind == "length":
        return _stamp(IKTarget(stance_feet=list(FEET), stance_modes=[IKTarget.POSITION] * 3), kind, now)
    msg = IKTarget(foot="XL" if kind == "unknown" else "FL", position_cost=1.0)
    msg.position.x, msg.position.z = _value(kind, 0.1), 0.1
    return _stamp(msg, kind, now)


def foot_states(kind: str, now: int) -> FootStates:
    """A bad FootStates of ``kind``."""
    msg = FootStates()
    for i, foot in enumerate(FEET):
        state = FootState(foot=foot, mode=IKTarget.POSITION, in_contact=True)
        state.pose.position.x = _value(kind, 0.1) if i == 0 else 0.1
        state.pose.orientation.w = 1.0
        msg.feet.append(state)
    if kind == "length":
        msg.feet = msg.feet[:3]
    if kind == "unknown":
        msg.feet[0].foot = "XL"
    return _stamp(msg, kind, now)


def magnet_array(kind: str, now: int) -> MagnetArray | None:
    """A bad MagnetArray of ``kind`` (None: the type cannot be bad that way)."""
    if kind == "length":
        return None
    msg = MagnetArray()
    for foot in FEET:
        msg.magnets.append(MagnetState(foot=foot, enabled=True, contact_sensed=True))
    msg.magnets[0].contact_reading = _value(kind, 50.0)
    if kind == "unknown":
        msg.magnets[0].foot = "XL"
    return _stamp(msg, kind, now)


def magnet_truth(kind: str, now: int) -> MagnetTruthArray | None:
    """A bad MagnetTruthArray of ``kind`` (None: the type cannot be bad that way)."""
    if kind == "length":
        return None
    msg = MagnetTruthArray()
    for foot in FEET:
        msg.magnets.append(MagnetTruth(foot=foot, enabled=True, surface="floor", in_contact=True, force=Vector3()))
    msg.magnets[0].magnitude = _value(kind, 100.0)
    if kind == "unknown":
        msg.magnets[0].foot = "XL"
    return _stamp(msg, kind, now)


def ik_status(kind: str, now: int) -> IKStatus | None:
    """A bad IKStatus of ``kind`` (None: the type cannot be bad that way)."""
    if kind == "length":
        return None
    msg = IKStatus(status=IKStatus.SUCCESS, foot="XL" if kind == "unknown" else "")
    msg.position_error = _value(kind, 0.001)
    return _stamp(msg, kind, now)


def imu(kind: str, now: int) -> Imu | None:
    """A bad sensor_msgs/Imu of ``kind`` (None: the type cannot be bad that way)."""
    if kind in ("length", "unknown"):
        return None  # fixed-size fields, no names
    msg = Imu()
    msg.linear_acceleration.z = 9.81
    msg.angular_velocity.x = _value(kind, 0.0)
    return _stamp(msg, kind, now)


def foot_range(kind: str, now: int) -> Range | None:
    """A bad sensor_msgs/Range of ``kind`` (None: the type cannot be bad that way; +inf is a good
    reading: nothing within reach)."""
    if kind in ("length", "unknown", "inf"):
        return None
    msg = Range(max_range=0.2)
    msg.range = _value(kind, 0.1)
    return _stamp(msg, kind, now)


def _prime_magnets(now: int) -> MagnetCommand:
    return _stamp(MagnetCommand(feet=list(FEET), enable=[True] * 4), "", now)


def _prime_force(now: int) -> ExternalForce:
    return _stamp(ExternalForce(foot="FL"), "", now)


MATRIX: tuple[TopicCase, ...] = (
    TopicCase(
        "/joint_states",
        JointState,
        ("controller", "estimator", "ik"),
        lambda k, t: joint_message(JOINT_NAMES, k, t, "position"),
        stream=True,
    ),
    TopicCase("/sally/imu", Imu, ("estimator",), imu, stream=True),
    TopicCase("/sally/feet/FL/range", Range, ("sequencer",), foot_range, stream=True),
    TopicCase("/sally/odom", Odometry, ("controller", "ik"), odometry, stream=True),
    TopicCase(
        "/sally/joint_targets",
        JointState,
        ("controller",),
        lambda k, t: joint_message(ACTUATED_JOINT_NAMES, k, t, "position"),
    ),
    TopicCase("/sally/servo_commands", ServoCommand, ("sim",), servo_command),
    TopicCase("/sally/magnet_cmd", MagnetCommand, ("sim",), magnet_command, _prime_magnets),
    TopicCase("/sally_sim/external_force", ExternalForce, ("sim",), external_force, _prime_force),
    TopicCase("/sally/ik_target", IKTarget, ("ik",), ik_target),
    TopicCase("/sally/foot_states", FootStates, ("sequencer",), foot_states, stream=True),
    TopicCase("/sally/magnets", MagnetArray, ("estimator", "sequencer"), magnet_array, stream=True),
    TopicCase("/sally/ik_status", IKStatus, ("sequencer",), ik_status, stream=True),
    TopicCase(
        "/sally/ground_truth/magnets", MagnetTruthArray, ("pulloff",), magnet_truth, graphs=("pulloff",), stream=True
    ),
)
