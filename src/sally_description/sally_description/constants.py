"""Scene setpoints, robot naming and electromagnet geometry shared by every package.

Everything here mirrors ``mjcf/sally.xml``; this package's ``test/test_description.py`` checks they agree.
"""

from __future__ import annotations

import math

# Scene: absolute setpoints consumed by cost functions and the sequencer.
FLOOR_Z = 0.0
"""Top face of the steel floor plate (m)."""
WALL_X = 0.5
"""Inner face of the steel wall plate (m)."""
WALL_NORMAL = (-1.0, 0.0, 0.0)
"""Outward normal of the wall's inner face (points into the room)."""
PLATE_GEOMS = {"floor": "floor_plate", "wall": "wall_plate"}
"""Surface name -> plate geom name. Order matters: it is the surface index used by the magnet kernel."""

TIMESTEP = 0.0005
"""Physics step (s): 2 kHz."""

# Robot naming.
LEGS = ("FL", "FR", "BL", "BR")
JOINT_KINDS = ("hip_pitch", "knee", "wrist", "ee", "ee2", "em_z")
ACTUATED_KINDS = ("hip_pitch", "knee", "wrist", "ee")
PASSIVE_KINDS = ("ee2", "em_z")
BAKED_KINDS = ("knee", "wrist", "ee")
ROOT_BODY = "main_frame"


def joint_name(kind: str, leg: str) -> str:
    """The MJCF name of joint ``kind`` of ``leg`` (e.g. ``knee_FL``)."""
    return f"{kind}_{leg}"


JOINT_NAMES = tuple(joint_name(k, leg) for leg in LEGS for k in JOINT_KINDS)
"""Every hinge joint, in the fixed order used by /joint_states and the Simulator."""
ACTUATED_JOINT_NAMES = tuple(joint_name(k, leg) for leg in LEGS for k in ACTUATED_KINDS)
"""The motor-driven joints, in the order of the model's actuators."""


def magnet_body(leg: str) -> str:
    """The name of ``leg``'s electromagnet body."""
    return f"em_{leg}"


def magnet_geom(leg: str) -> str:
    """The name of ``leg``'s electromagnet housing geom."""
    return f"em_{leg}"


def sampler_geoms(leg: str) -> tuple[str, ...]:
    """The names of ``leg``'s magnet sampling spheres."""
    return tuple(f"em_{leg}_s{k}" for k in range(N_SAMPLING_SPHERES))


def ee_site(leg: str) -> str:
    """The name of ``leg``'s end-effector site (the foot's point)."""
    return f"ee_site_{leg}"


def hip_site(leg: str) -> str:
    """The name of ``leg``'s hip pivot site."""
    return f"hip_site_{leg}"


# Electromagnet: EML63mm-12 class.
MAGNET_DIAMETER = 0.063
MAGNET_HEIGHT = 0.028
MAGNET_VOLUME = math.pi * (MAGNET_DIAMETER / 2.0) ** 2 * MAGNET_HEIGHT
"""Volume of the magnet core (m^3); each sampling sphere carries an equal share of it."""
RATED_HOLD_FORCE = 956.37
"""Datasheet holding force (N): 215 lbf."""
N_SAMPLING_SPHERES = 8
SAMPLING_RING_RADIUS = 0.022
FOOT_STANDOFF = 0.008
"""Distance from the EE reference point (magnet body origin, ee_site) to the magnet face (m)."""
CLAMP_SINK = 0.0005
"""How far a magnet's face sits into its plate once clamped (m): the contact's compliance under the
800 N clamp, measured on a standing Sally (the state estimator's seat depth; a seat holds this far
past where its contact sensor first spoke)."""
FACE_AXIS_LOCAL = (0.0, -1.0, 0.0)
"""Magnet face normal in the magnet body frame ("EE local -Y")."""
MU_0 = 4e-7 * math.pi
