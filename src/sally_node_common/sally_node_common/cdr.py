"""A message's serialized CDR made from a template: rclpy's own bytes with the numbers written in.

A message's bytes depend on its numbers only through their values: strings and sequence lengths
fix the layout. So :class:`Template` has rclpy serialize one message of a *shape* (the same
strings, the same sequence lengths) with every number set to a value of its own, finds where each
number landed, and from then on copies those bytes and writes new numbers in place. The sim makes
its /tf this way from its arrays (:class:`sally_sim_node.visuals.TfBytes`), with no message built:
building the 25 transforms' message and serializing it took 492 µs in a loop (843 µs of thread CPU
in the running graph), the template with the poses 66 µs (270 µs).

Serializing with rclpy is kept for everything else. A template for the 1 kHz ``/clock`` and
JointState messages halved their cost in a loop (4.0 -> 1.9 and 8.5 -> 4.3 µs here) but not in the
running graph: the serializing of the composed main job took 2.4-2.7 s against 2.4-3.3 s with
rclpy's (thread CPU, two interleaved pairs, 2026-11-26), as a hand-packed CDR had not either on
2026-11-25 (``docs/design-notes.md``). What a message costs there is the cache, not the call.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Sequence

from rclpy.serialization import serialize_message

_STAMP = struct.Struct("<iI")
"""builtin_interfaces/Time in CDR: int32 sec, uint32 nanosec (little-endian, as rclpy writes)."""


class Template:
    """One message shape's CDR bytes, with the offset of each number to write.

    ``build(mark)`` makes the prototype: a message of the shape whose every number is ``mark("i")``
    (each of a stamp's two) or ``mark()`` (a float64), called in the order the numbers come in the
    message. The float64 numbers lie in runs, one after another (a sequence, a transform's seven);
    :meth:`fill` takes each run's bytes. A mark that rclpy's bytes hold not exactly once, or runs
    other than ``runs`` long, make the template refuse the shape (ValueError): its caller builds
    the message and serializes it with rclpy then."""

    def __init__(self, build: Callable[[Callable[..., float]], object], runs: Sequence[int]) -> None:
        stamps: list[int] = []
        doubles: list[float] = []

        def mark(kind: str = "f") -> float:  # distinct, exact values whose bytes are found nowhere else
            if kind == "i":
                stamps.append(0x2A5A0001 + len(stamps))
                return stamps[-1]
            doubles.append(1.0e300 * (1.0 + (len(doubles) + 1) * 2.0**-30))
            return doubles[-1]

        prototype = build(mark)
        data = bytearray(serialize_message(prototype))
        if data[:2] != b"\x00\x01":  # the encapsulation: plain CDR, little-endian (what is written here)
            raise ValueError("rclpy wrote big-endian CDR")
        for at in padding(type(prototype), data):
            data[at] = 0  # rclpy leaves what its buffer held there
        self.bytes = bytes(data)
        self.stamps = [self._find(data, _STAMP.pack(sec, ns)) for sec, ns in zip(stamps[::2], stamps[1::2])]
        """Where each stamp's (sec, nanosec) is."""
        found = _runs([self._find(data, struct.pack("<d", d)) for d in doubles])
        if [n for _, n in found] != list(runs):
            raise ValueError(f"the float64 numbers lie in runs of {[n for _, n in found]}, not {list(runs)}")
        self.runs = [(at, at + 8 * n) for at, n in found]
        """Each run's byte range."""

    @staticmethod
    def _find(data: bytes, mark: bytes) -> int:
        at = data.find(mark)
        if at < 0 or data.find(mark, at + 1) >= 0:
            raise ValueError("a number of the prototype is not in its bytes exactly once")
        return at

    def fill(self, stamps: Sequence[tuple[int, int]], runs: Sequence) -> bytes:
        """The bytes with ``stamps`` ((sec, nanosec) each, in order) and each run's float64
        numbers (``runs``: one little-endian bytes-like object per run, of its length) written in."""
        out = bytearray(self.bytes)
        for at, (sec, nanosec) in zip(self.stamps, stamps):
            _STAMP.pack_into(out, at, sec, nanosec)
        for (start, end), data in zip(self.runs, runs):
            out[start:end] = data  # (the shape fixes every length: nothing moves)
        return bytes(out)


_SIZES = {"boolean": 1, "octet": 1, "char": 1, "int8": 1, "uint8": 1, "int16": 2, "uint16": 2, "int32": 4}
_SIZES |= {"uint32": 4, "float": 4, "int64": 8, "uint64": 8, "double": 8}
_COUNT = struct.Struct("<I")


def padding(kind: type, data: bytes | bytearray) -> list[int]:
    """The offsets of the bytes in ``data``, a ``kind`` message's CDR, that no field holds: the
    alignment padding (each number is aligned to its size, counted from the end of the 4-byte
    encapsulation) and what rclpy's length adds after the last field (up to 8 bytes here: its size
    is reckoned ahead, with room for alignment the data did not take). rclpy does not clear these
    bytes (they hold whatever its buffer held), so a template clears them.

    Knows primitives, strings, unbounded sequences and nested messages (ValueError for any other
    field, or bytes that do not end where the layout does)."""
    from importlib import import_module

    pad: list[int] = []
    at = 4

    def align(size: int) -> None:
        nonlocal at
        while (at - 4) % size:
            pad.append(at)
            at += 1

    def field(name: str) -> None:
        nonlocal at
        if name.startswith("sequence<") and "," not in name:
            align(4)
            (n,), at = _COUNT.unpack_from(data, at), at + 4
            if n > len(data) - at:
                raise ValueError(f"a sequence of {n} in {len(data)} bytes")
            for _ in range(n):
                field(name[len("sequence<") : -1])
        elif name == "string":
            align(4)
            (n,), at = _COUNT.unpack_from(data, at), at + 4
            at += n
        elif name in _SIZES:
            align(_SIZES[name])
            at += _SIZES[name]
        elif name.count("/") == 1:
            package, message = name.split("/")
            fields(getattr(import_module(f"{package}.msg"), message))
        else:
            raise ValueError(f"no CDR layout here for a field of type {name}")

    def fields(message) -> None:  # a message class: its fields' types by name, in order
        for name in message.get_fields_and_field_types().values():
            field(name)

    try:
        fields(kind)
    except struct.error as exc:
        raise ValueError(f"{kind.__name__}'s bytes end before its layout does: {exc}") from None
    if not 0 <= len(data) - at < 16:
        raise ValueError(f"{kind.__name__}'s layout ends at byte {at}, its bytes at {len(data)}")
    return pad + list(range(at, len(data)))  # rclpy's length can run past the last field (sized ahead)


def _runs(offsets: list[int]) -> list[tuple[int, int]]:
    """Consecutive float64 offsets grouped: [(start, count), ...], in order."""
    runs: list[tuple[int, int]] = []
    for at in offsets:
        if runs and runs[-1][0] + 8 * runs[-1][1] == at:
            runs[-1] = (runs[-1][0], runs[-1][1] + 1)
        else:
            runs.append((at, 1))
    return runs
