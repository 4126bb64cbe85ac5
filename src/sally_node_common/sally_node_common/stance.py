"""A foot's stance: one enum for the IK, the sequencer, the run report and the messages."""

from __future__ import annotations

from enum import IntEnum


class StanceMode(IntEnum):
    """How the IK holds a foot; the values of ``sally_interfaces/msg/IKTarget``'s ``stance_modes``
    and of ``FootState.mode`` (a test keeps them equal).

    SWING: the foot follows its IK target. POSITION: a position lock where the foot entered
    POSITION (its face's tilt held too once the body moves). POSE: a full pose lock snapshotted where
    the foot entered POSE. A held foot's contact is measured against the surface nearest to it."""

    SWING = 0
    POSITION = 1
    POSE = 2


HELD = frozenset({StanceMode.POSITION, StanceMode.POSE})
"""The stance modes in which a foot holds its place (a stance foot, as opposed to a swinging one)."""
