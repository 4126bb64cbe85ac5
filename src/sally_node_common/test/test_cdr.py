"""The per-step messages' CDR made from a template: byte for byte what rclpy writes, for any numbers."""

from __future__ import annotations

import math

import numpy as np
import pytest
from rclpy.serialization import deserialize_message, serialize_message
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import JointState
from std_msgs.msg import String

from sally_node_common import cdr

ODD = [math.nan, -math.nan, math.inf, -math.inf, -0.0, 5e-324, 1.0e300 * (1.0 + 2.0**-30)]
"""Numbers a template must carry bit for bit (the last is one of its own marks)."""


def rclpy_bytes(msg) -> bytes:
    """rclpy's CDR of ``msg`` with its alignment padding cleared (rclpy leaves what its buffer held)."""
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


def joint_state(rng, names: list[str], lengths: tuple[int, int, int], frame: str = "") -> JointState:
    msg = JointState(name=names)
    msg.header.frame_id = frame
    msg.header.stamp.sec, msg.header.stamp.nanosec = int(rng.integers(-(2**31), 2**31)), int(rng.integers(2**32))
    msg.position, msg.velocity, msg.effort = (numbers(rng, n) for n in lengths)
    return msg


@pytest.mark.parametrize(
    "names, lengths, frame",
    [
        ([f"joint_{i}" for i in range(24)], (24, 24, 24), ""),  # the sim's /joint_states
        ([f"motor_{i}" for i in range(12)], (0, 0, 12), ""),  # the controller's efforts
        ([f"motor_{i}" for i in range(12)], (12, 0, 0), "base"),  # the IK's targets
        (["a"], (1, 1, 0), "odom"),
        ([], (0, 0, 0), ""),
        (["é", "x" * 37], (2, 2, 2), "ünï"),
    ],
)
def test_a_joint_state_is_written_as_rclpy_writes_it(names, lengths, frame):
    rng = np.random.default_rng(len(names) + sum(lengths))
    for _ in range(50):
        msg = joint_state(rng, names, lengths, frame)
        data = cdr.serialize(msg)
        assert data == rclpy_bytes(msg)
        back = deserialize_message(data, JointState)
        assert back.name == names and back.header.stamp == msg.header.stamp
        assert all(same_bits(getattr(back, f), getattr(msg, f)) for f in ("position", "velocity", "effort"))


def test_a_clock_is_written_as_rclpy_writes_it():
    rng = np.random.default_rng(7)
    for _ in range(200):
        msg = Clock()
        msg.clock.sec, msg.clock.nanosec = int(rng.integers(-(2**31), 2**31)), int(rng.integers(2**32))
        assert cdr.serialize(msg) == rclpy_bytes(msg)


def test_shapes_past_the_limit_and_other_types_go_to_rclpy(monkeypatch):
    monkeypatch.setattr(cdr, "_FAST", {})
    sent: list[object] = []
    monkeypatch.setattr(cdr, "serialize_message", lambda msg: sent.append(msg) or serialize_message(msg))
    rng = np.random.default_rng(3)
    shapes = [joint_state(rng, [f"j{k}"] * (k + 1), (k + 1, 0, 0)) for k in range(cdr.SHAPES + 3)]
    for msg in shapes[: cdr.SHAPES]:
        assert cdr.serialize(msg) == rclpy_bytes(msg)
    assert len(sent) == cdr.SHAPES  # one prototype each, serialized by rclpy once
    for msg in shapes[cdr.SHAPES :] * 2:
        back = deserialize_message(cdr.serialize(msg), JointState)
        assert back.name == msg.name and same_bits(back.position, msg.position)
    assert sent[cdr.SHAPES :] == shapes[cdr.SHAPES :] * 2  # no more shapes learned: rclpy, every time
    assert len(cdr._FAST[JointState]._templates) == cdr.SHAPES
    other = String(data="not a per-step message")
    assert cdr.serialize(other) == serialize_message(other) and String not in cdr._FAST


def test_a_template_refuses_a_prototype_whose_marks_are_not_each_found_once():
    def clash(mark):  # two numbers with the same value: their bytes are found twice
        msg = JointState(name=["a", "b"])
        msg.header.stamp.sec, msg.header.stamp.nanosec = mark("i"), mark("i")
        first = mark()
        msg.position = [first, first]
        return msg

    with pytest.raises(ValueError, match="exactly once"):
        cdr.Template(clash, runs=[2])
    with pytest.raises(ValueError, match="runs of"):
        cdr.Template(lambda mark: joint_state_marked(mark, 3), runs=[2])


def joint_state_marked(mark, n: int) -> JointState:
    msg = JointState(name=["q"] * n)
    msg.header.stamp.sec, msg.header.stamp.nanosec = mark("i"), mark("i")
    msg.position = [mark() for _ in range(n)]
    return msg
