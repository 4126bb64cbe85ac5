"""The scenes Sally climbs in: lists of surfaces in the room's frame, and the corner each climbs.

A scene is its steel surfaces (:class:`~.surfaces.Surface`, named, in the room's frame: z up, the
floor's face at z = 0, gravity -z) and the concave corner Sally climbs in it (the surface she stands
on, the surface she goes to). The MJCF is built from it in memory (:func:`apply_scene`).

* ``floor_wall`` (the default): the floor and the wall (the wall's face at x = ``WALL_X``, 1 m high);
  Sally climbs the floor-wall corner.
* ``corner3``: a wall and a ceiling whose face is :data:`CEILING_HEIGHT` above a floor that is not
  steel; Sally climbs the wall-ceiling corner (``sequence:=w2c``), starting with four feet on the wall.
* ``room``: a steel floor, wall and ceiling (the ceiling :data:`CEILING_HEIGHT` up); Sally climbs the
  floor-wall corner, under a ceiling the magnets can hold.

Every scene is simulated in the room's frame (``apply_scene(..., in_room=True)``: gravity -z, every
surface where the room has it), and planned in the frame of the corner it climbs
(:func:`~.surfaces.corner_frame`): the surface stood on is the corner's floor plate (top face z =
``FLOOR_Z``), the surface climbed onto its wall plate (inner face x = ``WALL_X``). For ``floor_wall``
and ``room`` that frame is the room's own; for ``corner3`` it is the room turned 90 deg about y. A
model written in a turned corner's frame is the planners' kinematics only and has no gravity: every
force of gravity (the sim's, the controller's feed-forward, the IK's stance load) is computed on a
model in the room, whose gravity is -z in every scene. Kinematics do not depend on the frame they are
written in, so everything that plans and judges the floor-wall climb (the reachability map, the
IK's stances, the sequencer's phases, the report) applies to the wall-ceiling corner unchanged: the
IK turns the sim's odometry into the corner's frame. :attr:`Scene.room_from_world`
places the corner's frame in the room (the sim publishes it on /tf_static as ``world -> corner``
when it is turned), and the report and run.png state positions in the room. The magnet telemetry
names the surface a foot holds by its name in the room.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import mujoco
import numpy as np

from .errors import DescriptionError
from .pose import Pose
from .surfaces import Surface, corner_frame, face

CEILING_HEIGHT = 1.0
"""corner3 and room: the ceiling's face above the room's floor (m). corner3's main_frame starts 0.5 m
below it, as far as it starts from the wall in ``floor_wall`` (the corner distance the reachability
map and the climb are planned for), so 0.50 m up the wall; the back feet's magnets then hang 0.14 m
above the floor (README, "Climbing onto the ceiling")."""
GRAVITY = 9.81
"""m/s^2, as the MJCF's default: -z in the room."""
CORNER_PLATES = ("floor_plate", "wall_plate")
"""The MJCF's two plate geoms, in its order: the climbed corner's surface stood on and the one climbed onto."""
NON_STEEL_RGBA = (0.75, 0.72, 0.66, 1.0)
ROOM = Pose(np.zeros(3), np.array([1.0, 0.0, 0.0, 0.0]))
"""The room's own frame."""
CORNER_FRAME = "corner"
"""The TF frame of a climbed corner turned in the room (the planners' positions are in it); the
room's frame is ``world``."""

_X, _Y, _Z = np.eye(3)
FLOOR = Surface("floor", face([-1.0, 0.0, 0.0], _X, _Y), (1.5, 0.5))
"""The floor: 3 m deep (to the wall's foot), 1 m wide."""
WALL = Surface("wall", face([0.5, 0.0, CEILING_HEIGHT / 2], _Z, _Y), (CEILING_HEIGHT / 2, 0.5))
"""The wall, facing -x: from the floor to the ceiling's height, 1 m wide."""
CEILING = Surface("ceiling", face([0.0, 0.0, CEILING_HEIGHT], _Y, _X), (0.5, 0.5))
"""The ceiling, facing down: 1 m out from the wall, 1 m wide."""
ROOM_FLOOR = Surface("floor", face([0.0, 0.0, 0.0], _X, _Y), (0.5, 0.5), steel=False)
"""corner3's floor: under the ceiling, not steel (no magnet is ever near it)."""


@dataclass(frozen=True)
class Scene:
    """A scene: its name, its surfaces in the room (names unique) and the corner it climbs (the
    name of the surface stood on, the name of the one climbed onto)."""

    name: str
    surfaces: tuple[Surface, ...]
    corner: tuple[str, str]

    def __post_init__(self) -> None:
        names = [s.name for s in self.surfaces]
        if len(set(names)) != len(names):
            raise DescriptionError(f"scene {self.name!r} names a surface twice: {names}")
        for name in self.corner:
            if not self.surface(name).steel:
                raise DescriptionError(f"scene {self.name!r}: its corner's {name} is not steel")

    def surface(self, name: str) -> Surface:
        """The surface called ``name``; refused, naming the scene's, when there is none."""
        for s in self.surfaces:
            if s.name == name:
                return s
        raise DescriptionError(
            f"scene {self.name!r} has no surface {name!r}; its surfaces: {[s.name for s in self.surfaces]}"
        )

    @cached_property
    def room_from_world(self) -> Pose:
        """The climbed corner's frame (the planners' world) in the room."""
        stand, goal = (self.surface(name) for name in self.corner)
        return corner_frame(stand, goal)

    @property
    def stood_on(self) -> str:
        """The name of the surface the corner is climbed from (the planners' z = 0)."""
        return self.corner[0]

    @property
    def climbed_onto(self) -> str:
        """The name of the surface the corner is climbed onto."""
        return self.corner[1]

    def in_corner(self, name: str) -> Surface:
        """Surface ``name`` as the planners see it: in the climbed corner's frame."""
        return self.surface(name).seen_from(self.room_from_world)

    @property
    def roles(self) -> dict[str, str]:
        """The corner's plates ("floor": stood on, "wall": climbed onto) -> their surfaces' names."""
        return dict(zip(("floor", "wall"), self.corner))

    @property
    def turned(self) -> bool:
        """Whether the climbed corner's frame is not the room's own."""
        return not np.allclose(self.room_from_world.quat, [1.0, 0.0, 0.0, 0.0])

    @property
    def planning_frame(self) -> str:
        """The TF frame the planners' positions are in: ``world`` (the room), or :data:`CORNER_FRAME`."""
        return CORNER_FRAME if self.turned else "world"

    def to_room(self, points) -> np.ndarray:
        """``points`` (..., 3) given in ``world`` (m), in the room's frame."""
        pose = self.room_from_world
        return np.asarray(points, dtype=float) @ pose.rotation.T + pose.position

    def surface_near(self, point, within: float) -> str:
        """The name of the steel surface ``point`` (m, in the room) lies over and nearest to, at most
        ``within`` m off its face along its normal; ``"none"`` where no steel surface is so near. What a
        robot knows of where a foot is held: the map at the foot it believes, not the world."""
        near = [(abs(f.height(point)), f.name) for f in self.surfaces if f.steel and f.covers(point)]
        distance, name = min(near, default=(math.inf, "none"))
        return name if distance <= within else "none"

    def steel_plates(self) -> dict[str, str]:
        """Steel surface name -> its plate geom, in the model's geom order (the magnet kernel's)."""
        rest = [s.name for s in self.surfaces if s.steel and s.name not in self.corner]
        return {name: plate_geom(name) for name in (*self.corner, *rest)}


def climbing(corner: tuple[str, str]) -> str:
    """The scenes that climb ``corner`` (surface stood on, surface climbed onto), as arguments:
    ``scene:=floor_wall or scene:=room``."""
    return " or ".join(f"scene:={s.name}" for s in SCENES.values() if s.corner == corner)


def plate_geom(surface: str) -> str:
    """The geom of a steel surface's plate (``wall`` -> ``wall_plate``)."""
    return f"{surface}_plate"


def other_geom(surface: str) -> str:
    """The geom of a surface that is not steel (``floor`` -> ``room_floor``)."""
    return f"room_{surface}"


SCENES = {
    "floor_wall": Scene("floor_wall", (FLOOR, WALL), ("floor", "wall")),
    "corner3": Scene("corner3", (WALL, CEILING, ROOM_FLOOR), ("wall", "ceiling")),
    "room": Scene("room", (FLOOR, WALL, CEILING), ("floor", "wall")),
}
"""Scene name -> :class:`Scene`. ``floor_wall`` is the default."""
DEFAULT_SCENE = "floor_wall"
SURFACE_NAMES = tuple(sorted({s.name for chosen in SCENES.values() for s in chosen.surfaces}))
"""Every surface any scene has."""
FACING_UP = frozenset(s.name for chosen in SCENES.values() for s in chosen.surfaces if s.normal[2] > 0.5)
"""The surfaces any scene has whose face looks up (a foot against one stands on the floor)."""


def scene(name: str) -> Scene:
    """The scene called ``name``; refused, naming the valid ones, when there is none."""
    if name not in SCENES:
        raise DescriptionError(f"scene {name!r} is not one of {sorted(SCENES)}")
    return SCENES[name]


def corners_of(name: str) -> dict[str, Scene]:
    """The concave corners a run in scene ``name`` can climb, by the TF name of the frame they are
    planned in (:attr:`Scene.planning_frame`): each is the scene that climbs that corner (whose
    model the planners use), its own first. A corner counts when both its surfaces are steel
    surfaces of ``name`` where that scene has them: the room's are the floor-wall corner (``world``)
    and the wall-ceiling corner (corner3's, ``corner``)."""
    chosen = scene(name)
    steel = {s.name: s for s in chosen.surfaces if s.steel}
    out = {chosen.planning_frame: chosen}
    for other in SCENES.values():
        meets = all(s in steel and _same_place(steel[s], other.surface(s)) for s in other.corner)
        if meets and other.planning_frame not in out and other.corner != chosen.corner:
            out[other.planning_frame] = other
    return out


def turned_corner(name: str) -> Pose | None:
    """Where scene ``name``'s turned corner stands in the room (the frame :data:`CORNER_FRAME`, on
    /tf_static), its own or another it can climb (the room's wall-ceiling corner); None without one."""
    turned = [corner.room_from_world for corner in corners_of(name).values() if corner.turned]
    return turned[0] if turned else None


def room_from(frame: str) -> Pose:
    """Where planning frame ``frame`` stands in the room (``world`` or '': the room itself;
    :data:`CORNER_FRAME`: the turned corner's, corner3's)."""
    if frame in ("", "world"):
        return ROOM
    turned = [chosen for chosen in SCENES.values() if chosen.planning_frame == frame]
    if not turned:
        raise DescriptionError(f"no scene is planned in frame {frame!r}")
    return turned[0].room_from_world


def _same_place(a: Surface, b: Surface) -> bool:
    """Whether two surfaces are one face in the room (their pose and size, to a micrometre)."""
    return bool(
        np.allclose(a.face.position, b.face.position, atol=1e-6)
        and np.allclose(a.face.rotation, b.face.rotation, atol=1e-9)
        and np.allclose(a.size, b.size, atol=1e-6)
    )


def apply_scene(spec: mujoco.MjSpec, name: str, in_room: bool = False) -> None:
    """Make ``spec`` scene ``name``, in its corner's frame (``in_room``: in the room's): gravity, the
    MJCF's two plates made the corner's surfaces (in their order: the same geoms, so the floor-wall
    corner is the MJCF's as written), and every other surface added after them (steel: a plate;
    else a plain box). Gravity is the room's -z; a model in a turned corner's frame has none (it is
    the planners' kinematics: nothing written in a turned frame computes a force of gravity)."""
    chosen = scene(name)
    frame = ROOM if in_room else chosen.room_from_world
    spec.option.gravity = np.array((0.0, 0.0, -GRAVITY) if in_room or not chosen.turned else (0.0, 0.0, 0.0))
    plates = [spec.geom(geom_name) for geom_name in CORNER_PLATES]
    for geom in plates:  # renamed in two passes: wall_plate may become the name floor_plate had
        geom.name = f"{geom.name}_unnamed"
    for geom, surface_name in zip(plates, chosen.corner):
        geom.name = plate_geom(surface_name)
        geom.pos, geom.size = chosen.surface(surface_name).box(frame)
    for surface in chosen.surfaces:
        if surface.name in chosen.corner:
            continue
        if surface.steel:
            geom = spec.worldbody.add_geom(spec.find_default("plate"))
            geom.name = plate_geom(surface.name)
        else:
            geom = spec.worldbody.add_geom()
            geom.name, geom.rgba = other_geom(surface.name), np.array(NON_STEEL_RGBA)
        geom.type = mujoco.mjtGeom.mjGEOM_BOX
        geom.pos, geom.size = surface.box(frame)


MAX_MOVED = 0.02
"""m: the most a surface may stand off the map (``build_spec``'s ``moved``)."""


def move_climbed_onto(spec: mujoco.MjSpec, name: str, in_room: bool, moved: float) -> None:
    """Scene ``name``'s climbed-onto plate in ``spec`` moved ``moved`` m behind its face's place
    along the face's normal (negative: in front of it). Refused beyond :data:`MAX_MOVED`."""
    if not abs(moved) <= MAX_MOVED:
        raise DescriptionError(f"a surface moved {moved!r} m off the map; at most {MAX_MOVED} m either way")
    chosen = scene(name)
    frame = ROOM if in_room else chosen.room_from_world
    normal = frame.rotation.T @ chosen.surface(chosen.climbed_onto).normal
    geom = spec.geom(plate_geom(chosen.climbed_onto))
    geom.pos = np.asarray(geom.pos, float) - moved * normal


def plates_of(model: mujoco.MjModel) -> dict[str, str]:
    """A compiled model's steel plates: surface name -> geom (the world body's geoms called
    ``<surface>_plate``), in geom order, which is the magnet kernel's."""
    names = (model.geom(g).name for g in range(model.ngeom) if model.geom_bodyid[g] == 0)
    return {name.removesuffix("_plate"): name for name in names if name.endswith("_plate")}


def others_of(model: mujoco.MjModel) -> dict[str, str]:
    """A compiled model's surfaces that are not steel: surface name -> geom (``room_<surface>``)."""
    names = (model.geom(g).name for g in range(model.ngeom) if model.geom_bodyid[g] == 0)
    return {name.removeprefix("room_"): name for name in names if name.startswith("room_")}
