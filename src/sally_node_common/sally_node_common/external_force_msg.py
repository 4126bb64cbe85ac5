"""``sally_interfaces/ExternalForce`` to and from :class:`ExternalLoad`: an outside rig (the pull-off
stand) builds it, the sim reads it and applies the load from the step its stamp names."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sally_description.constants import LEGS
from sally_interfaces.msg import ExternalForce

from .inputs import NON_FINITE, OUT_OF_RANGE, UNKNOWN, InputError
from .stamps import set_stamp, stamp_ns

MAX_EXTERNAL_FORCE = 1e5
"""N (and N/s) per axis: larger is not a test rig but a typo."""


@dataclass(frozen=True)
class ExternalLoad:
    """A force on one foot's magnet body that grows linearly from its stamp."""

    foot: str
    stamp: int
    """ns of sim time the load starts (0: at once)."""
    force: np.ndarray
    """N, world frame, at the stamp."""
    rate: np.ndarray
    """N/s, world frame."""

    def at(self, nanoseconds: int) -> np.ndarray:
        """The force (N) at sim time ``nanoseconds`` (the stamp's value before it)."""
        return self.force + self.rate * (max(0, nanoseconds - self.stamp) * 1e-9)


def external_force_to_msg(load: ExternalLoad) -> ExternalForce:
    """The message that applies ``load`` (a zero force and rate remove the foot's load)."""
    msg = ExternalForce(foot=load.foot)
    set_stamp(msg.header, load.stamp)
    msg.header.frame_id = "world"
    msg.force.x, msg.force.y, msg.force.z = (float(v) for v in load.force)
    msg.force_rate.x, msg.force_rate.y, msg.force_rate.z = (float(v) for v in load.rate)
    return msg


def external_force_from_msg(msg: ExternalForce) -> ExternalLoad:
    """The load ``msg`` applies; raises :class:`~.inputs.InputError` for an unknown foot, a
    non-finite number or one beyond :data:`MAX_EXTERNAL_FORCE`."""
    if msg.foot not in LEGS:
        raise InputError(UNKNOWN, f"external force names unknown foot {msg.foot!r}; valid: {list(LEGS)}")
    force = np.array([msg.force.x, msg.force.y, msg.force.z], dtype=float)
    rate = np.array([msg.force_rate.x, msg.force_rate.y, msg.force_rate.z], dtype=float)
    if not (np.isfinite(force).all() and np.isfinite(rate).all()):
        raise InputError(
            NON_FINITE, f"external force on {msg.foot} is not finite: force {force.tolist()}, rate {rate.tolist()}"
        )
    if np.abs(force).max() > MAX_EXTERNAL_FORCE or np.abs(rate).max() > MAX_EXTERNAL_FORCE:
        raise InputError(
            OUT_OF_RANGE, f"external force on {msg.foot} exceeds {MAX_EXTERNAL_FORCE:g} N (or N/s) per axis"
        )
    return ExternalLoad(msg.foot, stamp_ns(msg.header.stamp), force, rate)
