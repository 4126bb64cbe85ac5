"""The CDR packed here decodes, with rclpy, to the message it was made from (field for field), for
random joint states and clocks; other types go to rclpy."""

import random

import pytest
from rclpy.serialization import deserialize_message, serialize_message
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import JointState
from std_msgs.msg import Int32

from sally_description import JOINT_NAMES
from sally_node_common import cdr


def random_joint_state(rng: random.Random) -> JointState:
    joints = rng.randint(0, 6)
    msg = JointState(name=["".join(rng.choice("abxyz_é/") for _ in range(rng.randint(0, 9))) for _ in range(joints)])
    msg.header.frame_id = "".join(rng.choice("ab/") for _ in range(rng.randint(0, 7)))
    msg.header.stamp.sec, msg.header.stamp.nanosec = rng.randint(-5, 10**6), rng.randint(0, 10**9 - 1)
    for field in ("position", "velocity", "effort"):
        length = rng.choice([0, joints, rng.randint(0, 5)])  # the arrays may differ in length: CDR does not care
        setattr(msg, field, [rng.uniform(-1e3, 1e3) for _ in range(length)])
    return msg


def test_joint_states_decode_to_themselves():
    rng = random.Random(7)
    for _ in range(2000):
        msg = random_joint_state(rng)
        data = cdr.serialize(msg)
        assert deserialize_message(data, JointState) == msg
        assert len(data) % 4 == 0 and data[:4] == cdr.HEADER


def test_the_sims_joint_states_have_rclpys_length_and_fields():
    n = len(JOINT_NAMES)
    msg = JointState(name=list(JOINT_NAMES), position=[0.5] * n, velocity=[-1.0] * n, effort=[2.0] * n)
    msg.header.stamp.sec, msg.header.stamp.nanosec = 3, 1_000_000
    data = cdr.serialize(msg)
    assert deserialize_message(data, JointState) == msg
    assert data == cdr.serialize(msg)  # the cached names give the same bytes again
    assert len(data) == len(serialize_message(msg))


@pytest.mark.parametrize("sec, nanosec", [(0, 0), (1, 999_999_999), (-3, 5), (2**31 - 1, 1)])
def test_clocks_are_rclpys_bytes(sec, nanosec):
    msg = Clock()
    msg.clock.sec, msg.clock.nanosec = sec, nanosec
    assert cdr.serialize(msg) == serialize_message(msg)
    assert deserialize_message(cdr.serialize(msg), Clock) == msg


def test_other_types_are_serialized_by_rclpy():
    assert cdr.serialize(Int32(data=-7)) == serialize_message(Int32(data=-7))
