"""Checks every node applies to the messages it reads. Pure: no rclpy.

Each refusal is an :class:`InputError` whose ``reason`` comes from one small vocabulary, so a
count on /diagnostics means the same thing in every node:

* ``non_finite``: NaN or inf in a number
* ``out_of_range``: a finite number no robot of this size produces (a metre-scale robot 1 km away,
  a joint at 1e9 rad): a unit or encoding error, never clamped
* ``length``: arrays that should pair up (names and values) do not
* ``unknown``: a joint, foot, frame or mode name the node does not know
* ``out_of_order``: a stamp older than the newest already taken from that stream

Content is checked before the stamp, so a bad message never advances a stream's order.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Sequence

import numpy as np

from .decoded_once import decoded_once

NON_FINITE, OUT_OF_RANGE, LENGTH, UNKNOWN, OUT_OF_ORDER = (
    "non_finite",
    "out_of_range",
    "length",
    "unknown",
    "out_of_order",
)

MAX_DISTANCE = 100.0
"""m: positions, distances (the world is a few metres)."""
MAX_ANGLE = 100.0
"""rad: joint positions (the limits are within +-pi)."""
MAX_RATE = 1e4
"""m/s or rad/s."""
MAX_FORCE = 1e6
"""N or N m."""
NEW_TIMELINE_GAP = 1.0
"""Wall seconds a state stream must have been silent before an older stamp starts a new time line."""


class InputError(ValueError):
    """A message a node refuses; ``reason`` is one of the vocabulary above (or a node's own)."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason


def numbers(values: Iterable[float], limit: float, what: str, unit: str = "") -> np.ndarray:
    """``values`` as floats, refused when any is non-finite or beyond +-``limit``."""
    array = values if isinstance(values, np.ndarray) else np.asarray(list(values), dtype=float)
    if array.size and not np.abs(array).max() <= limit:  # one pass: a NaN fails the comparison too
        if not np.isfinite(array).all():
            raise InputError(NON_FINITE, f"{what} has non-finite values {array[~np.isfinite(array)].tolist()}")
        raise InputError(
            OUT_OF_RANGE, f"{what} has {np.abs(array).max():g}{unit}, beyond the plausible +-{limit:g}{unit}"
        )
    return array


def known(names: Iterable[str], valid: Iterable[str], what: str) -> None:
    """Raise :class:`InputError` if any of ``names`` is not in ``valid`` (``what`` names the field)."""
    valid = list(valid)
    unknown = [n for n in names if n not in valid]
    if unknown:
        raise InputError(UNKNOWN, f"{what} names unknown {unknown}; valid: {valid}")


DUPLICATE = "duplicate"
"""Refusal reason: a name given twice where each may come once."""


def known_once(names: Sequence[str], valid: Iterable[str], what: str) -> None:
    """:func:`known`, and each of ``names`` at most once (else :data:`DUPLICATE`)."""
    known(names, valid, what)
    if len(set(names)) != len(names):
        raise InputError(DUPLICATE, f"{what} names one twice: {list(names)}")


QUATERNION_LIMIT = 1e3
"""A quaternion's components beyond this are implausible, not merely unnormalised."""
UNIT_TOLERANCE = 1e-3
"""How far a unit quaternion's norm may be from 1."""


def unit_quaternion(wxyz: Sequence[float], what: str) -> np.ndarray:
    """``wxyz`` as a finite unit quaternion, else :class:`InputError` naming ``what``."""
    q = numbers(wxyz, QUATERNION_LIMIT, what)
    if abs(math.sqrt(float(q @ q)) - 1.0) > UNIT_TOLERANCE:
        raise InputError(OUT_OF_RANGE, f"{what} is not a unit quaternion (norm {math.sqrt(float(q @ q)):.6g})")
    return q


class StampOrder:
    """The stamps of one stream must not go back (an equal stamp is a re-delivery, for the caller).

    A state stream (``gap`` finite) that has been silent for ``gap`` wall seconds may start over with
    a stamp more than ``back_ns`` older than its newest: that is a new time line (a sim restarted
    from t = 0), and :meth:`admit` says so, for the node to forget what it knew of the old one. A
    stream read kept (transient local) gives ``back_ns`` the span of its writer's history: that
    history, replayed when the reader matches the writer again after the silence (a hung reader
    continued), lies within it and is out of order, not a new sim (a sequencer hung 6 s took a
    replayed foot state 30 ms older than its newest, after a second of its lockstep graph waiting,
    for a new sim and started its run again). A command stream (``gap`` None) never starts over by
    itself; its node calls :meth:`restart` when its state stream does.
    """

    def __init__(
        self,
        what: str,
        gap: float | None = NEW_TIMELINE_GAP,
        clock: Callable[[], float] = time.monotonic,
        back_ns: int = 0,
    ) -> None:
        self.what, self.gap, self._clock, self.back_ns = what, gap, clock, back_ns
        self.latest: int | None = None
        self._heard = -math.inf

    def admit(self, stamp: int) -> bool:
        """Take ``stamp``: True when it starts a new time line; raises ``out_of_order`` if it goes back."""
        now = self._clock()
        new_timeline = False
        if self.latest is not None and stamp < self.latest:
            if self.gap is None or now - self._heard < self.gap or self.latest - stamp <= self.back_ns:
                raise InputError(
                    OUT_OF_ORDER,
                    f"{self.what} stamped {stamp * 1e-9:.4f} s after one stamped {self.latest * 1e-9:.4f} s",
                )
            new_timeline = True
        self.latest, self._heard = stamp, now
        return new_timeline

    def restart(self) -> None:
        """Forget the latest value (a new time line)."""
        self.latest = None


@decoded_once
def joint_arrays(
    names: Sequence[str],
    position: Sequence[float],
    velocity: Sequence[float],
    required: Sequence[str],
    what: str = "joint state",
) -> tuple[np.ndarray, np.ndarray]:
    """The positions and velocities of the ``required`` joints, in that order, from a JointState's
    arrays (any order, extra joints ignored but checked too; velocities may be empty: zeros). Decoded
    once for all the readers of a message in the process (:mod:`.decoded_once`: read-only arrays)."""
    if len(position) != len(names) or len(velocity) not in (0, len(names)):
        raise InputError(
            LENGTH, f"{what} has {len(names)} names, {len(position)} positions, {len(velocity)} velocities"
        )
    idx = _index(tuple(names), tuple(required), what)
    q = numbers(np.asarray(position, dtype=float), MAX_ANGLE, f"{what} positions", " rad")[idx]
    qdot = (
        numbers(np.asarray(velocity, dtype=float), MAX_RATE, f"{what} velocities", " rad/s")[idx]
        if len(velocity)
        else np.zeros(len(idx))
    )
    return q, qdot


_INDICES: dict[tuple[tuple[str, ...], tuple[str, ...]], np.ndarray] = {}


def _index(names: tuple[str, ...], required: tuple[str, ...], what: str) -> np.ndarray:
    """Where each required joint is in ``names`` (cached: a stream repeats the same names)."""
    found = _INDICES.get((names, required))
    if found is None:
        where = {n: i for i, n in enumerate(names)}
        missing = [n for n in required if n not in where]
        if missing:
            unknown = [n for n in names if n not in set(required)]
            raise InputError(
                UNKNOWN, f"{what} lacks joints {missing}" + (f" and names unknown joints {unknown}" if unknown else "")
            )
        if len(_INDICES) > 64:
            _INDICES.clear()
        found = _INDICES[(names, required)] = np.array([where[n] for n in required])
    return found
