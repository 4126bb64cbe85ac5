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
    held = MagnetArray(magnets=[MagnetState(foot=leg, enabled=True, contact_sensed=True) for leg in LEGS])
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


def test_an_estimator_killed_and_started_again_goes_on_from_its_checkpoint(graph, probe, tmp_path):
    """kill -9 mid-run, started again on the same checkpoint: the new estimator takes up the state
    the old one left (its anchors, its pose), says so on /diagnostics, and its first estimate is
    where the old one's last was: the body lowered on its knees from where it was put down, held
    feet fixed (a fresh estimator would put the body back at initial_pose and the feet lower)."""
    parameters = {"diagnostics_period": 0.2, "checkpoint": str(tmp_path / "estimator.state")}
    odom = probe.record(Odometry, "/sally/odom")
    diag = probe.record(DiagnosticArray, "/diagnostics")
    states = probe.publisher(JointState, "/joint_states")
    imu = probe.publisher(Imu, "/sally/imu")
    magnets = probe.publisher(MagnetArray, "/sally/magnets", KEPT)
    held = MagnetArray(magnets=[MagnetState(foot=leg, enabled=True, contact_sensed=True) for leg in LEGS])
    standing = standing_positions()
    q = list(standing)

    def run_from(k0, n):
        for publisher in (states, imu, magnets):
            probe.wait_for_subscribers(publisher, timeout=30.0)
        for k in range(k0, k0 + n):
            magnets.publish(stamped(held, k))
            msg = Imu()
            msg.linear_acceleration.z = 9.81
            imu.publish(stamped(msg, k))
            states.publish(stamped(JointState(name=list(JOINT_NAMES), position=q), k))

    first = graph.start("estimator", "sally_state_estimator", parameters)
    probe.wait_for_publishers(odom, timeout=30.0)
    run_from(1, 20)
    probe.wait_for_messages(odom, 20, 15.0)
    start = odom.messages[-1].pose.pose.position
    for i, name in enumerate(JOINT_NAMES):  # the knees bent: the body lowers over its held feet
        if name.startswith("knee"):
            q[i] = standing[i] + 0.05
    run_from(21, 20)
    probe.wait_for_messages(odom, 40, 15.0)
    before = odom.messages[-1].pose.pose.position
    assert abs(before.z - start.z) > 2e-3, "the body moved"
    first.kill()
    first.wait(10.0)
    probe.wait_for(lambda: probe.node.count_subscribers("/joint_states") == 0, 15.0, "the killed estimator gone")
    count = len(odom.messages)
    graph.start("estimator", "sally_state_estimator", parameters)
    run_from(2000, 10)  # 10 s of sim time later
    probe.wait_for_messages(odom, count + 10, 15.0)
    after = odom.messages[count].pose.pose.position
    assert abs(after.x - before.x) < 1e-4 and abs(after.y - before.y) < 1e-4 and abs(after.z - before.z) < 1e-4
    probe.wait_for(lambda: diagnostics_value(diag, "restored")[0] == "1", 15.0, "the state taken up, said")
