"""The state estimator node over loopback DDS, fed by the test as a robot's drivers would feed it:
an IMU reading not finite or beyond its range is refused and counted, an IMU that stops is said on
/diagnostics and the legs carry the estimate on (a real node process, rclpy, Fast DDS)."""

import math

import numpy as np
import pytest
from diagnostic_msgs.msg import DiagnosticArray
from nav_msgs.msg import Odometry
from sensor_msgs.msg import Imu, JointState

from sally_description import JOINT_NAMES, LEGS, build_model
from sally_interfaces.msg import MagnetArray, MagnetState
from sally_node_common.qos import KEPT

pytestmark = [pytest.mark.graph, pytest.mark.timeout(180)]
PERIOD = 5_000_000


def standing_positions():
    """Every joint's position as the model stands (qpos0 of its joints)."""
    model = build_model()
    return [float(model.qpos0[model.jnt_qposadr[model.joint(n).id]]) for n in JOINT_NAMES]


def stamped(msg, k):
    msg.header.stamp.sec, msg.header.stamp.nanosec = divmod(k * PERIOD, 1_000_000_000)
    return msg


def diagnostics_value(diag, key):
    for msg in reversed(diag.messages):
        for status in msg.status:
            if status.name == "sally_state_estimator: estimate":
                return {kv.key: kv.value for kv in status.values}.get(key), status.message
    return None, ""


def test_bad_imu_readings_are_refused_and_a_silent_imu_leaves_the_legs_to_carry_the_estimate(graph, probe):
    graph.start("estimator", "sally_state_estimator", {"diagnostics_period": 0.2, "imu_timeout": 0.05})
    odom = probe.record(Odometry, "/sally/odom")
    diag = probe.record(DiagnosticArray, "/diagnostics")
    states = probe.publisher(JointState, "/joint_states")
    imu = probe.publisher(Imu, "/sally/imu")
    magnets = probe.publisher(MagnetArray, "/sally/magnets", KEPT)
    for publisher in (states, imu, magnets):
        probe.wait_for_subscribers(publisher, timeout=30.0)
    probe.wait_for_publishers(odom, timeout=30.0)
    held = MagnetArray(
        magnets=[MagnetState(foot=leg, enabled=True, surface="floor", contact_sensed=True) for leg in LEGS]
    )
    magnets.publish(stamped(held, 0))
    q = standing_positions()

    def step(k, reading):
        magnets.publish(stamped(held, k))  # the telemetry (here with every state) comes before the state
        if reading is not None:
            msg = Imu()
            msg.linear_acceleration.z, msg.angular_velocity.x = reading
            imu.publish(stamped(msg, k))
        states.publish(stamped(JointState(name=list(JOINT_NAMES), position=q), k))

    k = 0
    for k in range(1, 11):  # a still robot, the IMU reading gravity
        step(k, (9.81, 0.0))
    probe.wait_for_messages(odom, 10, 15.0)
    for k, bad in zip(range(11, 14), ((math.nan, 0.0), (9.81, math.inf), (9.81, 40.0))):
        step(k, bad)  # not finite, not finite, beyond +-250 deg/s
    probe.wait_for(lambda: diagnostics_value(diag, "rejected")[0] == "3", 15.0, "three IMU readings refused")
    before = len(odom.messages)
    for k in range(14, 60):  # the IMU stops; the legs go on
        step(k, None)
    probe.wait_for(lambda: len(odom.messages) >= before + 40, 30.0, "the estimate going on without the IMU")
    probe.wait_for(lambda: "IMU silent" in diagnostics_value(diag, "rejected")[1], 15.0, "the silent IMU said")
    last = odom.messages[-1]
    assert np.isfinite([last.pose.pose.position.x, last.pose.pose.position.z]).all()
    assert last.pose.covariance[0] < (1e-3) ** 2, "four feet holding: the legs fix the position"
    assert int(diagnostics_value(diag, "updates_without_imu")[0]) >= 40
