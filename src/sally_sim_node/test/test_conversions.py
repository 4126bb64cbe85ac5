"""Message <-> domain conversions of the sim node: round trips and rejection reasons."""

import math

import numpy as np
import pytest
from sensor_msgs.msg import JointState

from sally_description import ACTUATED_JOINT_NAMES, JOINT_NAMES, LEGS
from sally_node_common.diagnostics import diagnostic_array, diagnostic_status, diagnostic_values
from sally_node_common.magnet_array_msg import magnet_array_to_msg
from sally_node_common.magnet_truth_msg import magnet_truth_to_msg
from sally_node_common.stamps import stamp_ns
from sally_sim_node import conversions as conv
from sally_sim_node.magnets import MagnetReadout

PASSIVE = set(JOINT_NAMES) - set(ACTUATED_JOINT_NAMES)


@pytest.mark.parametrize("ns", [0, 1, 500_000, 1_999_999_999, 123_456_789_012])
def test_time_round_trip(ns):
    assert stamp_ns(conv.time_msg(ns)) == ns
    assert stamp_ns(conv.clock_msg(ns).clock) == ns


def test_sim_steps_map_to_exact_stamps():
    dt_ns = conv.to_nanoseconds(0.0005)
    assert dt_ns == 500_000 and conv.to_nanoseconds(12345 * 0.0005) == 12345 * dt_ns


def test_joint_state_writer_round_trip():
    w = conv.JointStateWriter(JOINT_NAMES)
    q, v, e = np.arange(24.0), -np.arange(24.0), np.ones(24)
    msg = w.fill(42, q, v, e)
    assert list(msg.name) == list(JOINT_NAMES)
    assert np.array_equal(msg.position, q) and np.array_equal(msg.velocity, v) and np.array_equal(msg.effort, e)
    assert stamp_ns(msg.header.stamp) == 42


def effort_msg(names, efforts, stamp=0):
    msg = JointState(name=list(names), effort=list(efforts))
    msg.header.stamp = conv.time_msg(stamp)
    return msg


def test_effort_command_round_trip_partial():
    cmd = conv.parse_effort_command(
        effort_msg(["knee_FR", "hip_pitch_FL"], [1.5, -2.0], 77), ACTUATED_JOINT_NAMES, PASSIVE
    )
    assert cmd.stamp == 77
    assert [ACTUATED_JOINT_NAMES[i] for i in cmd.indices] == ["knee_FR", "hip_pitch_FL"]
    assert cmd.efforts.tolist() == [1.5, -2.0]


@pytest.mark.parametrize(
    "names, efforts, reason, text",
    [
        ([], [], "empty", "names no joints"),
        (["knee_FL"], [1.0, 2.0], "length", "1 names but 2 efforts"),
        (["knee_FL", "knee_FL"], [1.0, 2.0], "duplicate", "twice"),
        (["knee_XX"], [1.0], "unknown", "unknown joint(s) ['knee_XX']"),
        (["ee2_FL"], [1.0], "passive", "passive (not actuated) joint(s) ['ee2_FL']"),
        (["knee_FL", "wrist_FL"], [math.nan, 1.0], "non_finite", "non-finite efforts for ['knee_FL']"),
        (["knee_FL"], [math.inf], "non_finite", "non-finite"),
    ],
)
def test_bad_effort_commands(names, efforts, reason, text):
    with pytest.raises(conv.CommandError) as err:
        conv.parse_effort_command(effort_msg(names, efforts), ACTUATED_JOINT_NAMES, PASSIVE)
    assert err.value.reason == reason and text in str(err.value)


def readouts():
    return {
        leg: MagnetReadout(leg, i % 2 == 0, (0.0, 0.0, -800.0 + i), 800.0 - i, -0.0005 * i, "floor", i > 1)
        for i, leg in enumerate(LEGS)
    }


def test_the_magnets_truth_carries_every_field():
    msg = magnet_truth_to_msg(9, conv.magnet_truths(readouts(), {leg: 820.0 for leg in LEGS}))
    assert [m.foot for m in msg.magnets] == list(LEGS)
    m = msg.magnets[3]
    assert (m.enabled, m.force.z, m.magnitude, m.surface, m.in_contact) == (False, -797.0, 797.0, "floor", True)
    assert m.min_distance == pytest.approx(-0.0015) and m.penetration == pytest.approx(0.0015)
    assert m.contact_force == 820.0 and stamp_ns(msg.header.stamp) == 9


def test_the_magnets_telemetry_carries_the_switch_and_the_contact_sensor_only():
    truths = conv.magnet_truths(readouts(), {leg: 820.0 + i for i, leg in enumerate(LEGS)})
    exact = magnet_array_to_msg(9, conv.magnet_readings(truths))  # an ideal sensor: the world's contact
    assert [(m.foot, m.enabled, m.contact_reading, m.contact_sensed) for m in exact.magnets] == [
        ("FL", True, 820.0, False), ("FR", False, 821.0, False), ("BL", True, 822.0, True), ("BR", False, 823.0, True),
    ]  # fmt: skip
    sensed = conv.magnet_readings(truths, [1.0, 2.0, 3.0, 4.0], [True, False, True, False])
    assert [(m.contact_reading, m.contact_sensed) for m in sensed] == [
        (1.0, True),
        (2.0, False),
        (3.0, True),
        (4.0, False),
    ]


def test_odometry_twist_is_in_the_body_frame():
    w = conv.OdometryWriter()
    yaw90 = [math.cos(math.pi / 4), 0, 0, math.sin(math.pi / 4)]
    msg = w.fill(5, [1, 2, 3], yaw90, [0.0, 1.0, 0.0], [0.1, 0.2, 0.3])
    assert (msg.header.frame_id, msg.child_frame_id) == ("world", "main_frame")
    assert (msg.pose.pose.position.x, msg.pose.pose.orientation.w) == (1.0, pytest.approx(math.cos(math.pi / 4)))
    # world +y is the body's +x once turned 90 deg about z
    t = msg.twist.twist
    assert [t.linear.x, t.linear.y, t.linear.z] == pytest.approx([1.0, 0.0, 0.0], abs=1e-12)
    assert [t.angular.x, t.angular.y, t.angular.z] == pytest.approx([0.1, 0.2, 0.3])


def test_diagnostics():
    status = diagnostic_status("x", "warn", "m", {"a": 1.5, "b": True, "c": "s"})
    assert diagnostic_values(status) == {"a": "1.5", "b": "true", "c": "s"}
    array = diagnostic_array([status], 3)
    assert array.status[0].level == status.WARN and (array.header.stamp.sec, array.header.stamp.nanosec) == (0, 3)
