"""A foot's stance: one enum for the IK, the sequencer, the run report and the messages."""

from __future__ import annotations

from enum import IntEnum


class StanceMode(IntEnum):
    """How the IK holds a foot; the values of ``sally_interfaces/msg/IKTarget``'s ``stance_modes``
    and of ``FootState.mode`` (a test keeps them equal).

    SWING: the foot follows its IK target. FLOOR: a position lock where the foot entered FLOOR.
    WALL: a full pose lock snapshotted where the foot entered WALL."""

    SWING = 0
    FLOOR = 1
    WALL = 2


HELD = frozenset({StanceMode.FLOOR, StanceMode.WALL})
"""The stance modes in which a foot holds its place (a stance foot, as opposed to a swinging one)."""
