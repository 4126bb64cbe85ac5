"""Surface readouts: a stance foot's lift off, and penetration into, the surface it holds.

Used by the IK node (/sally/foot_states); it lives with the robot's other conventions, free of ROS.

A foot entering stance holds the steel surface nearest to it (:meth:`FootContactMonitor.hold`), a
:class:`~.surfaces.Surface` given in the frame the foot positions are given in (:func:`faces`); from
then on its lift is its displacement along that surface's normal since it entered (> 0: away from
the surface), its penetration the advance into the surface, and a foot lifted more than
:data:`LOST_CONTACT` has lost contact. Measured from relative displacement rather than collision
distance, so the readout does not depend on collision margins.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from .constants import FOOT_STANDOFF, LEGS
from .errors import DescriptionError
from .pose import Pose
from .surfaces import Surface

LOST_CONTACT = 0.008
"""Lift away from the baseline beyond which a stance foot has lost contact (m)."""
FREE = "free"
"""The surface a swinging foot holds (no baseline)."""


def faces(surfaces: Iterable[Surface], frame: Pose) -> tuple[Surface, ...]:
    """``surfaces`` as seen from ``frame`` (that frame's pose in the room: a climb's planning frame)."""
    return tuple(surface.seen_from(frame) for surface in surfaces)


def nearest(among: Sequence[Surface], ee_pos) -> Surface:
    """The surface a foot whose EE site is at ``ee_pos`` stands against: the one whose plane is
    nearest its standing height (``FOOT_STANDOFF`` off the face)."""
    if not among:
        raise DescriptionError("no surface to stand on: give the monitor the scene's steel faces")
    return min(among, key=lambda surface: abs(surface.height(ee_pos) - FOOT_STANDOFF))


@dataclass(frozen=True)
class FootContact:
    """One foot's contact readout against its baseline surface."""

    leg: str
    surface: str
    """The name of the surface it holds, or :data:`FREE` (no baseline: swinging)."""
    penetration: float
    """Advance into the surface past the baseline (m, >= 0)."""
    lift: float
    """Signed displacement away from the surface relative to the baseline (m)."""
    in_contact: bool


class FootContactMonitor:
    """Foot contact from kinematics: each stance foot's surface (one of ``among``) and baseline, its
    penetration and lift against it."""

    def __init__(self, among: Sequence[Surface]) -> None:
        self.among = tuple(among)
        self._baselines: dict[str, tuple[str, np.ndarray, float]] = {}
        """leg -> (the surface's name, its normal, the foot's height along it when it began to hold)."""

    def hold(self, leg: str, ee_pos) -> str:
        """``leg`` holds the surface nearest ``ee_pos`` (m) from where it is now; that surface's name."""
        surface = nearest(self.among, ee_pos)
        normal = surface.normal
        self._baselines[_check(leg)] = (surface.name, normal, float(np.dot(normal, ee_pos)))
        return surface.name

    def clear(self, leg: str) -> None:
        """``leg`` swings: no baseline."""
        self._baselines.pop(_check(leg), None)

    def baselines(self) -> dict[str, tuple[str, float]]:
        """Each holding foot's (surface name, height along its normal when it began to hold)."""
        return {leg: (name, base) for leg, (name, _, base) in self._baselines.items()}

    def take(self, baselines: dict[str, tuple[str, float]]) -> None:
        """The baselines :meth:`baselines` gave (a restarted node's), in place of these."""
        normals = {s.name: s.normal for s in self.among}
        self._baselines = {_check(leg): (name, normals[name], base) for leg, (name, base) in baselines.items()}

    def surface(self, leg: str) -> str:
        """The name of the surface ``leg`` holds, or :data:`FREE`."""
        held = self._baselines.get(_check(leg))
        return FREE if held is None else held[0]

    def readout(self, leg: str, ee_pos) -> FootContact:
        """``leg``'s contact with its surface, the foot at ``ee_pos`` (m)."""
        held = self._baselines.get(_check(leg))
        if held is None:
            return FootContact(leg, FREE, 0.0, 0.0, False)
        name, normal, base = held
        lift = float(np.dot(normal, ee_pos)) - base
        return FootContact(leg, name, max(0.0, -lift), lift, lift <= LOST_CONTACT)


def _check(leg: str) -> str:
    if leg not in LEGS:
        raise DescriptionError(f"unknown foot {leg!r}; valid: {list(LEGS)}")
    return leg
