"""``sally_interfaces/MagnetArray`` to and from :class:`MagnetStateData`: the sim builds it after each
telemetry step, the sequencer, the pull-off rig and the runner read it."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from geometry_msgs.msg import Vector3

from sally_description.constants import LEGS
from sally_description.scene import SURFACE_NAMES
from sally_interfaces.msg import MagnetArray, MagnetState

from .inputs import MAX_FORCE, InputError, known, numbers
from .stamps import set_stamp, stamp_ns

SURFACES = (*SURFACE_NAMES, "none")
"""What a magnet can be near: a plate, or none within its reach."""
FAR = 1e9
"""m: the min_distance sent when no plate is in range (the message carries no inf)."""
DUPLICATE = "duplicate"
"""Refusal reason: a foot named twice."""


@dataclass(frozen=True)
class MagnetStateData:
    """One electromagnet after the latest physics step."""

    foot: str
    enabled: bool
    force: np.ndarray
    """N, world: the applied magnetic force, after the per-magnet clip."""
    magnitude: float
    """N: the force's norm."""
    min_distance: float
    """m: the smallest sampling-sphere gap to a plate; negative when sunk in, :data:`FAR` (or inf,
    sent as FAR) with no plate in range."""
    surface: str
    """One of :data:`SURFACES`."""
    in_contact: bool
    """``min_distance`` within the contact tolerance."""
    contact_force: float
    """N: the normal force the plates push on the magnet housing."""
    contact_reading: float = 0.0
    """N: the foot's contact sensor as its driver reads it (noise, resolution, latency): what a
    robot knows; ``contact_force`` and the fields above it but ``enabled`` are the world's truth."""
    contact_sensed: bool = False
    """The contact sensor says contact (its reading above the driver's threshold)."""

    @property
    def penetration(self) -> float:
        """m: how far the magnet is sunk into its plate (0 when it is not)."""
        return max(0.0, -self.min_distance)


def magnet_array_to_msg(stamp: int, magnets: Iterable[MagnetStateData]) -> MagnetArray:
    """The telemetry stamped ``stamp`` (ns of sim time), magnets in ``magnets``' order."""
    msg = MagnetArray()
    set_stamp(msg.header, stamp)
    msg.header.frame_id = "world"
    for m in magnets:
        fx, fy, fz = (float(v) for v in m.force)
        msg.magnets.append(
            MagnetState(
                foot=m.foot,
                enabled=bool(m.enabled),
                force=Vector3(x=fx, y=fy, z=fz),
                magnitude=float(m.magnitude),
                min_distance=float(m.min_distance) if math.isfinite(m.min_distance) else FAR,
                surface=m.surface,
                in_contact=bool(m.in_contact),
                penetration=m.penetration,
                contact_force=float(m.contact_force),
                contact_reading=float(m.contact_reading),
                contact_sensed=bool(m.contact_sensed),
            )
        )
    return msg


def magnet_array_from_msg(msg: MagnetArray) -> tuple[int, dict[str, MagnetStateData]]:
    """(stamp ns, foot -> state) of ``msg``; raises :class:`~.inputs.InputError` naming what is wrong
    (an unknown foot or surface, a foot twice, a non-finite or implausible force or distance)."""
    feet = [m.foot for m in msg.magnets]
    known(feet, LEGS, "magnet telemetry")
    if len(set(feet)) != len(feet):
        raise InputError(DUPLICATE, f"magnet telemetry names a foot twice: {feet}")
    out = {}
    for m in msg.magnets:
        known([m.surface], SURFACES, f"magnet telemetry surface of {m.foot}")
        f = m.force
        fx, fy, fz, magnitude, contact_force, reading = numbers(
            (f.x, f.y, f.z, m.magnitude, m.contact_force, m.contact_reading),
            MAX_FORCE,
            f"magnet telemetry of {m.foot}",
            " N",
        )
        (min_distance, _) = numbers(
            (m.min_distance, m.penetration), FAR, f"magnet telemetry distances of {m.foot}", " m"
        )
        out[m.foot] = MagnetStateData(
            m.foot,
            bool(m.enabled),
            np.array([fx, fy, fz]),
            float(magnitude),
            float(min_distance),
            m.surface,
            bool(m.in_contact),
            float(contact_force),
            float(reading),
            bool(m.contact_sensed),
        )
    return stamp_ns(msg.header.stamp), out
