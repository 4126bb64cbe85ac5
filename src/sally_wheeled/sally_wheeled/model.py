"""The wheeled Sally's MJCF, built in memory with ``mujoco.MjSpec`` (nothing is read or written).

The scene is the legged Sally's: its steel floor and wall plates are copied from the legged
model's spec, so both robots stand in the same world. The robot: a chassis on a free joint, two
rockers coupled by a differential (an equality constraint), a steering pivot and a driven wheel at
each rocker end, a magnet in each steering yoke with its 24 sampling spheres (see
:mod:`.geometry`). Contacts: only wheels (and the chassis, should it fall) touch the plates.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import mujoco
import numpy as np

from sally_description.constants import FLOOR_Z, PLATE_GEOMS, TIMESTEP, WALL_X
from sally_description.model import load_spec

from . import geometry as g
from .params import WheeledParams

CHASSIS = "chassis"
STARTS = ("wall", "floor")
ON_WALL = (math.cos(-math.pi / 4), 0.0, math.sin(-math.pi / 4), 0.0)
"""Chassis orientation on the wall: body x up, body y along world y, body z away from the wall."""
SPAWN_CLEARANCE = 0.001
"""Gap between the wheels and the plate they start on (m)."""
WHEEL_TORQUE = 15.0
"""Drive torque limit per wheel (N m)."""
STEER_TORQUE = 20.0
"""Steering torque limit per pivot (N m)."""
WHEEL_SPEED = 20.0
"""Largest commanded wheel speed (rad/s): 1 m/s at the rim."""
PLATE_BITS, WHEEL_BITS, BODY_BITS = 3, 1, 2
"""Collision bits: plates touch wheels and the chassis; the robot never touches itself."""


@dataclass(frozen=True)
class Start:
    """Where the platform starts: on the wall (``height`` of the chassis centre, m) or on the floor
    facing the wall (``distance`` of the chassis centre from the wall, m); ``y`` sideways (m)."""

    surface: str = "wall"
    height: float = 0.45
    distance: float = 0.6
    y: float = 0.0

    def __post_init__(self) -> None:
        if self.surface not in STARTS:
            raise ValueError(f"start surface {self.surface!r} is not one of {list(STARTS)}")
        if not all(math.isfinite(v) for v in (self.height, self.distance, self.y)):
            raise ValueError(f"start position must be finite, got {self}")


def build_spec(params: WheeledParams | None = None, start: Start | None = None) -> mujoco.MjSpec:
    """The scene with the wheeled platform at ``start``, parameterised by ``params``."""
    params, start = params or WheeledParams(), start or Start()
    spec = mujoco.MjSpec()
    spec.modelname = "sally_wheeled"
    spec.compiler.degree = False  # every angle below is in radians
    spec.option.timestep = TIMESTEP
    spec.option.integrator = mujoco.mjtIntegrator.mjINT_IMPLICITFAST
    spec.option.cone = mujoco.mjtCone.mjCONE_ELLIPTIC
    spec.option.noslip_iterations = params.noslip_iterations
    _add_scene(spec)
    _add_robot(spec, params, start)
    return spec


def build_model(params: WheeledParams | None = None, start: Start | None = None) -> mujoco.MjModel:
    """The wheeled platform's compiled model."""
    return build_spec(params, start).compile()


def _add_scene(spec: mujoco.MjSpec) -> None:
    legged = load_spec()
    world = spec.worldbody
    world.add_light(pos=[-1.0, 0.0, 2.0], dir=[0.4, 0.0, -1.0], diffuse=[0.8, 0.8, 0.8])
    for name in PLATE_GEOMS.values():
        plate = legged.geom(name)
        world.add_geom(
            name=name,
            type=mujoco.mjtGeom.mjGEOM_BOX,
            pos=list(plate.pos),
            size=list(plate.size),
            rgba=[0.55, 0.57, 0.6, 1.0],
            contype=PLATE_BITS,
            conaffinity=PLATE_BITS,
        )


def _start_pose(start: Start) -> tuple[list[float], list[float]]:
    lift = g.STANDOFF + SPAWN_CLEARANCE
    if start.surface == "wall":
        return [WALL_X - lift, start.y, start.height], list(ON_WALL)
    return [WALL_X - start.distance, start.y, FLOOR_Z + lift], [1.0, 0.0, 0.0, 0.0]


def _add_robot(spec: mujoco.MjSpec, params: WheeledParams, start: Start) -> None:
    pos, quat = _start_pose(start)
    chassis = spec.worldbody.add_body(name=CHASSIS, pos=pos, quat=quat)
    chassis.add_freejoint(name="root")
    chassis.add_geom(
        name=CHASSIS,
        type=mujoco.mjtGeom.mjGEOM_BOX,
        size=list(g.CHASSIS_HALF),
        mass=g.CHASSIS_MASS,
        rgba=[0.2, 0.35, 0.6, 1.0],
        contype=BODY_BITS,
        conaffinity=0,
    )
    chassis.add_site(name="chassis_site", size=[0.01, 0.01, 0.01])
    for side, sign in (("L", 1.0), ("R", -1.0)):
        rocker = chassis.add_body(name=g.rocker_body(side), pos=[0.0, sign * g.ROCKER_Y, 0.0])
        rocker.add_joint(
            name=g.rocker_joint(side),
            type=mujoco.mjtJoint.mjJNT_HINGE,
            axis=[0.0, 1.0, 0.0],
            range=[-math.radians(g.ROCKER_RANGE_DEG), math.radians(g.ROCKER_RANGE_DEG)],
            limited=mujoco.mjtLimited.mjLIMITED_TRUE,
            stiffness=g.ROCKER_STIFFNESS,
            damping=g.ROCKER_DAMPING,
        )
        rocker.add_geom(
            type=mujoco.mjtGeom.mjGEOM_BOX,
            size=list(g.ROCKER_HALF),
            mass=g.ROCKER_MASS,
            rgba=[0.3, 0.3, 0.32, 1.0],
            contype=0,
            conaffinity=0,
        )
        for end in ("F", "B"):
            _add_wheel(spec, rocker, end + side, params)
    spec.add_equality(
        name="differential",
        type=mujoco.mjtEq.mjEQ_JOINT,
        name1=g.rocker_joint("L"),
        name2=g.rocker_joint("R"),
        data=np.array([0.0, -1.0] + [0.0] * 10),
    )


def _add_wheel(spec: mujoco.MjSpec, rocker, wheel: str, params: WheeledParams) -> None:
    pivot = rocker.add_body(name=g.pivot_body(wheel), pos=[g.wheel_end(wheel) * g.WHEEL_X, 0.0, g.PIVOT_Z])
    pivot.add_joint(
        name=g.pivot_joint(wheel),
        type=mujoco.mjtJoint.mjJNT_HINGE,
        axis=[0.0, 0.0, 1.0],
        range=[-math.radians(g.PIVOT_RANGE_DEG), math.radians(g.PIVOT_RANGE_DEG)],
        limited=mujoco.mjtLimited.mjLIMITED_TRUE,
        damping=0.5,
        armature=0.01,
    )
    pivot.add_geom(
        type=mujoco.mjtGeom.mjGEOM_CYLINDER,
        size=[0.012, abs(g.PIVOT_Z) / 2, 0.0],
        pos=[0.0, 0.0, -g.PIVOT_Z / 2],
        mass=g.PIVOT_MASS,
        rgba=[0.3, 0.3, 0.32, 1.0],
        contype=0,
        conaffinity=0,
    )
    axle = [0.0, 0.0, g.WHEEL_Z]
    wheel_body = pivot.add_body(name=g.wheel_body(wheel), pos=axle)
    wheel_body.add_joint(
        name=g.wheel_joint(wheel), type=mujoco.mjtJoint.mjJNT_HINGE, axis=[0.0, 1.0, 0.0], damping=0.01, armature=0.005
    )
    wheel_body.add_geom(
        type=mujoco.mjtGeom.mjGEOM_CYLINDER,
        size=[g.WHEEL_RADIUS, g.WHEEL_HALF_WIDTH, 0.0],
        quat=[math.cos(-math.pi / 4), math.sin(-math.pi / 4), 0.0, 0.0],  # its axis along y
        mass=g.WHEEL_MASS,
        rgba=[0.15, 0.15, 0.15, 1.0],
        contype=0,
        conaffinity=0,
    )
    wheel_body.add_geom(  # the crowned rim: one contact point (see geometry.WHEEL_RADIUS)
        name=g.wheel_body(wheel),
        type=mujoco.mjtGeom.mjGEOM_SPHERE,
        size=[g.WHEEL_RADIUS, 0.0, 0.0],
        mass=0.0,
        group=4,  # hidden: the visible wheel is the cylinder above
        contype=WHEEL_BITS,
        conaffinity=0,
        priority=1,
        condim=3,
        friction=[params.sliding_friction, 0.005, 1e-4],
        solref=[params.solref_timeconst, 1.0],
    )
    _add_magnet(pivot, wheel, axle)
    _add_actuators(spec, wheel, params)


def _add_actuators(spec: mujoco.MjSpec, wheel: str, params: WheeledParams) -> None:
    """The wheel's steering servo (a position actuator on its pivot) and drive (an integrated
    velocity actuator on its axle), each limited in torque and command."""
    actuator = spec.add_actuator(name=g.pivot_joint(wheel), target=g.pivot_joint(wheel))
    actuator.trntype = mujoco.mjtTrn.mjTRN_JOINT
    actuator.set_to_position(kp=params.steer_kp, dampratio=1.0)
    actuator.forcerange = [-STEER_TORQUE, STEER_TORQUE]
    actuator.forcelimited = mujoco.mjtLimited.mjLIMITED_TRUE
    actuator.ctrlrange = [-math.radians(g.PIVOT_RANGE_DEG), math.radians(g.PIVOT_RANGE_DEG)]
    actuator.ctrllimited = mujoco.mjtLimited.mjLIMITED_TRUE
    drive = spec.add_actuator(name=g.wheel_joint(wheel), target=g.wheel_joint(wheel))
    drive.trntype = mujoco.mjtTrn.mjTRN_JOINT
    drive.set_to_intvelocity(kp=params.drive_kp, kv=params.drive_kv)
    drive.actrange = [-1e4, 1e4]
    drive.actlimited = mujoco.mjtLimited.mjLIMITED_TRUE
    drive.forcerange = [-WHEEL_TORQUE, WHEEL_TORQUE]
    drive.forcelimited = mujoco.mjtLimited.mjLIMITED_TRUE
    drive.ctrlrange = [-WHEEL_SPEED, WHEEL_SPEED]
    drive.ctrllimited = mujoco.mjtLimited.mjLIMITED_TRUE


def _add_magnet(pivot, wheel: str, axle: list[float]) -> None:
    """The magnet in the steering yoke: it turns with the wheel and does not spin with it."""
    magnet = pivot.add_body(name=g.magnet_body(wheel), pos=axle)
    face = -(g.WHEEL_RADIUS - g.MAGNET_INSET)
    magnet.add_geom(
        type=mujoco.mjtGeom.mjGEOM_BOX,
        size=[(g.GRID_ALONG - 1) * g.GRID_PITCH / 2 + 0.004, (g.GRID_ACROSS - 1) * g.GRID_PITCH / 2 + 0.004, 0.003],
        pos=[0.0, 0.0, face + 0.006],
        mass=0.2,
        rgba=[0.8, 0.2, 0.15, 1.0],
        contype=0,
        conaffinity=0,
    )
    names = iter(g.sphere_geoms(wheel))
    for j in range(g.GRID_ALONG):
        for k in range(g.GRID_ACROSS):
            magnet.add_geom(
                name=next(names),
                type=mujoco.mjtGeom.mjGEOM_SPHERE,
                size=[g.SPHERE_RADIUS, 0.0, 0.0],
                pos=[(j - (g.GRID_ALONG - 1) / 2) * g.GRID_PITCH, (k - (g.GRID_ACROSS - 1) / 2) * g.GRID_PITCH, face],
                mass=0.0,
                group=3,
                rgba=[1.0, 0.8, 0.1, 1.0],
                contype=0,
                conaffinity=0,
            )
