"""BodyTarget: where main_frame should be for one IK step, and the body pose read off the hips.

Produced by the sequences (the climb moves the body while every foot holds), consumed by the
whole-body IK; on the wire it is the ``body_pose`` of ``sally_interfaces/IKTarget``. Bad values
raise :class:`BodyTargetError` (a ``ValueError``) naming the field.

:func:`body_from_hips` gives main_frame's pose from the four hip pivots (the hip sites sit at
(+-0.13, +-0.08, 0) in main_frame, so their mean is its origin and their layout its axes): the
sequencer knows the hips from /sally/foot_states and needs no other input for the body.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np


class BodyTargetError(ValueError):
    """A body target that is not finite, or not a unit quaternion."""


@dataclass(frozen=True)
class BodyTarget:
    position: np.ndarray
    """main_frame's origin, world (m)."""
    quat: np.ndarray
    """main_frame's orientation, world, (w, x, y, z), normalised on construction."""

    def __post_init__(self) -> None:
        position = np.asarray(self.position, dtype=float)
        if position.shape != (3,) or not np.isfinite(position).all():
            raise BodyTargetError(f"body target position must be a finite 3-vector, got {self.position!r}")
        quat = np.asarray(self.quat, dtype=float)
        if quat.shape != (4,) or not np.isfinite(quat).all() or abs(np.linalg.norm(quat) - 1.0) > 1e-3:
            raise BodyTargetError(f"body target orientation must be a unit quaternion (w, x, y, z), got {self.quat!r}")
        object.__setattr__(self, "position", position)
        object.__setattr__(self, "quat", quat / np.linalg.norm(quat))

    @property
    def pitch_deg(self) -> float:
        """Nose-up pitch: the angle of main_frame's x axis above the horizontal (deg)."""
        return pitch_of(rotation(self.quat))

    @property
    def yaw_deg(self) -> float:
        """Heading: the angle of main_frame's x axis about world z, from world x (deg)."""
        x = rotation(self.quat)[:, 0]
        return math.degrees(math.atan2(x[1], x[0]))

    def squared(self) -> BodyTarget:
        """The same pose turned about world z so that its heading is 0 (pitch and roll kept)."""
        c, s = math.cos(math.radians(self.yaw_deg)), math.sin(math.radians(self.yaw_deg))
        unturn = np.array([[c, s, 0.0], [-s, c, 0.0], [0.0, 0.0, 1.0]])
        return BodyTarget(self.position, quaternion(unturn @ rotation(self.quat)))

    def toward(self, goal: BodyTarget, s: float) -> BodyTarget:
        """The pose a fraction ``s`` (0..1) of the way to ``goal``: position straight, orientation
        along the shortest arc (slerp)."""
        return BodyTarget(self.position + s * (goal.position - self.position), slerp(self.quat, goal.quat, s))


def rotation(quat: np.ndarray) -> np.ndarray:
    """World-from-body rotation matrix of a unit (w, x, y, z) quaternion."""
    w, x, y, z = quat
    return np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
            [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
            [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
        ]
    )


def quaternion(matrix: np.ndarray) -> np.ndarray:
    """(w, x, y, z) of a rotation matrix (Shepperd's method), w >= 0."""
    m = np.asarray(matrix, dtype=float)
    trace = np.trace(m)
    if trace > 0:
        s = 2.0 * math.sqrt(1.0 + trace)
        q = np.array([0.25 * s, (m[2, 1] - m[1, 2]) / s, (m[0, 2] - m[2, 0]) / s, (m[1, 0] - m[0, 1]) / s])
    else:
        i = int(np.argmax(np.diag(m)))
        j, k = (i + 1) % 3, (i + 2) % 3
        s = 2.0 * math.sqrt(1.0 + m[i, i] - m[j, j] - m[k, k])
        q = np.zeros(4)
        q[0] = (m[k, j] - m[j, k]) / s
        q[1 + i] = 0.25 * s
        q[1 + j] = (m[j, i] + m[i, j]) / s
        q[1 + k] = (m[k, i] + m[i, k]) / s
    q /= np.linalg.norm(q)
    return q if q[0] >= 0 else -q


def slerp(a: np.ndarray, b: np.ndarray, s: float) -> np.ndarray:
    dot = float(a @ b)
    if dot < 0:
        b, dot = -b, -dot
    if dot > 0.9995:
        q = a + s * (b - a)
        return q / np.linalg.norm(q)
    angle = math.acos(dot)
    return (math.sin((1 - s) * angle) * a + math.sin(s * angle) * b) / math.sin(angle)


def pitch_of(matrix: np.ndarray) -> float:
    """Nose-up pitch (deg) of a world-from-body rotation: its x axis' angle above the horizontal."""
    return math.degrees(math.asin(max(-1.0, min(1.0, float(matrix[2, 0])))))


def body_from_hips(hips: Mapping[str, np.ndarray]) -> BodyTarget:
    """main_frame's pose from the hip pivots of FL, FR, BL and BR (world, m)."""
    p = {leg: np.asarray(hips[leg], dtype=float) for leg in ("FL", "FR", "BL", "BR")}
    x = (p["FL"] + p["FR"]) - (p["BL"] + p["BR"])
    y = (p["FL"] + p["BL"]) - (p["FR"] + p["BR"])
    x /= np.linalg.norm(x)
    y -= (y @ x) * x
    y /= np.linalg.norm(y)
    matrix = np.column_stack([x, y, np.cross(x, y)])
    return BodyTarget(np.mean([p[leg] for leg in p], axis=0), quaternion(matrix))
