"""``sally_interfaces/MagnetTruthArray`` to and from :class:`MagnetTruthData`: every magnet as the world
has it after a physics step (its force, its gap, the plate it nears, the plates' push on its housing).
The sim publishes it on ``/sally/ground_truth/magnets`` beside the driver's telemetry
(:mod:`.magnet_array_msg`); the report, the recording, the pull-off rig's load cell and the tests read
it, no control node does."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from geometry_msgs.msg import Vector3

from sally_description.constants import LEGS
from sally_description.scene import SURFACE_NAMES
from sally_interfaces.msg import MagnetTruth, MagnetTruthArray

from .inputs import MAX_FORCE, known, known_once, numbers
from .stamps import set_stamp, stamp_ns

SURFACES = (*SURFACE_NAMES, "none")
"""What a magnet can be near: a plate, or none within its reach."""
FAR = 1e9
"""m: the min_distance sent when no plate is in range (the message carries no inf)."""


@dataclass(frozen=True)
class MagnetTruthData:
    """One electromagnet after the latest physics step, as the world has it."""

    foot: str
    enabled: bool
    """The coil energized."""
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

    @property
    def penetration(self) -> float:
        """m: how far the magnet is sunk into its plate (0 when it is not)."""
        return max(0.0, -self.min_distance)


def magnet_truth_to_msg(stamp: int, magnets: Iterable[MagnetTruthData]) -> MagnetTruthArray:
    """The magnets' truth stamped ``stamp`` (ns of sim time), magnets in ``magnets``' order."""
    msg = MagnetTruthArray()
    set_stamp(msg.header, stamp)
    msg.header.frame_id = "world"
    for m in magnets:
        fx, fy, fz = (float(v) for v in m.force)
        msg.magnets.append(
            MagnetTruth(
                foot=m.foot,
                enabled=bool(m.enabled),
                force=Vector3(x=fx, y=fy, z=fz),
                magnitude=float(m.magnitude),
                min_distance=float(m.min_distance) if math.isfinite(m.min_distance) else FAR,
                surface=m.surface,
                in_contact=bool(m.in_contact),
                penetration=m.penetration,
                contact_force=float(m.contact_force),
            )
        )
    return msg


def magnet_truth_from_msg(msg: MagnetTruthArray) -> tuple[int, dict[str, MagnetTruthData]]:
    """(stamp ns, foot -> truth) of ``msg``; raises :class:`~.inputs.InputError` naming what is wrong
    (an unknown foot or surface, a foot twice, a non-finite or implausible force or distance)."""
    known_once([m.foot for m in msg.magnets], LEGS, "magnet truth")
    out = {}
    for m in msg.magnets:
        known([m.surface], SURFACES, f"magnet truth surface of {m.foot}")
        f = m.force
        fx, fy, fz, magnitude, contact_force = numbers(
            (f.x, f.y, f.z, m.magnitude, m.contact_force), MAX_FORCE, f"magnet truth of {m.foot}", " N"
        )
        (min_distance, _) = numbers((m.min_distance, m.penetration), FAR, f"magnet truth distances of {m.foot}", " m")
        out[m.foot] = MagnetTruthData(
            m.foot,
            bool(m.enabled),
            np.array([fx, fy, fz]),
            float(magnitude),
            float(min_distance),
            m.surface,
            bool(m.in_contact),
            float(contact_force),
        )
    return stamp_ns(msg.header.stamp), out
