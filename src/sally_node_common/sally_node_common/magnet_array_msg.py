"""``sally_interfaces/MagnetArray`` to and from :class:`MagnetReadingData`: the magnets' telemetry as a
robot's driver publishes it (each magnet's switch and its foot's contact sensor). The sim builds it
after each telemetry step; the sequencer and the state estimator read it. The world's truth of the
magnets travels apart (:mod:`.magnet_truth_msg`)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sally_description.constants import LEGS
from sally_interfaces.msg import MagnetArray, MagnetState

from .inputs import MAX_FORCE, known_once, numbers
from .message_fields import MessageFields
from .stamps import set_stamp, stamp_ns


@dataclass(frozen=True)
class MagnetReadingData:
    """One electromagnet as its driver knows it after the latest physics step."""

    foot: str
    enabled: bool
    """The magnet's switch."""
    contact_reading: float = 0.0
    """N: the foot's contact sensor as its driver reads it (noise, resolution, latency)."""
    contact_sensed: bool = False
    """The contact sensor says contact (its reading above the driver's threshold)."""


FIELDS = MessageFields(MagnetReadingData, MagnetState)


def magnet_array_to_msg(stamp: int, magnets: Iterable[MagnetReadingData]) -> MagnetArray:
    """The telemetry stamped ``stamp`` (ns of sim time), magnets in ``magnets``' order."""
    msg = MagnetArray()
    set_stamp(msg.header, stamp)
    msg.header.frame_id = "world"
    for m in magnets:
        msg.magnets.append(FIELDS.to_msg(m))
    return msg


def magnet_array_from_msg(msg: MagnetArray) -> tuple[int, dict[str, MagnetReadingData]]:
    """(stamp ns, foot -> reading) of ``msg``; raises :class:`~.inputs.InputError` naming what is
    wrong (an unknown foot, a foot twice, a non-finite or implausible contact reading)."""
    known_once([m.foot for m in msg.magnets], LEGS, "magnet telemetry")
    out = {}
    for m in msg.magnets:
        (reading,) = numbers((m.contact_reading,), MAX_FORCE, f"magnet telemetry of {m.foot}", " N")
        out[m.foot] = FIELDS.from_msg(m, contact_reading=reading)
    return stamp_ns(msg.header.stamp), out
