"""The controller node: the IK's joint targets and /joint_states in, the motors' commands out.

Its topics are the hardware contract (README, "Swapping in hardware"): it answers every
/joint_states message with exactly one command carrying the same stamp (a state seen twice gets the
same answer), so the sim's lockstep pacing and a hardware driver see the same behaviour. With
``output`` servo (the default) the command is a servo command on /sally/servo_commands: per motor
the target position and velocity, the gravity feed-forward (each leg's own weight at the measured
pose, with the body orientation from /sally/odom; level until one arrives) and the stiffness and
damping it wants (``kp``, ``kd``); the motors' servos (the sim's, or a robot's drivers) close the
loop at their own rate. With ``output`` effort (the effort path, for torque-controlled motors) it
runs the joint PID itself (``kp``, ``ki``, ``kd``, ``i_clamp``) and answers with efforts, PID plus
gravity feed-forward, on /sally/joint_efforts.

With ``target_period`` P > 0 (the IK period), targets are stamped with the state the IK solved,
at multiples of P, and the controller answers a state stamped t only with the targets of the
latest multiple of P at or before t, ``target_latency`` IK periods back (:class:`TargetSync`: a
state that arrives before those targets is held back, targets that come before their first state
are kept until it; after ``target_wait`` wall seconds without targets the latest ones are used until
targets come again). The gravity term's body orientation is the odometry one gravity period older than the
state, again so that nothing depends on which message arrived first. With lockstep pacing this
makes sim + IK + controller deterministic: the sim waits for the efforts of t, which now wait for
the targets of t.

Inputs are checked (:mod:`sally_node_common.inputs`): targets outside the joint limits are clamped
and reported; non-finite, implausible, malformed, unknown-joint or out-of-order targets, states and
odometry are rejected with a log line and counted per topic and reason on /diagnostics, never
applied; the diagnostics also say which input is stale. States that start over at an older stamp
after a silence are a new sim: the controller forgets the old one (PID, targets) and goes on.
"""

from __future__ import annotations

import sys
import time

import numpy as np
from nav_msgs.msg import Odometry
from rclpy.node import Node
from sensor_msgs.msg import JointState

from sally_description import build_model
from sally_description.constants import ACTUATED_JOINT_NAMES
from sally_description.limits import actuated_limits
from sally_interfaces.msg import ServoCommand
from sally_node_common import run_node
from sally_node_common.inputs import InputError, StampOrder
from sally_node_common.kept_topics import subscribe_kept
from sally_node_common.messages import odometry_pose
from sally_node_common.node_shell import NodeShell
from sally_node_common.parameters import Param, ParameterTable
from sally_node_common.partners import publishes
from sally_node_common.pid import DEFAULT_I_CLAMP, DEFAULT_KD, DEFAULT_KI, DEFAULT_KP, PIDError, PIDGains
from sally_node_common.qos import RELIABLE_DEEP, STREAM
from sally_node_common.servo_command_msg import ServoCommandData, servo_command_to_msg
from sally_node_common.stamps import stamp_ns
from sally_node_common.time_contract import IK_LATENCY, JOINT_EFFORTS, SERVO_COMMANDS
from sally_node_common.wall_timers import wall_timer

from .errors import ControllerError
from .gravity import GravityModel
from .gravity_feed import GravityFeed
from .joint_controller import JointController
from .target_sync import TargetSync

# Targets published before this node's reader was matched still arrive (the IK keeps the last 100,
# KEPT); any other publisher's reach it too, each message once (sally_node_common.kept_topics).
STATES, TARGETS, ODOM = "/joint_states", "/sally/joint_targets", "/sally/odom"
GAINS = {"kp": DEFAULT_KP, "ki": DEFAULT_KI, "kd": DEFAULT_KD, "i_clamp": DEFAULT_I_CLAMP}
JOINTS = len(ACTUATED_JOINT_NAMES)
"""Motor joints: a gain is one value for all of them or one per joint."""
OUTPUTS = ("servo", "effort")
GAIN_USE = {
    "kp": "stiffness sent with each servo command (effort output: the PID's)",
    "kd": "damping sent with each servo command (effort output: the PID's)",
    "ki": "effort output: the PID's integral gain (servo output: the servo's own, the sim's servo_ki)",
    "i_clamp": "effort output: the bound of the PID's integral term (servo output: the sim's servo_i_clamp)",
}
TABLE = ParameterTable(
    (
        Param(
            "output",
            "servo",
            "what answers each state: servo (a servo command on /sally/servo_commands: targets, gravity "
            "feed-forward, kp and kd; the motors' servos close the loop) or effort (the joint PID run here, its "
            "efforts on /sally/joint_efforts: the effort path)",
            choices=OUTPUTS,
            read_only=True,
        ),
        *(
            Param(
                name,
                [default],
                f"{GAIN_USE[name]}: one value for all motor joints or one per joint ({JOINTS})",
                low=0.0,
                lengths=(1, JOINTS),
            )
            for name, default in GAINS.items()
        ),
        Param("diagnostics_period", 1.0, "/diagnostics period", low=0.0, high=60.0, open_low=True, unit="wall s"),
        Param("gravity_compensation", True, "add each leg's gravity torque to the PID output"),
        Param(
            "target_period",
            0.0,
            "IK period to wait for targets by stamp; 0: use the latest",
            low=0.0,
            high=1.0,
            unit="s of sim time",
        ),
        Param(
            "target_latency",
            IK_LATENCY,
            "from the state a target solves to the first state it answers (with target_period)",
            choices=(0, 1),
            unit="IK periods",
            read_only=True,
        ),
        Param(
            "target_wait",
            2.0,
            "how long to hold a state back for its targets",
            low=0.0,
            high=600.0,
            open_low=True,
            unit="wall s",
        ),
        Param(
            "gravity_period",
            0.01,
            "time between gravity recomputations (it changes slowly)",
            low=0.0,
            high=1.0,
            unit="s of sim time",
        ),
    )
)


class ControllerNode(Node):
    """The controller node: joint targets and states in, servo commands (or efforts) out (the
    hardware contract)."""

    def __init__(self, **kwargs) -> None:
        super().__init__("sally_controller", **kwargs)
        self.shell = NodeShell(
            self,
            TABLE,
            "sally_controller: pid",
            self._publish_diagnostics,
            watched=(STATES,),
            orders={
                STATES: StampOrder("joint state"),
                ODOM: StampOrder("odometry"),
                TARGETS: StampOrder("joint targets", gap=None),  # starts over with the states
            },
            on_change=lambda names: self._read_settings(),
            on_reset=self._on_sim_reset,
            diagnostics_period="diagnostics_period",
        )
        # its gravity, for the feed-forward: the room's -z, the frame the sim's odometry comes in
        model = build_model(in_room=True)
        limits = actuated_limits(model)
        self._gravity = GravityFeed(GravityModel(model), 0)  # its period: _read_settings
        self._sync: TargetSync[tuple[JointState, np.ndarray, np.ndarray]] = TargetSync()
        """States (message, checked q, qdot) waiting for their targets; wall clock."""
        self._sync.partner_present = lambda: publishes(self, TARGETS)  # a slow IK is waited for
        self._names = limits.names
        self._effort_names = list(limits.names)  # the effort path's message names, built once
        self._effort_limit = limits.effort
        self.controller = JointController(limits.names, limits.lower, limits.upper, self._gains())
        self._read_settings()
        self._servo = self.get_parameter("output").value == "servo"
        if self._servo:
            self._pub = self.create_publisher(ServoCommand, SERVO_COMMANDS, STREAM)
        else:
            self._pub = self.create_publisher(JointState, JOINT_EFFORTS, STREAM)
        self.create_subscription(JointState, STATES, self._on_state, RELIABLE_DEEP)
        subscribe_kept(self, JointState, TARGETS, self._on_targets)  # the IK's kept targets, and anyone's
        self.create_subscription(Odometry, ODOM, self._on_odom, RELIABLE_DEEP)
        wall_timer(self, 0.05, self._check_held)

    def _read_settings(self) -> None:
        """Parameters used per state are read once here, not on every state (get_parameter is slow)."""
        gains = self._gains()
        self.controller.set_gains(gains)
        self._stiffness, self._damping = gains.kp, gains.kd
        self._gravity_on = bool(self.get_parameter("gravity_compensation").value)
        self._sync.period_ns = round(self.get_parameter("target_period").value * 1e9)
        self._sync.latency = int(self.get_parameter("target_latency").value)
        self._sync.wait = float(self.get_parameter("target_wait").value)
        self._gravity.period_ns = round(self.get_parameter("gravity_period").value * 1e9)

    def _gains(self) -> PIDGains:
        n = len(self._names)
        values = {name: np.broadcast_to(np.asarray(self.get_parameter(name).value, float), (n,)) for name in GAINS}
        return PIDGains(values["kp"], values["ki"], values["kd"], values["i_clamp"], self._effort_limit)

    def _on_targets(self, msg: JointState, kept: bool = False) -> None:
        stamp = _stamp(msg)
        try:
            targets = self.controller.check_targets(msg.name, msg.position, msg.velocity, msg.effort)
            if self.shell.resets.stale(stamp):  # for the time line a sim reset ended
                self.shell.counts["before_reset"] += 1
                return None
            if stamp:  # unstamped targets (a person's) take no part in the order
                self.shell.orders[TARGETS].admit(stamp)
        except InputError as exc:
            self.shell.health.reject(TARGETS, exc.reason, str(exc), replayed=kept)
            return None
        self.shell.health.heard(TARGETS)
        if self._sync.keeps():
            self._sync.keep(stamp, targets)  # applied when the first state they answer is
        else:
            self._apply(targets)
        was_lost = self._sync.lost
        released = self._sync.targets(stamp)
        if was_lost:
            self.get_logger().info("joint targets are back")
        self._answer_all(released, was_lost)
        return None

    def _apply(self, targets) -> None:
        report = self.controller.apply_targets(targets)
        if report.clamped:
            self.get_logger().warning(
                f"joint targets outside limits clamped: {list(report.clamped)}", throttle_duration_sec=1.0
            )

    def _answer_all(self, states, was_lost: bool) -> None:
        """Answer the states the sync released; say so when the sync was lost on the way."""
        if not was_lost and self._sync.lost:
            self.get_logger().warning(
                f"no joint targets for {self._sync.wait:g} s: holding the latest targets until they come again"
            )
        for state in states:
            self._answer(state)

    def _on_odom(self, msg: Odometry) -> None:
        try:
            quat = odometry_pose(msg).quat
            self.shell.orders[ODOM].admit(_stamp(msg))
        except InputError as exc:
            return self.shell.health.reject(ODOM, exc.reason, str(exc))
        self.shell.health.heard(ODOM)
        self._gravity.orientation(_stamp(msg), quat)
        return None

    def _on_state(self, msg: JointState) -> None:
        stamp = _stamp(msg)
        try:
            q, qdot = self.controller.check_state(msg.name, msg.position, msg.velocity)
            new_timeline = self.shell.orders[STATES].admit(stamp)
        except InputError as exc:
            return self.shell.health.reject(STATES, exc.reason, str(exc))
        self.shell.health.heard(STATES)
        if new_timeline:
            self.shell.resets.new_sim()
            self._start_over(f"joint states start over at {stamp * 1e-9:.3f} s (a new sim)")
        self.shell.resets.state(stamp)
        was_lost = self._sync.lost
        self._answer_all(self._sync.state(stamp, (msg, q, qdot), time.monotonic()), was_lost)
        return None

    def _on_sim_reset(self, stamp: int) -> None:
        if self.shell.resets.reset(stamp):
            self._start_over(f"the sim was reset at {stamp * 1e-9:.3f} s")

    def _start_over(self, why: str) -> None:
        """States from an older time after a silence (a new sim), or the sim reset (``why``): what
        was known of the robot before goes."""
        self.get_logger().warning(f"{why}: controller reset")
        self.controller.reset()
        self.shell.orders[TARGETS].restart()
        self.shell.orders[ODOM].restart()
        self._sync.restart()
        self._gravity.clear()
        self.shell.counts["restarts"] += 1

    def _check_held(self) -> None:
        was_lost = self._sync.lost
        self._answer_all(self._sync.check(time.monotonic()), was_lost)

    def _answer(self, state: tuple[JointState, np.ndarray, np.ndarray]) -> None:
        msg, q, qdot = state
        stamp = _stamp(msg)
        for targets in self._sync.due(stamp):
            self._apply(targets)
        feed_forward = None
        if self._gravity_on:
            feed_forward = lambda: self._gravity.torques(stamp, msg.name, msg.position)  # noqa: E731
        try:
            if self._servo:
                setpoints = self.controller.setpoints(stamp, q, feed_forward)
                command = ServoCommandData(
                    stamp,
                    self._names,
                    setpoints.position,
                    setpoints.velocity,
                    setpoints.effort,
                    self._stiffness,
                    self._damping,
                )
                self._pub.publish(servo_command_to_msg(command))  # a new message each time: its readers'
            else:
                efforts = self.controller.step(stamp, q, qdot, feed_forward)
                out = JointState(name=self._effort_names)
                out.header.stamp = msg.header.stamp
                out.effort = efforts.tolist()
                self._pub.publish(out)
        except InputError as exc:  # ControllerError or the PID's PIDError
            return self.shell.health.reject(STATES, exc.reason, str(exc))
        self.shell.counts["answered"] += 1

    def _publish_diagnostics(self) -> None:
        c, health = self.controller, self.shell.health
        values = {
            "states_answered": self.shell.counts["answered"],
            "targets_received": c.targets_received,
            "targets_clamped": c.clamped_total,
            "late_targets": self._sync.losses,
            "targets_lost": self._sync.lost,
            "ik_back_rearmed": self._sync.rearmed,
            "states_dropped": self._sync.dropped,
            "restarts": self.shell.counts["restarts"],
            "held_states": len(self._sync),
            "max_abs_integral_term": float(np.max(np.abs(c.pid.gains.ki * c.pid.integral))),
        }
        problems = health.summary()
        message = [
            problems,
            f"{c.clamped_total} targets clamped" if c.clamped_total else "",
            "no targets" if self._sync.lost else "",
        ]
        warn = bool(problems or c.clamped_total or self._sync.lost)
        self.shell.publish("warn" if warn else "ok", ", ".join(filter(None, message)) or "ok", values)


def _stamp(msg) -> int:
    return stamp_ns(msg.header.stamp)


def main(args: list[str] | None = None) -> int:
    """Run the controller node (executable ``sally_controller``)."""
    return run_node("sally_controller", ControllerNode, args, start_errors=(ControllerError, PIDError))


if __name__ == "__main__":
    sys.exit(main())
