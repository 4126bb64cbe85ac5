"""The serialized CDR of the graph's per-step messages, byte for byte rclpy's, at a fraction of its cost.

rclpy's ``serialize_message`` builds a C message from the Python one field by field, every time:
in the composed f2w graph 22-27 µs for a ``/clock`` or a ``JointState`` (4-8 µs when measured
alone, its caches warm), and the recording and an outside reader take 2000 of them per second
of sim time, in the loop's thread.

A message's bytes depend on its numbers only through their values: strings and sequence lengths
fix the layout. So :class:`Template` has rclpy serialize one message of a *shape* (the same
strings, the same sequence lengths) with every number set to a value of its own, finds where each
number landed, and from then on copies those bytes and writes the numbers of each message in
place. :func:`serialize` does this for ``rosgraph_msgs/Clock`` and ``sensor_msgs/JointState`` (the
1 kHz topics), keeping a few shapes per type, and hands every other message to rclpy; the sim
fills a template of its /tf from its arrays (:mod:`sally_sim_node.visuals`), with no message
built. Tests hold the result to rclpy's bytes (its padding cleared) for random messages.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Sequence

from rclpy.serialization import serialize_message

SHAPES = 16
"""Shapes kept per message type; a message of another shape goes to rclpy."""
_STAMP = struct.Struct("<iI")
"""builtin_interfaces/Time in CDR: int32 sec, uint32 nanosec (little-endian, as rclpy writes)."""


class Template:
    """One message shape's CDR bytes, with the offset of each number to write.

    ``build(mark)`` makes the prototype: a message of the shape whose every number is ``mark("i")``
    (each of a stamp's two) or ``mark()`` (a float64), called in the order the numbers come in the
    message. The float64 numbers lie in runs, one after another (a sequence, a transform's seven);
    :meth:`fill` takes each run's bytes. A mark that rclpy's bytes hold not exactly once, or runs
    other than ``runs`` long, make the template refuse the shape (ValueError): its caller uses
    rclpy for it then."""

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


class _Shapes:
    """The templates of one message type, by shape (at most :data:`SHAPES`): ``shape(msg)`` is
    the key, ``build(key)`` the template, ``numbers(msg)`` the stamps and runs to fill in."""

    def __init__(self, shape: Callable, build: Callable, numbers: Callable) -> None:
        self._shape, self._build, self._numbers = shape, build, numbers
        self._templates: dict[object, Template | None] = {}

    def __call__(self, msg) -> bytes:
        key = self._shape(msg)
        if key in self._templates:
            template = self._templates[key]
        else:
            template = self._learn(key) if len(self._templates) < SHAPES else None
        if template is None:
            return serialize_message(msg)
        return template.fill(*self._numbers(msg))

    def _learn(self, key) -> Template | None:
        try:
            template: Template | None = self._build(key)
        except ValueError:
            template = None
        self._templates[key] = template
        return template


def _clock_shapes() -> _Shapes:
    from rosgraph_msgs.msg import Clock

    def build(_key) -> Template:
        def make(mark):
            msg = Clock()
            msg.clock.sec, msg.clock.nanosec = mark("i"), mark("i")
            return msg

        return Template(make, runs=())

    return _Shapes(lambda msg: None, build, lambda msg: (((msg.clock.sec, msg.clock.nanosec),), ()))


def _joint_state_shapes() -> _Shapes:
    from sensor_msgs.msg import JointState

    def shape(msg) -> tuple:
        return (msg.header.frame_id, tuple(msg.name), len(msg.position), len(msg.velocity), len(msg.effort))

    def build(key) -> Template:
        frame, names, *lengths = key

        def make(mark):
            msg = JointState(name=list(names))
            msg.header.frame_id = frame
            msg.header.stamp.sec, msg.header.stamp.nanosec = mark("i"), mark("i")
            msg.position, msg.velocity, msg.effort = ([mark() for _ in range(n)] for n in lengths)
            return msg

        return Template(make, runs=[n for n in lengths if n])

    def numbers(msg) -> tuple:
        stamp = msg.header.stamp  # the sequences are array.array("d"): their bytes as they are
        return ((stamp.sec, stamp.nanosec),), [a for a in (msg.position, msg.velocity, msg.effort) if len(a)]

    return _Shapes(shape, build, numbers)


_FAST: dict[type, _Shapes] = {}
_MAKERS = {
    ("rosgraph_msgs.msg", "Clock"): _clock_shapes,
    ("sensor_msgs.msg", "JointState"): _joint_state_shapes,
}


def serialize(msg) -> bytes:
    """``msg``'s CDR bytes, as ``rclpy.serialization.serialize_message`` gives them."""
    kind = type(msg)
    fast = _FAST.get(kind)
    if fast is None:
        maker = _MAKERS.get((kind.__module__.rsplit(".", 1)[0], kind.__name__))
        if maker is None:
            return serialize_message(msg)
        fast = _FAST[kind] = maker()
    return fast(msg)
