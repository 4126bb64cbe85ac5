"""Build Sally's compiled model in memory: the clean MJCF plus a bake and physics parameters."""

from __future__ import annotations

from functools import cache
from importlib import resources
from pathlib import Path

import mujoco
import numpy as np

from .bake import DEFAULT_BAKE, Bake, apply_bake
from .constants import FLOOR_Z, FOOT_STANDOFF, LEGS, ROOT_BODY, ee_site
from .errors import DescriptionError
from .params import DEFAULT_PARAMS, PhysicsParams, apply_params
from .pose import Pose
from .scene import DEFAULT_SCENE, apply_scene, move_climbed_onto
from .scene import scene as scene_named
from .sensors import add_sensors
from .wall_start import WALL_STANCE, WallStance, add_wall_start

STARTS = ("floor", "wall")
"""Where the robot starts: standing on the floor, or on the wall with every foot planted."""
SPAWN_CLEARANCE = 0.001
"""Gap between the lowest magnet face and the floor when the robot is spawned (m)."""


def model_path() -> Path:
    """Path of the one source MJCF shipped with the package."""
    return Path(str(resources.files("sally_description") / "mjcf" / "sally.xml"))


def load_spec(path: str | Path | None = None) -> mujoco.MjSpec:
    """Parse the source MJCF (or ``path``) into a fresh spec."""
    path = Path(path) if path is not None else model_path()
    if not path.is_file():
        raise DescriptionError(f"model file {str(path)!r} does not exist")
    try:
        return mujoco.MjSpec.from_file(str(path))
    except Exception as exc:  # noqa: BLE001 - MuJoCo raises ValueError with the parser's message
        raise DescriptionError(f"model file {str(path)!r} could not be parsed: {exc}") from None


def build_spec(
    bake: Bake = DEFAULT_BAKE,
    params: PhysicsParams = DEFAULT_PARAMS,
    path: str | Path | None = None,
    spawn: tuple[float, float, float] = (0.0, 0.0, 0.0),
    start: str = "floor",
    wall: WallStance = WALL_STANCE,
    scene: str = DEFAULT_SCENE,
    in_room: bool = False,
    moved: float = 0.0,
) -> mujoco.MjSpec:
    """The spec of the baked, parameterised robot, its feet just above the floor.

    ``spawn`` = (x m, y m, yaw deg) of main_frame on the floor. ``start``: ``floor`` (the robot
    starts as built, standing on the floor at ``spawn``) or ``wall`` (the spec also gets the
    keyframe :data:`.wall_start.START_KEY`: on the wall, every foot planted, as ``wall`` says;
    ``spawn`` must then be left at zero). ``scene``: a name of :data:`.scene.SCENES`; a ``corner3``
    robot starts on the room's wall, four feet planted, which its simulation frame calls the floor
    (:mod:`.scene`), so it takes ``start="floor"`` only. ``in_room``: written in the room's frame
    (gravity -z, every surface where the room has it, the robot placed by its corner's frame) instead
    of the climbed corner's: the sim's world (the planners work in the corner's frame). ``moved``
    (m): the climbed-onto surface's plate stands this far behind where the scene (the robot's map)
    puts it, along its normal (negative: in front), as a real wall is never quite where its drawing
    says.
    """
    if start not in STARTS:
        raise DescriptionError(f"start {start!r} is not one of {list(STARTS)}")
    if start == "wall" and any(float(v) != 0.0 for v in spawn):
        raise DescriptionError(f"a wall start stands where its wall stance says; spawn {spawn!r} is for the floor")
    if scene_named(scene).turned and start != "floor":
        raise DescriptionError(
            f"scene {scene!r} starts on the room's wall already (its frame's floor); start {start!r} is for floor_wall"
        )
    spec = load_spec(path)
    apply_bake(spec, bake)
    apply_params(spec, params)
    apply_scene(spec, scene, in_room)
    if moved:
        move_climbed_onto(spec, scene, in_room, moved)
    add_sensors(spec)
    _place_on_floor(spec)
    _spawn(spec, spawn)
    if in_room and scene_named(scene).turned:  # else the room is the corner's frame already
        _place_in_room(spec, scene_named(scene).room_from_world)
    if start == "wall":
        add_wall_start(spec, wall)
    return spec


def build_model(
    bake: Bake = DEFAULT_BAKE,
    params: PhysicsParams = DEFAULT_PARAMS,
    path: str | Path | None = None,
    spawn: tuple[float, float, float] = (0.0, 0.0, 0.0),
    start: str = "floor",
    wall: WallStance = WALL_STANCE,
    scene: str = DEFAULT_SCENE,
    in_room: bool = False,
    moved: float = 0.0,
) -> mujoco.MjModel:
    """Compile :func:`build_spec`. Nothing is written to disk."""
    return build_spec(bake, params, path, spawn, start, wall, scene, in_room, moved).compile()


@cache
def standing_feet() -> dict[str, tuple[float, float, float]]:
    """Each foot's EE site (world, m) as the robot is built: standing on the floor at the origin (the
    floor start; computed once)."""
    model = build_model()
    data = mujoco.MjData(model)
    mujoco.mj_kinematics(model, data)
    feet = {leg: [float(v) for v in data.site(ee_site(leg)).xpos] for leg in LEGS}
    return {leg: (x, y, z) for leg, (x, y, z) in feet.items()}


def _place_in_room(spec: mujoco.MjSpec, room_from_corner: Pose) -> None:
    """Move main_frame, placed in the corner's frame, to where that place is in the room."""
    root = spec.body(ROOT_BODY)
    placed = room_from_corner.after(Pose(np.asarray(root.pos, float), np.asarray(root.quat, float)))
    root.pos, root.quat = placed.position, placed.quat


def _spawn(spec: mujoco.MjSpec, spawn: tuple[float, float, float]) -> None:
    x, y, yaw_deg = (float(v) for v in spawn)
    if not all(np.isfinite([x, y, yaw_deg])):
        raise DescriptionError(f"spawn pose must be finite, got {spawn!r}")
    root = spec.body(ROOT_BODY)
    root.pos = np.asarray(root.pos) + np.array([x, y, 0.0])
    turn = np.zeros(4)
    mujoco.mju_axisAngle2Quat(turn, np.array([0.0, 0.0, 1.0]), np.radians(yaw_deg))
    root.quat = turn


def _place_on_floor(spec: mujoco.MjSpec) -> None:
    """Lift or lower main_frame so that the lowest magnet face sits SPAWN_CLEARANCE above FLOOR_Z."""
    model = spec.compile()
    data = mujoco.MjData(model)
    mujoco.mj_kinematics(model, data)
    lowest = np.inf
    for leg in LEGS:
        site = model.site(ee_site(leg)).id
        face_normal = -data.site_xmat[site].reshape(3, 3)[:, 1]
        face = data.site_xpos[site] + FOOT_STANDOFF * face_normal
        lowest = min(lowest, face[2])
    root = spec.body(ROOT_BODY)
    root.pos = np.asarray(root.pos) + np.array([0.0, 0.0, FLOOR_Z + SPAWN_CLEARANCE - lowest])


def subtree(model: mujoco.MjModel, root: int) -> list[int]:
    """The ids of body ``root`` and every body below it, in the model's order (parents first)."""
    inside = {root}
    for body in range(root + 1, model.nbody):
        if int(model.body_parentid[body]) in inside:
            inside.add(body)
    return sorted(inside)
