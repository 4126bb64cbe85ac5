"""``sally_interfaces/ServoCommand`` to and from :class:`ServoCommandData`: the hybrid joint command
the controller sends and the sim's servos (or a robot's motor drivers) take. Pure: no rclpy calls.

A command names motor joints, each once, with a position (rad) and optionally a velocity (rad/s),
a feed-forward effort (N m) and the gains the sender wants (kp N m/rad, kd N m s/rad; absent: the
servo's own). Reading one refuses it whole, naming why, when it cannot be meant: no joints, arrays
that do not pair with the names, a joint named twice, one that is not a motor, a non-finite or
implausible number, a negative or implausible gain.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from sally_interfaces.msg import ServoCommand

from .inputs import LENGTH, MAX_ANGLE, MAX_FORCE, MAX_RATE, NON_FINITE, UNKNOWN, InputError, numbers
from .stamps import set_stamp, stamp_ns

EMPTY, DUPLICATE, PASSIVE, GAIN = "empty", "duplicate", "passive", "gain"
"""Refusal reasons beside the common ones: no joints, a joint twice, a passive (unactuated) joint,
a negative or implausibly large gain."""
MAX_KP = 1e4
"""N m/rad: the stiffest plausible servo (Sally's is 500)."""
MAX_KD = 1e3
"""N m s/rad: the most damping a plausible servo applies (Sally's is 30)."""


@dataclass(frozen=True)
class ServoCommandData:
    """A servo command: per named motor, what its servo tracks until the next."""

    stamp: int
    """The joint state it answers (ns of sim time; 0: unstamped)."""
    names: tuple[str, ...]
    position: np.ndarray
    """Position setpoints (rad)."""
    velocity: np.ndarray
    """Velocity setpoints (rad/s); zeros when the message gave none."""
    effort: np.ndarray
    """Feed-forward efforts (N m); zeros when the message gave none."""
    kp: np.ndarray | None = None
    """Stiffness (N m/rad); None: the servo's own."""
    kd: np.ndarray | None = None
    """Damping (N m s/rad); None: the servo's own."""


def servo_command_to_msg(data: ServoCommandData) -> ServoCommand:
    """The message of ``data`` (a new one each call: a published message belongs to its readers)."""
    msg = ServoCommand(name=list(data.names))
    set_stamp(msg.header, data.stamp)
    msg.position = data.position.tolist()
    msg.velocity = data.velocity.tolist()
    msg.effort = data.effort.tolist()
    if data.kp is not None:
        msg.kp = data.kp.tolist()
    if data.kd is not None:
        msg.kd = data.kd.tolist()
    return msg


def servo_command_from_msg(msg: ServoCommand, motors: Sequence[str], passive: Iterable[str] = ()) -> ServoCommandData:
    """The command of ``msg`` for the joints ``motors`` (any of them, any order); raises
    :class:`~.inputs.InputError` naming what is wrong. ``passive``: joints that exist but have no
    motor (named in the refusal as such)."""
    names = tuple(msg.name)
    if not names:
        raise InputError(EMPTY, "servo command names no joints")
    if len(set(names)) != len(names):
        repeated = sorted({n for n in names if names.count(n) > 1})
        raise InputError(DUPLICATE, f"servo command names {repeated} more than once")
    motor_set = set(motors)
    unknown = [n for n in names if n not in motor_set]
    if unknown:
        if set(unknown) <= set(passive):
            raise InputError(PASSIVE, f"servo command names passive (not actuated) joints {unknown}")
        raise InputError(UNKNOWN, f"servo command names unknown joints {unknown}; motors: {list(motors)}")
    n = len(names)
    arrays = {
        "position": np.asarray(msg.position, dtype=float),
        "velocity": np.asarray(msg.velocity, dtype=float),
        "effort": np.asarray(msg.effort, dtype=float),
        "kp": np.asarray(msg.kp, dtype=float),
        "kd": np.asarray(msg.kd, dtype=float),
    }
    for field, values in arrays.items():
        if len(values) != n and not (field != "position" and len(values) == 0):
            required = "" if field == "position" else " (or none)"
            raise InputError(LENGTH, f"servo command has {n} names but {len(values)} {field} values{required}")
    position = numbers(arrays["position"], MAX_ANGLE, "servo command position", " rad")
    velocity = numbers(arrays["velocity"], MAX_RATE, "servo command velocity", " rad/s")
    effort = numbers(arrays["effort"], MAX_FORCE, "servo command effort", " N m")
    kp = _gains(arrays["kp"], MAX_KP, "kp", "N m/rad")
    kd = _gains(arrays["kd"], MAX_KD, "kd", "N m s/rad")
    return ServoCommandData(
        stamp_ns(msg.header.stamp),
        names,
        position,
        velocity if len(velocity) else np.zeros(n),
        effort if len(effort) else np.zeros(n),
        kp,
        kd,
    )


def _gains(values: np.ndarray, limit: float, what: str, unit: str) -> np.ndarray | None:
    """Gains in [0, ``limit``], or None when none were given."""
    if not len(values):
        return None
    if not np.isfinite(values).all():
        raise InputError(NON_FINITE, f"servo command {what} has non-finite values {values.tolist()}")
    bad = values[(values < 0) | (values > limit)]
    if bad.size:
        raise InputError(GAIN, f"servo command {what} has {bad.tolist()}, outside [0, {limit:g}] {unit}")
    return values
