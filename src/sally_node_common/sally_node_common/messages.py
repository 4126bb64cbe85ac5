"""Checks of the messages more than one node reads: the sim's /sally/odom and /sally/magnets."""

from __future__ import annotations

import numpy as np

from sally_description.constants import LEGS

from .inputs import MAX_DISTANCE, MAX_FORCE, MAX_RATE, UNKNOWN, InputError, known, numbers, unit_quaternion

ODOM_FRAMES = ("world", "main_frame")
"""The sim's odometry: main_frame in the world (an empty frame id is taken as these)."""
FEET = LEGS
SURFACES = ("floor", "wall", "none")
FAR = 1e9
"""The sim's min_distance when no plate is in range (m)."""


def odometry_pose(msg, frames: tuple[str, str] = ODOM_FRAMES) -> tuple[np.ndarray, np.ndarray]:
    """Position and wxyz orientation of a nav_msgs/Odometry, with its twist checked too; raises
    InputError (unknown frames, non-finite or implausible numbers, a non-unit quaternion)."""
    if msg.header.frame_id not in ("", frames[0]) or msg.child_frame_id not in ("", frames[1]):
        raise InputError(
            UNKNOWN,
            f"odometry of {msg.child_frame_id!r} in {msg.header.frame_id!r}; expected {frames[1]!r} in {frames[0]!r}",
        )
    p, q, t = msg.pose.pose.position, msg.pose.pose.orientation, msg.twist.twist
    position = numbers((p.x, p.y, p.z), MAX_DISTANCE, "odometry position", " m")
    numbers((t.linear.x, t.linear.y, t.linear.z, t.angular.x, t.angular.y, t.angular.z), MAX_RATE, "odometry twist")
    return position, unit_quaternion((q.w, q.x, q.y, q.z), "odometry orientation")


def check_magnet_array(msg) -> None:
    """A sally_interfaces/MagnetArray: known feet (each once) and surfaces, plausible forces and
    distances; raises InputError."""
    feet = [m.foot for m in msg.magnets]
    known(feet, FEET, "magnet telemetry")
    if len(set(feet)) != len(feet):
        raise InputError("duplicate", f"magnet telemetry names a foot twice: {feet}")
    for m in msg.magnets:
        known([m.surface], SURFACES, f"magnet telemetry surface of {m.foot}")
        f = m.force
        numbers((f.x, f.y, f.z, m.magnitude, m.contact_force), MAX_FORCE, f"magnet telemetry of {m.foot}", " N")
        numbers((m.min_distance, m.penetration), FAR, f"magnet telemetry distances of {m.foot}", " m")
