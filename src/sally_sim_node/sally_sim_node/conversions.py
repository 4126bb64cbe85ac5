"""Message <-> domain conversions of the sim node: small pure functions, no rclpy.

Stamps are sim time. They are carried as integer nanoseconds so that lockstep matching compares
exactly what was sent.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import mujoco
import numpy as np
from builtin_interfaces.msg import Time
from nav_msgs.msg import Odometry
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import Imu, JointState, Range

from sally_description import LEGS
from sally_node_common.inputs import MAX_FORCE, InputError
from sally_node_common.magnet_array_msg import MagnetReadingData
from sally_node_common.magnet_truth_msg import MagnetTruthData
from sally_node_common.stamps import stamp_ns

WORLD_FRAME = "world"
BODY_FRAME = "main_frame"


class CommandError(InputError):
    """A command message that is rejected; ``reason`` is a short key for counting."""


# --- time ---------------------------------------------------------------------------------------
def to_nanoseconds(seconds: float) -> int:
    """``seconds`` as integer nanoseconds (rounded)."""
    return round(seconds * 1e9)


def time_msg(nanoseconds: int) -> Time:
    """A ``builtin_interfaces/Time`` of ``nanoseconds``."""
    return Time(sec=nanoseconds // 1_000_000_000, nanosec=nanoseconds % 1_000_000_000)


def clock_msg(nanoseconds: int) -> Clock:
    """A ``rosgraph_msgs/Clock`` of ``nanoseconds``."""
    return Clock(clock=time_msg(nanoseconds))


# --- joint states and efforts ---------------------------------------------------------------------
class JointStateWriter:
    """Builds the JointState of fixed joint names. Each call returns a new message: a published
    message belongs to its readers (nodes hosted together get the object itself)."""

    def __init__(self, names: Sequence[str]) -> None:
        self.names = list(names)

    def fill(self, nanoseconds: int, position: np.ndarray, velocity: np.ndarray, effort: np.ndarray) -> JointState:
        """A JointState stamped ``nanoseconds`` with these positions, velocities and efforts."""
        msg = JointState(name=self.names)
        msg.header.stamp = time_msg(nanoseconds)
        msg.position = position.tolist()
        msg.velocity = velocity.tolist()
        msg.effort = effort.tolist()
        return msg


@dataclass(frozen=True)
class EffortCommand:
    """An accepted effort command: which actuated joints, their efforts and its stamp."""

    indices: np.ndarray
    """Positions of the named joints in the actuated-joint order."""
    efforts: np.ndarray
    stamp: int
    """Sim time of the state it answers (ns); 0 when unstamped."""


def parse_effort_command(msg: JointState, actuated: Sequence[str], passive: Iterable[str] = ()) -> EffortCommand:
    """Validate an effort command (names + efforts); raises CommandError naming what is wrong."""
    names, efforts = list(msg.name), np.asarray(msg.effort, dtype=float)
    if not names:
        raise CommandError("empty", "effort command names no joints")
    if len(efforts) != len(names):
        raise CommandError("length", f"effort command has {len(names)} names but {len(efforts)} efforts")
    if len(set(names)) != len(names):
        raise CommandError("duplicate", "effort command names a joint twice")
    index = {name: i for i, name in enumerate(actuated)}
    passive = set(passive)
    unknown = [n for n in names if n not in index]
    if unknown:
        kind = "passive" if all(n in passive for n in unknown) else "unknown"
        what = "passive (not actuated)" if kind == "passive" else "unknown"
        raise CommandError(kind, f"effort command names {what} joint(s) {unknown}; actuated joints: {list(actuated)}")
    if not np.isfinite(efforts).all():
        bad = [n for n, e in zip(names, efforts) if not math.isfinite(e)]
        raise CommandError("non_finite", f"effort command has non-finite efforts for {bad}")
    if np.abs(efforts).max() > MAX_FORCE:
        raise CommandError(
            "out_of_range", f"effort command has {np.abs(efforts).max():g} N m, beyond the plausible +-{MAX_FORCE:g}"
        )
    return EffortCommand(np.array([index[n] for n in names]), efforts, stamp_ns(msg.header.stamp))


# --- telemetry ----------------------------------------------------------------------------------
def magnet_truths(readouts: Mapping, contact_forces: Mapping[str, float]) -> list[MagnetTruthData]:
    """The world's truth of every leg's magnet in :data:`LEGS` order. ``readouts``: leg -> MagnetReadout
    (sally_sim_node.magnets); ``contact_forces``: leg -> the plates' normal force on it (N)."""
    return [
        MagnetTruthData(
            leg,
            r.enabled,
            np.asarray(r.force, dtype=float),
            r.magnitude,
            r.min_distance,
            r.surface,
            r.in_contact,
            float(contact_forces[leg]),
        )
        for leg, r in ((leg, readouts[leg]) for leg in LEGS)
    ]


def magnet_readings(truths: Sequence[MagnetTruthData], readings=None, sensed=None) -> list[MagnetReadingData]:
    """What each magnet's driver knows of ``truths`` (:func:`magnet_truths`): its switch, and its
    foot's contact sensor: ``readings`` (N) and ``sensed`` (whether it says contact) in :data:`LEGS`
    order (None: the sensor reads the contact force exactly and says what the world has)."""
    return [
        MagnetReadingData(
            t.foot,
            t.enabled,
            t.contact_force if readings is None else float(readings[i]),
            t.in_contact if sensed is None else bool(sensed[i]),
        )
        for i, t in enumerate(truths)
    ]


class OdometryWriter:
    """Builds the Odometry of main_frame in the world (twist in main_frame, as nav_msgs/Odometry
    wants). Each call returns a new message (see :class:`JointStateWriter`)."""

    def fill(self, nanoseconds: int, position, quat_wxyz, linear_world, angular_body) -> Odometry:
        """An Odometry of main_frame in the world stamped ``nanoseconds``: pose, linear velocity (world) and angular
        velocity (body)."""
        msg = Odometry(child_frame_id=BODY_FRAME)
        msg.header.frame_id = WORLD_FRAME
        msg.header.stamp = time_msg(nanoseconds)
        p, q = msg.pose.pose.position, msg.pose.pose.orientation
        p.x, p.y, p.z = (float(v) for v in position)
        q.w, q.x, q.y, q.z = (float(v) for v in quat_wxyz)
        rotation = np.empty(9)
        mujoco.mju_quat2Mat(rotation, np.asarray(quat_wxyz, dtype=float))
        linear_body = rotation.reshape(3, 3).T @ np.asarray(linear_world, dtype=float)
        t = msg.twist.twist
        t.linear.x, t.linear.y, t.linear.z = (float(v) for v in linear_body)
        t.angular.x, t.angular.y, t.angular.z = (float(v) for v in angular_body)
        return msg


def imu_msg(nanoseconds: int, accel, gyro, covariances: tuple[float, float], frame: str) -> Imu:
    """sensor_msgs/Imu stamped ``nanoseconds``: specific force and angular rate in ``frame``, their
    covariances (variance per axis, diagonal); no orientation (its covariance[0] = -1, REP 145)."""
    msg = Imu()
    msg.header.frame_id = frame
    msg.header.stamp = time_msg(nanoseconds)
    msg.orientation_covariance[0] = -1.0
    a, g = msg.linear_acceleration, msg.angular_velocity
    a.x, a.y, a.z = (float(v) for v in accel)
    g.x, g.y, g.z = (float(v) for v in gyro)
    for i in (0, 4, 8):
        msg.linear_acceleration_covariance[i] = covariances[0]
        msg.angular_velocity_covariance[i] = covariances[1]
    return msg


def range_msg(nanoseconds: int, distance: float, frame: str, limits: tuple[float, float]) -> Range:
    """sensor_msgs/Range (infrared: a time-of-flight sensor) stamped ``nanoseconds``: ``distance``
    (m, +inf when nothing is within ``limits``' max, as REP 117 says)."""
    f32 = lambda v: float(np.float32(v))  # noqa: E731 - the message's float32, as DDS carries it
    msg = Range(
        radiation_type=Range.INFRARED, field_of_view=f32(0.44), min_range=f32(limits[0]), max_range=f32(limits[1])
    )
    msg.header.frame_id = frame
    msg.header.stamp = time_msg(nanoseconds)
    msg.range = f32(distance)  # a reader in this process (the composed host) reads what one over DDS reads
    return msg
