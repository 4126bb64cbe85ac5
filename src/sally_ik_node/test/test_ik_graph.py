"""Sim + controller + IK as separate processes on real DDS: the IK moves a foot, the others stay.

And the same with the controller node replaced by a minimal controller written here, which is all
a hardware driver's counterpart has to be (the hardware contract): one that passes the targets on
as servo commands, and on the effort path one that runs its own PD.
"""

import numpy as np
import pytest
from nav_msgs.msg import Odometry
from sensor_msgs.msg import JointState
from std_msgs.msg import Header

from sally_description import ACTUATED_JOINT_NAMES, LEGS
from sally_interfaces.msg import FootStates, IKStatus, IKTarget, MagnetCommand, ServoCommand
from simulation_interfaces.msg import Result, SimulationState
from simulation_interfaces.srv import StepSimulation


def stamp_s(stamp) -> float:
    return stamp.sec + stamp.nanosec * 1e-9


def positions(msg: FootStates) -> dict:
    return {f.foot: np.array([f.pose.position.x, f.pose.position.y, f.pose.position.z]) for f in msg.feet}


class _TargetFollower:
    """The latest /sally/joint_targets, answering each /joint_states with a command of the same
    stamp on ``topic`` (``_on_state``)."""

    def __init__(self, probe, msg_type, topic):
        self.target = np.zeros(len(ACTUATED_JOINT_NAMES))
        self.pub = probe.publisher(msg_type, topic)
        probe.record(JointState, "/sally/joint_targets", on_message=self._on_targets)
        probe.record(JointState, "/joint_states", on_message=self._on_state)

    def _on_targets(self, msg):
        where = {n: i for i, n in enumerate(msg.name)}
        self.target = np.asarray(msg.position)[[where[n] for n in ACTUATED_JOINT_NAMES]]

    def _on_state(self, msg):
        raise NotImplementedError


class MinimalServoController(_TargetFollower):
    """The targets as servo commands (the servos' own gains, no feed-forward)."""

    def __init__(self, probe):
        super().__init__(probe, ServoCommand, "/sally/servo_commands")

    def _on_state(self, msg):
        out = ServoCommand(name=list(ACTUATED_JOINT_NAMES), position=self.target.tolist())
        out.header.stamp = msg.header.stamp
        self.pub.publish(out)


class MinimalEffortController(_TargetFollower):
    """The effort path: PD toward the targets, as efforts."""

    def __init__(self, probe, kp=500.0, kd=30.0):
        self.kp, self.kd = kp, kd
        super().__init__(probe, JointState, "/sally/joint_efforts")

    def _on_state(self, msg):
        where = {n: i for i, n in enumerate(msg.name)}
        idx = [where[n] for n in ACTUATED_JOINT_NAMES]
        q, qd = np.asarray(msg.position)[idx], np.asarray(msg.velocity)[idx]
        efforts = np.clip(self.kp * (self.target - q) - self.kd * qd, -40.0, 40.0)
        out = JointState(name=list(ACTUATED_JOINT_NAMES), effort=efforts.tolist())
        out.header.stamp = msg.header.stamp
        self.pub.publish(out)


def sequencer_side(probe):
    """What a sequencer reads (foot states, IK status) and writes (magnets, its ticks: stances and
    targets), the writers matched with their readers."""
    feet = probe.record(FootStates, "/sally/foot_states")
    status = probe.record(IKStatus, "/sally/ik_status")
    magnets = probe.publisher(MagnetCommand, "/sally/magnet_cmd")
    target = probe.publisher(IKTarget, "/sally/ik_target")
    for pub in (magnets, target):
        probe.wait_for_subscribers(pub, timeout=30.0)
    return feet, status, magnets, target


def tick(swinging: str = "", goal=None) -> IKTarget:
    """A sequencer's tick: every foot's stance (``swinging`` in SWING, the others POSITION) and, with
    ``goal``, the swinging foot's target."""
    msg = IKTarget(
        stance_feet=list(LEGS), stance_modes=[IKTarget.SWING if f == swinging else IKTarget.POSITION for f in LEGS]
    )
    if goal is not None:
        msg.foot, msg.position_cost, msg.phase = swinging, 1.0, "TEST_LIFT"
        msg.position.x, msg.position.y, msg.position.z = goal.tolist()
    return msg


def lift_fl_by_5_cm(probe):
    feet, status, magnets, target = sequencer_side(probe)
    probe.wait_for(lambda: len(feet) > 0 and stamp_s(feet.last.header.stamp) > 1.0, 30.0, "1 s of settled IK")

    start = positions(feet.last)
    magnets.publish(MagnetCommand(feet=["FL"], enable=[False]))
    goal = start["FL"] + [0.0, 0.0, 0.05]
    sent_at = stamp_s(feet.last.header.stamp)
    target.publish(tick("FL", goal))  # the stance and the target in one message

    def reached():
        last = feet.last
        return np.linalg.norm(positions(last)["FL"] - goal) < 0.002 and stamp_s(last.header.stamp) > sent_at

    probe.wait_for(reached, 30.0, "FL within 2 mm of its target")
    took = stamp_s(feet.last.header.stamp) - sent_at
    # stays there for a further 0.5 s of sim time
    until = stamp_s(feet.last.header.stamp) + 0.5
    probe.wait_for(lambda: stamp_s(feet.last.header.stamp) >= until, 30.0, "0.5 s more")
    window = [m for m in feet.messages if stamp_s(m.header.stamp) >= sent_at]
    end = positions(feet.last)
    assert np.linalg.norm(end["FL"] - goal) < 0.002
    for leg in ("FR", "BL", "BR"):
        drift = max(np.linalg.norm(positions(m)[leg] - start[leg]) for m in window)
        assert drift < 0.001, f"{leg} moved {drift * 1e3:.2f} mm"
    assert all(np.isfinite(m.position_error) for m in status.messages)
    assert status.last.status == IKStatus.SUCCESS
    return took


# lockstep: four Python processes share two cores here, and what is measured is the control loop
# (in sim time), not how the machine shares its time out
SIM = {"pacing": "lockstep"}


def start_sim(graph, parameters, suffix=""):
    """The sim and the state estimator: the IK and the controller read the body's pose as a robot
    knows it (/sally/odom from the estimator; the sim publishes only its ground truth)."""
    graph.start(f"sim{suffix}", "sally_sim_node", parameters)
    graph.start(f"estimator{suffix}", "sally_state_estimator")


def test_ik_lifts_fl_5_cm_with_the_controller_node(graph, probe):
    start_sim(graph, SIM)
    graph.start("controller", "sally_controller")
    graph.start("ik", "sally_ik_node")
    took = lift_fl_by_5_cm(probe)
    assert took < 2.0, f"took {took:.2f} s of sim time"


@pytest.mark.parametrize(
    "sim, controller",
    [
        (SIM, MinimalServoController),
        ({**SIM, "command_source": "efforts", "state_rate": 1000.0}, MinimalEffortController),
    ],
    ids=["servo_commands", "effort_path"],
)
def test_the_controller_node_can_be_replaced(graph, probe, sim, controller):
    start_sim(graph, sim)
    graph.start("ik", "sally_ik_node")
    controller(probe)
    took = lift_fl_by_5_cm(probe)
    assert took < 2.0, f"took {took:.2f} s of sim time"


@pytest.mark.parametrize(
    "make, reason",
    [
        (lambda: IKTarget(foot="XX"), "(unknown): IK target foot names unknown ['XX']"),
        (lambda: IKTarget(foot="FL"), "only a SWING foot takes targets"),
        (lambda: _nan_target(), "(non_finite): IK target position has non-finite values"),
        (
            lambda: IKTarget(header=Header(frame_id="corner")),
            "(unknown): IK target in frame 'corner': this IK works in 'world'",
        ),
    ],
)
def test_bad_targets_are_rejected_with_the_reason(graph, probe, make, reason):
    start_sim(graph, SIM)
    graph.start("controller", "sally_controller")
    graph.start("ik", "sally_ik_node")
    status = probe.record(IKStatus, "/sally/ik_status")
    targets = probe.record(JointState, "/sally/joint_targets")
    pub = probe.publisher(IKTarget, "/sally/ik_target")
    probe.wait_for_subscribers(pub, timeout=30.0)
    probe.wait_for_messages(targets, 20, 30.0)
    pub.publish(make())
    probe.wait_for(
        lambda: any(m.status == IKStatus.REJECTED and reason in m.message for m in status.messages),
        10.0,
        "the rejection",
    )
    n = len(targets)
    probe.wait_for_messages(targets, n + 20, 10.0)
    assert all(np.isfinite(m.position).all() for m in targets.messages)


def test_a_target_is_judged_against_the_stances_it_carries(graph, probe):
    """A target for a POSITION foot is refused (not_swinging); the same target carrying FL's SWING
    stance is taken in the same message, and FL reaches it. The joint targets' efforts carry the
    body's weight on the stance feet: alike on four, none on the swinging FL."""
    start_sim(graph, SIM)
    graph.start("controller", "sally_controller")
    graph.start("ik", "sally_ik_node")
    joint_targets = probe.record(JointState, "/sally/joint_targets")
    feet, status, magnets, target = sequencer_side(probe)
    probe.wait_for(lambda: len(feet) > 0 and stamp_s(feet.last.header.stamp) > 0.5, 30.0, "0.5 s of settled IK")
    probe.wait_for(lambda: len(joint_targets) > 0, 10.0, "joint targets")
    knees = np.array(joint_targets.last.effort).reshape(4, 4)[:, 1]  # FL FR BL BR; hip_pitch knee wrist ee
    assert (knees > 1.0).all() and np.ptp(knees) < 0.1 * knees.mean(), knees  # N m: a quarter of the body each
    goal = positions(feet.last)["FL"] + [0.0, 0.0, 0.03]
    bare = tick("FL", goal)
    bare.stance_feet, bare.stance_modes = [], []  # no stances: FL stays POSITION
    target.publish(bare)
    refused = lambda: [m.message for m in status.messages if m.status == IKStatus.REJECTED]  # noqa: E731
    probe.wait_for(lambda: any("not_swinging" in m for m in refused()), 10.0, "the refusal of a POSITION foot's target")
    assert all(f.mode == IKTarget.POSITION for f in feet.last.feet)
    n = len(refused())
    magnets.publish(MagnetCommand(feet=["FL"], enable=[False]))
    target.publish(tick("FL", goal))
    probe.wait_for(lambda: np.linalg.norm(positions(feet.last)["FL"] - goal) < 0.003, 30.0, "FL at its target")
    assert len(refused()) == n, refused()[n:]
    share = np.array(joint_targets.last.effort).reshape(4, 4)
    assert not share[0].any() and share[1, 1] > knees[1] * 1.5, share  # FL carries nothing; FR takes more


def test_a_stance_lock_is_taken_where_the_foot_measurably_is(graph, probe):
    """A foot switched to POSITION while it moves is locked (and its contact baseline set) where the
    state says it is, not where the IK's last output put it: that output leads a moving foot (by
    2-60 mm in this lift, depending on when the command lands); in the climb a lock there sat a
    back foot, seated with its face 2 deg off flat, 9-10 mm inside the wall, out of contact."""
    start_sim(graph, SIM)
    graph.start("controller", "sally_controller")
    graph.start("ik", "sally_ik_node")
    feet, status, magnets, target = sequencer_side(probe)
    probe.wait_for(lambda: len(feet) > 0 and stamp_s(feet.last.header.stamp) > 0.5, 30.0, "0.5 s of settled IK")
    start = positions(feet.last)["FL"]
    magnets.publish(MagnetCommand(feet=["FL"], enable=[False]))
    target.publish(tick("FL"))
    fl = lambda msg: next(f for f in msg.feet if f.foot == "FL")  # noqa: E731
    probe.wait_for(lambda: fl(feet.last).mode == IKTarget.SWING, 10.0, "FL swinging")
    # paused and stepped one control period at a time, so that the lock lands while the foot
    # moves, however fast the graph runs
    probe.set_simulation_state(SimulationState.STATE_PAUSED)
    target.publish(tick("FL", start + [0.0, 0.0, 0.08]))
    for _ in range(200):
        if positions(feet.last)["FL"][2] > start[2] + 0.01:
            break
        solved = stamp_s(feet.last.header.stamp)
        stepped = probe.call(StepSimulation, "/sally_sim/step_simulation", StepSimulation.Request(steps=1))
        assert stepped.result.result == Result.RESULT_OK, stepped.result.error_message
        probe.wait_for(lambda: stamp_s(feet.last.header.stamp) > solved, 10.0, "the step's solve")  # noqa: B023
    assert positions(feet.last)["FL"][2] > start[2] + 0.01, "FL 1 cm up and rising"
    target.publish(tick())
    probe.set_simulation_state(SimulationState.STATE_PLAYING)
    probe.wait_for(lambda: fl(feet.last).mode == IKTarget.POSITION, 10.0, "FL locked")
    swung = next(i for i, m in enumerate(feet.messages) if fl(m).mode == IKTarget.SWING)
    locked = next(fl(m) for m in feet.messages[swung:] if fl(m).mode == IKTarget.POSITION)
    assert locked.pose.position.z < start[2] + 0.06, "FL was locked after it reached its target: nothing was tested"
    assert abs(locked.lift) < 1e-4 and locked.penetration < 1e-4 and locked.in_contact, locked


def _nan_target():
    msg = IKTarget(foot="FL")
    msg.position.x = float("nan")
    return msg


def lockstep_graph_run(graph, probe, run: int, until_ns: int):
    states = probe.record(JointState, "/joint_states")
    targets = probe.record(JointState, "/sally/joint_targets")
    efforts = probe.record(ServoCommand, "/sally/servo_commands")
    odom = probe.record(Odometry, "/sally/odom")
    start_sim(graph, {"pacing": "lockstep", "start_paused": True}, str(run))
    graph.start(f"controller{run}", "sally_controller", {"target_period": 0.005})
    graph.start(f"ik{run}", "sally_ik_node")
    for rec in (states, targets, efforts, odom):  # every node is up and heard before time starts
        probe.wait_for_publishers(rec, timeout=60.0)
    probe.set_simulation_state(SimulationState.STATE_PLAYING)
    probe.wait_for(
        lambda: states.last is not None and stamp_s(states.last.header.stamp) * 1e9 >= until_ns, 120.0, "the run"
    )
    for name in (f"ik{run}", f"controller{run}", f"estimator{run}", f"sim{run}"):
        graph.processes[name].stop()
    for rec in (states, targets, efforts, odom):
        probe.node.destroy_subscription(rec.subscription)
    stamp = lambda m: m.header.stamp.sec * 1_000_000_000 + m.header.stamp.nanosec  # noqa: E731
    lockstep_graph_run.last = {
        "commands": [(stamp(m), tuple(m.position), tuple(m.effort)) for m in efforts.messages[:12]],
        "targets": [(stamp(m), tuple(m.position)) for m in targets.messages[:3]],
    }
    return {stamp(m): tuple(m.position) for m in states.messages}, [stamp(m) for m in targets.messages]


def test_lockstep_sim_ik_controller_runs_are_identical(graph, probe):
    first, first_targets = lockstep_graph_run(graph, probe, 1, 400_000_000)
    inputs_1 = lockstep_graph_run.last
    second, _ = lockstep_graph_run(graph, probe, 2, 400_000_000)
    inputs_2 = lockstep_graph_run.last
    print("run 1 inputs:", inputs_1)  # shown only when the test fails
    print("run 2 inputs:", inputs_2)
    # the IK answered every 5 ms state exactly once, with that state's stamp
    assert all(t % 5_000_000 == 0 for t in first_targets)
    assert len(first_targets) == len(set(first_targets))
    span = [t for t in first_targets if t <= 400_000_000]
    assert span == list(range(span[0], span[-1] + 1, 5_000_000))
    # up to the end of the run: after that the nodes are being stopped one by one
    common = sorted(t for t in set(first) & set(second) if t <= 400_000_000)
    assert len(common) >= 70 and common[-1] == 400_000_000  # (a state every 5 ms)
    differing = [t for t in common if first[t] != second[t]]
    assert not differing, f"{len(differing)} of {len(common)} joint states differ, first at t = {differing[0] * 1e-9} s"


def test_the_ik_steps_one_ik_period_at_a_time_as_set(ros_domain):
    """The differential step is the IK period, at start and after a set request."""
    import rclpy
    from rclpy.parameter import Parameter
    from rclpy.signals import SignalHandlerOptions

    from sally_ik_node.node import IKNode

    context = rclpy.Context()
    rclpy.init(args=[], context=context, domain_id=ros_domain, signal_handler_options=SignalHandlerOptions.NO)
    try:
        node = IKNode(context=context, parameter_overrides=[Parameter("ik_period", value=0.01)])
        assert node.ik.config.dt == 0.01
        assert node.set_parameters([Parameter("ik_period", value=0.002)])[0].successful
        assert node.ik.config.dt == 0.002
        node._start_over("a test")  # a new IK (a new sim) keeps the period's step
        assert node.ik.config.dt == 0.002
        node.destroy_node()
    finally:
        context.try_shutdown()
