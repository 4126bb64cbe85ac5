"""The sequencer node: drives a :class:`Campaign` on sim time between the IK and the sim.

Every ``/sally/foot_states`` message (the IK publishes one per solve, stamped with the state it
solved, every ``ik_period`` of sim time) is one step: the campaign runs at the time of the *next*
solve, and the node publishes, all stamped with that time, the stance changes on
``/sally/stance``, magnet switches on ``/sally/magnet_cmd`` (the sim applies them at that step) and
then exactly one ``/sally/ik_target``: the swing target, or a tick with an empty foot when no foot
swings. An IK with ``target_sync`` waits for that message before solving, so a lockstep graph runs
the same every time. ``/sally/sequence_status`` reports progress; seed 000's telemetry block is
logged every ``telemetry_period`` of sim time.

The run ends when the campaign is done (its last foot planted and held), fails (a phase refused;
at the end, a planted foot without its magnet on and in wall contact) or ``duration`` of sim time
passes; IK rejections of its input are logged and counted in the final message: the node publishes a final status and, with ``exit_when_done``, exits 0 on success and
1 on failure, which a runner takes as the end of the graph.
"""

from __future__ import annotations

import sys
import threading

import numpy as np
from rcl_interfaces.msg import ParameterDescriptor
from rclpy.node import Node
from sally_interfaces.msg import FootStates, IKStatus, MagnetArray, MagnetCommand, SequenceStatus, StanceCommand
from sally_interfaces.msg import IKTarget as IKTargetMsg
from sally_node_common import StartupError, run_node, run_until_finished
from sally_node_common.qos import KEPT, LATCHED, RELIABLE_DEEP
from sally_node_common.stamps import set_stamp, stamp_ns

from .campaign import CAMPAIGNS, FEET, Campaign, FootReading
from .errors import SequenceError
from .telemetry import FootView, face_normal, telemetry_block

MODES = {"SWING": StanceCommand.SWING, "FLOOR": StanceCommand.FLOOR, "WALL": StanceCommand.WALL}
MODE_NAMES = {v: k for k, v in MODES.items()}
EXIT_FAILED = 1


class SequencerNode(Node):
    def __init__(self, **kwargs) -> None:
        super().__init__("sally_sequencer", **kwargs)
        declare = lambda name, value, text: self.declare_parameter(name, value, ParameterDescriptor(description=text, read_only=True))  # noqa: E731
        declare("sequence", "f2w", f"campaign to run: {sorted(CAMPAIGNS)}")
        declare("start_time", 0.5, "sim seconds of settling before the sequence starts")
        declare("dwell", 3.0, "sim seconds in F2W_REACH after which a foot is planted")
        declare("hold", 1.0, "sim seconds held after the last foot is planted")
        declare("duration", 25.0, "sim seconds after which an unfinished run fails")
        declare("ik_period", 0.005, "sim seconds between IK solves (the sequencer's step)")
        declare("telemetry_period", 1.0, "sim seconds between telemetry blocks (0: none)")
        declare("exit_when_done", True, "exit when the run ends (0 success, 1 failure)")
        p = lambda name: self.get_parameter(name).value  # noqa: E731
        for name in ("start_time", "dwell", "hold", "duration", "ik_period", "telemetry_period"):
            value = p(name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not np.isfinite(value) or value < 0:
                raise StartupError(f"parameter {name} must be a non-negative number of seconds, got {value!r}")
        if p("ik_period") <= 0 or p("duration") <= 0:
            raise StartupError("parameters ik_period and duration must be positive")
        try:
            self.campaign = Campaign(p("sequence"), float(p("start_time")), float(p("dwell")), float(p("hold")))
        except SequenceError as exc:
            raise StartupError(str(exc)) from None
        self._period_ns = round(p("ik_period") * 1e9)
        self._duration_ns = round(p("duration") * 1e9)
        self._telemetry_ns = round(p("telemetry_period") * 1e9)
        self.exit_when_done = bool(p("exit_when_done"))
        self.finished = threading.Event()
        self.succeeded = False
        self._last_stamp = -1
        self._next_telemetry = 0
        self._magnets: dict[str, tuple[bool, str, bool]] = {}
        """foot -> (enabled, surface, in_contact) from the latest /sally/magnets."""
        self._target: tuple[str, object] | None = None
        self._baselines: dict[str, np.ndarray] = {}
        self._rejections = 0
        self._pub_target = self.create_publisher(IKTargetMsg, "/sally/ik_target", KEPT)
        self._pub_stance = self.create_publisher(StanceCommand, "/sally/stance", RELIABLE_DEEP)
        self._pub_magnets = self.create_publisher(MagnetCommand, "/sally/magnet_cmd", RELIABLE_DEEP)
        self._pub_status = self.create_publisher(SequenceStatus, "/sally/sequence_status", RELIABLE_DEEP)
        self._pub_final = self.create_publisher(SequenceStatus, "/sally/sequence_result", LATCHED)
        for qos in (KEPT, RELIABLE_DEEP):  # the IK's kept states, and anyone's
            self.create_subscription(FootStates, "/sally/foot_states", self._on_feet, qos)
        self.create_subscription(MagnetArray, "/sally/magnets", self._on_magnets, 10)
        self.create_subscription(IKStatus, "/sally/ik_status", self._on_ik_status, RELIABLE_DEEP)
        self.get_logger().info(
            f"sequencer ready: {p('sequence')} ({' then '.join(f for f, _ in CAMPAIGNS[p('sequence')])}) "
            f"from t={p('start_time'):g} s, dwell {p('dwell'):g} s, duration {p('duration'):g} s"
        )

    # --- inputs ---------------------------------------------------------------------------------
    def _on_magnets(self, msg: MagnetArray) -> None:
        self._magnets = {m.foot: (m.enabled, m.surface, m.in_contact) for m in msg.magnets}

    def _on_ik_status(self, msg: IKStatus) -> None:
        if msg.status == IKStatus.REJECTED and self.campaign.stage >= 0 and msg.foot in ("", self.campaign.foot):
            self._rejections += 1
            self.get_logger().error(f"the IK rejected our input: {msg.message}", throttle_duration_sec=1.0)

    def _on_feet(self, msg: FootStates) -> None:
        stamp = stamp_ns(msg.header.stamp)
        if stamp <= self._last_stamp or self.finished.is_set():
            return  # a re-delivery, or the run is over
        readings = {}
        for f in msg.feet:
            p, h = f.pose.position, f.hip_pivot
            reading = FootReading(np.array([p.x, p.y, p.z]), np.array([h.x, h.y, h.z]))
            if not (np.isfinite(reading.position).all() and np.isfinite(reading.hip_pivot).all()):
                self.get_logger().error(f"foot state of {f.foot} is not finite; step skipped", throttle_duration_sec=1.0)
                return
            readings[f.foot] = reading
        if any(foot not in readings for foot in FEET):
            self.get_logger().error(f"foot states lack {[x for x in FEET if x not in readings]}; step skipped", throttle_duration_sec=1.0)
            return
        self._last_stamp = stamp
        when = stamp + self._period_ns  # the solve these commands are for
        t = when * 1e-9
        if not self.campaign.runner and t >= self.campaign.start_time:
            self._baselines = {foot: r.position.copy() for foot, r in readings.items()}
        tick = self.campaign.step(t, readings)
        for event in tick.events:
            self.get_logger().info(event)
        if tick.stance is not None:
            out = StanceCommand(feet=list(tick.stance), modes=[MODES[m] for m in tick.stance.values()])
            set_stamp(out.header, when)
            self._pub_stance.publish(out)
        if tick.magnets:
            out = MagnetCommand(feet=list(tick.magnets), enable=list(tick.magnets.values()))
            set_stamp(out.header, when)
            self._pub_magnets.publish(out)
        self._publish_target(when, tick.target)
        if tick.target is not None:
            self._target = tick.target
        self._publish_status(when, t)
        if self._telemetry_ns and stamp >= self._next_telemetry:
            self._next_telemetry = stamp + self._telemetry_ns
            self.get_logger().info("\n" + self._telemetry(msg, t))
        if self.campaign.done or stamp >= self._duration_ns:
            self._finish(when, t)

    # --- outputs --------------------------------------------------------------------------------
    def _publish_target(self, when: int, target) -> None:
        out = IKTargetMsg()
        set_stamp(out.header, when)
        out.header.frame_id = "world"
        if target is not None:
            foot, goal = target
            out.foot = foot
            out.position.x, out.position.y, out.position.z = goal.position.tolist()
            out.has_face_axis = goal.face_axis is not None
            if goal.face_axis is not None:
                out.face_axis.x, out.face_axis.y, out.face_axis.z = goal.face_axis.tolist()
            out.position_cost, out.orientation_cost = goal.position_cost, goal.orientation_cost
            out.phase = self.campaign.runner.phase.name
        self._pub_target.publish(out)  # an empty foot: a tick with no swing target

    def _status_msg(self, when: int, t: float) -> SequenceStatus:
        status = self.campaign.status(t)
        out = SequenceStatus(sequence=status.sequence, foot=status.foot, done=status.done, failed=status.failed, message=status.message)
        set_stamp(out.header, when)
        if status.runner is not None:
            r = status.runner
            out.phase, out.phase_index, out.phase_count = r.phase, r.phase_index, r.phase_count
            out.phase_progress, out.elapsed = r.phase_progress, max(0.0, t - self.campaign.start_time)
        else:
            out.phase = "SETTLE"
        return out

    def _publish_status(self, when: int, t: float) -> None:
        self._pub_status.publish(self._status_msg(when, t))

    def _finish(self, when: int, t: float) -> None:
        problems = []
        if self.campaign.failed:
            problems.append(self.campaign.message)
        elif not self.campaign.done:
            problems.append(f"not done within {self._duration_ns * 1e-9:g} s of sim time")
        for foot in self.campaign.planted:
            enabled, surface, contact = self._magnets.get(foot, (False, "none", False))
            if not (enabled and surface == "wall" and contact):
                problems.append(f"{foot} is not held on the wall (magnet {'on' if enabled else 'off'}, surface {surface}, contact {contact})")
        self.succeeded = not problems
        final = self._status_msg(when, t)
        final.done, final.failed = True, not self.succeeded
        final.message = "; ".join(problems) or f"{self.campaign.sequence} done: {', '.join(self.campaign.planted) or 'no foot'} planted"
        if self._rejections:
            final.message += f" ({self._rejections} IK rejections of our input)"
        self._pub_status.publish(final)
        self._pub_final.publish(final)
        log = self.get_logger().info if self.succeeded else self.get_logger().error
        log(f"run {'succeeded' if self.succeeded else 'FAILED'} at t={t:.3f} s: {final.message}")
        self.finished.set()

    def _telemetry(self, msg: FootStates, t: float) -> str:
        status = self.campaign.status(t)
        feet = {}
        for f in msg.feet:
            q = f.pose.orientation
            feet[f.foot] = FootView(
                f.foot,
                MODE_NAMES.get(f.mode, "?"),
                np.array([f.pose.position.x, f.pose.position.y, f.pose.position.z]),
                face_normal((q.w, q.x, q.y, q.z)),
                f.in_contact,
                f.penetration,
                self._magnets.get(f.foot, (False, "none", False))[0],
            )
        target = self._target[1] if self._target is not None and self._target[0] == status.foot else None
        drift = {
            foot: float(np.linalg.norm(feet[foot].position - base))
            for foot, base in self._baselines.items()
            if foot in feet and feet[foot].mode == "FLOOR"
        }
        runner = status.runner
        return telemetry_block(
            t,
            status.foot,
            runner.phase if runner else "SETTLE",
            runner.phase_progress if runner else min(1.0, t / max(self.campaign.start_time, 1e-9)),
            None if target is None else target.position,
            None if target is None else target.face_axis,
            feet,
            drift,
        )


def main(args: list[str] | None = None) -> int:
    return run_node("sally_sequencer", SequencerNode, args, run=lambda node, executor, stop: run_until_finished(node, executor, stop, EXIT_FAILED))


if __name__ == "__main__":
    sys.exit(main())
