"""Every sequence by name: the phases it runs and the foot it swings. It imports the f2w phases
(:mod:`.sequences`) and the climb's (:mod:`.climb`, which builds on them), so neither imports the
other back."""

from __future__ import annotations

from . import climb
from .errors import SequenceError
from .phase import Phase
from .sequences import SWING_ANGLE_DEG, lift, lift_hold, measure, orient, reach, swing

SEQUENCE_FEET = {
    "orient": "FL",
    "f2w": "FL",
    "f2w_fr": "FR",
    "lift": "FL",
    "b2w_bl": "BL",
    "b2w_br": "BR",
    "step_bl": "BL",
    "step_br": "BR",
    "body_climb": "BODY",
    "body_square": "BODY",
}
"""Sequence -> the foot it swings (BODY: a body move while every foot holds; see :mod:`.climb`)."""


def make_sequence(name: str) -> list[Phase]:
    """The phases of sequence ``name`` (fresh objects every call)."""
    if name == "orient":
        return [lift(), swing(-SWING_ANGLE_DEG), orient("ORIENT_HOLD", unbounded=True)]
    if name == "lift":
        return [lift(), lift_hold()]
    if name == "f2w":
        return [lift(), swing(-SWING_ANGLE_DEG), orient(), measure(), reach()]
    if name == "f2w_fr":
        return [lift(), swing(+SWING_ANGLE_DEG), orient(), measure(), reach()]
    if name == "body_climb":
        return climb.body_climb()
    if name == "body_square":
        return climb.body_square()
    if name in ("step_bl", "step_br"):
        return climb.floor_step(SEQUENCE_FEET[name])
    if name in ("b2w_bl", "b2w_br"):
        return climb.back_to_wall(SEQUENCE_FEET[name])
    raise SequenceError(f"unknown sequence {name!r}; valid: {sorted(SEQUENCE_FEET)}")
