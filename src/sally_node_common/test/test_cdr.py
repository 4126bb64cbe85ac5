"""A message's CDR made from a template: byte for byte what rclpy writes (its padding cleared), for any numbers."""

from __future__ import annotations

import math

import numpy as np
import pytest
from rclpy.serialization import deserialize_message, serialize_message
from sensor_msgs.msg import JointState

from sally_node_common import cdr

ODD = [math.nan, -math.nan, math.inf, -math.inf, -0.0, 5e-324, 1.0e300 * (1.0 + 2.0**-30)]
"""Numbers a template must carry bit for bit (the last is one of its own marks)."""


def rclpy_bytes(msg) -> bytes:
    """rclpy's CDR of ``msg`` with its padding cleared (rclpy leaves what its buffer held)."""
    data = bytearray(serialize_message(msg))
    for at in cdr.padding(type(msg), data):
        data[at] = 0
    return bytes(data)


def same_bits(a, b) -> bool:
    """Equal float64 sequences, bit for bit (NaNs included)."""
    return np.array_equal(np.asarray(a, dtype=float).view(np.uint64), np.asarray(b, dtype=float).view(np.uint64))


def numbers(rng, n: int) -> list[float]:
    values = rng.normal(size=n).tolist()
    for i in rng.choice(n, size=min(n, 3), replace=False) if n else ():
        values[i] = ODD[rng.integers(len(ODD))]
    return values


def template(names: list[str], lengths: tuple[int, int, int], frame: str) -> cdr.Template:
    def prototype(mark):
        msg = JointState(name=names)
        msg.header.frame_id = frame
        msg.header.stamp.sec, msg.header.stamp.nanosec = mark("i"), mark("i")
        msg.position, msg.velocity, msg.effort = ([mark() for _ in range(n)] for n in lengths)
        return msg

    return cdr.Template(prototype, runs=[n for n in lengths if n])


@pytest.mark.parametrize(
    "names, lengths, frame",
    [
        ([f"joint_{i}" for i in range(24)], (24, 24, 24), ""),
        ([f"motor_{i}" for i in range(12)], (0, 0, 12), ""),  # empty sequences before a full one
        ([f"motor_{i}" for i in range(12)], (12, 0, 0), "base"),
        (["a"], (1, 1, 0), "odom"),
        ([], (0, 0, 0), ""),
        (["é", "x" * 37], (2, 2, 2), "ünï"),
    ],
)
def test_a_filled_template_is_rclpy_s_bytes_of_the_same_message(names, lengths, frame):
    made = template(names, lengths, frame)
    rng = np.random.default_rng(len(names) + sum(lengths))
    for _ in range(50):
        msg = JointState(name=names)
        msg.header.frame_id = frame
        msg.header.stamp.sec, msg.header.stamp.nanosec = int(rng.integers(-(2**31), 2**31)), int(rng.integers(2**32))
        msg.position, msg.velocity, msg.effort = (numbers(rng, n) for n in lengths)
        stamp = (msg.header.stamp.sec, msg.header.stamp.nanosec)
        data = made.fill([stamp], [a for a in (msg.position, msg.velocity, msg.effort) if len(a)])
        assert data == rclpy_bytes(msg)
        back = deserialize_message(data, JointState)
        assert back.name == names and back.header.stamp == msg.header.stamp
        assert all(same_bits(getattr(back, f), getattr(msg, f)) for f in ("position", "velocity", "effort"))


def test_a_template_refuses_a_prototype_whose_marks_are_not_each_found_once_or_whose_runs_differ():
    def clash(mark):  # two numbers with the same value: their bytes are found twice
        msg = JointState(name=["a", "b"])
        msg.header.stamp.sec, msg.header.stamp.nanosec = mark("i"), mark("i")
        first = mark()
        msg.position = [first, first]
        return msg

    with pytest.raises(ValueError, match="exactly once"):
        cdr.Template(clash, runs=[2])

    def three(mark):
        msg = JointState(name=["q"] * 3)
        msg.header.stamp.sec, msg.header.stamp.nanosec = mark("i"), mark("i")
        msg.position = [mark(), mark(), mark()]
        return msg

    assert cdr.Template(three, runs=[3]).runs
    with pytest.raises(ValueError, match="runs of"):
        cdr.Template(three, runs=[2])


def test_padding_is_the_bytes_no_field_holds():
    msg = JointState(name=["ab"])
    msg.effort = [3.0]
    data = serialize_message(msg)
    pad = cdr.padding(JointState, data)
    # frame_id "" ends at 17 (3 bytes to align the name count), "ab" ends at 31 (1 byte), the
    # effort's double is aligned to 8 after its count; rclpy's length may run past the last field
    assert {17, 18, 19, 31} <= set(pad)
    assert deserialize_message(bytes(b if i not in pad else 0 for i, b in enumerate(data)), JointState) == msg
    with pytest.raises(ValueError, match="layout ends"):
        cdr.padding(JointState, data + bytes(32))
