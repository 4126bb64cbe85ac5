"""The scenes Sally climbs in, and the frame each is simulated in.

* ``floor_wall`` (the default): the floor plate and the wall plate of ``mjcf/sally.xml``, z up. The
  corner Sally climbs is the floor-wall corner, and the simulation's ``world`` frame is the room's.
* ``corner3``: a room with a floor, a steel wall and a steel ceiling whose inner face is
  :data:`CEILING_HEIGHT` above the floor, meeting the wall in a 90 deg concave corner. Sally climbs
  the wall-ceiling corner (``sequence:=w2c``), starting with four feet on the wall.

Every scene is simulated in the frame of the corner being climbed: its ``world`` frame has the
surface Sally stands on as the floor plate (top face z = ``FLOOR_Z``) and the surface she goes to as
the wall plate (inner face x = ``WALL_X``). For ``corner3`` that frame is the room turned 90 deg
about y: the room's wall is the plate at z = 0, its ceiling the plate at x = 0.5, its floor a plate
at x = 0.5 - CEILING_HEIGHT, and gravity points along world -x (straight down in the room).
MuJoCo's dynamics do not depend on which frame they are written in, so this is the wall-ceiling
corner itself, and everything that plans and judges the floor-wall climb (the reachability map, the
IK's stances, the sequencer's phases, the report) applies to it unchanged.
:attr:`Scene.room_from_world` places the ``world`` frame in the room (z up, the floor's face at
z = 0): the sim publishes it on /tf_static as ``room -> world``, and the report and run.png state
positions in the room.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import mujoco
import numpy as np

from .constants import FLOOR_Z, PLATE_GEOMS, WALL_X
from .errors import DescriptionError
from .pose import Pose

CEILING_HEIGHT = 1.0
"""corner3: the ceiling's inner face above the room's floor (m). main_frame starts 0.5 m below it,
as far as it starts from the wall in ``floor_wall`` (the corner distance the reachability map and the
climb are planned for), so 0.50 m up the wall; the back feet's magnets then hang 0.14 m above the
floor (README, "Climbing onto the ceiling")."""
ROOM_FLOOR_GEOM = "room_floor"
"""corner3: the room's floor, a box geom of the world body (not steel: no magnet is ever near it)."""
GRAVITY = 9.81
"""m/s^2, as the MJCF's default."""
PLATE_HALF_THICKNESS = 0.01
"""m: the MJCF's plates are 2 cm thick."""


@dataclass(frozen=True)
class Scene:
    """A scene: its name, the room surface each plate of the climbed corner is, gravity in the
    simulation's ``world`` frame, and where that frame sits in the room."""

    name: str
    surfaces: dict[str, str]
    """Corner surface (a key of ``PLATE_GEOMS``) -> what it is in the room."""
    gravity: tuple[float, float, float]
    """Gravity in the ``world`` frame (m/s^2)."""
    room_from_world: Pose
    """The ``world`` frame's pose in the room (z up, the floor's face at z = 0)."""

    @property
    def turned(self) -> bool:
        """Whether ``world`` is not the room's own frame."""
        return not np.allclose(self.room_from_world.quat, [1.0, 0.0, 0.0, 0.0])

    def to_room(self, points) -> np.ndarray:
        """``points`` (..., 3) given in ``world`` (m), in the room's frame."""
        pose = self.room_from_world
        return np.asarray(points, dtype=float) @ pose.rotation.T + pose.position

    def room_surface(self, surface: str) -> str:
        """What corner surface ``surface`` ("floor", "wall"; anything else is returned as it is) is in the room."""
        return self.surfaces.get(surface, surface)


def _turned_room() -> Pose:
    """corner3's ``world`` in the room: world x is room z (up), world z is room -x (out of the wall),
    and world's origin is on the wall's face (room x = WALL_X) 0.5 m below the ceiling's."""
    quat = np.zeros(4)
    mujoco.mju_axisAngle2Quat(quat, np.array([0.0, 1.0, 0.0]), -math.pi / 2)
    return Pose(np.array([WALL_X, 0.0, CEILING_HEIGHT - WALL_X]), quat)


SCENES = {
    "floor_wall": Scene(
        "floor_wall",
        {"floor": "floor", "wall": "wall"},
        (0.0, 0.0, -GRAVITY),
        Pose(np.zeros(3), np.array([1.0, 0.0, 0.0, 0.0])),
    ),
    "corner3": Scene("corner3", {"floor": "wall", "wall": "ceiling"}, (-GRAVITY, 0.0, 0.0), _turned_room()),
}
"""Scene name -> :class:`Scene`. ``floor_wall`` is the default."""
DEFAULT_SCENE = "floor_wall"


def scene(name: str) -> Scene:
    """The scene called ``name``; refused, naming the valid ones, when there is none."""
    if name not in SCENES:
        raise DescriptionError(f"scene {name!r} is not one of {sorted(SCENES)}")
    return SCENES[name]


def apply_scene(spec: mujoco.MjSpec, name: str) -> None:
    """Make ``spec`` scene ``name``: its gravity and, for corner3, the room's wall (the floor plate,
    cut to the room's height) and floor (:data:`ROOM_FLOOR_GEOM`)."""
    chosen = scene(name)
    spec.option.gravity = np.array(chosen.gravity)
    if not chosen.turned:
        return
    # corner3: the floor plate is the room's wall, from the floor (world x = WALL_X - CEILING_HEIGHT) to the ceiling
    low = WALL_X - CEILING_HEIGHT
    wall = spec.geom(PLATE_GEOMS["floor"])
    wall.pos = np.array([(low + WALL_X) / 2, 0.0, FLOOR_Z - PLATE_HALF_THICKNESS])
    wall.size = np.array([(WALL_X - low) / 2, wall.size[1], PLATE_HALF_THICKNESS])
    ceiling = spec.geom(PLATE_GEOMS["wall"])
    floor = spec.worldbody.add_geom()
    floor.name = ROOM_FLOOR_GEOM
    floor.type = mujoco.mjtGeom.mjGEOM_BOX
    floor.pos = np.array([low - PLATE_HALF_THICKNESS, 0.0, ceiling.pos[2]])
    floor.size = np.array([PLATE_HALF_THICKNESS, ceiling.size[1], ceiling.size[2]])
    floor.rgba = np.array([0.75, 0.72, 0.66, 1.0])
