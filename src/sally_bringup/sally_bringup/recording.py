"""What a sequence run publishes, recorded into a :class:`~sally_bringup.run_record.RunRecord`:
live from the runner's probe, or read back from a run's ``run.mcap`` (:func:`record_from_mcap`,
the same handlers on the same messages, so a recorded run's report can be computed again)."""

from __future__ import annotations

from dataclasses import asdict

import numpy as np
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus
from geometry_msgs.msg import PoseArray
from nav_msgs.msg import Odometry
from rclpy.qos import QoSProfile
from std_msgs.msg import Header

from sally_description import LEGS
from sally_interfaces.msg import FootStates, IKTarget, MagnetTruthArray, PullOffResult, SequenceStatus
from sally_node_common.foot_states_msg import foot_states_from_msg
from sally_node_common.ik_target_msg import ik_target_from_msg
from sally_node_common.inputs import InputError
from sally_node_common.magnet_truth_msg import magnet_truth_from_msg
from sally_node_common.messages import odometry_pose
from sally_node_common.pulloff_result_msg import pulloff_result_from_msg
from sally_node_common.qos import KEPT, LATCHED
from sally_node_common.sequence_status_msg import sequence_status_from_msg
from sally_node_common.sim_resets import RESET_TOPIC, ResetWatch
from sally_node_common.stamps import stamp_ns

from .probe import Probe
from .raw_tap import DEPTH
from .run_record import FootSample, MagnetSample, RunRecord
from .topology import GROUND_TRUTH_FEET, GROUND_TRUTH_MAGNETS, GROUND_TRUTH_ODOM

DEEP = DEPTH
"""Messages each of the record's streams holds while the runner is busy (the raw tap's depth: 50 s
of the 200 Hz foot states). 100 was not enough: a runner on a loaded machine (a benchmark beside a
test suite) fell more than half a second behind, lost 365 ms of foot states, and judged a step's
hold from a later state than the graph's own record did."""
STATUS = QoSProfile(depth=DEEP, reliability=KEPT.reliability, history=KEPT.history, durability=KEPT.durability)
"""The sequence status as its publisher keeps it (transient local), as deep as the other streams. At
KEPT's 100 messages (0.5 s of it) a runner behind by more than that, with three graphs side by side
on two cores, lost every status of a 0.8 s phase, and the report's phase table lacked it."""
RECORDING_STATUS = "sally_recorder: recording"
"""The /diagnostics status of a recording the graph writes itself (:mod:`.host_recording`)."""
STREAMS = frozenset(
    {
        "/sally/foot_states",
        GROUND_TRUTH_MAGNETS,
        "/sally/ik_target",
        "/sally/sequence_status",
        "/sally/odom",
        GROUND_TRUTH_ODOM,
        GROUND_TRUTH_FEET,
    }
)
"""The 50-200 Hz streams a record keeps (the rest: verdicts, diagnostics, reset notices)."""
JUDGES = frozenset({"sequencer", "pulloff"})
"""The nodes whose verdict a report judges: a graph with neither (the hold graph, which runs until
stopped) keeps no streams, so its record does not grow for as long as it runs."""


FALLBACKS = {
    "sally_sim: commands": ("lockstep_timeouts", "magnet_commands_past_due", "external_forces_past_due"),
    "sally_controller: pid": ("late_targets",),
    "sally_ik: solver": ("target_wait_timeouts",),
}
"""/diagnostics status -> its counts of a node going on without what it waits for in lockstep: the
sim holding the pose without a command, a magnet switch or a rig's force applied after its stamp
(the sim does not wait for those), the controller answering without its IK targets, the IK solving
without the sequencer's tick (each after a wall-clock wait, :mod:`sally_node_common.partners`). A
run with any is not the lockstep run; its report says so (``wall_clock_fallbacks``)."""


def judged(specs) -> bool:
    """Whether a graph of these node specs (:class:`~.graphs.NodeSpec`; a container's by the nodes it
    hosts) has a node in :data:`JUDGES`: its record keeps the streams its report judges."""
    return any(node in JUDGES for spec in specs for node in (spec.hosts or (spec.name,)))


class RunRecorder:
    """Fills :attr:`record` from messages: subscribed on ``probe`` (its spin thread calls the
    handlers as messages come), or fed by :meth:`feed` when ``probe`` is None.

    A sim reset (its notice on ``/sally_sim/reset``) starts the record again: the sequence starts
    again from it, and the record is of that run, its times counted from the reset.
    """

    def __init__(self, probe: Probe | None = None, streams: bool = True) -> None:
        """``streams`` false: a probe takes only the verdicts, the diagnostics and the reset notices,
        not the 50-200 Hz streams (a composed container keeps the run's record itself: reading them
        here would only make it serialize them for DDS)."""
        self.record = RunRecord()
        self._last_phase: tuple[str, str] | None = None
        self._base_ns = 0
        """Sim time (ns) the record's times count from: 0, or the latest reset's."""
        self._resets = ResetWatch()
        self.handlers = {
            "/sally/foot_states": (FootStates, self._on_feet),
            GROUND_TRUTH_MAGNETS: (MagnetTruthArray, self._on_magnets),
            "/sally/ik_target": (IKTarget, self._on_target),
            "/sally/sequence_status": (SequenceStatus, self._on_status),
            "/sally/odom": (Odometry, self._on_odom),
            GROUND_TRUTH_ODOM: (Odometry, self._on_truth),
            GROUND_TRUTH_FEET: (PoseArray, self._on_truth_feet),
            "/sally/sequence_result": (SequenceStatus, self._on_result),
            "/sally/pulloff_result": (PullOffResult, self._on_pulloff),
            "/diagnostics": (DiagnosticArray, self._on_diagnostics),
            RESET_TOPIC: (Header, self._on_reset),
        }
        """Topic -> (message type, handler)."""
        self.recordings: dict = {}
        if probe is not None:
            self._subscribe(probe, streams)

    def feed(self, topic: str, msg) -> None:
        """Hand ``msg`` of ``topic`` to its handler (topics without one are ignored)."""
        entry = self.handlers.get(topic)
        if entry is not None:
            entry[1](msg)

    def _subscribe(self, probe: Probe, streams: bool) -> None:
        self.recordings = (
            {}
            if not streams
            else {
                "/sally/foot_states": probe.record(FootStates, "/sally/foot_states", DEEP, self._on_feet),
                GROUND_TRUTH_MAGNETS: probe.record(MagnetTruthArray, GROUND_TRUTH_MAGNETS, DEEP, self._on_magnets),
                "/sally/ik_target": probe.record(IKTarget, "/sally/ik_target", DEEP, self._on_target),
                "/sally/sequence_status": probe.record(
                    SequenceStatus, "/sally/sequence_status", STATUS, self._on_status
                ),
                "/sally/odom": probe.record(Odometry, "/sally/odom", DEEP, self._on_odom),
                GROUND_TRUTH_ODOM: probe.record(Odometry, GROUND_TRUTH_ODOM, DEEP, self._on_truth),
                GROUND_TRUTH_FEET: probe.record(PoseArray, GROUND_TRUTH_FEET, DEEP, self._on_truth_feet),
            }
        )
        self.result = probe.record(SequenceStatus, "/sally/sequence_result", LATCHED, on_message=self._on_result)
        self.pulloff = probe.record(PullOffResult, "/sally/pulloff_result", LATCHED, on_message=self._on_pulloff)
        self.diagnostics = probe.record(DiagnosticArray, "/diagnostics", 10, on_message=self._on_diagnostics)
        self.diagnostics.keep = False
        self.resets = probe.record(Header, RESET_TOPIC, LATCHED, on_message=self._on_reset)
        for rec in self.recordings.values():
            rec.keep = False  # the record keeps what is needed; the raw messages would only pile up

    def _seconds(self, stamp) -> float:
        """A ``builtin_interfaces/Time`` in seconds since the record's start."""
        return self._at(stamp_ns(stamp))

    def _at(self, nanoseconds: int) -> float:
        return (nanoseconds - self._base_ns) * 1e-9

    def new_sim(self) -> None:
        """A new sim is coming (a sim killed and started again: sim time from 0): the record starts
        again, of the run with it."""
        self._resets.new_sim()
        self.record = RunRecord()
        self._last_phase, self._base_ns = None, 0

    def _on_reset(self, msg: Header) -> None:
        stamp = stamp_ns(msg.stamp)
        if not self._resets.reset(stamp):
            return  # a reset before this record's run (a kept notice), or one already acted on
        self.record = RunRecord(reset_at=stamp * 1e-9)
        self._last_phase, self._base_ns = None, stamp

    def _on_feet(self, msg: FootStates) -> None:
        try:
            stamp, feet = foot_states_from_msg(msg)
        except InputError:
            return  # a malformed message (an outside publisher): the nodes refuse it too
        if stamp < self._base_ns:
            return  # a straggler of the run before the reset
        self._resets.state(stamp)
        self.record.feet.append(
            FootSample(
                self._at(stamp),
                {foot: f.position for foot, f in feet.items()},
                {foot: int(f.mode) for foot, f in feet.items()},
                {foot: f.in_contact for foot, f in feet.items()},
                {foot: f.hip_pivot for foot, f in feet.items()},
                msg.header.frame_id,
            )
        )

    def _on_odom(self, msg: Odometry) -> None:
        self._pose(msg, self.record.believed)

    def _on_truth(self, msg: Odometry) -> None:
        self._pose(msg, self.record.truth)

    def _on_truth_feet(self, msg: PoseArray) -> None:
        stamp = stamp_ns(msg.header.stamp)
        points = np.array([[p.position.x, p.position.y, p.position.z] for p in msg.poses], dtype=float)
        if stamp < self._base_ns or points.shape != (2 * len(LEGS), 3) or not np.isfinite(points).all():
            return
        self.record.truth_feet[stamp - self._base_ns] = points

    def _pose(self, msg: Odometry, poses: dict) -> None:
        """main_frame's pose of ``msg`` into ``poses`` by its stamp (the run's judged by the truth)."""
        stamp = stamp_ns(msg.header.stamp)
        if stamp < self._base_ns:
            return
        try:
            poses[stamp - self._base_ns] = odometry_pose(msg)
        except InputError:
            return

    def _on_magnets(self, msg: MagnetTruthArray) -> None:
        try:
            stamp, magnets = magnet_truth_from_msg(msg)
        except InputError:
            return
        if stamp < self._base_ns:
            return
        self.record.magnets.append(
            MagnetSample(
                self._seconds(msg.header.stamp),
                {foot: m.magnitude for foot, m in magnets.items()},
                {foot: m.enabled for foot, m in magnets.items()},
                {foot: m.surface for foot, m in magnets.items()},
                {foot: m.in_contact for foot, m in magnets.items()},
                {foot: m.contact_force for foot, m in magnets.items()},
            )
        )

    def _on_target(self, msg: IKTarget) -> None:
        try:
            tick = ik_target_from_msg(msg)
        except InputError:
            return
        if tick.target is not None and tick.stamp >= self._base_ns:
            self.record.targets.append((self._at(tick.stamp), tick.foot, tick.phase, tick.target.position))

    def _on_status(self, msg: SequenceStatus) -> None:
        try:
            stamp, status = sequence_status_from_msg(msg)
        except InputError:
            return
        if stamp < self._base_ns:
            return
        t = self._at(stamp)
        self.record.status_t = t
        key = (status.foot, status.phase)
        if key != self._last_phase:  # the phase's own start: right even when messages were lost
            self._last_phase = key
            start = status.phase_start - self._base_ns * 1e-9 if status.phase_start > 0.0 else t
            self.record.phases.append((start, status.foot, status.phase))

    def _on_result(self, msg: SequenceStatus) -> None:
        try:
            _, status = sequence_status_from_msg(msg)
        except InputError:
            return
        t = self._seconds(msg.header.stamp)
        self.record.result = {"done": status.done, "failed": status.failed, "message": status.message, "t": t}

    def _on_pulloff(self, msg: PullOffResult) -> None:
        try:
            _, outcome = pulloff_result_from_msg(msg)
        except InputError:
            return
        self.record.pulloff = {**asdict(outcome), "t": self._seconds(msg.header.stamp)}

    def _after_the_verdict(self, stamp) -> bool:
        """Whether ``stamp`` is after the run's verdict: what a node counts then (an IK that waited for
        the tick of a sequencer that had finished, while the graph was being stopped) is not the run's."""
        return self.record.result is not None and self._seconds(stamp) > self.record.result["t"]

    def _count_fallbacks(self, status: str, values: dict[str, str]) -> None:
        """The record's fallback counts raised to what node status ``status`` says."""
        for key in FALLBACKS.get(status, ()):
            count = _count(values.get(key))
            name = f"{status.split(':')[0]}: {key}"
            if count > self.record.fallbacks.get(name, 0):
                self.record.fallbacks[name] = count

    def _on_diagnostics(self, msg: DiagnosticArray) -> None:
        for status in msg.status:
            if (
                status.name == "sally_sim: physics"
                and status.level == DiagnosticStatus.ERROR
                and self.record.divergence is None
            ):
                self.record.divergence = status.message
                self.record.divergence_t = self._seconds(msg.header.stamp)
            values = {kv.key: kv.value for kv in status.values}
            if not self._after_the_verdict(msg.header.stamp):
                self._count_fallbacks(status.name, values)
            if status.name == RECORDING_STATUS and values.get("stopped"):
                self.record.recording_stopped = values["stopped"]
            if status.name == "sally_sim: commands" and "command_waits_timed_out" in values:
                self.record.pacing["command_waits_timed_out"] = float(values["command_waits_timed_out"])
            if status.name != "sally_sim: pacing":
                continue
            if values.get("mode") != "realtime":
                continue  # lag and factor mean something only when paced to the wall clock
            try:
                factor, lag, p99 = (
                    float(values["effective_factor"]),
                    float(values["lag_ms"]),
                    float(values["lag_p99_ms"]),
                )
            except (KeyError, ValueError):
                continue
            pacing = self.record.pacing
            pacing["effective_factor"] = factor
            pacing["max_lag_ms"] = max(pacing.get("max_lag_ms", 0.0), lag)
            pacing["max_lag_p99_ms"] = max(pacing.get("max_lag_p99_ms", 0.0), p99)


def _count(text: str | None) -> int:
    """A /diagnostics count (0 when absent or not a count)."""
    try:
        return int(text) if text is not None else 0
    except ValueError:
        return 0


def record_from_mcap(path) -> RunRecord:
    """The :class:`RunRecord` of a recorded run, from its ``run.mcap`` (messages in log order)."""
    from mcap.reader import make_reader
    from rclpy.serialization import deserialize_message

    recorder = RunRecorder()
    with open(path, "rb") as stream:
        for _, channel, message in make_reader(stream).iter_messages(topics=list(recorder.handlers)):
            msg_type, handler = recorder.handlers[channel.topic]
            handler(deserialize_message(message.data, msg_type))
    return recorder.record
