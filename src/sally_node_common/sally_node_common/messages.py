"""The check of a message more than one node reads that is not ours: the sim's /sally/odom (nav_msgs)."""

from __future__ import annotations

from sally_description.pose import Pose

from .decoded_once import decoded_once
from .inputs import MAX_DISTANCE, MAX_RATE, UNKNOWN, InputError, numbers, unit_quaternion

ODOM_FRAMES = ("world", "main_frame")
"""The sim's odometry: main_frame in the world (an empty frame id is taken as these)."""
ODOM_FRAME = "odom"
"""The state estimator's frame: the world's (the sim's ``world -> odom`` is the identity: the
estimator starts from where the map says Sally was put down), so its odometry is read as the world's."""


@decoded_once
def odometry_pose(msg, frames: tuple[str, str] = ODOM_FRAMES) -> Pose:
    """The pose of a nav_msgs/Odometry, with its twist checked too; raises InputError (unknown
    frames, non-finite or implausible numbers, a non-unit quaternion). Decoded once for all its
    readers in the process (:mod:`.decoded_once`: its arrays are read-only)."""
    if msg.header.frame_id not in ("", frames[0], ODOM_FRAME) or msg.child_frame_id not in ("", frames[1]):
        raise InputError(
            UNKNOWN,
            f"odometry of {msg.child_frame_id!r} in {msg.header.frame_id!r}; expected {frames[1]!r} in {frames[0]!r}",
        )
    p, q, t = msg.pose.pose.position, msg.pose.pose.orientation, msg.twist.twist
    position = numbers((p.x, p.y, p.z), MAX_DISTANCE, "odometry position", " m")
    numbers((t.linear.x, t.linear.y, t.linear.z, t.angular.x, t.angular.y, t.angular.z), MAX_RATE, "odometry twist")
    return Pose(position, unit_quaternion((q.w, q.x, q.y, q.z), "odometry orientation"))
