"""The sequencer node: drives a :class:`Campaign` on sim time between the IK and the sim.

Every ``/sally/foot_states`` message (the IK publishes one per solve, stamped with the state it
solved, every ``ik_period`` of sim time) is one step: the campaign runs at the time of the *next*
solve, and the node publishes, all stamped with that time, magnet switches on ``/sally/magnet_cmd``
(the sim applies them at that step) and then exactly one ``/sally/ik_target``: everything the solve
needs, every foot's stance, the swing target (an empty foot when no foot swings) and the body
target. An IK with ``target_sync`` waits for that message before solving, so a lockstep graph runs
the same every time. ``/sally/sequence_status`` reports progress; the telemetry block is
logged every ``telemetry_period`` of sim time.

The run ends when the campaign is done (its last foot planted and held), fails (a phase refused; a
magnet switch the interlock refuses, :mod:`.interlock`: off with fewer than three others holding and
no foot on the floor; at the end, a planted foot without its magnet on and in wall contact) or
``duration`` of sim time
passes (counted from the run's start: 0, or a sim reset, after which the sequence starts again);
IK rejections of its input are logged and counted in the final message: the node publishes a
final status and, with ``exit_when_done``, exits 0 on success and 1 on failure, which a runner takes
as the end of the graph.

Inputs are checked (:mod:`sally_node_common.inputs`): malformed, non-finite, implausible,
unknown-foot or out-of-order foot states, magnet telemetry and IK statuses are rejected, logged
and counted on /diagnostics (``sally_sequencer: sequence``, with the stale inputs). Stances are
kept (transient local) so a restarted IK resumes from the newest. A sequencer started mid-run finds the feet the
IK reports in POSE stance and in contact already planted and resumes from the next foot; in a route,
foot states already in the next climb's frame (the IK moved there: the first climb was done) resume
that climb the same way. Foot states that start over at an older stamp after a silence (a new sim)
start the sequence again.
"""

from __future__ import annotations

import math
import sys
import threading
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import numpy as np
import scipy.optimize  # noqa: F401 - the swing planner's leg solver, loaded with the node (not mid-run)
from rclpy.node import Node
from sensor_msgs.msg import Range
from std_msgs.msg import Bool

from sally_description.constants import FOOT_STANDOFF
from sally_description.pose import Pose, PoseError, pose_from_hips
from sally_description.scene import FACING_UP, MAX_MOVED, room_from, scene
from sally_interfaces.msg import FootStates, IKStatus, MagnetArray, MagnetCommand, SequenceStatus
from sally_interfaces.msg import IKTarget as IKTargetMsg
from sally_node_common import StartupError, run_node, run_until_finished
from sally_node_common.foot_states_msg import foot_states_from_msg
from sally_node_common.ik_status_msg import IKCode, ik_status_from_msg
from sally_node_common.ik_target_msg import TargetTick, ik_target_to_msg
from sally_node_common.inputs import NON_FINITE, OUT_OF_RANGE, InputError, StampOrder
from sally_node_common.kept_topics import subscribe_kept
from sally_node_common.magnet_array_msg import magnet_array_from_msg
from sally_node_common.magnet_command_msg import magnet_command_to_msg
from sally_node_common.node_shell import NodeShell
from sally_node_common.parameters import Param, ParameterTable
from sally_node_common.qos import KEPT, LATCHED, RELIABLE_DEEP, STATUS
from sally_node_common.readers_gate import ReadersGate
from sally_node_common.sequence_status_msg import SequenceStatusData, sequence_status_to_msg
from sally_node_common.stamped_readings import READING_AGE_NS
from sally_node_common.stamps import stamp_ns
from sally_node_common.stance import StanceMode
from sally_node_common.time_contract import IK_LATENCY, IK_PERIOD, commands_for
from sally_node_common.waiting import Waiting

from .campaign import FEET, Campaign, CampaignTiming, FootReading, Tick
from .campaign_clock import CampaignClock
from .climb import MIN_PITCH_DEG
from .errors import SequenceError
from .feet_sensors import FeetSensors
from .interlock import release_refusal
from .journal import Journal, JournalError, Step
from .journal import read as read_journal
from .plan_catalogue import SEQUENCES, scene_of
from .robot_view import RobotView
from .route import THEN
from .route_run import RouteRun, route_plan
from .telemetry import FootView, face_normal, telemetry_block
from .verdict import held_on, level, pitched_enough, walk_shortfall
from .wall_walk import DIRECTIONS, MAX_DISTANCE

EXIT_FAILED = 1
FEET_TOPIC, MAGNETS, IK_STATUS = "/sally/foot_states", "/sally/magnets", "/sally/ik_status"


WAITING_TICKS = 8
"""Foot states kept waiting for the feet's readings (40 ms of the IK's 200 Hz): a tick is stepped
without them only once this many newer ones wait (a starved CPU delivers readings late)."""
CONTACT_GAP = 0.005
"""m: a face its range sensor sees further than this from any surface is not in contact."""


def range_topic(foot: str) -> str:
    """``foot``'s range sensor's topic (sensor_msgs/Range)."""
    return f"/sally/feet/{foot}/range"


def _seconds(name: str, default: float, what: str, positive: bool = False) -> Param:
    return Param(name, default, what, low=0.0, high=1e6, open_low=positive, unit="s of sim time", read_only=True)


TABLE = ParameterTable(
    (
        Param("sequence", "f2w", "campaign to run", choices=tuple(sorted(SEQUENCES)), read_only=True),
        Param(
            "direction",
            "up",
            "wall_walk: which way the body walks over the wall (up, down, left, right); floor_walk: over the floor "
            "(forward, back, left, right)",
            choices=tuple(DIRECTIONS),
            read_only=True,
        ),
        Param(
            "distance",
            0.30,
            "wall_walk, floor_walk: how far the body walks",
            low=0.0,
            high=MAX_DISTANCE,
            open_low=True,
            unit="m",
            read_only=True,
        ),
        Param(
            "wall_walk",
            0.0,
            "after the climb, how far the body walks over the surface it climbed onto (f2w_all: up the wall, toward "
            "the ceiling; w2c: along the ceiling, away from the wall; 0: no walk)",
            low=0.0,
            high=MAX_DISTANCE,
            unit="m",
            read_only=True,
        ),
        Param(
            "floor_walk",
            0.0,
            "before f2w_all's climb: how far the body first walks forward over the floor, toward the wall, from a "
            "start that far back (0: no walk)",
            low=0.0,
            high=MAX_DISTANCE,
            unit="m",
            read_only=True,
        ),
        Param(
            "then",
            "",
            "a climb to run after this campaign ends, in its own corner's frame (after f2w_all's stand under the "
            "ceiling: w2c, the route floor,wall,ceiling); '' = none",
            choices=("", *THEN),
            read_only=True,
        ),
        Param(
            "then_walk",
            0.0,
            "after the 'then' climb, how far the body walks over the surface it climbed onto (w2c: along the "
            "ceiling, away from the wall; 0: no walk)",
            low=0.0,
            high=MAX_DISTANCE,
            unit="m",
            read_only=True,
        ),
        Param(
            "then_down",
            False,
            "after the 'then' climb: climb back down from the surface it climbed onto (w2c: from the ceiling onto "
            "the wall, every foot back where it stood under the ceiling; the route floor,wall,ceiling,wall)",
            read_only=True,
        ),
        Param(
            "then_back",
            False,
            "after the 'then' climb's way down (then_down): the way back down the wall the first climb went up, "
            "then back down onto the floor, every foot where it stood at the start (the route "
            "floor,wall,ceiling,wall,floor)",
            read_only=True,
        ),
        Param(
            "stand",
            False,
            "after f2w_all's walk up the wall: stand on the wall as on the floor, 0.5 m below the ceiling, where "
            "the climb onto the ceiling starts",
            read_only=True,
        ),
        Param(
            "down",
            False,
            "after the climb (f2w_all, w2c): climb back down the same corner, the climb's stages backwards, every "
            "foot back where it stood at the climb's start (the routes floor,wall,floor and wall,ceiling,wall)",
            read_only=True,
        ),
        _seconds("start_time", 0.5, "settling before the sequence starts"),
        _seconds("dwell", 3.0, "time in F2W_REACH after which a foot is planted"),
        _seconds("hold", 1.0, "time held after the last foot is planted"),
        _seconds("duration", 25.0, "time after which an unfinished run fails", positive=True),
        _seconds("ik_period", IK_PERIOD, "time between IK solves (the sequencer's step)", positive=True),
        Param(
            "ik_latency",
            IK_LATENCY,
            "from the state the IK solves to the first state its targets answer; a magnet command is stamped "
            "for when the targets it goes with act",
            choices=(0, 1),
            unit="IK periods",
            read_only=True,
        ),
        _seconds("telemetry_period", 1.0, "time between telemetry blocks (0: none)"),
        Param("exit_when_done", True, "exit when the run ends (0 success, 1 failure)", read_only=True),
        Param(
            "journal",
            "",
            "file the sequencer journals each step in: a sequencer started again with it takes the steps again "
            "and goes on where the last one stood ('' = none: a restarted one goes on from the planted feet)",
            read_only=True,
        ),
        Param(
            "readers",
            "",
            "nodes that must read the sequencer's commands before its first step, comma-separated "
            "(the graphs name those that read them, sally_bringup.topology); '' = a matched reader on every output",
            read_only=True,
        ),
    )
)
ROUTE_PARAMETERS = (
    "sequence",
    "direction",
    "distance",
    "wall_walk",
    "stand",
    "floor_walk",
    "down",
    "then",
    "then_walk",
    "then_down",
    "then_back",
)
"""The parameters the run's plan is built from (:func:`.route_run.route_plan`, its arguments' names)."""


def _open_journal(path: str) -> tuple[Journal, tuple[int | None, list[Step]]]:
    """The journal at ``path`` ('' = none) to write in, and its time line as read (its start, its
    steps), kept until the first foot states say whether it is theirs (it is taken again then) or an
    ended one's; StartupError for a journal that cannot be read."""
    try:
        return Journal(Path(path) if path else None), read_journal(Path(path)) if path else (None, [])
    except JournalError as exc:
        raise StartupError(str(exc)) from None


class SequencerNode(Node):
    """The sequencer node: foot states in, IK targets (with the stances) and magnet commands out, on sim time."""

    def __init__(self, **kwargs) -> None:
        super().__init__("sally_sequencer", **kwargs)
        self.shell = NodeShell(  # every parameter is read-only: a run is configured at its start
            self,
            TABLE,
            "sally_sequencer: sequence",
            self._publish_diagnostics,
            watched=(FEET_TOPIC, MAGNETS),
            orders={
                FEET_TOPIC: StampOrder("foot states"),
                MAGNETS: StampOrder("magnets"),
                IK_STATUS: StampOrder("IK status"),
            },
            on_reset=self._on_sim_reset,
        )
        p = lambda name: self.get_parameter(name).value  # noqa: E731
        # the IK's foot states are read kept: after a silence (this node hung, then continued) their
        # writer replays up to KEPT.depth of them, which start no new time line (a new sim's do)
        self.shell.orders[FEET_TOPIC].back_ns = KEPT.depth * round(p("ik_period") * 1e9)
        try:
            timing = CampaignTiming(float(p("start_time")), float(p("dwell")), float(p("hold")))
            self.route = RouteRun(route_plan(**{name: p(name) for name in ROUTE_PARAMETERS}), timing)
        except SequenceError as exc:
            raise StartupError(str(exc)) from None
        self._fresh = True
        """No foot state seen yet on this time line: the first one says which feet are planted."""
        self._time = CampaignClock(
            round(p("ik_period") * 1e9),
            round(p("duration") * 1e9),
            int(p("ik_latency")),
            round(p("telemetry_period") * 1e9),
        )
        self.exit_when_done = bool(p("exit_when_done"))
        self.finished = threading.Event()
        self.succeeded = False
        self._view = RobotView()
        self._pub_target = self.create_publisher(IKTargetMsg, "/sally/ik_target", KEPT)  # a restarted IK resumes
        self._pub_magnets = self.create_publisher(MagnetCommand, "/sally/magnet_cmd", RELIABLE_DEEP)
        self._pub_status = self.create_publisher(SequenceStatus, "/sally/sequence_status", STATUS)  # a record
        # that matched this writer late, or lags behind it, still gets every status (qos.STATUS)
        self._pub_final = self.create_publisher(SequenceStatus, "/sally/sequence_result", LATCHED)
        # the verdict, and the status stream up to it: the runner's record must reach the verdict (a
        # lagging reader lost the last statuses when the graph ended at once under load)
        self._feet_sensors = FeetSensors()
        self._journal, self._journaled = _open_journal(str(p("journal")))
        self._replaying = False
        self._awaiting: Waiting[tuple[FootStates, bool]] = Waiting(WAITING_TICKS)
        """Foot states (and whether they were kept ones) waiting for the feet's readings of their tick
        (:meth:`_step_awaiting`)."""
        self._held_feet: tuple[FootStates, bool] | None = None
        """Foot states that came before the outputs reached their readers (stepped on once they do)."""
        readers = [name.strip() for name in str(p("readers")).split(",") if name.strip()]
        self._gate = ReadersGate(self, (self._pub_magnets, self._pub_target), readers, self._on_gate_open)
        self._subscribe()
        self.get_logger().info(
            f"sequencer ready: {p('sequence')} ({' then '.join(f for f, _ in SEQUENCES[p('sequence')].stages)}) "
            f"from t={p('start_time'):g} s, dwell {p('dwell'):g} s, duration {p('duration'):g} s"
        )

    def _subscribe(self) -> None:
        """What the sequencer reads: the foot states, the magnets, the IK's status, each foot's range
        sensor (the measure takes the surface's distance from it) and whether the sim holds."""
        subscribe_kept(self, FootStates, FEET_TOPIC, self._on_feet)  # the IK's kept states, and anyone's
        subscribe_kept(self, MagnetArray, MAGNETS, self._on_magnets)  # a restarted sequencer knows at once
        # which magnets hold (it may resume with a magnet off, before sim time brings new telemetry)
        self.create_subscription(IKStatus, IK_STATUS, self._on_ik_status, RELIABLE_DEEP)
        for foot in FEET:
            self.create_subscription(Range, range_topic(foot), self._range_reader(foot), RELIABLE_DEEP)
        self.create_subscription(
            Bool, "/sally_sim/holding", lambda msg: setattr(self._time, "holding", bool(msg.data)), LATCHED
        )

    @property
    def final_publishers(self) -> tuple:
        """The verdict, and the status stream up to it: the runner's record must reach the verdict (a
        lagging reader lost the last statuses when the graph ended at once under load)."""
        return (self._pub_final, self._pub_status)

    @property
    def campaign(self) -> Campaign:
        """The campaign under way (the route's)."""
        return self.route.campaign

    @property
    def _frame(self) -> str:
        """The TF frame of the targets' positions: the climbed corner's."""
        return self.route.frame

    # --- inputs ---------------------------------------------------------------------------------
    def _on_magnets(self, msg: MagnetArray, kept: bool = False) -> None:
        try:
            stamp, magnets = magnet_array_from_msg(msg)
            self.shell.orders[MAGNETS].admit(stamp)
        except InputError as exc:
            return self.shell.health.reject(MAGNETS, exc.reason, str(exc), replayed=kept)
        self.shell.health.heard(MAGNETS)
        if stamp < self.shell.resets.start_ns:
            return None  # of the time line a sim reset ended (come after its notice)
        trusted = {}
        for foot, m in magnets.items():  # the contact sensor, as the driver reads it
            sensed = m.contact_sensed and not self._contradicted(foot, stamp)
            self._feet_sensors.readings.add(("contact", foot), stamp, 1.0 if sensed else 0.0)
            trusted[foot] = (m.enabled, sensed)  # the driver's fields: the world's (surface, gap) never read
        self._view.magnets = trusted  # the interlock counts no magnet on a contact reading it distrusts
        self._feet_sensors.heard.add("contact")
        self._step_awaiting()
        return None

    def _surfaces_at(self, frame: str, readings: dict[str, FootReading]) -> Callable[[], dict[str, str]]:
        """Each foot's surface as the map has it where the foot states put the foot (in ``frame``):
        its EE site :data:`FOOT_STANDOFF` behind the face, within :data:`MAX_MOVED` more of a mapped
        face (a plate off the map by as much is still found); looked up by the call returned."""
        room, to_room = scene(scene_of(self.campaign.sequence)), room_from(frame or self._frame)
        within = FOOT_STANDOFF + MAX_MOVED
        return lambda: {foot: room.surface_near(to_room.to_world(r.position), within) for foot, r in readings.items()}

    def _contradicted(self, foot: str, stamp: int) -> bool:
        """Whether ``foot``'s contact reading says contact while its range sensor sees its face off
        any surface (more than :data:`CONTACT_GAP` away): a stuck sensor, flagged and distrusted."""
        gap = self._feet_sensors.readings.at(
            ("range", foot), stamp + READING_AGE_NS
        )  # the newest range at or before it
        if not gap > CONTACT_GAP:  # (nan: no range to judge by)
            return False
        self.shell.counts["contact_readings_distrusted"] += 1
        self.get_logger().warning(
            f"{foot}'s contact reading says contact, its range sensor a face {gap * 1e3:.0f} mm off: distrusted",
            throttle_duration_sec=1.0,
        )
        return True

    def _range_reader(self, foot: str):
        def on_range(msg: Range) -> None:
            distance, stamp = float(msg.range), stamp_ns(msg.header.stamp)
            try:
                if math.isnan(distance):
                    raise InputError(NON_FINITE, f"{foot}'s range reading is NaN")
                if distance < 0 or (math.isfinite(distance) and distance > msg.max_range):
                    raise InputError(OUT_OF_RANGE, f"{foot}'s range {distance:g} m is beyond 0..{msg.max_range:g} m")
                self._feet_sensors.range_orders[foot].admit(stamp)
            except InputError as exc:
                return self.shell.health.reject(range_topic(foot), exc.reason, str(exc))
            if stamp < self.shell.resets.start_ns:
                return None  # of the time line a sim reset ended (come after its notice)
            self._feet_sensors.readings.add(("range", foot), stamp, distance)
            self._feet_sensors.heard.add("range")
            self._step_awaiting()
            return None

        return on_range

    def _wire_sensors(self, campaign: Campaign) -> Campaign:
        """``campaign`` reading the feet's range and contact sensors at the tick under way."""
        campaign.range_of, campaign.contact_of = self._feet_sensors.range_of, self._feet_sensors.contact_of
        return campaign

    def _on_ik_status(self, msg: IKStatus) -> None:
        try:
            stamp, status = ik_status_from_msg(msg)
            # a refusal is an event, reported when it happens; solves are the stream
            if status.code is not IKCode.REJECTED:
                self.shell.orders[IK_STATUS].admit(stamp)
        except InputError as exc:
            return self.shell.health.reject(IK_STATUS, exc.reason, str(exc))
        if status.code is IKCode.REJECTED and self.campaign.stage >= 0 and status.foot in ("", self.campaign.foot):
            self.shell.counts["ik_rejections_of_our_input"] += 1
            self.get_logger().error(f"the IK rejected our input: {status.message}", throttle_duration_sec=1.0)
        return None

    def _readings(self, msg: FootStates) -> dict[str, FootReading]:
        _, feet = foot_states_from_msg(msg)
        return {foot: FootReading(f.position, f.hip_pivot) for foot, f in feet.items()}

    def _on_gate_open(self) -> None:
        """Every output reaches its readers: step on the foot states that came meanwhile (the IK
        waits for the first tick without a limit)."""
        if self._held_feet is not None:
            held, self._held_feet = self._held_feet, None
            self._on_feet(*held)

    def _on_feet(self, msg: FootStates, kept: bool = False) -> None:
        if not self._gate.open:
            self._held_feet = (msg, kept)  # only the newest is stepped on
            return None
        # sent again while they wait (or the first after a sim reset, stamped alike): the newest
        for _, oldest in self._awaiting.put(stamp_ns(msg.header.stamp), (msg, kept)):
            # what the oldest waited for never came: without (no telemetry heard yet, as a sequencer
            # restarted mid-run: only the newest foot states wait)
            if "contact" in self._feet_sensors.heard:
                self.shell.counts["stepped_without_readings"] += 1
                self._step_feet(*oldest)
        self._step_awaiting()
        return None

    def _step_awaiting(self) -> None:
        """The foot states waiting for the feet's readings stepped on once those are in (each foot's
        range and contact reading the tick takes: :meth:`StampedReadings.caught_up`): the contact
        readings always, the ranges once heard (a robot without range sensors is not waited for).
        They come on other topics; waiting for them keeps a lockstep run the same on every host."""
        sensors = ["contact", *(["range"] if "range" in self._feet_sensors.heard else [])]
        start = self.shell.resets.start_ns

        def arrived(stamp: int) -> bool:
            return all(self._feet_sensors.readings.caught_up((s, foot), stamp, start) for s in sensors for foot in FEET)

        for _, (msg, kept) in self._awaiting.ready(arrived):
            self._step_feet(msg, kept)

    def _step_feet(self, msg: FootStates, kept: bool) -> None:
        stamp = stamp_ns(msg.header.stamp)
        if self.finished.is_set():
            return  # the run is over
        try:
            readings = self._readings(msg)
            new_timeline = self.shell.orders[FEET_TOPIC].admit(stamp)
            try:  # four hip pivots that span no body frame (finite, but no robot's): refused, not a crash
                body = pose_from_hips({foot: r.hip_pivot for foot, r in readings.items()})
            except PoseError as exc:
                raise InputError(OUT_OF_RANGE, f"foot states' hip pivots give no body pose: {exc}") from None
            if new_timeline:
                self._start_over(stamp)
        except InputError as exc:
            self.shell.health.reject(FEET_TOPIC, exc.reason, str(exc), replayed=kept)
            return None
        self.shell.health.heard(FEET_TOPIC)
        reset = self._time.reset_ns
        if reset is not None:
            if stamp < reset:
                return None  # the run before the reset: over
            self._start_over(stamp, f"the sim was reset at {reset * 1e-9:.3f} s")
            self._time.restart(reset_ns=stamp)
        self.shell.resets.state(stamp)
        if self._fresh:
            self._fresh = False
            taken = self._replay(stamp)
            if taken is None:
                self._resume(msg.header.frame_id, {f.foot: (f.mode, f.in_contact) for f in msg.feet}, readings)
                self._journal.start(self._time.start_ns)
            elif taken:
                return None  # this very step was the journal's last
        frame = msg.header.frame_id
        if frame not in ("", self._frame):  # the IK still plans in the last climb's frame
            when, _ = self._time.step(stamp)
            self._journal.step(self._journal_step(stamp, frame, msg, readings, passing=True))
            self._publish_target(when, None)  # a tick in the next one's: the IK moves there and is released
            return None
        self._step(stamp, frame, readings, body, msg)
        return None

    def _journal_step(
        self, stamp: int, frame: str, msg: FootStates, readings: dict[str, FootReading], passing: bool = False
    ) -> Step:
        """The journal's record of the step on ``msg``, stamped ``stamp`` (its readings already taken)."""
        ranges, contacts = (
            ({f: math.nan for f in FEET}, dict.fromkeys(FEET, False)) if passing else self._feet_sensors.tick
        )
        return Step(
            stamp,
            self._time.campaign_ns,
            frame,
            {foot: r.position for foot, r in readings.items()},
            {foot: r.hip_pivot for foot, r in readings.items()},
            {f.foot: int(f.mode) for f in msg.feet},
            {f.foot: bool(f.in_contact) for f in msg.feet},
            ranges,
            contacts,
            dict(self._view.magnets),
            passing,
        )

    def _replay(self, stamp: int) -> bool | None:
        """The journal's steps taken again, publishing nothing, when its time line is that of the
        first foot states stepped on (stamped ``stamp``): the sequencer then stands where the last one
        stood. None when there is none to take (no journal, or an ended time line's); else whether
        ``stamp`` was its last step."""
        start, steps = self._journaled
        self._journaled = (None, [])
        if start is None or not steps or stamp < steps[-1].stamp or stamp < start:
            return None  # (a new sim starts over, a reset since ends the journal's line)
        self._replaying = True
        try:
            self._time.restart(reset_ns=start or None)
            self.shell.resets.first_state, self.shell.resets.latest = steps[0].stamp, start or -1
            first = steps[0]
            readings = {foot: FootReading(first.positions[foot], first.hips[foot]) for foot in FEET}
            self._resume(first.frame, {f: (first.modes[f], first.in_contact[f]) for f in FEET}, readings)
            for step in steps:
                self._take(step)
                if self.finished.is_set():
                    break
        finally:
            self._replaying = False
        self.shell.orders[FEET_TOPIC].latest = steps[-1].stamp
        self._journal.resume()
        self.shell.counts["journal_steps_taken"] += len(steps)
        runner = self.campaign.runner
        phase = f"{self.campaign.foot} {runner.phase.name}" if runner is not None else "SETTLE"
        self.get_logger().warning(
            f"resumed from the journal: {len(steps)} steps taken again ({steps[0].stamp * 1e-9:.3f} to "
            f"{steps[-1].stamp * 1e-9:.3f} s); {self.campaign.sequence} at {phase}"
        )
        return stamp == steps[-1].stamp

    def _take(self, step: Step) -> None:
        """One journaled step taken again."""
        self.shell.resets.state(step.stamp)
        if step.passing:
            self._time.last_stamp, self._time.campaign_ns = step.stamp, step.campaign_ns
            return
        readings = {foot: FootReading(step.positions[foot], step.hips[foot]) for foot in FEET}
        body = pose_from_hips({foot: r.hip_pivot for foot, r in readings.items()})
        self._view.magnets = dict(step.magnets)
        self._step(step.stamp, step.frame, readings, body, record=step)

    def _resume(self, frame: str, feet: dict[str, tuple[int, bool]], readings: dict[str, FootReading]) -> None:
        """The first foot states of a run (in ``frame``; ``feet``: foot -> (mode, in contact)): feet
        in POSE stance and in contact are planted already (this sequencer started mid-run), and foot
        states in the frame of a route's next climb mean the IK moved there (the first climb was
        done): that climb is the one resumed."""
        self._view.stance = {foot: StanceMode(mode) for foot, (mode, _) in feet.items()}
        planted = {
            foot: readings[foot].position
            for foot, (mode, contact) in feet.items()
            if mode == StanceMode.POSE and contact
        }
        resumed = self.route.resume(frame, planted)
        if resumed:
            self.get_logger().warning(resumed)

    def _start_over(self, stamp: int, why: str = "") -> None:
        """The run starts again: foot states from an older time after a silence (a new sim), or
        the first foot states after a sim reset (``why``)."""
        if not why:
            self.shell.resets.new_sim()
        self.get_logger().warning(
            f"{why or 'foot states start over'} ({stamp * 1e-9:.3f} s): the sequence starts again"
            + ("" if why else " (a new sim)")
        )
        self.route, self._fresh = RouteRun(self.route.plan, self.route.timing), True
        self.shell.orders[MAGNETS].restart()
        self.shell.orders[IK_STATUS].restart()
        for order in self._feet_sensors.range_orders.values():
            order.restart()
        self._time.restart()
        self._view = RobotView()
        self.shell.counts["restarts"] += 1

    def _step(
        self,
        stamp: int,
        frame: str,
        readings: dict[str, FootReading],
        body: Pose,
        msg: FootStates | None = None,
        record: Step | None = None,
    ) -> None:
        """One step on the foot states ``msg`` stamped ``stamp`` (in ``frame``), journaled; or on a
        journal's ``record``, taken again (publishing nothing)."""
        if record is None:
            when, t = self._time.step(stamp)
            ranges = {foot: self._feet_sensors.readings.at(("range", foot), stamp) for foot in FEET}
            contacts = {foot: self._feet_sensors.readings.at(("contact", foot), stamp) == 1.0 for foot in FEET}
            self._feet_sensors.tick = (ranges, contacts)
            if msg is not None:
                self._journal.step(self._journal_step(stamp, frame, msg, readings))
        else:  # the journal's campaign time (the clock's holds and gaps were the run's)
            self._time.last_stamp, self._time.campaign_ns = stamp, record.campaign_ns
            when, t = commands_for(stamp, self._time.period_ns), record.campaign_ns * 1e-9
            self._feet_sensors.tick = (record.ranges, record.contacts)
        if self.campaign.range_of is None:
            self._wire_sensors(self.campaign)
        self._view.body = body
        self._view.place(self._surfaces_at(frame, readings))
        if not self.campaign.runner and t >= self.campaign.start_time:
            self._view.baselines = {foot: r.position.copy() for foot, r in readings.items()}
        tick = self.campaign.step(t, readings)
        refusal = release_refusal(self._view.held(), tick.magnets, FACING_UP) if tick.magnets else None
        if refusal is not None:  # nothing of this tick is sent: every foot stays as it is
            self.campaign.abort(refusal)
            self.shell.counts["magnet_offs_refused"] += 1
            tick = Tick(events=[f"failed: {refusal}"])
        if tick.stance is not None:
            self._view.stance = {f: StanceMode[m] for f, m in tick.stance.items()}
        if tick.target is not None:
            self._view.target = tick.target
        if not self._replaying:
            for event in tick.events:
                self.get_logger().info(event)
            if tick.magnets:
                self._pub_magnets.publish(magnet_command_to_msg(self._time.magnets_stamp(stamp), tick.magnets))
            self._publish_target(when, tick.target, tick.body)
            self._publish_status(when, t)
            if self._time.telemetry_due(stamp) and msg is not None:
                self.get_logger().info("\n" + self._telemetry(msg, t))
        next_one = self.route.next_due
        if self.campaign.done and not self.campaign.failed and next_one and not self._time.over(stamp):
            self._hand_over(t)
        elif self.campaign.done or self._time.over(stamp):
            self._finish(when, t)

    def _hand_over(self, t: float) -> None:
        """The campaign is done: the climb after it starts, in its own corner's frame (its ticks say
        so; it steps on foot states in that frame once the IK plans there)."""
        ended = self.route.hand_over(t)
        self._view.stance = {foot: StanceMode[mode] for foot, mode in self.campaign.stance.items()}
        after = "its way back" if self.campaign.back else self.campaign.sequence
        self.get_logger().info(f"{ended.sequence} done at {t:.3f} s: {after} next, in {self._frame!r}")

    # --- outputs --------------------------------------------------------------------------------
    def _publish_target(self, when: int, target, body: Pose | None = None) -> None:
        """The tick for the solve at ``when``: the swing target and body target if any (an empty
        foot: a tick with no swing target)."""
        phase = ""
        if target is not None or body is not None:
            runner = self.campaign.runner
            phase = runner.phase.name if runner is not None else ""
        foot, goal = target if target is not None else ("", None)
        tick = TargetTick(when, self._view.stance, foot, goal, body, phase)
        self._pub_target.publish(ik_target_to_msg(tick, self._frame))

    def _status(self, when: int, t: float) -> SequenceStatusData:
        """The sequence's progress at the step stamped ``when`` (ns), sequence time ``t`` (s)."""
        status = self.campaign.status(t)
        out = SequenceStatusData(
            status.sequence, status.foot, done=status.done, failed=status.failed, message=status.message
        )
        if status.runner is not None:
            r = status.runner
            runner = self.campaign.runner
            out = replace(
                out,
                phase=r.phase,
                phase_index=r.phase_index,
                phase_count=r.phase_count,
                phase_progress=r.phase_progress,
                elapsed=max(0.0, t - self.campaign.start_time),
                # on the stamps' clock: a reader that missed messages still gets it
                phase_start=when * 1e-9 - (t - runner.phase_start) if runner is not None else 0.0,
            )
        return out

    def _publish_status(self, when: int, t: float) -> None:
        self._pub_status.publish(sequence_status_to_msg(when, self._status(when, t)))

    def _on_sim_reset(self, stamp: int) -> None:
        """The sim put the robot back in its initial state: the sequence starts again from its
        start, at the first foot states stamped from the reset (the sim starts the new time line
        on a whole second, so the run repeats a fresh one, shifted)."""
        if self.shell.resets.reset(stamp) and not self.finished.is_set():
            self._time.reset_ns = stamp
            self.get_logger().warning(f"the sim was reset at {stamp * 1e-9:.3f} s: the sequence starts again")
            # the readings' time line starts over at the reset, as a fresh run's at its start: the
            # first foot states from it wait for no reading the old line had (and take none of them)
            self._feet_sensors.readings.drop_before(stamp)
            self._step_awaiting()  # foot states of the new line may have come before the notice

    def _finish(self, when: int, t: float) -> None:
        problems = []
        if self.campaign.failed:
            problems.append(self.campaign.message)
        elif not self.campaign.done:
            problems.append(f"not done within {self._time.duration_ns * 1e-9:g} s of sim time")
        room = scene(scene_of(self.campaign.sequence))
        held = {foot: room.climbed_onto for foot in self.campaign.planted}  # w2c: the ceiling
        walk = self.campaign.walk
        if self.campaign.down or (walk is not None and walk.surface == "floor"):  # every foot held on the floor
            held = {foot: room.stood_on for foot in FEET}
        for foot, goal in held.items():
            enabled, surface, contact = self._view.magnet(foot)
            if not held_on(enabled, surface, contact, goal):
                problems.append(
                    f"{foot} is not held on the {goal} (magnet {'on' if enabled else 'off'}, surface {surface}, "
                    f"contact {contact})"
                )
        body = self._view.body
        pitch = body.pitch_deg if body is not None else None
        if self.campaign.moves_body and not self.campaign.down and not pitched_enough(pitch):
            problems.append(f"the body is pitched {pitch or 0.0:.1f} deg, not at least {MIN_PITCH_DEG:g}")
        if self.campaign.down and not level(pitch):
            problems.append(f"the body is pitched {pitch or 0.0:.1f} deg after the way down, not level")
        start, stand = self.campaign.walk_from, self.campaign.stand
        if self.campaign.done and body is not None and not self.campaign.down:  # the way down ends level
            short = ""
            if stand is not None:  # the walk ends where the stand starts: judged where the stand ends
                short = stand.shortfall(body)
            elif walk is not None and start is not None:
                short = walk_shortfall(walk, body.position - start)
            if short:
                problems.append(short)
        self.succeeded = not problems
        done = f"done: {', '.join(self.campaign.planted) or 'no foot'} planted"
        all_held = f"every foot held on the {room.stood_on}"
        if self.campaign.down:
            done = f"done, then the way down: {all_held}"
        message = "; ".join(problems) or f"{self.campaign.sequence} {done}"
        message = self.route.verdict(message, not problems, all_held)
        if self.shell.counts["ik_rejections_of_our_input"]:
            message += f" ({self.shell.counts['ik_rejections_of_our_input']} IK rejections of our input)"
        final = sequence_status_to_msg(
            when, replace(self._status(when, t), done=True, failed=not self.succeeded, message=message)
        )
        self._pub_status.publish(final)
        self._pub_final.publish(final)
        log = self.get_logger().info if self.succeeded else self.get_logger().error
        log(f"run {'succeeded' if self.succeeded else 'FAILED'} at t={t:.3f} s: {message}")
        self.finished.set()

    def _publish_diagnostics(self) -> None:
        health, campaign = self.shell.health, self.campaign
        problems = health.summary()
        phase = campaign.runner.phase.name if campaign.runner is not None else "SETTLE"
        state = "done" if self.finished.is_set() else f"{campaign.foot} {phase}"
        values = {
            "sequence": campaign.sequence,
            "foot": campaign.foot,
            "phase": phase,
            "planted": ",".join(campaign.planted) or "none",
            "resumed_with": ",".join(campaign.resumed) or "none",
            "restarts": self.shell.counts["restarts"],
            "ik_rejections_of_our_input": self.shell.counts["ik_rejections_of_our_input"],
            "magnet_offs_refused": self.shell.counts["magnet_offs_refused"],
            "contact_readings_distrusted": self.shell.counts["contact_readings_distrusted"],
            "stepped_without_readings": self.shell.counts["stepped_without_readings"],
            "sim_time": max(self._time.last_stamp, 0) * 1e-9,
        }
        warn = bool(problems) and not self.finished.is_set()
        self.shell.publish("warn" if warn else "ok", ", ".join(filter(None, [state, problems])), values)

    def _telemetry(self, msg: FootStates, t: float) -> str:
        status = self.campaign.status(t)
        feet = {}
        for f in msg.feet:
            q = f.pose.orientation
            feet[f.foot] = FootView(
                f.foot,
                StanceMode(f.mode).name,  # checked when the message came
                np.array([f.pose.position.x, f.pose.position.y, f.pose.position.z]),
                face_normal((q.w, q.x, q.y, q.z)),
                f.in_contact,
                f.penetration,
                self._view.magnet(f.foot)[0],
            )
        view = self._view
        target = view.target[1] if view.target is not None and view.target[0] == status.foot else None
        drift = {
            foot: float(np.linalg.norm(feet[foot].position - base))
            for foot, base in view.baselines.items()
            if foot in feet and feet[foot].mode == StanceMode.POSITION.name
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
            view.body.pitch_deg if view.body is not None else None,
        )


def main(args: list[str] | None = None) -> int:
    """Run the sequencer node (executable ``sally_sequencer``)."""
    return run_node(
        "sally_sequencer",
        SequencerNode,
        args,
        run=lambda node, executor, stop: run_until_finished(node, executor, stop, EXIT_FAILED),
    )


if __name__ == "__main__":
    sys.exit(main())
