"""``sally_interfaces/SequenceStatus`` to and from :class:`SequenceStatusData`: the sequencer builds
it (its progress on /sally/sequence_status, its verdict on /sally/sequence_result), the runner and
the fault cases read it."""

from __future__ import annotations

from dataclasses import dataclass

from sally_interfaces.msg import SequenceStatus

from .inputs import InputError, numbers
from .message_fields import MessageFields
from .stamps import set_stamp, stamp_ns

MAX_SEQUENCE_TIME = 1e6
"""s: a sequence time or phase start beyond this is an encoding error, not a run."""
SETTLE = "SETTLE"
"""The phase name while the sequence waits for its start time."""


@dataclass(frozen=True)
class SequenceStatusData:
    """The running sequence at one step, or its verdict."""

    sequence: str
    foot: str = ""
    """The foot the current campaign moves ('' before the first)."""
    phase: str = SETTLE
    phase_index: int = 0
    phase_count: int = 0
    phase_progress: float = 0.0
    """0..1 (1 once reached for unbounded phases)."""
    elapsed: float = 0.0
    """s of sequence time."""
    phase_start: float = 0.0
    """Stamp time (s) the current phase began; 0 before the sequence runs."""
    done: bool = False
    failed: bool = False
    message: str = ""


FIELDS = MessageFields(SequenceStatusData, SequenceStatus)


def sequence_status_to_msg(stamp: int, status: SequenceStatusData) -> SequenceStatus:
    """The message stamped ``stamp`` (ns of sim time)."""
    msg = FIELDS.to_msg(status)
    set_stamp(msg.header, stamp)
    return msg


def sequence_status_from_msg(msg: SequenceStatus) -> tuple[int, SequenceStatusData]:
    """(stamp ns, status) of ``msg``; raises :class:`~.inputs.InputError` for a non-finite or
    implausible progress, sequence time or phase start."""
    progress, elapsed, start = numbers(
        (msg.phase_progress, msg.elapsed, msg.phase_start), MAX_SEQUENCE_TIME, "sequence status times", " s"
    )
    if not 0.0 <= progress <= 1.0:
        raise InputError("out_of_range", f"sequence status has phase progress {progress:g}, outside 0..1")
    data = FIELDS.from_msg(msg, phase_progress=progress, elapsed=elapsed, phase_start=start)
    return stamp_ns(msg.header.stamp), data
