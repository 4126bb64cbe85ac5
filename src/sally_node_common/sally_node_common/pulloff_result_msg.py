"""``sally_interfaces/PullOffResult`` to and from :class:`PullOffOutcome`: the pull-off rig builds it
when its test ends, the runner and the optimizer's scenarios read it."""

from __future__ import annotations

from dataclasses import dataclass

from sally_description.constants import LEGS
from sally_interfaces.msg import PullOffResult

from .inputs import MAX_FORCE, known, numbers
from .message_fields import MessageFields
from .stamps import set_stamp, stamp_ns

MAX_TEST_TIME = 1e6
"""s: a detach time beyond this is an encoding error, not a test."""


@dataclass(frozen=True)
class PullOffOutcome:
    """One magnet pulled straight up on a force ramp until its force drops for good."""

    foot: str
    held: bool = False
    """The magnet force reached the threshold at all (adhesion)."""
    detached: bool = False
    """A sustained drop was seen (False: the ramp's limit or the time limit came first)."""
    pulloff_force: float = 0.0
    """N: the applied pull when the sustained drop began (0 without adhesion)."""
    detach_time: float = 0.0
    """s of sim time since the ramp began, when the drop began."""
    clip: float = 0.0
    """N: the magnet's max_force_per_wheel."""
    detach_threshold: float = 0.0
    """N: the magnet force below which it counts as detaching."""
    max_applied: float = 0.0
    """N: the largest pull applied."""
    message: str = ""


FIELDS = MessageFields(PullOffOutcome, PullOffResult)


def pulloff_result_to_msg(stamp: int, outcome: PullOffOutcome) -> PullOffResult:
    """The message stamped ``stamp`` (ns of sim time the test ended)."""
    msg = FIELDS.to_msg(outcome)
    set_stamp(msg.header, stamp)
    return msg


def pulloff_result_from_msg(msg: PullOffResult) -> tuple[int, PullOffOutcome]:
    """(stamp ns, outcome) of ``msg``; raises :class:`~.inputs.InputError` for an unknown foot or a
    non-finite or implausible force or time."""
    known([msg.foot], LEGS, "pull-off result foot")
    forces = numbers(
        (msg.pulloff_force, msg.clip, msg.detach_threshold, msg.max_applied), MAX_FORCE, "pull-off forces", " N"
    )
    (detach_time,) = numbers((msg.detach_time,), MAX_TEST_TIME, "pull-off detach time", " s")
    pulloff_force, clip, threshold, applied = forces
    outcome = FIELDS.from_msg(
        msg,
        pulloff_force=pulloff_force,
        detach_time=detach_time,
        clip=clip,
        detach_threshold=threshold,
        max_applied=applied,
    )
    return stamp_ns(msg.header.stamp), outcome
