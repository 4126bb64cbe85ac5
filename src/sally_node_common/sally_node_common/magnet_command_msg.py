"""``sally_interfaces/MagnetCommand`` to and from a foot -> on/off mapping: the sequencer and the
pull-off rig build it, the sim reads it."""

from __future__ import annotations

from collections.abc import Mapping

from sally_description.constants import LEGS
from sally_interfaces.msg import MagnetCommand

from .inputs import LENGTH, UNKNOWN, InputError
from .stamps import set_stamp, stamp_ns

EMPTY, DUPLICATE = "empty", "duplicate"
"""Refusal reasons of a magnet command beside the common ones: it names no feet, or one twice."""


def magnet_command_to_msg(stamp: int, switches: Mapping[str, bool]) -> MagnetCommand:
    """The command stamped ``stamp`` (ns of sim time; 0: apply at once) that switches each foot of
    ``switches`` on (True) or off; the feet it does not name keep their state."""
    msg = MagnetCommand(feet=list(switches), enable=[bool(v) for v in switches.values()])
    set_stamp(msg.header, stamp)
    return msg


def magnet_command_from_msg(msg: MagnetCommand) -> tuple[int, dict[str, bool]]:
    """(stamp ns, foot -> on) of ``msg``; raises :class:`~.inputs.InputError` naming what is wrong
    (no feet, feet and flags that do not pair up, an unknown foot, a foot named twice)."""
    feet, enable = list(msg.feet), list(msg.enable)
    if not feet:
        raise InputError(EMPTY, "magnet command names no feet")
    if len(feet) != len(enable):
        raise InputError(LENGTH, f"magnet command has {len(feet)} feet but {len(enable)} enable flags")
    unknown = [f for f in feet if f not in LEGS]
    if unknown:
        raise InputError(UNKNOWN, f"magnet command names unknown feet {unknown}; valid: {list(LEGS)}")
    if len(set(feet)) != len(feet):
        raise InputError(DUPLICATE, "magnet command names a foot twice")
    return stamp_ns(msg.header.stamp), dict(zip(feet, map(bool, enable)))
