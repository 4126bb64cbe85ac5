"""``simulation_interfaces/EntityState`` to and from :class:`~.entities.Kinematics`: what
``GetEntityState`` answers and what ``SetEntityState`` asks, always in the ``world`` frame."""

from __future__ import annotations

import numpy as np

from sally_description.pose import Pose, PoseError
from sally_node_common.stamps import set_stamp
from simulation_interfaces.msg import EntityState

from .entities import Kinematics

WORLD = "world"
"""The one frame states are given in (an empty frame_id means it too, as the standard says)."""


class EntityStateError(ValueError):
    """A requested state the sim cannot take; ``invalid_pose`` when the pose itself is the fault."""

    def __init__(self, message: str, invalid_pose: bool) -> None:
        super().__init__(message)
        self.invalid_pose = invalid_pose


def _vector(target, values: np.ndarray) -> None:
    target.x, target.y, target.z = (float(v) for v in values)


def _array(vector) -> np.ndarray:
    return np.array([vector.x, vector.y, vector.z], dtype=float)


def entity_state_to_msg(state: Kinematics, stamp_ns: int) -> EntityState:
    """The message of ``state`` at sim time ``stamp_ns``, in the world frame."""
    msg = EntityState()
    set_stamp(msg.header, stamp_ns)
    msg.header.frame_id = WORLD
    _vector(msg.pose.position, state.pose.position)
    q = msg.pose.orientation
    q.w, q.x, q.y, q.z = (float(v) for v in state.pose.quat)
    _vector(msg.twist.linear, state.linear)
    _vector(msg.twist.angular, state.angular)
    _vector(msg.acceleration.linear, state.linear_acceleration)
    _vector(msg.acceleration.angular, state.angular_acceleration)
    return msg


def entity_state_from_msg(msg: EntityState) -> Kinematics:
    """The state ``msg`` asks for. Raises :class:`EntityStateError` for a frame other than the world
    (or empty), a position that is not finite or a quaternion that is not a rotation
    (``invalid_pose``), or a velocity that is not finite. The acceleration is read as given."""
    if msg.header.frame_id not in ("", WORLD):
        raise EntityStateError(f"frame {msg.header.frame_id!r} is not known: give states in {WORLD!r}", False)
    q = msg.pose.orientation
    try:
        pose = Pose(_array(msg.pose.position), np.array([q.w, q.x, q.y, q.z], dtype=float))
    except PoseError as exc:
        raise EntityStateError(str(exc), True) from None
    linear, angular = _array(msg.twist.linear), _array(msg.twist.angular)
    if not (np.isfinite(linear).all() and np.isfinite(angular).all()):
        raise EntityStateError(f"twist must be finite, got linear {linear.tolist()}, angular {angular.tolist()}", False)
    return Kinematics(pose, linear, angular, _array(msg.acceleration.linear), _array(msg.acceleration.angular))
