"""Surface readouts: penetration and lost contact measured against baselines.

Shared by the simulator (offline scenarios) and the IK node (/sally/foot_states), so it lives with
the robot's other conventions, free of MuJoCo and ROS.

Measured from relative displacement rather than collision distance, so the readout does not depend
on collision margins: a floor foot's drop below its stance baseline z is floor penetration, a wall
foot's advance past its baseline x is wall penetration, and a foot more than LOST_CONTACT away
from its baseline has lost contact.
"""

from __future__ import annotations

from dataclasses import dataclass

from .constants import FOOT_STANDOFF, LEGS, WALL_X
from .errors import DescriptionError

LOST_CONTACT = 0.008
"""Lift away from the baseline beyond which a stance foot has lost contact (m)."""


@dataclass(frozen=True)
class FootContact:
    """One foot's contact readout against its baseline surface."""

    leg: str
    surface: str
    """"floor", "wall" or "free" (no baseline: swinging)."""
    penetration: float
    """Advance into the surface past the baseline (m, >= 0)."""
    lift: float
    """Signed displacement away from the surface relative to the baseline (m)."""
    in_contact: bool


class FootContactMonitor:
    """Foot contact from kinematics: each stance foot's surface and baseline, its penetration and lift against it."""

    def __init__(self) -> None:
        self._baselines: dict[str, tuple[str, float]] = {}

    def set_floor_baseline(self, leg: str, ee_pos) -> None:
        """``leg`` stands on the floor at the height of ``ee_pos`` (world, m)."""
        self._baselines[_check(leg)] = ("floor", float(ee_pos[2]))

    def set_wall_baseline(self, leg: str, ee_pos) -> None:
        """``leg`` holds the wall at the depth of ``ee_pos`` (world, m)."""
        self._baselines[_check(leg)] = ("wall", float(ee_pos[0]))

    def clear(self, leg: str) -> None:
        """``leg`` swings: no baseline."""
        self._baselines.pop(_check(leg), None)

    def surface(self, leg: str) -> str:
        """The surface ``leg`` stands on ("floor", "wall" or "free")."""
        return self._baselines.get(_check(leg), ("free", 0.0))[0]

    def readout(self, leg: str, ee_pos) -> FootContact:
        """``leg``'s contact with its surface, the foot at ``ee_pos`` (world, m)."""
        surface, base = self._baselines.get(_check(leg), ("free", 0.0))
        if surface == "free":
            return FootContact(leg, surface, 0.0, 0.0, False)
        # floor: the surface is below (-z); wall: the surface is ahead (+x)
        lift = float(ee_pos[2]) - base if surface == "floor" else base - float(ee_pos[0])
        return FootContact(leg, surface, max(0.0, -lift), lift, lift <= LOST_CONTACT)


def standing_surface(ee_pos) -> str:
    """The surface a foot whose EE site is at ``ee_pos`` (world, m) stands on when a run starts:
    "wall" within :data:`LOST_CONTACT` of the wall's standing depth (``FOOT_STANDOFF`` off its
    face), else "floor" (a run starts with every foot on one or the other)."""
    return "wall" if abs(float(ee_pos[0]) - (WALL_X - FOOT_STANDOFF)) <= LOST_CONTACT else "floor"


def _check(leg: str) -> str:
    if leg not in LEGS:
        raise DescriptionError(f"unknown foot {leg!r}; valid: {list(LEGS)}")
    return leg
