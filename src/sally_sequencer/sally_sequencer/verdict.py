"""What a run must end with to count as a success, one function per criterion: the sequencer judges
its run with them live (on what it hears) and the run report afterwards (on the record), so the two
never disagree about what success means."""

from __future__ import annotations

import numpy as np

from .climb import MIN_PITCH_DEG
from .plan_catalogue import SEQUENCES
from .wall_walk import WALK_TOLERANCE, WallWalk


def feet_to_plant(campaign: str) -> tuple[str, ...]:
    """The feet campaign ``campaign`` must end with planted on the wall, in the order it plants
    them (:attr:`.plan_catalogue.SequenceSpec.feet_to_plant`; none for an unknown name)."""
    entry = SEQUENCES.get(campaign)
    return entry.feet_to_plant if entry is not None else ()


def held_on(enabled: bool, surface: str, in_contact: bool, goal: str) -> bool:
    """A foot is held on ``goal`` (a surface's name in the room: the wall a climb goes to, for w2c
    the ceiling, for a floor walk the floor): its magnet on, in contact, against that surface."""
    return bool(enabled and surface == goal and in_contact)


def walk_shortfall(walk: WallWalk, travel: np.ndarray) -> str:
    """Why a walk that moved the body by ``travel`` (world, m) fell short ('' when it did not): it
    must go its distance, less :data:`~.wall_walk.WALK_TOLERANCE`, along its direction."""
    went = float(np.asarray(travel, float) @ walk.unit)
    if went >= walk.distance - WALK_TOLERANCE:
        return ""
    return (
        f"the body went {went * 1e3:.1f} mm {walk.direction}, not {walk.distance * 1e3:.0f} mm "
        f"(within {WALK_TOLERANCE * 1e3:.0f} mm)"
    )


def pitched_enough(pitch_deg: float | None) -> bool:
    """A climb ends with the body pitched at least :data:`~.climb.MIN_PITCH_DEG` (None: unknown, not enough)."""
    return pitch_deg is not None and pitch_deg >= MIN_PITCH_DEG


LEVEL_DEG = 5.0
"""deg: the way down ends with the body pitched less than this (standing on the floor as it began)."""


def level(pitch_deg: float | None) -> bool:
    """The way down ends with the body level: pitched within :data:`LEVEL_DEG` (None: unknown, not level)."""
    return pitch_deg is not None and abs(pitch_deg) < LEVEL_DEG
