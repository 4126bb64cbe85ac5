"""What the phases of one sequence leave for the phases after them, as typed fields.

Each field is None until the phase that sets it has entered; a phase that reads one a previous phase
should have set gets it through :func:`required`, which names what is missing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

import numpy as np

from sally_description.pose import Pose

from .errors import SequenceError

if TYPE_CHECKING:
    from .seat_trim import SeatTrim
    from .swing_path import JointSwing

T = TypeVar("T")


@dataclass
class Move:
    """A straight move (world, m) from ``start`` to ``end``."""

    start: np.ndarray
    end: np.ndarray


@dataclass
class BodyMove:
    """A body move (every foot holds) from ``start`` to ``goal``."""

    start: Pose
    goal: Pose


@dataclass
class ReachPlan:
    """F2W_MEASURE's plan for F2W_REACH."""

    plant: np.ndarray
    """Where the EE ends, seated on the wall (m)."""
    approach: np.ndarray
    """Where the reach ends and the seat starts: the plant point, backed off along the wall normal."""


@dataclass
class Seating:
    """F2W_REACH's own progress."""

    start: np.ndarray
    """The EE where the reach began (m)."""
    trim: SeatTrim
    magnet_on: bool = False
    touched: tuple[float, float] | None = None
    """(time, the EE's depth along the face normal) when the foot's contact sensor first said contact."""


@dataclass
class PhaseState:
    """What phases of one foot's sequence leave for the phases after them, one typed field each."""

    swing_arc: tuple[np.ndarray, np.ndarray] | None = None
    """SWING: (the lifted start, the hip pivot the arc turns about)."""
    swing_end: np.ndarray | None = None
    """SWING: where the arc ends (ORIENT starts there)."""
    orient: Move | None = None
    """ORIENT or BACK_SWING: the move to the staging point (F2W_MEASURE holds its end)."""
    reach: ReachPlan | None = None
    seating: Seating | None = None
    body_move: BodyMove | None = None
    """BODY_MOVE (BODY_SETTLE holds its goal)."""
    square: BodyMove | None = None
    """BODY_SQUARE: the turn to face the wall."""
    swing_path: JointSwing | None = None
    """BACK_SWING: the joint-space path to the staging point."""
    step_point: np.ndarray | None = None
    """STEP_MOVE: where the back foot stands after its floor step (m)."""
    foothold: np.ndarray | None = None
    """BACK_SWING: the plan's foothold on the wall (EE site, m): F2W_MEASURE plants the foot there,
    not where the swing left it."""


def required(value: T | None, what: str) -> T:
    """``value``, set by an earlier phase; else a :class:`SequenceError` naming ``what`` is missing."""
    if value is None:
        raise SequenceError(f"this phase needs {what}, which no earlier phase of the sequence set")
    return value
