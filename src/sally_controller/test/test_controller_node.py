"""The controller node as a process: gains are validated parameters; it answers states by stamp,
with servo commands (the default) or, on the effort path, efforts."""

import math

import numpy as np
import pytest
from diagnostic_msgs.msg import DiagnosticArray
from sensor_msgs.msg import JointState

from sally_description import ACTUATED_JOINT_NAMES, JOINT_NAMES
from sally_interfaces.msg import ServoCommand


def test_gains_are_validated_at_run_time(graph, probe):
    graph.start("controller", "sally_controller")
    commands = probe.record(ServoCommand, "/sally/servo_commands")
    probe.wait_for_publishers(commands, timeout=30.0)
    result = probe.set_parameters("sally_controller", {"kp": [-1.0]})[0]
    assert not result.successful and "kp = [-1.0] has an entry -1.0 that must be >= 0" in result.reason
    result = probe.set_parameters("sally_controller", {"kd": [1.0, 2.0]})[0]
    assert not result.successful and "kd = [1.0, 2.0] must have 1 or 16 entries" in result.reason
    result = probe.set_parameters("sally_controller", {"ki": [float("nan")]})[0]
    assert not result.successful and "must be finite" in result.reason
    result = probe.set_parameters("sally_controller", {"target_period": -0.1})[0]
    assert not result.successful and "target_period" in result.reason
    assert probe.set_parameters("sally_controller", {"kp": [400.0] * 16})[0].successful


@pytest.mark.parametrize("output", ["servo", "effort"])
def test_answers_each_state_once_with_its_stamp_and_reports_clamped_targets(graph, probe, output):
    graph.start(
        "controller", "sally_controller", {"gravity_compensation": False, "diagnostics_period": 0.2, "output": output}
    )
    kind, topic = (ServoCommand, "/sally/servo_commands") if output == "servo" else (JointState, "/sally/joint_efforts")
    answers = probe.record(kind, topic)
    diag = probe.record(DiagnosticArray, "/diagnostics")
    states = probe.publisher(JointState, "/joint_states")
    targets = probe.publisher(JointState, "/sally/joint_targets")
    probe.wait_for_subscribers(states, timeout=30.0)
    probe.wait_for_subscribers(targets, timeout=30.0)
    probe.wait_for_publishers(answers, timeout=30.0)
    targets.publish(JointState(name=["knee_FL", "wrist_FL"], position=[5.0, 0.1]))  # knee beyond +90 deg

    def counted():
        for msg in reversed(diag.messages):
            values = {kv.key: kv.value for kv in msg.status[0].values}
            return values.get("targets_clamped") == "1"
        return False

    probe.wait_for(counted, 10.0, "the clamped target on /diagnostics")
    msg = JointState(name=list(JOINT_NAMES), position=[0.0] * 24, velocity=[0.0] * 24)
    for k in (1, 2, 2):  # the last is a re-sent state: answered again with the same command
        msg.header.stamp.nanosec = k * 5_000_000
        states.publish(msg)
    probe.wait_for_messages(answers, 3, 10.0)
    stamps = [m.header.stamp.nanosec for m in answers.messages]
    assert stamps == [5_000_000, 10_000_000, 10_000_000]
    first, second, again = answers.messages
    assert list(second.name) == list(ACTUATED_JOINT_NAMES)
    knee, wrist = list(ACTUATED_JOINT_NAMES).index("knee_FL"), list(ACTUATED_JOINT_NAMES).index("wrist_FL")
    if output == "servo":
        assert second.position.tolist() == again.position.tolist() and second.effort.tolist() == again.effort.tolist()
        assert first.position[knee] == pytest.approx(math.pi / 2) and first.position[wrist] == pytest.approx(0.1)
        assert not np.any(first.effort) and not np.any(first.velocity)  # no feed-forward, at rest
        assert set(first.kp) == {500.0} and set(first.kd) == {30.0}  # the gains it wants: its kp, kd
    else:
        assert second.effort.tolist() == again.effort.tolist()
        assert first.effort[knee] == 40.0  # clamped target (pi/2) x Kp 500, limited to 40 N m
        assert np.isfinite(first.effort).all()


def test_with_use_sim_time_diagnostics_keep_coming_on_the_wall_clock_stamped_with_sim_time(graph, probe):
    """Sim time that stands still (no /clock yet, or a lockstep sim waiting) must not stop the
    diagnostics or the target watchdog; their stamps follow the node's clock (/clock here)."""
    from rosgraph_msgs.msg import Clock

    graph.start("controller", "sally_controller", {"use_sim_time": True, "diagnostics_period": 0.2})
    diag = probe.record(DiagnosticArray, "/diagnostics")
    clock = probe.publisher(Clock, "/clock")
    probe.wait_for_messages(diag, 3, 30.0)  # sim time is 0 and stays there: the wall timer fires anyway
    assert all(m.header.stamp.sec == 0 and m.header.stamp.nanosec == 0 for m in diag.messages)
    probe.wait_for_subscribers(clock, timeout=30.0)
    tick = Clock()
    tick.clock.sec = 42
    clock.publish(tick)
    probe.wait_for(lambda: diag.last.header.stamp.sec == 42, 10.0, "a diagnostics stamp at sim time 42 s")
