"""PlanningFrame: a frame the IK plans in, and what it knows of the scene in it. Pure."""

from __future__ import annotations

from dataclasses import dataclass

from sally_description.contact import faces
from sally_description.pose import Pose
from sally_description.scene import Scene, corners_of, scene
from sally_description.surfaces import Surface


@dataclass(frozen=True)
class PlanningFrame:
    """The frame of a climbed corner (``name``: its TF name), the room's pose from it
    (``corner_from_room``, None where the two are one), the steel surfaces as seen in it (``faces``:
    a stance foot holds the nearest, its contact baseline) and the surface it stands on (``stand``,
    z up from it: a foot found on it at a run's start is held in position, on another in full pose)."""

    name: str
    corner_from_room: Pose | None
    faces: tuple[Surface, ...]
    stand: str

    @classmethod
    def of(cls, corner: Scene, steel: tuple[Surface, ...]) -> PlanningFrame:
        """The frame ``corner`` is planned in, with the surfaces ``steel`` (the room's) seen from it."""
        turned = corner.room_from_world.inverse() if corner.turned else None
        return cls(corner.planning_frame, turned, faces(steel, corner.room_from_world), corner.stood_on)


def planning_frames(name: str) -> dict[str, PlanningFrame]:
    """The frames the IK can plan in, in scene ``name``, by TF name (its own first): the corners
    :func:`sally_description.scene.corners_of` says that scene can climb, with its steel."""
    steel = tuple(s for s in scene(name).surfaces if s.steel)
    return {frame: PlanningFrame.of(corner, steel) for frame, corner in corners_of(name).items()}
