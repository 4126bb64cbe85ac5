"""``sally_interfaces/IKStatus`` to and from :class:`IKStatusData`: the IK builds one after each solve
(and one for each input it refuses), the sequencer reads it."""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from sally_description.constants import LEGS
from sally_interfaces.msg import IKStatus

from .inputs import MAX_DISTANCE, UNKNOWN, InputError, known, numbers
from .message_fields import MessageFields
from .stamps import set_stamp, stamp_ns


class IKCode(IntEnum):
    """How a solve went: the values of ``sally_interfaces/msg/IKStatus`` (a test keeps them equal)."""

    SUCCESS = 0
    INFEASIBLE = 1
    """The target cannot be met within limits; best effort published."""
    STALLED = 2
    """Repeated solves without progress toward an unmet target."""
    RECOVERING = 3
    """The configuration was outside the joint limits and is being brought back."""
    REJECTED = 4
    """An input was refused (non-finite, unknown foot, ...): an event, not a solve."""


@dataclass(frozen=True)
class IKStatusData:
    """One solve's outcome, or one refusal."""

    code: IKCode
    foot: str = ""
    """The swing foot of the solve ('' for none)."""
    position_error: float = 0.0
    """m: the swing foot from its target."""
    orientation_error: float = 0.0
    """rad: the swing foot's face from its target axis."""
    solve_time: float = 0.0
    """s of wall clock the solve took."""
    message: str = ""


FIELDS = MessageFields(IKStatusData, IKStatus, {"code": "status"})


def ik_status_to_msg(stamp: int, status: IKStatusData) -> IKStatus:
    """The message for the state stamped ``stamp`` (ns of sim time) that the solve answered."""
    msg = FIELDS.to_msg(status)
    set_stamp(msg.header, stamp)
    return msg


def ik_status_from_msg(msg: IKStatus) -> tuple[int, IKStatusData]:
    """(stamp ns, outcome) of ``msg``; raises :class:`~.inputs.InputError` naming what is wrong (an
    unknown foot or code, an implausible error or time)."""
    known([msg.foot], ("", *LEGS), "IK status foot")
    if msg.status not in {int(c) for c in IKCode}:
        raise InputError(UNKNOWN, f"IK status has unknown code {msg.status}")
    errors = numbers((msg.position_error, msg.orientation_error, msg.solve_time), MAX_DISTANCE, "IK status errors")
    position_error, orientation_error, solve_time = errors
    data = FIELDS.from_msg(
        msg, position_error=position_error, orientation_error=orientation_error, solve_time=solve_time
    )
    return stamp_ns(msg.header.stamp), data
