"""Pose: a body's place and orientation in the world, the one pose type of the stack.

Positions are metres, world frame; orientations are unit quaternions (w, x, y, z), world from body,
MuJoCo's convention (``data.xquat``, ``qpos`` of a free joint). The rotation maths is MuJoCo's own
(``mujoco.mju_*``); nothing here is written out by hand. Bad values raise :class:`PoseError` (a
``ValueError``) naming the field.

:func:`pose_from_hips` gives main_frame's pose from the four hip pivots (the hip sites sit at
(+-0.13, +-0.08, 0) in main_frame, so their mean is its origin and their layout its axes): the
sequencer knows the hips from /sally/foot_states and needs no other input for the body.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import mujoco
import numpy as np

from .errors import DescriptionError

UNIT_TOLERANCE = 1e-3
"""How far a quaternion's norm may be from 1 and still be taken as a rotation (it is normalised)."""
ROUNDING = 1e-12
"""A quaternion whose norm is this close to 1 is kept as given (a pose read from MuJoCo or a message
goes on bit for bit; dividing by a norm of 1 - 1e-16 would change its last digits)."""


class PoseError(DescriptionError):
    """A pose that is not finite, or whose orientation is not a unit quaternion."""


@dataclass(frozen=True)
class Pose:
    """A body's pose in the world: ``position`` (m) and ``quat`` (w, x, y, z), world from body."""

    position: np.ndarray
    """The body frame's origin, world (m)."""
    quat: np.ndarray
    """The body frame's orientation, world from body, (w, x, y, z), normalised on construction
    (unless already unit to :data:`ROUNDING`)."""

    def __post_init__(self) -> None:
        """Check both fields and store them as float arrays, the quaternion normalised."""
        position = np.asarray(self.position, dtype=float)
        if position.shape != (3,) or not np.isfinite(position).all():
            raise PoseError(f"pose position must be a finite 3-vector, got {self.position!r}")
        quat = np.asarray(self.quat, dtype=float)
        norm = float(np.linalg.norm(quat)) if quat.shape == (4,) else math.nan
        if not np.isfinite(quat).all() or not abs(norm - 1.0) <= UNIT_TOLERANCE:
            raise PoseError(f"pose orientation must be a unit quaternion (w, x, y, z), got {self.quat!r}")
        object.__setattr__(self, "position", position)
        object.__setattr__(self, "quat", quat if abs(norm - 1.0) <= ROUNDING else quat / norm)

    @classmethod
    def from_matrix(cls, position: np.ndarray, matrix: np.ndarray) -> Pose:
        """The pose at ``position`` with the world-from-body rotation ``matrix`` (3 x 3)."""
        return cls(position, quaternion(matrix))

    @property
    def rotation(self) -> np.ndarray:
        """The world-from-body rotation matrix (3 x 3)."""
        return rotation(self.quat)

    @property
    def pitch_deg(self) -> float:
        """Nose-up pitch: the angle of the body's x axis above the horizontal (deg)."""
        return pitch_of(self.rotation)

    @property
    def yaw_deg(self) -> float:
        """Heading: the angle of the body's x axis about world z, from world x (deg)."""
        x = self.rotation[:, 0]
        return math.degrees(math.atan2(x[1], x[0]))

    def to_world(self, point: np.ndarray) -> np.ndarray:
        """A point given in the body frame, in the world (m)."""
        return self.rotation @ np.asarray(point, dtype=float) + self.position

    def after(self, inner: Pose) -> Pose:
        """``inner`` (a pose given in this pose's frame) in the world: this pose composed with it."""
        quat = np.zeros(4)
        mujoco.mju_mulQuat(quat, self.quat, inner.quat)
        return Pose(self.to_world(inner.position), quat)

    def inverse(self) -> Pose:
        """The world's pose in this pose's frame."""
        quat = np.zeros(4)
        mujoco.mju_negQuat(quat, self.quat)
        return Pose(-(self.rotation.T @ self.position), quat)

    def squared(self) -> Pose:
        """The same pose turned about world z so that its heading is 0 (pitch and roll kept)."""
        unturn = np.zeros(4)
        mujoco.mju_axisAngle2Quat(unturn, np.array([0.0, 0.0, 1.0]), -math.radians(self.yaw_deg))
        quat = np.zeros(4)
        mujoco.mju_mulQuat(quat, unturn, self.quat)
        return Pose(self.position, quat)

    def toward(self, goal: Pose, s: float) -> Pose:
        """The pose a fraction ``s`` (0..1) of the way to ``goal``: position straight, orientation
        along the shortest arc (slerp)."""
        return Pose(self.position + s * (goal.position - self.position), slerp(self.quat, goal.quat, s))


def rotation(quat: np.ndarray) -> np.ndarray:
    """World-from-body rotation matrix (3 x 3) of a unit (w, x, y, z) quaternion."""
    matrix = np.zeros(9)
    mujoco.mju_quat2Mat(matrix, np.asarray(quat, dtype=float))
    return matrix.reshape(3, 3)


def quaternion(matrix: np.ndarray) -> np.ndarray:
    """(w, x, y, z) of a rotation matrix, unit length, w >= 0."""
    quat = np.zeros(4)
    mujoco.mju_mat2Quat(quat, np.asarray(matrix, dtype=float).reshape(9))
    quat /= np.linalg.norm(quat)
    return quat if quat[0] >= 0 else -quat


def slerp(a: np.ndarray, b: np.ndarray, s: float) -> np.ndarray:
    """The unit quaternion a fraction ``s`` (0..1) of the way from ``a`` to ``b`` along the shortest
    arc (``b`` and ``-b`` are the same rotation)."""
    a = np.asarray(a, dtype=float)
    turn = np.zeros(3)
    mujoco.mju_subQuat(turn, np.asarray(b, dtype=float), a)  # a * quat(turn) = b, |turn| <= pi
    quat = a.copy()
    mujoco.mju_quatIntegrate(quat, turn, s)
    return quat


def turn_toward(a: np.ndarray, b: np.ndarray, s: float) -> np.ndarray:
    """The unit vector a fraction ``s`` (0..1) of the way from unit ``a`` to unit ``b`` along the
    great circle through both (``b`` itself when they coincide; refused for opposite vectors).

    The closed form (sin((1 - s) t) a + sin(s t) b) / sin t, t the angle between them: the same
    direction as turning ``a`` by s t about a x b (``mju_axisAngle2Quat`` and ``mju_rotVecQuat``; the
    test holds them to 1e-12), and the very floats the f2w reach was measured with: the rotation's
    last-digit differences move FR's plant by 0.02 mm over a 22 s run."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    angle = math.acos(min(max(float(a @ b), -1.0), 1.0))
    if angle < 1e-9:
        return b.copy()
    if math.pi - angle < 1e-9:
        raise PoseError(f"no single great circle joins opposite directions {a} and {b}")
    return (math.sin((1.0 - s) * angle) * a + math.sin(s * angle) * b) / math.sin(angle)


def pitch_of(matrix: np.ndarray) -> float:
    """Nose-up pitch (deg) of a world-from-body rotation: its x axis' angle above the horizontal."""
    return math.degrees(math.asin(max(-1.0, min(1.0, float(matrix[2, 0])))))


def body_axes_from_hips(hips: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """main_frame's origin and x axis (each n x 3, world) from n samples of the hip pivots of FL,
    FR, BL and BR (n x 4 x 3, m, in that order): :func:`pose_from_hips`'s, for a whole run at once."""
    fl, fr, bl, br = np.asarray(hips, dtype=float).reshape(-1, 4, 3).transpose(1, 0, 2)
    x = (fl + fr) - (bl + br)
    return (((fl + fr) + bl) + br) / 4.0, x / np.linalg.norm(x, axis=1, keepdims=True)


def pose_from_hips(hips: Mapping[str, np.ndarray]) -> Pose:
    """main_frame's pose from the hip pivots of FL, FR, BL and BR (world, m)."""
    fl, fr, bl, br = (np.asarray(hips[leg], dtype=float) for leg in ("FL", "FR", "BL", "BR"))
    x = (fl + fr) - (bl + br)
    y = (fl + bl) - (fr + br)
    x /= np.linalg.norm(x)
    y -= (y @ x) * x
    y /= np.linalg.norm(y)
    # x cross y and the mean of the four written out: the same bits as np.cross and np.mean, a third
    # of the time (the sequencer computes this pose every tick, in the loop's thread)
    z = np.array([x[1] * y[2] - x[2] * y[1], x[2] * y[0] - x[0] * y[2], x[0] * y[1] - x[1] * y[0]])
    return Pose.from_matrix((((fl + fr) + bl) + br) / 4.0, np.column_stack([x, y, z]))
