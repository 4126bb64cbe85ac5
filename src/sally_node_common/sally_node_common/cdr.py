"""CDR bytes of the graph's 1 kHz messages, built in Python, and :func:`serialize` for any message.

A composed host serializes what it records and what it sends to readers outside (``ros2`` MCAP and
DDS both carry CDR: XCDR1, little-endian, a 4-byte encapsulation header ``00 01 00 00``, then each
field aligned to its size from the payload's start). ``rclpy.serialization.serialize_message``
converts the whole message to its C struct first, one allocation per string; in place, between the
physics' steps, that took ~16 µs a message against 6 µs in a loop, and a recorded run serializes
three 1 kHz streams. For ``rosgraph_msgs/Clock`` and ``sensor_msgs/JointState`` (the joint names
encoded once per name list) the bytes are packed here instead; every other type goes to rclpy.

The bytes decode to the same message with ``rclpy.serialization.deserialize_message`` (tested
field for field). They are not rclpy's byte for byte: rclpy's padding and the 8 bytes it appends
are whatever its buffer held; ours are zeros and end with the last field.
"""

from __future__ import annotations

import struct
from array import array
from collections.abc import Callable
from typing import Any

HEADER = b"\x00\x01\x00\x00"
"""CDR little-endian encapsulation, no options."""
_TIME = struct.Struct("<iI")
_U32 = struct.Struct("<I")


def clock(msg) -> bytes:
    """A ``rosgraph_msgs/Clock`` as CDR."""
    return HEADER + _TIME.pack(msg.clock.sec, msg.clock.nanosec)


class _Writer:
    """Appends CDR fields to a list of byte strings, keeping the payload offset for alignment."""

    __slots__ = ("parts", "offset")

    def __init__(self) -> None:
        self.parts: list[bytes] = [HEADER]
        self.offset = 0

    def raw(self, data: bytes) -> None:
        self.parts.append(data)
        self.offset += len(data)

    def align(self, size: int) -> None:
        pad = -self.offset % size
        if pad:
            self.raw(b"\x00" * pad)

    def string(self, text: str) -> None:
        self.align(4)
        data = text.encode()
        self.raw(_U32.pack(len(data) + 1) + data + b"\x00")


_PREFIXES: dict[tuple[str, tuple[str, ...]], tuple[bytes, int]] = {}
"""(frame_id, joint names) -> the CDR between the stamp and the positions, and the payload offset
after it. A graph has a few such pairs; past 64, others are encoded each time."""
_ZEROS = bytes(8)


def _prefix(frame_id: str, names: tuple[str, ...]) -> tuple[bytes, int]:
    entry = _PREFIXES.get((frame_id, names))
    if entry is None:
        writer = _Writer()
        writer.parts, writer.offset = [], _TIME.size
        writer.string(frame_id)
        writer.align(4)
        writer.raw(_U32.pack(len(names)))
        for name in names:
            writer.string(name)
        entry = (b"".join(writer.parts), writer.offset)
        if len(_PREFIXES) < 64:
            _PREFIXES[(frame_id, names)] = entry
    return entry


def joint_state(msg) -> bytes:
    """A ``sensor_msgs/JointState`` as CDR."""
    stamp = msg.header.stamp
    middle, offset = _prefix(msg.header.frame_id, tuple(msg.name))
    parts = [HEADER, _TIME.pack(stamp.sec, stamp.nanosec), middle]
    for values in (msg.position, msg.velocity, msg.effort):
        pad = -offset % 4
        if pad:
            parts.append(_ZEROS[:pad])
        count = len(values)
        parts.append(_U32.pack(count))
        offset += pad + 4
        if count:
            pad = -offset % 8
            if pad:
                parts.append(_ZEROS[:pad])
            parts.append(
                values.tobytes()
                if isinstance(values, array) and values.typecode == "d"
                else array("d", values).tobytes()
            )
            offset += pad + 8 * count
    return b"".join(parts)


def _fast() -> dict[type, Callable[[Any], bytes]]:
    from rosgraph_msgs.msg import Clock
    from sensor_msgs.msg import JointState

    return {Clock: clock, JointState: joint_state}


_BY_TYPE: dict[type, Callable[[Any], bytes]] | None = None


def serialize(msg) -> bytes:
    """``msg`` as CDR: packed here for the types above, by rclpy for every other."""
    global _BY_TYPE
    if _BY_TYPE is None:
        _BY_TYPE = _fast()
    fast = _BY_TYPE.get(type(msg))
    if fast is not None:
        return fast(msg)
    from rclpy.serialization import serialize_message

    return serialize_message(msg)
