"""``sally_interfaces/FootStates`` to and from :class:`FootStateData`: the IK builds it after each
solve, the sequencer steps on it and the runner records it."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from sally_description.constants import LEGS
from sally_interfaces.msg import FootState, FootStates

from .decoded_once import decoded_once
from .inputs import MAX_DISTANCE, QUATERNION_LIMIT, UNIT_TOLERANCE, UNKNOWN, InputError, known, numbers, unit_quaternion
from .stamps import set_stamp, stamp_ns
from .stance import StanceMode


@dataclass(frozen=True)
class FootStateData:
    """One foot as the IK sees it after a solve."""

    position: np.ndarray
    """The EE site, world (m)."""
    quat: np.ndarray
    """The EE site's orientation, world, (w, x, y, z)."""
    hip_pivot: np.ndarray
    """The hip pivot, world (m): the centre of the SWING arc."""
    mode: StanceMode
    in_contact: bool
    """Within 8 mm of its stance baseline (false while swinging)."""
    penetration: float
    """Advance into the surface past the baseline (m)."""
    lift: float
    """Signed displacement away from the surface against the baseline (m)."""


def foot_states_to_msg(stamp: int, feet: Mapping[str, FootStateData], frame: str = "world") -> FootStates:
    """The message for the solve of the state stamped ``stamp`` (ns), feet in ``feet``'s order, their
    positions in TF frame ``frame``."""
    states = []
    for foot, f in feet.items():
        # the fields of the nested messages a FootState builds itself, set in place (half the cost of
        # building a Pose, two Points and a Quaternion to hand it): every IK tick makes one
        state = FootState(
            foot=foot,
            mode=int(f.mode),
            in_contact=bool(f.in_contact),
            penetration=float(f.penetration),
            lift=float(f.lift),
        )
        position, orientation, hip = state.pose.position, state.pose.orientation, state.hip_pivot
        position.x, position.y, position.z = f.position.tolist()
        orientation.w, orientation.x, orientation.y, orientation.z = f.quat.tolist()
        hip.x, hip.y, hip.z = f.hip_pivot.tolist()
        states.append(state)
    msg = FootStates(feet=states)
    set_stamp(msg.header, stamp)
    msg.header.frame_id = frame
    return msg


_MODES = frozenset(int(m) for m in StanceMode)


@decoded_once
def foot_states_from_msg(msg: FootStates) -> tuple[int, dict[str, FootStateData]]:
    """(stamp ns, foot -> state) of ``msg``; raises :class:`~.inputs.InputError` naming what is wrong
    (not every foot exactly once, implausible numbers, an orientation that is not a unit quaternion,
    an unknown mode). Decoded once for all its readers in the process (:mod:`.decoded_once`: its
    arrays are read-only)."""
    feet = [f.foot for f in msg.feet]
    known(feet, LEGS, "foot states")
    if sorted(feet) != sorted(LEGS):
        raise InputError("length", f"foot states must have each of {list(LEGS)} once, got {feet}")
    # every foot's numbers checked in one pass (the IK's every tick is read three times in the loop's
    # thread); a message that fails it is checked foot by foot, for the error that names the field
    table = np.array(
        [
            (f.pose.position.x, f.pose.position.y, f.pose.position.z, f.hip_pivot.x, f.hip_pivot.y, f.hip_pivot.z,
             f.penetration, f.lift, f.pose.orientation.w, f.pose.orientation.x, f.pose.orientation.y,
             f.pose.orientation.z)
            for f in msg.feet
        ],
        dtype=float,
    )  # fmt: skip
    quats = table[:, 8:]
    fine = (
        np.abs(table[:, :8]).max() <= MAX_DISTANCE
        and np.abs(quats).max() <= QUATERNION_LIMIT
        and all(abs(math.sqrt(float(q @ q)) - 1.0) <= UNIT_TOLERANCE for q in quats)
        and all(f.mode in _MODES for f in msg.feet)
    )
    if not fine:
        return _checked_foot_by_foot(msg)
    out = {
        f.foot: FootStateData(
            row[0:3].copy(),
            row[8:12].copy(),
            row[3:6].copy(),
            StanceMode(f.mode),
            bool(f.in_contact),
            float(row[6]),
            float(row[7]),
        )
        for f, row in zip(msg.feet, table)
    }
    return stamp_ns(msg.header.stamp), out


def _checked_foot_by_foot(msg: FootStates) -> tuple[int, dict[str, FootStateData]]:
    """:func:`foot_states_from_msg` one field at a time: the first field that is wrong raises."""
    out = {}
    for f in msg.feet:
        p, h, q = f.pose.position, f.hip_pivot, f.pose.orientation
        position = numbers((p.x, p.y, p.z), MAX_DISTANCE, f"foot state of {f.foot}", " m")
        hip = numbers((h.x, h.y, h.z), MAX_DISTANCE, f"hip pivot of {f.foot}", " m")
        quat = unit_quaternion((q.w, q.x, q.y, q.z), f"foot orientation of {f.foot}")
        penetration, lift = numbers((f.penetration, f.lift), MAX_DISTANCE, f"contact readout of {f.foot}", " m")
        if f.mode not in _MODES:
            raise InputError(UNKNOWN, f"foot state of {f.foot} has unknown mode {f.mode}")
        out[f.foot] = FootStateData(
            position, quat, hip, StanceMode(f.mode), bool(f.in_contact), float(penetration), float(lift)
        )
    return stamp_ns(msg.header.stamp), out
