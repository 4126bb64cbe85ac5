"""The IK node: whole-body mink IK between the sequencer and the controller.

It solves the states whose stamp is a multiple of ``ik_period`` (5 ms of sim time), taking the
/joint_states and /sally/odom messages carrying that stamp, one differential step each, and publishes
``/sally/joint_targets`` (motor joints, stamped with that state's stamp: exactly one message per
IK-period state), ``/sally/ik_status`` and ``/sally/foot_states``. Swing-foot targets come on
``/sally/ik_target``, stances on ``/sally/stance``. Malformed or non-finite targets, unknown feet
and bad stance commands are rejected with a reason (logged, counted, reported as REJECTED on
/sally/ik_status); nothing non-finite is ever published.

With ``target_sync`` (lockstep graphs) a solve waits for the sequencer's target stamped with that
state (an empty foot is a tick: no target this step), at most ``target_wait`` wall seconds, so the
run does not depend on whether the target or the state arrives first. Foot states and the
sequencer's targets are kept (TRANSIENT_LOCAL) for late readers.
"""

from __future__ import annotations

import sys
import time
from collections import Counter

import numpy as np
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue
from geometry_msgs.msg import Point, Pose, Quaternion
from nav_msgs.msg import Odometry
from rcl_interfaces.msg import ParameterDescriptor, SetParametersResult
from rclpy.node import Node
from sally_description import JOINT_NAMES, LEGS, build_model
from sally_description.constants import ACTUATED_JOINT_NAMES, hip_site
from sally_interfaces.msg import FootState, FootStates, IKStatus, StanceCommand
from sally_interfaces.msg import IKTarget as IKTargetMsg
from sally_node_common import run_node
from sally_node_common.qos import KEPT, RELIABLE_DEEP
from sally_node_common.stamps import set_stamp, stamp_ns
from sally_sequencer import IKTarget, SequenceError
from sally_description.contact import FootContactMonitor
from sensor_msgs.msg import JointState

from .errors import IKError
from .whole_body_ik import IKConfig, StanceMode, WholeBodyIK

COSTS = ("posture_cost", "body_position_cost", "body_orientation_cost", "stance_position_cost", "wall_orientation_cost")
PENDING = 64
"""How many unmatched joint-state / odom stamps are kept while waiting for their partner."""


class IKNode(Node):
    def __init__(self, **kwargs) -> None:
        super().__init__("sally_ik", **kwargs)
        self.add_on_set_parameters_callback(self._validate)
        self.declare_parameter("ik_period", 0.005, ParameterDescriptor(description="sim seconds between IK solves"))
        self.declare_parameter("damping", 1e-3, ParameterDescriptor(description="mink damping", read_only=True))
        self.declare_parameter("solver", "daqp", ParameterDescriptor(description="QP solver (daqp, quadprog)", read_only=True))
        self.declare_parameter(
            "target_sync",
            False,
            ParameterDescriptor(description="wait for the sequencer's target stamped with a state before solving it (lockstep)", read_only=True),
        )
        self.declare_parameter("target_wait", 2.0, ParameterDescriptor(description="wall seconds to wait for a synced target"))
        defaults = IKConfig()
        for name in COSTS:
            self.declare_parameter(name, getattr(defaults, name), ParameterDescriptor(description=f"IK {name}", read_only=True))
        model = build_model()
        WholeBodyIK(model).solve()  # warm up: the first solve is slow, and a lockstep graph waits on it
        self.ik = WholeBodyIK(
            model,
            IKConfig(
                damping=self.get_parameter("damping").value,
                solver=self.get_parameter("solver").value,
                **{name: self.get_parameter(name).value for name in COSTS},
            ),
        )
        self._period_ns = round(self.get_parameter("ik_period").value * 1e9)
        self.add_post_set_parameters_callback(
            lambda params: setattr(self, "_period_ns", round(self.get_parameter("ik_period").value * 1e9))
        )
        self._qpos_adr = np.array([model.joint(n).qposadr[0] for n in JOINT_NAMES])
        self._act_adr = np.array([model.joint(n).qposadr[0] for n in ACTUATED_JOINT_NAMES])
        self._hip_sites = {leg: model.site(hip_site(leg)).id for leg in LEGS}
        self._states: dict[int, JointState] = {}
        self._odoms: dict[int, Odometry] = {}
        self._last_solved: int | None = None
        self._started = False
        self._pending_target: tuple[str, IKTarget] | None = None
        self._pending_stance: dict[str, StanceMode] = {}
        self._sync = bool(self.get_parameter("target_sync").value)
        self._tick = -1
        """Newest stamp of a target or tick from the sequencer."""
        self._waiting: tuple[int, JointState, Odometry, float] | None = None
        self._sync_lost = False
        self._contacts = FootContactMonitor()
        self._counts: Counter[str] = Counter()
        self._targets_msg = JointState(name=list(ACTUATED_JOINT_NAMES))
        self._pub_targets = self.create_publisher(JointState, "/sally/joint_targets", KEPT)
        self._pub_status = self.create_publisher(IKStatus, "/sally/ik_status", RELIABLE_DEEP)
        self._pub_feet = self.create_publisher(FootStates, "/sally/foot_states", KEPT)  # a late sequencer still steps
        self._pub_diag = self.create_publisher(DiagnosticArray, "/diagnostics", 10)
        self.create_subscription(JointState, "/joint_states", self._on_state, RELIABLE_DEEP)
        self.create_subscription(Odometry, "/sally/odom", self._on_odom, RELIABLE_DEEP)
        for qos in (KEPT, RELIABLE_DEEP):  # a sequencer's kept targets, and anyone's
            self.create_subscription(IKTargetMsg, "/sally/ik_target", self._on_target, qos)
        self.create_subscription(StanceCommand, "/sally/stance", self._on_stance, RELIABLE_DEEP)
        self.create_timer(1.0, self._publish_diagnostics)
        self.create_timer(0.05, self._check_wait)

    def _validate(self, params) -> SetParametersResult:
        for p in params:
            if p.name == "ik_period" and not (isinstance(p.value, float) and 0.0005 <= p.value <= 1.0):
                return SetParametersResult(successful=False, reason="ik_period must be in [0.0005, 1] s")
            if p.name == "target_wait" and not (isinstance(p.value, float) and 0.0 < p.value <= 60.0):
                return SetParametersResult(successful=False, reason="target_wait must be in (0, 60] s")
            if p.name == "damping" and not (isinstance(p.value, float) and 0.0 <= p.value <= 10.0):
                return SetParametersResult(successful=False, reason="damping must be in [0, 10]")
            if p.name in COSTS and not (isinstance(p.value, float) and 0.0 <= p.value <= 1e4):
                return SetParametersResult(successful=False, reason=f"{p.name} must be in [0, 1e4]")
            if p.name == "solver" and p.value not in ("daqp", "quadprog"):
                return SetParametersResult(successful=False, reason="solver must be one of ['daqp', 'quadprog']")
        return SetParametersResult(successful=True)

    # --- inputs ---------------------------------------------------------------------------------
    def _on_state(self, msg: JointState) -> None:
        self._states[stamp_ns(msg.header.stamp)] = msg
        self._match(stamp_ns(msg.header.stamp))

    def _on_odom(self, msg: Odometry) -> None:
        self._odoms[stamp_ns(msg.header.stamp)] = msg
        self._match(stamp_ns(msg.header.stamp))

    def _match(self, stamp: int) -> None:
        for pending in (self._states, self._odoms):
            while len(pending) > PENDING:
                pending.pop(next(iter(pending)))
        if stamp not in self._states or stamp not in self._odoms:
            return
        state, odom = self._states.pop(stamp), self._odoms.pop(stamp)
        for pending in (self._states, self._odoms):  # anything older is never solved
            for old in [t for t in pending if t < stamp]:
                del pending[old]
        if stamp % self._period_ns != 0:  # IK states are the multiples of the period: the controller
            return  # (and a lockstep sim through it) knows which stamps get targets
        if self._last_solved is not None and stamp <= self._last_solved:
            return  # a state seen again (a lockstep re-send) was answered once already
        if self._sync and self._last_solved is not None and self._tick < stamp and not self._sync_lost:
            if self._waiting is None or self._waiting[0] < stamp:
                self._waiting = (stamp, state, odom, time.monotonic())
            return  # solved when the sequencer's target for this stamp arrives
        self._solve(stamp, state, odom)

    def _release_waiting(self, timed_out: bool = False) -> None:
        stamp, state, odom, _ = self._waiting
        self._waiting = None
        if timed_out:
            self._counts["target_wait_timeouts"] += 1
            self._sync_lost = True  # until the sequencer ticks again, do not wait
            self.get_logger().warning(
                f"no sequencer target for {stamp * 1e-9:.3f} s within {self.get_parameter('target_wait').value:g} s; solving without",
                throttle_duration_sec=5.0,
            )
        self._solve(stamp, state, odom)

    def _check_wait(self) -> None:
        if self._waiting is not None and time.monotonic() - self._waiting[3] >= self.get_parameter("target_wait").value:
            self._release_waiting(timed_out=True)

    def _on_target(self, msg: IKTargetMsg) -> None:
        """A swing target; an empty foot is a tick (no target this step) from a sequencer."""
        stamp = stamp_ns(msg.header.stamp)
        if stamp and stamp <= self._tick:
            return  # the same target through the other subscription, or a stale one
        try:
            if msg.foot and msg.foot not in LEGS:
                raise IKError(f"unknown foot {msg.foot!r}; valid: {list(LEGS)} (or empty for a tick)")
            target = None
            if msg.foot:
                p, a = msg.position, msg.face_axis
                face = [a.x, a.y, a.z] if msg.has_face_axis else None
                target = IKTarget([p.x, p.y, p.z], face, msg.position_cost, msg.orientation_cost)
                if self.ik.modes[msg.foot] is not StanceMode.SWING and msg.foot not in self._pending_stance:
                    raise IKError(f"foot {msg.foot} is in {self.ik.modes[msg.foot].name} stance; only a SWING foot takes targets")
        except (IKError, SequenceError) as exc:
            self._reject(msg.foot, f"rejected IK target: {exc}", stamp)
        else:
            if target is not None:
                self._pending_target = (msg.foot, target)
                self._counts["targets"] += 1
        if stamp:  # a rejected target still moves a synced graph on (the solve reports it)
            self._tick = stamp
            self._sync_lost = False
        if self._waiting is not None and self._tick >= self._waiting[0]:
            self._release_waiting()

    def _on_stance(self, msg: StanceCommand) -> None:
        feet, modes = list(msg.feet), list(msg.modes)
        try:
            if len(feet) != len(modes) or not feet:
                raise IKError(f"stance command has {len(feet)} feet and {len(modes)} modes")
            unknown = [f for f in feet if f not in LEGS]
            if unknown:
                raise IKError(f"unknown feet {unknown}; valid: {list(LEGS)}")
            bad = [m for m in modes if m not in (StanceMode.SWING, StanceMode.FLOOR, StanceMode.WALL)]
            if bad:
                raise IKError(f"unknown stance modes {bad}; valid: SWING 0, FLOOR 1, WALL 2")
            if sum(m == StanceMode.SWING for m in modes) > 1:
                raise IKError("at most one foot may swing")
        except IKError as exc:
            return self._reject("", f"rejected stance command: {exc}", stamp_ns(msg.header.stamp))
        self._pending_stance = dict(zip(feet, (StanceMode(m) for m in modes)))
        self._counts["stance_commands"] += 1
        if self._started:
            self._apply_stance()
        return None

    def _apply_stance(self) -> None:
        for foot, mode in self._pending_stance.items():
            if self.ik.modes[foot] is not mode:
                self.ik.set_stance(foot, mode)
                position = self.ik.foot_pose(foot).translation()
                if mode is StanceMode.FLOOR:
                    self._contacts.set_floor_baseline(foot, position)
                elif mode is StanceMode.WALL:
                    self._contacts.set_wall_baseline(foot, position)
                else:
                    self._contacts.clear(foot)
        self._pending_stance = {}

    def _reject(self, foot: str, text: str, stamp: int) -> None:
        self._counts["rejected"] += 1
        self.get_logger().error(text, throttle_duration_sec=1.0)
        msg = IKStatus(status=IKStatus.REJECTED, foot=foot, message=text)
        set_stamp(msg.header, max(stamp, 0))
        self._pub_status.publish(msg)

    # --- solving --------------------------------------------------------------------------------
    def _solve(self, stamp: int, state: JointState, odom: Odometry) -> None:
        try:
            qpos = self._configuration(state, odom)
        except IKError as exc:
            return self._reject("", f"rejected state: {exc}", stamp)
        self.ik.update(qpos)
        if not self._started:  # the measured feet and body become the stance locks
            self._started = True
            for leg in LEGS:
                self.ik.set_stance(leg, StanceMode.FLOOR)
                self._contacts.set_floor_baseline(leg, self.ik.foot_pose(leg).translation())
            self.ik.hold_body()
        self._apply_stance()
        if self._pending_target is not None:
            foot, target = self._pending_target
            self._pending_target = None
            try:
                self.ik.set_target(foot, target)
            except IKError as exc:
                self._reject(foot, f"rejected IK target: {exc}", stamp)
        feet = self._foot_states(stamp)
        result = self.ik.solve()
        targets = result.qpos[self._act_adr]
        if not np.isfinite(targets).all():  # never publish NaN (the core already guarantees it)
            return self._reject(result.foot, "IK produced non-finite targets; not published", stamp)
        self._last_solved = stamp
        self._targets_msg.header.stamp = state.header.stamp
        self._targets_msg.position = targets.tolist()
        self._pub_targets.publish(self._targets_msg)
        status = IKStatus(
            status=int(result.code),
            foot=result.foot,
            position_error=result.position_error,
            orientation_error=result.orientation_error,
            solve_time=result.solve_time,
            message=result.message,
        )
        status.header.stamp = state.header.stamp
        self._pub_status.publish(status)
        self._pub_feet.publish(feet)
        self._counts["solves"] += 1
        self._counts[f"code_{result.code.name.lower()}"] += 1
        return None

    def _configuration(self, state: JointState, odom: Odometry) -> np.ndarray:
        where = {n: i for i, n in enumerate(state.name)}
        missing = [n for n in JOINT_NAMES if n not in where]
        if missing or len(state.position) != len(state.name):
            raise IKError(f"joint state lacks joints {missing}" if missing else "joint state has mismatched lengths")
        qpos = self.ik.model.qpos0.copy()
        p, q = odom.pose.pose.position, odom.pose.pose.orientation
        qpos[:7] = [p.x, p.y, p.z, q.w, q.x, q.y, q.z]
        qpos[self._qpos_adr] = np.asarray(state.position)[[where[n] for n in JOINT_NAMES]]
        if not np.isfinite(qpos).all():
            raise IKError("non-finite joint state or odometry")
        return qpos

    def _foot_states(self, stamp: int) -> FootStates:
        msg = FootStates()
        set_stamp(msg.header, stamp)
        msg.header.frame_id = "world"
        data = self.ik.configuration.data
        for leg in LEGS:
            pose = self.ik.foot_pose(leg)
            t, (w, x, y, z) = pose.translation(), pose.rotation().wxyz
            hip = data.site_xpos[self._hip_sites[leg]]
            contact = self._contacts.readout(leg, t)
            msg.feet.append(
                FootState(
                    foot=leg,
                    pose=Pose(position=Point(x=t[0], y=t[1], z=t[2]), orientation=Quaternion(w=w, x=x, y=y, z=z)),
                    hip_pivot=Point(x=hip[0], y=hip[1], z=hip[2]),
                    mode=int(self.ik.modes[leg]),
                    in_contact=contact.in_contact,
                    penetration=contact.penetration,
                    lift=contact.lift,
                )
            )
        return msg

    def _publish_diagnostics(self) -> None:
        values = dict(sorted(self._counts.items()))
        level = DiagnosticStatus.WARN if values.get("rejected") or values.get("code_stalled") or values.get("code_infeasible") else DiagnosticStatus.OK
        status = DiagnosticStatus(
            level=level,
            name="sally_ik: solver",
            message=", ".join(f"{k} {v}" for k, v in values.items()) or "waiting for states",
            values=[KeyValue(key=k, value=str(v)) for k, v in values.items()],
        )
        msg = DiagnosticArray(status=[status])
        msg.header.stamp = self.get_clock().now().to_msg()
        self._pub_diag.publish(msg)


def main(args: list[str] | None = None) -> int:
    return run_node("sally_ik", IKNode, args, start_errors=(IKError,))


if __name__ == "__main__":
    sys.exit(main())
