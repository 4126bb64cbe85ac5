"""The bench as a model built in memory with ``MjSpec``: the legged scene's steel floor plate and
one magnet housing on a free joint, face down on it.

The housing and its sampling spheres are the legged foot's (``sally.xml``'s magnet and sampler
classes): a 63 mm x 38 mm cylinder of 0.5 kg, 8 spheres of 3 mm radius on a 22 mm ring, their
centres 3 mm above the face (so a seated face puts each sphere at the formula's 1 mm floor).
"""

from __future__ import annotations

import math

import mujoco

from sally_description import PhysicsParams
from sally_description.constants import FLOOR_Z, N_SAMPLING_SPHERES, SAMPLING_RING_RADIUS, TIMESTEP
from sally_description.model import load_spec

MAGNET = "magnet"
RADIUS = 0.0315
"""Housing radius (m)."""
HALF_HEIGHT = 0.019
MASS = 0.5
SPHERE_RADIUS = 0.003
SPHERE_HEIGHT = 0.003
"""Sphere centres above the face (m)."""
PLATE = "floor_plate"


def sphere_names() -> tuple[str, ...]:
    """The names of the bench magnet's sampling spheres."""
    return tuple(f"{MAGNET}_s{k}" for k in range(N_SAMPLING_SPHERES))


def build_model(params: PhysicsParams | None = None, clearance: float = 0.0005) -> mujoco.MjModel:
    """The bench with the magnet's face ``clearance`` m above the plate; ``params``' contact
    settings (friction, solref, solimp, noslip) on the housing."""
    params = params or PhysicsParams()
    spec = mujoco.MjSpec()
    spec.modelname = "sally_magnet_bench"
    spec.compiler.degree = False
    spec.option.timestep = TIMESTEP
    spec.option.integrator = mujoco.mjtIntegrator.mjINT_IMPLICITFAST
    spec.option.noslip_iterations = params.noslip_iterations
    spec.option.noslip_tolerance = params.noslip_tolerance
    plate = load_spec().geom(PLATE)
    spec.worldbody.add_light(pos=[0.0, -0.3, 0.5], dir=[0.0, 0.5, -1.0])
    spec.worldbody.add_geom(
        name=PLATE,
        type=mujoco.mjtGeom.mjGEOM_BOX,
        pos=list(plate.pos),
        size=list(plate.size),
        rgba=[0.55, 0.57, 0.6, 1],
    )
    body = spec.worldbody.add_body(name=MAGNET, pos=[0.0, 0.0, FLOOR_Z + clearance])  # origin: the face centre
    body.add_freejoint(name="free")
    body.add_geom(
        name=MAGNET,
        type=mujoco.mjtGeom.mjGEOM_CYLINDER,
        size=[RADIUS, HALF_HEIGHT, 0.0],
        pos=[0.0, 0.0, HALF_HEIGHT],
        mass=MASS,
        condim=6,
        priority=1,
        friction=[params.sliding_friction, params.torsional_friction, params.rolling_friction],
        solref=list(params.solref),
        solimp=list(params.solimp),
        margin=params.margin,
        rgba=[0.85, 0.2, 0.15, 1.0],
    )
    body.add_site(name="face", size=[0.002, 0.0, 0.0])
    for k, name in enumerate(sphere_names()):
        angle = 2 * math.pi * k / N_SAMPLING_SPHERES
        body.add_geom(
            name=name,
            type=mujoco.mjtGeom.mjGEOM_SPHERE,
            size=[SPHERE_RADIUS, 0.0, 0.0],
            pos=[SAMPLING_RING_RADIUS * math.cos(angle), SAMPLING_RING_RADIUS * math.sin(angle), SPHERE_HEIGHT],
            mass=0.0,
            contype=0,
            conaffinity=0,
            group=4,
            rgba=[0.2, 0.4, 1.0, 1.0],
        )
    return spec.compile()
