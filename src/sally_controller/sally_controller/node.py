"""The controller node: joint-space PID from /sally/joint_targets and /joint_states to efforts.

Its topics are the hardware contract (README, "Swapping in hardware"): it answers every
/joint_states message with exactly one /sally/joint_efforts message carrying the same stamp
(a state seen twice gets the same answer), so the sim's lockstep pacing and a hardware driver
see the same behaviour. Efforts are PID plus gravity feed-forward (each leg's own weight at the
measured pose, with the body orientation from /sally/odom; level until one arrives).

With ``target_period`` P > 0 (the IK period), targets are stamped with the state the IK solved,
at multiples of P, and the controller answers a state stamped t only with the targets of the
latest multiple of P at or before t: a state that arrives before those targets is held back and
answered when they come (or after ``target_wait`` wall seconds, counted as late). The gravity
term's body orientation is the odometry one gravity period older than the state, again so that
nothing depends on which message arrived first. With lockstep
pacing this makes sim + IK + controller deterministic: the sim waits for the efforts of t, which
now wait for the targets of t. Targets outside the joint limits are clamped and reported; non-finite or
malformed targets and states are rejected with a reason, counted on /diagnostics, never applied.
"""

from __future__ import annotations

import sys
import time
from collections import Counter

import numpy as np
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue
from rcl_interfaces.msg import ParameterDescriptor, SetParametersResult
from rclpy.node import Node
from nav_msgs.msg import Odometry
from sally_description import JOINT_NAMES, build_model
from sally_description.limits import actuated_limits
from sally_node_common import run_node
from sally_node_common.qos import KEPT, RELIABLE_DEEP
from sally_node_common.stamps import stamp_ns
from sensor_msgs.msg import JointState

from .errors import ControllerError
from .gravity import GravityModel
from .joint_controller import JointController
from .pid import DEFAULT_I_CLAMP, DEFAULT_KD, DEFAULT_KI, DEFAULT_KP, PIDGains

# Targets published before this node's reader was matched still arrive (the IK keeps the last 100,
# KEPT). A transient-local reader refuses volatile writers, so targets are also read through a
# volatile reader: any publisher works, and the IK's messages arrive twice (same values and stamp).
GAINS = {"kp": DEFAULT_KP, "ki": DEFAULT_KI, "kd": DEFAULT_KD, "i_clamp": DEFAULT_I_CLAMP}


class ControllerNode(Node):
    def __init__(self, **kwargs) -> None:
        super().__init__("sally_controller", **kwargs)
        model = build_model()
        limits = actuated_limits(model)
        self._gravity = GravityModel(model)
        self._orientations: dict[int, tuple[float, float, float, float]] = {}  # odom stamp -> body quaternion
        self._joint_map: dict[tuple[str, ...], np.ndarray] = {}
        self._gravity_cache: tuple[int, np.ndarray] | None = None
        self._target_stamp = -1
        self._held: list[tuple[float, JointState]] = []
        self._names = limits.names
        self._effort_limit = limits.effort
        self.add_on_set_parameters_callback(self._validate)
        for name, default in GAINS.items():
            self.declare_parameter(
                name, [default], ParameterDescriptor(description=f"PID {name}: one value for all joints or one per joint ({len(self._names)})")
            )
        self.declare_parameter("diagnostics_period", 1.0, ParameterDescriptor(description="wall seconds between /diagnostics"))
        self.declare_parameter(
            "gravity_compensation", True, ParameterDescriptor(description="add each leg's gravity torque to the PID output")
        )
        self.declare_parameter(
            "target_period", 0.0, ParameterDescriptor(description="IK period (s) to wait for targets by stamp; 0: use the latest")
        )
        self.declare_parameter("target_wait", 10.0, ParameterDescriptor(description="wall seconds to hold a state back for its targets"))
        self.declare_parameter(
            "gravity_period", 0.01, ParameterDescriptor(description="sim seconds between gravity recomputations (it changes slowly)")
        )
        self.controller = JointController(limits.names, limits.lower, limits.upper, self._gains())
        self._read_settings()
        self.add_post_set_parameters_callback(lambda params: self._read_settings())
        self._counts: Counter[str] = Counter()
        self._efforts = JointState(name=list(limits.names))
        self._pub = self.create_publisher(JointState, "/sally/joint_efforts", RELIABLE_DEEP)
        self._pub_diag = self.create_publisher(DiagnosticArray, "/diagnostics", 10)
        self.create_subscription(JointState, "/joint_states", self._on_state, RELIABLE_DEEP)
        for qos in (KEPT, RELIABLE_DEEP):
            self.create_subscription(JointState, "/sally/joint_targets", self._on_targets, qos)
        self.create_subscription(Odometry, "/sally/odom", self._on_odom, RELIABLE_DEEP)
        self._diag_timer = self.create_timer(self.get_parameter("diagnostics_period").value, self._publish_diagnostics)
        self._held_timer = self.create_timer(0.05, self._check_held)

    def _read_settings(self) -> None:
        """Parameters used per state are read once here, not on every state (get_parameter is slow)."""
        self.controller.set_gains(self._gains())
        self._gravity_on = bool(self.get_parameter("gravity_compensation").value)
        self._target_period = round(self.get_parameter("target_period").value * 1e9)
        self._target_wait = float(self.get_parameter("target_wait").value)
        self._gravity_period = round(self.get_parameter("gravity_period").value * 1e9)

    def _gains(self) -> PIDGains:
        n = len(self._names)
        values = {name: np.broadcast_to(np.asarray(self.get_parameter(name).value, float), (n,)) for name in GAINS}
        return PIDGains(values["kp"], values["ki"], values["kd"], values["i_clamp"], self._effort_limit)

    def _validate(self, params) -> SetParametersResult:
        for param in params:
            if param.name in GAINS:
                value = np.asarray(param.value, dtype=float) if _numeric_list(param.value) else None
                if value is None or len(value) not in (1, len(self._names)) or not np.isfinite(value).all() or (value < 0).any():
                    return SetParametersResult(
                        successful=False,
                        reason=f"{param.name} must be 1 or {len(self._names)} non-negative finite numbers, got {param.value!r}",
                    )
            elif param.name == "diagnostics_period" and not (_number(param.value) and 0 < param.value <= 60):
                return SetParametersResult(successful=False, reason="diagnostics_period must be in (0, 60] s")
            elif param.name == "gravity_period" and not (_number(param.value) and 0 <= param.value <= 1):
                return SetParametersResult(successful=False, reason="gravity_period must be in [0, 1] s")
            elif param.name == "target_period" and not (_number(param.value) and 0 <= param.value <= 1):
                return SetParametersResult(successful=False, reason="target_period must be in [0, 1] s")
            elif param.name == "target_wait" and not (_number(param.value) and 0 < param.value <= 600):
                return SetParametersResult(successful=False, reason="target_wait must be in (0, 600] s")
        return SetParametersResult(successful=True)

    def _on_targets(self, msg: JointState) -> None:
        try:
            report = self.controller.set_targets(msg.name, msg.position, msg.velocity)
        except ControllerError as exc:
            self._counts["rejected_targets"] += 1
            self.get_logger().error(f"rejected joint targets: {exc}", throttle_duration_sec=1.0)
            return
        if report.clamped:
            self.get_logger().warning(f"joint targets outside limits clamped: {list(report.clamped)}", throttle_duration_sec=1.0)
        self._target_stamp = max(self._target_stamp, _stamp(msg))
        self._release_held()

    def _needs_targets(self, stamp: int) -> bool:
        """With a target period, a state needs the targets of the latest IK stamp at or before it."""
        return self._target_period > 0 and self._target_stamp < stamp - stamp % self._target_period

    def _release_held(self, now: float | None = None) -> None:
        while self._held:
            held_at, msg = self._held[0]
            late = now is not None and now - held_at > self._target_wait
            if self._needs_targets(_stamp(msg)) and not late:
                return
            if late:
                self._counts["late_targets"] += 1
                self.get_logger().warning("answering a state without its targets (none came in time)", throttle_duration_sec=1.0)
            self._held.pop(0)
            self._answer(msg)

    def _on_odom(self, msg: Odometry) -> None:
        q = msg.pose.pose.orientation
        quat = (q.w, q.x, q.y, q.z)
        if all(np.isfinite(quat)) and abs(np.linalg.norm(quat) - 1.0) < 1e-3:
            self._orientations[_stamp(msg)] = quat
            while len(self._orientations) > 64:
                self._orientations.pop(min(self._orientations))

    def _body_orientation(self, stamp: int) -> tuple[float, float, float, float]:
        """The newest body orientation at least one gravity period older than ``stamp``: in lockstep
        it has surely arrived, so the answer does not depend on arrival order (level before any)."""
        older = [t for t in self._orientations if t <= stamp - self._gravity_period]
        return self._orientations[max(older)] if older else (1.0, 0.0, 0.0, 0.0)

    def _gravity_torques(self, stamp: int, names, position) -> np.ndarray:
        """Recomputed once per ``gravity_period`` of sim time (by stamp, so lockstep stays deterministic)."""
        if self._gravity_cache is not None and 0 <= stamp - self._gravity_cache[0] < self._gravity_period:
            return self._gravity_cache[1]
        key = tuple(names)
        idx = self._joint_map.get(key)
        if idx is None:
            where = {n: i for i, n in enumerate(key)}
            missing = [n for n in JOINT_NAMES if n not in where]
            if missing:
                raise ControllerError(f"gravity compensation needs every joint; the state lacks {missing}")
            idx = self._joint_map[key] = np.array([where[n] for n in JOINT_NAMES])
        torques = self._gravity.torques(np.asarray(position, dtype=float)[idx], self._body_orientation(stamp))
        self._gravity_cache = (stamp, torques)
        return torques

    def _on_state(self, msg: JointState) -> None:
        if self._held or self._needs_targets(_stamp(msg)):
            self._held.append((time.monotonic(), msg))
            self._release_held(time.monotonic())
            return
        self._answer(msg)

    def _check_held(self) -> None:
        if self._held:
            self._release_held(time.monotonic())

    def _answer(self, msg: JointState) -> None:
        stamp = _stamp(msg)
        feed_forward = None
        if self._gravity_on:
            feed_forward = lambda position: self._gravity_torques(stamp, msg.name, position)  # noqa: E731
        try:
            efforts = self.controller.update(stamp, msg.name, msg.position, msg.velocity, feed_forward)
        except ControllerError as exc:
            self._counts["rejected_states"] += 1
            self.get_logger().error(f"rejected joint state: {exc}", throttle_duration_sec=1.0)
            return
        out = self._efforts
        out.header.stamp = msg.header.stamp
        out.effort = efforts.tolist()
        self._pub.publish(out)
        self._counts["answered"] += 1

    def _publish_diagnostics(self) -> None:
        c = self.controller
        rejected = self._counts["rejected_targets"] + self._counts["rejected_states"]
        values = {
            "states_answered": self._counts["answered"],
            "targets_received": c.targets_received,
            "targets_clamped": c.clamped_total,
            "rejected_targets": self._counts["rejected_targets"],
            "rejected_states": self._counts["rejected_states"],
            "late_targets": self._counts["late_targets"],
            "held_states": len(self._held),
            "max_abs_integral_term": float(np.max(np.abs(c.pid.gains.ki * c.pid.integral))),
        }
        status = DiagnosticStatus(
            level=DiagnosticStatus.WARN if rejected or c.clamped_total else DiagnosticStatus.OK,
            name="sally_controller: pid",
            message=f"{rejected} rejected, {c.clamped_total} targets clamped",
            values=[KeyValue(key=k, value=str(v)) for k, v in values.items()],
        )
        msg = DiagnosticArray(status=[status])
        msg.header.stamp = self.get_clock().now().to_msg()
        self._pub_diag.publish(msg)


def _stamp(msg) -> int:
    return stamp_ns(msg.header.stamp)


def _number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _numeric_list(v) -> bool:
    return hasattr(v, "__len__") and not isinstance(v, str) and all(_number(x) for x in v)


def main(args: list[str] | None = None) -> int:
    return run_node("sally_controller", ControllerNode, args, start_errors=(ControllerError,))


if __name__ == "__main__":
    sys.exit(main())
