"""``sally_interfaces/StanceCommand`` to and from a foot -> :class:`~.stance.StanceMode` mapping:
the sequencer builds it, the IK reads it."""

from __future__ import annotations

from collections.abc import Mapping

from sally_description.constants import LEGS
from sally_interfaces.msg import StanceCommand

from .inputs import LENGTH, UNKNOWN, InputError, known
from .stamps import set_stamp, stamp_ns
from .stance import StanceMode

INVALID = "invalid"
"""Refusal reason: well-formed, but a stance the robot cannot take (two feet swinging)."""


def stance_to_msg(stamp: int, modes: Mapping[str, StanceMode]) -> StanceCommand:
    """The command stamped ``stamp`` (ns of sim time) that puts each foot of ``modes`` in its mode."""
    msg = StanceCommand(feet=list(modes), modes=[int(m) for m in modes.values()])
    set_stamp(msg.header, stamp)
    return msg


def stance_from_msg(msg: StanceCommand) -> tuple[int, dict[str, StanceMode]]:
    """(stamp ns, foot -> mode) of ``msg``; raises :class:`~.inputs.InputError` naming what is wrong:
    no feet or feet and modes that do not pair up (``length``), an unknown foot or mode
    (``unknown``), more than one foot swinging (``invalid``)."""
    feet, modes = list(msg.feet), list(msg.modes)
    if len(feet) != len(modes) or not feet:
        raise InputError(LENGTH, f"stance command has {len(feet)} feet and {len(modes)} modes")
    known(feet, LEGS, "stance command")
    valid = {int(m) for m in StanceMode}
    bad = [m for m in modes if m not in valid]
    if bad:
        names = ", ".join(f"{m.name} {int(m)}" for m in StanceMode)
        raise InputError(UNKNOWN, f"stance command has unknown modes {bad}; valid: {names}")
    if sum(m == StanceMode.SWING for m in modes) > 1:
        raise InputError(INVALID, "stance command swings more than one foot")
    return stamp_ns(msg.header.stamp), {foot: StanceMode(m) for foot, m in zip(feet, modes)}
