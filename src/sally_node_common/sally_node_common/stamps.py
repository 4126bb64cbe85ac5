"""Sim-time stamps as integer nanoseconds (exact: sim time is a step counter) and back."""

from __future__ import annotations

NS = 1_000_000_000


def stamp_ns(stamp) -> int:
    """A ``builtin_interfaces/Time`` as nanoseconds."""
    return stamp.sec * NS + stamp.nanosec


def set_time(time, nanoseconds: int) -> None:
    """Set the ``builtin_interfaces/Time`` ``time`` to ``nanoseconds`` (>= 0)."""
    time.sec, time.nanosec = divmod(nanoseconds, NS)


def set_stamp(header, nanoseconds: int) -> None:
    """Stamp ``header`` with ``nanoseconds`` (>= 0)."""
    set_time(header.stamp, nanoseconds)
