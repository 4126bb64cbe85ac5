"""Steel surfaces as data: a surface is a named rectangular face in the room's frame.

The room's frame is z up with the floor's face at z = 0. A :class:`Surface` is the face Sally's feet
touch: its centre and orientation (:attr:`Surface.face`, whose z axis is the outward normal, pointing
into the room), its half sizes along the face's own x and y, and whether it is steel (a magnet holds
on it). The plate behind the face is :data:`PLATE_THICKNESS` thick.

Two surfaces *meet* (:func:`meets`) where they form a concave corner: perpendicular faces sharing an
edge, each lying on the other's inner side (floor and wall, wall and ceiling; never floor and
ceiling). :func:`corner_frame` is the frame a climb over such a corner is planned in: the surface
stood on is its floor (z up from it) and the surface climbed onto its wall (at x = ``depth``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np

from .constants import WALL_X
from .errors import DescriptionError
from .pose import Pose

PLATE_THICKNESS = 0.02
"""m: every plate behind a face is 2 cm thick (the MJCF's plates)."""
TOUCH = 1e-6
"""m: how near two faces' edges must come to count as meeting."""


class SurfaceError(DescriptionError):
    """A surface, a pair of surfaces or a corner that cannot be what was asked."""


@dataclass(frozen=True)
class Surface:
    """A rectangular face in the room: ``face`` (its centre, m; its z axis the outward normal),
    ``size`` (half extents along the face's x and y, m), ``steel`` (a magnet holds on it)."""

    name: str
    face: Pose
    size: tuple[float, float]
    steel: bool = True

    def __post_init__(self) -> None:
        if not self.name or not self.name.isidentifier():
            raise SurfaceError(
                f"a surface's name must be a plain word (it names a geom and a topic field), got {self.name!r}"
            )
        if len(self.size) != 2 or not all(np.isfinite(self.size)) or min(self.size) <= 0.0:
            raise SurfaceError(f"surface {self.name!r}: size must be two positive half extents (m), got {self.size!r}")

    @cached_property
    def axes(self) -> np.ndarray:
        """The face's x, y and z (its outward normal) axes as columns (3 x 3, read-only), in the frame
        the face is given in: exact for a face along the room's axes. Computed once (the sequencer
        asks for the surface under every foot at every state)."""
        axes = np.round(self.face.rotation, 12) + 0.0
        axes.flags.writeable = False
        return axes

    @property
    def normal(self) -> np.ndarray:
        """The face's outward normal (unit), in the frame the face is given in."""
        return self.axes[:, 2].copy()

    @property
    def offset(self) -> float:
        """The face's plane as ``normal . p = offset`` (m, in the frame the face is given in)."""
        return float(self.normal @ self.face.position)

    def corners(self) -> np.ndarray:
        """The face's four corners in the room (4, 3), m."""
        axes = self.axes
        half_u, half_v = axes[:, 0] * self.size[0], axes[:, 1] * self.size[1]
        centre = self.face.position
        return np.array([centre + su * half_u + sv * half_v for su in (-1, 1) for sv in (-1, 1)])

    def seen_from(self, frame: Pose) -> Surface:
        """This surface with its face given in ``frame`` (that frame's pose in the room) instead of
        the room: what a planner working in ``frame`` sees."""
        return replace(self, face=frame.inverse().after(self.face))

    def covers(self, point) -> bool:
        """Whether ``point`` (m, in the frame the face is given in) lies over the face: within its
        half sizes along the face's own axes."""
        u, v, _ = self.axes.T @ (np.asarray(point, dtype=float) - self.face.position)
        return bool(abs(u) <= self.size[0] and abs(v) <= self.size[1])

    def height(self, point) -> float:
        """How far ``point`` (m, in the frame the face is given in: the room's unless seen from
        another, :meth:`seen_from`) is from the face's plane along its normal (m; > 0 in the room)."""
        return float(self.axes[:, 2] @ (np.asarray(point, dtype=float) - self.face.position))

    def box(self, frame: Pose) -> tuple[np.ndarray, np.ndarray]:
        """The plate behind the face as an axis-aligned box in ``frame`` (a frame given by its pose in
        the room): its centre and half extents (m), rounded to the nanometre so that a box written
        from data is the same box as one written in the MJCF. Refused when the face is not aligned
        with ``frame``'s axes."""
        to_frame = frame.rotation.T
        axes = to_frame @ self.face.rotation
        if not np.allclose(np.abs(axes), np.round(np.abs(axes)), atol=1e-9):
            raise SurfaceError(f"surface {self.name!r} is not aligned with the simulated frame's axes")
        centre = to_frame @ (self.face.position - self.normal * PLATE_THICKNESS / 2 - frame.position)
        half = np.abs(np.round(axes)) @ np.array([self.size[0], self.size[1], PLATE_THICKNESS / 2])
        return np.round(centre, 9) + 0.0, np.round(half, 9)


def face(centre, u, v) -> Pose:
    """The pose of a face centred at ``centre`` (room, m) whose x axis is ``u`` and y axis ``v``
    (unit, perpendicular; the outward normal is u x v)."""
    u, v = np.asarray(u, dtype=float), np.asarray(v, dtype=float)
    return Pose.from_matrix(np.asarray(centre, dtype=float), np.column_stack([u, v, np.cross(u, v)]))


def meets(a: Surface, b: Surface) -> bool:
    """Whether ``a`` and ``b`` form a concave corner: perpendicular faces whose edges touch (within
    :data:`TOUCH`), each on the other's inner side, overlapping along the shared edge."""
    if abs(float(a.normal @ b.normal)) > 1e-9:
        return False
    for one, other in ((a, b), (b, a)):
        heights = [other.height(c) for c in one.corners()]
        if min(heights) < -TOUCH or min(heights) > TOUCH:
            return False
    edge = np.cross(a.normal, b.normal)
    spans = [sorted(float(edge @ c) for c in s.corners()) for s in (a, b)]
    return min(spans[0][-1], spans[1][-1]) - max(spans[0][0], spans[1][0]) > TOUCH


def corner_frame(stand: Surface, goal: Surface, depth: float = WALL_X) -> Pose:
    """The frame a climb from ``stand`` onto ``goal`` is planned in, as a pose in the room: z along
    ``stand``'s normal, x into ``goal`` (against its normal), the origin on ``stand``'s face ``depth``
    from ``goal``'s face, level with the room's origin along their shared edge."""
    if not meets(stand, goal):
        raise SurfaceError(f"{stand.name} and {goal.name} do not meet in a concave corner: no climb joins them")
    z, x = stand.normal, -goal.normal
    origin = -stand.height(np.zeros(3)) * stand.normal
    origin = origin - (goal.height(origin) - depth) * goal.normal
    return Pose.from_matrix(np.round(origin, 12) + 0.0, np.column_stack([x, np.cross(z, x), z]))
