"""The IK node: whole-body mink IK between the sequencer and the controller.

It solves the states whose stamp is a multiple of ``ik_period`` (5 ms of sim time), taking the
/joint_states (``state_topic``: or the sim's /sally/odom_joint_states, the same messages at the
odometry's rate, for an IK in another process) and /sally/odom messages carrying that stamp, one
differential step each, and publishes
``/sally/joint_targets`` (motor joints, stamped with that state's stamp: exactly one message per
IK-period state), ``/sally/ik_status`` and ``/sally/foot_states``. What a solve needs from the
sequencer comes in one message on ``/sally/ik_target``: every foot's stance, the swing foot's target,
the body target. Malformed or non-finite targets, unknown feet
and bad stances are rejected with a reason (logged, counted per topic and reason on
/diagnostics, reported as REJECTED on /sally/ik_status); so are non-finite, implausible,
malformed, unknown-joint or out-of-order states and odometry. Nothing non-finite is ever
published. States that start over at an older stamp after a silence (a new sim) reset the IK as
if it had just started.

With ``target_sync`` (lockstep graphs) a solve waits for the sequencer's target stamped with that
state (an empty foot is a tick: no target this step), at most ``target_wait`` wall seconds, so the
run does not depend on whether the target or the state arrives first. A target is judged against
the stances it carries. Foot states and the sequencer's targets are kept (TRANSIENT_LOCAL) for late
readers: a restarted IK resumes from the newest.
"""

from __future__ import annotations

import struct
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
from nav_msgs.msg import Odometry
from rclpy.node import Node
from sensor_msgs.msg import JointState

from sally_description import JOINT_NAMES, LEGS, build_model
from sally_description.constants import ACTUATED_JOINT_NAMES, hip_site
from sally_description.contact import FootContactMonitor, nearest
from sally_description.pose import Pose
from sally_description.scene import DEFAULT_SCENE, SCENES, scene
from sally_description.stance_load import StanceLoad
from sally_interfaces.msg import FootStates, IKStatus
from sally_interfaces.msg import IKTarget as IKTargetMsg
from sally_node_common import StartupError, run_node
from sally_node_common.checkpoint import Checkpoint, CheckpointError
from sally_node_common.foot_states_msg import FootStateData, foot_states_to_msg
from sally_node_common.ik_status_msg import IKCode, IKStatusData, ik_status_to_msg
from sally_node_common.ik_target import IKTarget
from sally_node_common.ik_target_msg import TargetTick, ik_target_from_msg
from sally_node_common.inputs import InputError, StampOrder, joint_arrays
from sally_node_common.kept_topics import subscribe_kept
from sally_node_common.messages import odometry_pose
from sally_node_common.node_shell import NodeShell
from sally_node_common.parameters import Param, ParameterTable
from sally_node_common.partners import publishes
from sally_node_common.qos import KEPT, RELIABLE_DEEP, STREAM
from sally_node_common.stamps import set_stamp, stamp_ns
from sally_node_common.time_contract import IK_PERIOD, ODOM_JOINT_STATES, is_ik_tick
from sally_node_common.wall_timers import wall_timer

from .errors import IKError
from .load_feed import LoadFeed
from .planning_frame import planning_frames
from .solve_process import SolveProcess
from .stamp_sync import StampPairs, TickWait
from .whole_body_ik import STATE_BYTES, IKConfig, StanceMode, WholeBodyIK

STATES, ODOM, TARGET = "/joint_states", "/sally/odom", "/sally/ik_target"
COSTS = (
    "posture_cost",
    "body_position_cost",
    "body_orientation_cost",
    "stance_position_cost",
    "stance_orientation_cost",
)
_DEFAULTS = IKConfig()
TABLE = ParameterTable(
    (
        Param("ik_period", IK_PERIOD, "time between IK solves", low=0.0005, high=1.0, unit="s of sim time"),
        Param("damping", _DEFAULTS.damping, "mink damping", low=0.0, high=10.0, read_only=True),
        Param("solver", _DEFAULTS.solver, "QP solver", choices=("daqp", "quadprog"), read_only=True),
        Param(
            "target_sync",
            False,
            "wait for the sequencer's target stamped with a state before solving it (lockstep)",
            read_only=True,
        ),
        Param(
            "state_topic",
            STATES,
            "the joint states it reads: every one, or (an IK in another process than the sim) those that go out "
            "with the odometry, the states it solves",
            choices=(STATES, ODOM_JOINT_STATES),
            read_only=True,
        ),
        Param(
            "solve_process",
            False,
            "solve in a process of its own, the graph's other Python going on meanwhile (a composed graph)",
            read_only=True,
        ),
        Param(
            "scene",
            DEFAULT_SCENE,
            "the scene whose climbed corner the IK works in (the sim's odometry, in the room's frame, is turned into "
            "it; the foot states and the targets are in it; the stance load is computed in the room, gravity -z); a "
            "target in the frame of another corner of the scene (the room's wall-ceiling corner: 'corner') moves the "
            "IK there",
            choices=tuple(SCENES),
            read_only=True,
        ),
        Param(
            "target_wait", 2.0, "how long to wait for a synced target", low=0.0, high=60.0, open_low=True, unit="wall s"
        ),
        *(Param(name, getattr(_DEFAULTS, name), f"IK {name}", low=0.0, high=1e4, read_only=True) for name in COSTS),
        Param(
            "checkpoint",
            "",
            "file the IK keeps its stance locks in after every solve: one started again with it goes on with them "
            "('' = none: a restarted one locks the stance feet where it finds them; not with solve_process)",
            read_only=True,
        ),
    )
)
_NODE_STATE = struct.Struct("<qB4b4d")
"""The IK node's part of its checkpoint: the last state solved (ns), the corner it plans in (its
index), each foot's contact baseline (its surface's index among the faces, -1 none; its height)."""
PENDING = 64
"""How many unmatched joint-state / odom stamps are kept while waiting for their partner."""
UNSTAMPED = 16
"""How many refusals made before the first solve wait for its stamp (the newest kept)."""


@dataclass(frozen=True)
class ModelIndex:
    """Where the IK's model keeps what the node reads and writes."""

    qpos: np.ndarray
    """qpos addresses of the measured joints (JOINT_NAMES order)."""
    actuated: np.ndarray
    """qpos addresses of the motor joints (ACTUATED_JOINT_NAMES order: the joint targets)."""
    hip_sites: dict[str, int]
    """Each leg's hip pivot site."""

    @staticmethod
    def of(model) -> ModelIndex:
        """The addresses in ``model``."""
        return ModelIndex(
            np.array([model.joint(n).qposadr[0] for n in JOINT_NAMES]),
            np.array([model.joint(n).qposadr[0] for n in ACTUATED_JOINT_NAMES]),
            {leg: model.site(hip_site(leg)).id for leg in LEGS},
        )


@dataclass
class NextSolve:
    """What the next solve takes: the stances, the swing target and the body target the sequencer's
    ticks set, and whether it takes the stance locks from the measured feet, as the first one does
    (``retake``: after a switch of frame)."""

    stance: dict[str, StanceMode] = field(default_factory=dict)
    target: tuple[str, IKTarget] | None = None
    body: Pose | None = None
    retake: bool = False


def _open_checkpoint(path: str) -> tuple[Checkpoint, bytes | None]:
    """The checkpoint at ``path`` ('' = none) to write in, and the locks an IK before this one left
    in it, kept until the first state says whether they are of its time line (they are taken up
    then) or of an ended one; StartupError for a checkpoint that cannot be read."""
    checkpoint = Checkpoint(Path(path) if path else None, _NODE_STATE.size + STATE_BYTES)
    try:
        return checkpoint, checkpoint.read()
    except CheckpointError as exc:
        raise StartupError(str(exc)) from None


@dataclass
class StatusStamps:
    """The stamp the IK's statuses go out with: the latest solved state's (None before the first
    solve), and the refusals made before it (a restarted IK catching up on kept history), held until
    it and stamped with its state, so that status stamps never go back across a restart."""

    solved: int | None = None
    held: list[IKStatusData] = field(default_factory=list)
    """At most :data:`UNSTAMPED`, the newest."""

    def refused(self, refusal: IKStatusData) -> int | None:
        """The stamp to report ``refusal`` with now; None: it is held until the first solve."""
        if self.solved is None:
            self.held = [*self.held[-(UNSTAMPED - 1) :], refusal]
        return self.solved

    def solve(self, stamp: int) -> list[IKStatusData]:
        """The state ``stamp`` is solved: the refusals held until it (to report with its stamp)."""
        self.solved, held, self.held = stamp, self.held, []
        return held


@dataclass
class InsideSolve:
    """What arrives while a solve's outputs are computed and published, in one process where a
    reader's callback runs inside the publish call."""

    queued: list[tuple[int, np.ndarray, Pose]] | None = None
    """The states released meanwhile (the sequencer's tick inside the foot states' delivery, with an
    IK latency): solved after it, in order; None between solves."""
    solving: bool = False
    """Whether a solve's outputs are being computed and published (:meth:`IKNode._solve_one`)."""
    later: list[tuple[IKTargetMsg, bool]] = field(default_factory=list)
    """Targets delivered while a solve went on, taken after its outputs are out (:meth:`IKNode._on_target`)."""


class IKNode(Node):
    """The IK node: joint states and odometry in, joint targets and foot states out, one step per IK tick."""

    def __init__(self, **kwargs) -> None:
        super().__init__("sally_ik", **kwargs)
        self.shell = NodeShell(
            self,
            TABLE,
            "sally_ik: solver",
            self._publish_diagnostics,
            orders={
                STATES: StampOrder("joint state"),
                ODOM: StampOrder("odometry"),
                TARGET: StampOrder("IK target", gap=None),
            },
            on_change=lambda names: self._read_settings(),
            on_reset=self._on_sim_reset,
        )
        chosen = scene(str(self.get_parameter("scene").value))
        self._corners = planning_frames(chosen.name)
        """The frames the IK can plan in, by TF name: its scene's climbed corner's, and (the room) the
        wall-ceiling corner's; a target in another of them switches the IK to it (:meth:`_switch_frame`)."""
        room = build_model(scene=chosen.name, in_room=True)
        self._load = LoadFeed(StanceLoad(room))
        """The body's weight on the stance feet, on the scene's model in the room (gravity -z) at the
        room's state, whatever corner the IK plans in."""
        model = build_model(scene=chosen.name) if chosen.turned else room  # the planning model: its corner's frame
        self._plan = self._corners[chosen.planning_frame]
        """The frame planned in (its TF name is its foot states' and the targets'): its scene's first."""
        WholeBodyIK(model).solve()  # warm up: the first solve is slow, and a lockstep graph waits on it
        self._index = ModelIndex.of(model)
        self._pairs: StampPairs[np.ndarray, Pose] = StampPairs(PENDING)
        """Checked joint positions (JOINT_NAMES order) and body poses by stamp, until matched."""
        self._stamps = StatusStamps()
        self._next = NextSolve()
        self._ticks: TickWait[tuple[int, np.ndarray, Pose]] = TickWait(bool(self.get_parameter("target_sync").value))
        """Matched states (stamp, joints, body) waiting for the sequencer's tick; wall clock."""
        self._ticks.partner_present = lambda: publishes(self, TARGET)  # a slow sequencer is waited for
        self._inside = InsideSolve()
        self.idle_work: Callable[[Callable[[], bool]], object] | None = None
        """Work for the wait on a solve in its own process, run ``idle_work(until)`` (a composed
        container gives its host's deferred work, :attr:`sally_node_common.host.Host.later`)."""
        self._read_settings()  # ik_period, target_wait (again on every accepted set request)
        self.ik = self._new_ik(model)
        if isinstance(self.ik, SolveProcess):
            self.get_logger().info(f"solving in a process of its own (the solve process, pid {self.ik.pid})")
        self._contacts = FootContactMonitor(self._faces)
        path = str(self.get_parameter("checkpoint").value) if isinstance(self.ik, WholeBodyIK) else ""
        self._checkpoint, self._saved = _open_checkpoint(path)
        self._states = str(self.get_parameter("state_topic").value)
        """The joint-state topic read (/joint_states, or the sim's /sally/odom_joint_states)."""
        self.shell.health.watch(self._states)
        self.shell.health.watch(ODOM)
        self._pub_targets = self.create_publisher(JointState, "/sally/joint_targets", KEPT)
        self._pub_status = self.create_publisher(IKStatus, "/sally/ik_status", STREAM)
        self._pub_feet = self.create_publisher(FootStates, "/sally/foot_states", KEPT)  # a late sequencer still steps
        self.create_subscription(JointState, self._states, self._on_state, RELIABLE_DEEP)
        self.create_subscription(Odometry, ODOM, self._on_odom, RELIABLE_DEEP)
        subscribe_kept(self, IKTargetMsg, TARGET, self._on_target)  # a sequencer's kept ticks (a restarted IK
        # resumes: each carries every foot's stance), and anyone's
        wall_timer(self, 0.05, self._check_wait)

    # --- inputs ---------------------------------------------------------------------------------
    def _on_state(self, msg: JointState) -> None:
        stamp = stamp_ns(msg.header.stamp)
        try:
            q, _ = joint_arrays(msg.name, msg.position, msg.velocity, JOINT_NAMES)
            if self.shell.orders[STATES].admit(stamp):
                self.shell.resets.new_sim()
                self._start_over(f"joint states start over at {stamp * 1e-9:.3f} s (a new sim)")
        except InputError as exc:
            return self.shell.health.reject(self._states, exc.reason, str(exc))
        self.shell.health.heard(self._states)
        self.shell.resets.state(stamp)
        self._matched(stamp, self._pairs.add_first(stamp, q))
        return None

    def _on_odom(self, msg: Odometry) -> None:
        stamp = stamp_ns(msg.header.stamp)
        try:
            body = odometry_pose(msg)  # in the room: turned into the planning frame when solved
            self.shell.orders[ODOM].admit(stamp)
        except InputError as exc:
            return self.shell.health.reject(ODOM, exc.reason, str(exc))
        self.shell.health.heard(ODOM)
        self._matched(stamp, self._pairs.add_second(stamp, body))
        return None

    def _new_ik(self, model) -> WholeBodyIK | SolveProcess:
        """The whole-body IK as at launch (stance locks at the baked pose, no targets); one that
        solves in its own process is started over, its process kept."""
        config = IKConfig(
            dt=self._period,  # one differential step per IK period
            damping=self.get_parameter("damping").value,
            solver=self.get_parameter("solver").value,
            **{name: self.get_parameter(name).value for name in COSTS},
        )
        ik = getattr(self, "ik", None)
        if isinstance(ik, SolveProcess):
            ik.restart(config)
            return ik
        return SolveProcess(model, config) if self.get_parameter("solve_process").value else WholeBodyIK(model, config)

    def _on_sim_reset(self, stamp: int) -> None:
        if self.shell.resets.reset(stamp):
            self._start_over(f"the sim was reset at {stamp * 1e-9:.3f} s")

    def _plan_in(self, frame: str) -> None:
        """Plan in ``frame`` (one of :attr:`_corners`): the odometry turned into it (the stance load
        starts over)."""
        self._plan = self._corners[frame]
        self._load.clear()

    def _switch_frame(self, frame: str) -> None:
        """Plan in ``frame`` (one of :attr:`_corners`) from the next solve on: a route's next climb.
        Every lock, target and contact baseline was in the old frame: the IK starts over as at
        launch (its stances and body held where the next solve measures them) but for the stamps'
        order and the states waiting for it, which are the room's."""
        old = self._frame
        self._plan_in(frame)
        self._next = NextSolve(retake=True)
        self._contacts = FootContactMonitor(self._faces)
        self.ik = self._new_ik(self.ik.model)
        self.get_logger().info(f"planning in {frame!r} (was {old!r}): stance locks from the next state")

    def _start_over(self, why: str) -> None:
        """States from an older time after a silence (a new sim), or the sim reset (``why``): start
        as if just launched."""
        self.get_logger().warning(f"{why}: IK reset")
        self._pairs.clear()
        self.shell.orders[ODOM].restart()
        self.shell.orders[TARGET].restart()
        self._stamps.solved = None
        first = next(iter(self._corners))
        if self._frame != first:  # a route's later climb: the new run starts in its first corner
            self._plan_in(first)
        self._load.clear()
        self._ticks.restart()
        self._next = NextSolve()
        self._contacts = FootContactMonitor(self._faces)
        self.ik = self._new_ik(self.ik.model)
        self.shell.counts["restarts"] += 1

    @property
    def _period_ns(self) -> int:
        """Sim time between solves (ns)."""
        return round(self._period * 1e9)

    @property
    def _frame(self) -> str:
        """The TF name of the frame planned in."""
        return self._plan.name

    @property
    def _faces(self) -> tuple:
        """The steel surfaces in the frame planned in."""
        return self._plan.faces

    def _read_settings(self) -> None:
        self._period = float(self.get_parameter("ik_period").value)
        """Sim seconds between solves, and each solve's differential step."""
        ik = getattr(self, "ik", None)
        if ik is not None:  # the differential step follows the period (a set request)
            ik.config = replace(ik.config, dt=self._period)
        self._ticks.wait = self.get_parameter("target_wait").value

    def _matched(self, stamp: int, pair: tuple[np.ndarray, Pose] | None) -> None:
        """A state and its odometry are both in: solve it when it is an IK state not solved yet."""
        # IK states are the multiples of the period: the controller (and a lockstep sim through it)
        # knows which stamps get targets
        if pair is None or not is_ik_tick(stamp, self._period_ns):
            return
        if self._stamps.solved is not None and stamp <= self._stamps.solved:
            return  # a state seen again (a lockstep re-send) was answered once already
        solved = self._stamps.solved
        for ready in self._ticks.state(stamp, (stamp, *pair), time.monotonic(), solved is None, solved):
            self._solve(*ready)

    def _check_wait(self) -> None:
        for timed_out in self._ticks.check(time.monotonic()):
            self.get_logger().warning(
                f"no sequencer target for {timed_out[0] * 1e-9:.3f} s within {self._ticks.wait:g} s; solving without",
                throttle_duration_sec=5.0,
            )
            self._solve(*timed_out)

    def _on_target(self, msg: IKTargetMsg, kept: bool = False) -> None:
        """A sequencer's tick: stances, a swing target (an empty foot: none this step), a body target.

        One delivered while a solve goes on (a host hands the sequencer's answer to the solve's foot
        states over at once, inside their publication) is taken once that solve's outputs are out, as
        over DDS: a tick that moves the IK to another corner's frame must not change the frame, the
        stances or the stance load of the solve still publishing."""
        if self._inside.solving:
            self._inside.later.append((msg, kept))
            return None
        try:
            frame = msg.header.frame_id
            if frame not in ("", *self._corners):
                raise InputError(
                    "unknown",
                    f"IK target in frame {frame!r}: this IK works in {self._frame!r} and knows "
                    f"{sorted(self._corners)} (its scene's corners)",
                )
            tick = ik_target_from_msg(msg)
            if self.shell.resets.stale(tick.stamp):
                self.shell.counts["before_reset"] += 1
                return None
            if tick.stamp:
                self.shell.orders[TARGET].admit(tick.stamp)
            if frame not in ("", self._frame):  # a well-formed tick in order, in another corner's frame
                self._switch_frame(frame)
        except InputError as exc:
            return self._reject(TARGET, exc.reason, msg.foot, f"{exc}", kept)
        self.shell.health.heard(TARGET)
        self._take_target(tick)
        return None

    def _take_target(self, tick: TargetTick) -> None:
        """A checked tick: its stances and body target kept for the next solve, its target judged
        against those stances (and kept), and the sequencer's step at its stamp."""
        stamp, foot, target = tick.stamp, tick.foot, tick.target
        # stances apply at the next solve, after the measured state is in: a lock (and the contact
        # baseline) taken from the IK's own last output sat up to 10 mm inside the wall for a foot
        # seated with its face a few degrees off flat, and the foot's contact flag was lost
        self._next.stance.update(tick.stance)
        if tick.body is not None:
            self._next.body = tick.body
        if (
            target is not None
            and self.ik.modes[foot] is not StanceMode.SWING
            and self._next.stance.get(foot) is not StanceMode.SWING
        ):
            self._reject(
                TARGET,
                "not_swinging",
                foot,
                f"foot {foot} is in {self.ik.modes[foot].name} stance; only a SWING foot takes targets",
            )
        elif target is not None:
            self._next.target = (foot, target)
            self.shell.counts["targets"] += 1
        if stamp:  # a well-formed target in order moves a synced graph on, even one refused for the stance
            for released in self._ticks.tick(stamp):
                self._solve(*released)
        return None

    def _apply_stance(self) -> None:
        for foot, mode in self._next.stance.items():
            if self.ik.modes[foot] is not mode:
                self._set_stance(foot, mode)
        self._next.stance = {}

    def _set_stance(self, foot: str, mode: StanceMode) -> None:
        """``foot`` in ``mode`` where it is now, its contact measured from there."""
        self.ik.set_stance(foot, mode)
        if mode is StanceMode.SWING:
            self._contacts.clear(foot)
        else:
            self._contacts.hold(foot, self.ik.foot_pose(foot).translation())

    def _reject(self, topic: str, reason: str, foot: str, text: str, kept: bool = False) -> None:
        """Counted and logged per topic and reason, and reported as REJECTED on /sally/ik_status
        (stamped with the latest solved state, so that status stamps never go back; before the first
        solve, held until it); old history of a kept topic (this IK restarted) is only counted."""
        if not self.shell.health.reject(topic, reason, text, replayed=kept):
            return
        refusal = IKStatusData(
            IKCode.REJECTED, foot if foot in LEGS else "", message=f"rejected {topic} ({reason}): {text}"
        )
        now = self._stamps.refused(refusal)
        if now is not None:
            self._pub_status.publish(ik_status_to_msg(now, refusal))

    # --- solving --------------------------------------------------------------------------------
    def _solve(self, stamp: int, joints: np.ndarray, body: Pose) -> None:
        """Solve the state ``stamp``; the foot states go out first (the sequencer steps on them while
        a solve in its own process runs), then the targets and the status."""
        if self._inside.queued is not None:  # released by a delivery of this solve's outputs: after them
            self._inside.queued.append((stamp, joints, body))
            return
        self._inside.queued = []
        try:
            self._solve_then_take(stamp, joints, body)
            while self._inside.queued:
                self._solve_then_take(*self._inside.queued.pop(0))
        finally:
            self._inside.queued = None

    def _solve_then_take(self, stamp: int, joints: np.ndarray, body: Pose) -> None:
        """Solve one state, then take the targets delivered while it was solved (they may release
        more states: queued)."""
        self._inside.solving = True
        try:
            self._solve_one(stamp, joints, body)
        finally:
            self._inside.solving = False
        later, self._inside.later = self._inside.later, []
        for msg, kept in later:
            self._on_target(msg, kept)

    def _solve_one(self, stamp: int, joints: np.ndarray, body: Pose) -> None:
        qpos = self.ik.model.qpos0.copy()
        qpos[:3], qpos[3:7] = body.position, body.quat  # the room's state: the stance load's
        qpos[self._index.qpos] = joints
        room_qpos = qpos
        if self._plan.corner_from_room is not None:  # the odometry, in the room, in the planning frame
            body = self._plan.corner_from_room.after(body)
            qpos = qpos.copy()
            qpos[:3], qpos[3:7] = body.position, body.quat
        self.ik.update(qpos)
        if self._stamps.solved is None and self._take_saved(stamp):
            pass  # the locks of the IK before this one (it was killed)
        elif self._stamps.solved is None or self._next.retake:  # the measured feet and body become the stance locks
            self._lock_as_measured(stamp)
        self._apply_stance()
        if self._next.body is not None:
            self.ik.set_body_target(self._next.body)
            self._next.body = None
        if self._next.target is not None:
            foot, target = self._next.target
            self._next.target = None
            try:
                self.ik.set_target(foot, target)
            except IKError as exc:
                self._reject(TARGET, "invalid", foot, str(exc))
        # (a refusal the foot states' delivery sets off is stamped with it)
        for refusal in self._stamps.solve(stamp):
            self._pub_status.publish(ik_status_to_msg(stamp, refusal))
        if isinstance(self.ik, SolveProcess):
            self.ik.start_solve()
            self._pub_feet.publish(self._foot_states(stamp))  # (the local IK: the state given, as before a solve)
            result = self.ik.finish_solve(self.idle_work)
            if self.ik.failed is not None and not self.shell.counts["solve_process_failed"]:
                self.shell.counts["solve_process_failed"] += 1
                self.get_logger().error(self.ik.failed)
        else:
            feet = self._foot_states(stamp)
            result = self.ik.solve()
            self._pub_feet.publish(feet)
        targets = result.qpos[self._index.actuated]
        if not np.isfinite(targets).all():  # never publish NaN (the core already guarantees it)
            self.shell.counts["non_finite_solutions"] += 1
            self.get_logger().error("IK produced non-finite targets; not published", throttle_duration_sec=1.0)
            return None
        out = JointState(name=list(ACTUATED_JOINT_NAMES), position=targets.tolist())  # a new one: its readers' (and a
        set_stamp(out.header, stamp)  # deferred tap's, which serializes it later)
        stance = [leg for leg in LEGS if self.ik.modes[leg] != StanceMode.SWING]
        out.effort = self._load.torques(stamp, room_qpos, stance).tolist()  # the body's weight on the stance feet
        self._pub_targets.publish(out)
        if self._checkpoint.path is not None and isinstance(self.ik, WholeBodyIK):  # never with solve_process
            self._checkpoint.write(self._node_state(stamp) + self.ik.state())
        status = IKStatusData(
            result.code, result.foot, result.position_error, result.orientation_error, result.solve_time, result.message
        )
        self._pub_status.publish(ik_status_to_msg(stamp, status))
        self.shell.counts["solves"] += 1
        self.shell.counts[f"code_{result.code.name.lower()}"] += 1
        return None

    def _lock_as_measured(self, stamp: int) -> None:
        """A new run (or a switch of frame): each foot holds the surface it stands on, the body where
        it is (a start on the climbed surface: the body pitched, so every stance face is held flat
        from the first tick)."""
        self._next.retake = False
        surfaces = {leg: nearest(self._faces, self.ik.foot_pose(leg).translation()).name for leg in LEGS}
        self.ik.conform = any(surface != self._plan.stand for surface in surfaces.values())
        for leg, surface in surfaces.items():
            self._set_stance(leg, StanceMode.POSITION if surface == self._plan.stand else StanceMode.POSE)
        self.ik.hold_body()
        self.get_logger().info(f"first state solved: {stamp * 1e-9:.3f} s; its feet are the stance locks")

    def _node_state(self, stamp: int) -> bytes:
        """This node's part of its checkpoint at the solve of ``stamp``."""
        names = [f.name for f in self._faces]
        held = self._contacts.baselines()
        surfaces = [names.index(held[leg][0]) if leg in held else -1 for leg in LEGS]
        return _NODE_STATE.pack(
            stamp,
            list(self._corners).index(self._frame),
            *surfaces,
            *(held[leg][1] if leg in held else 0.0 for leg in LEGS),
        )

    def _take_saved(self, stamp: int) -> bool:
        """The locks the IK before this one left (it was killed), taken up when they are of a solve
        before ``stamp``, this one's first (the same time line, gone on without it): whether they were."""
        saved, self._saved = self._saved, None
        if saved is None or len(saved) != _NODE_STATE.size + STATE_BYTES or not isinstance(self.ik, WholeBodyIK):
            return False
        solved, corner, *rest = _NODE_STATE.unpack(saved[: _NODE_STATE.size])
        if not solved < stamp:
            return False  # a new sim's first state
        frame = list(self._corners)[corner]
        if frame != self._frame:
            self._plan_in(frame)
            self._contacts = FootContactMonitor(self._faces)
        names = [f.name for f in self._faces]
        surfaces, bases = rest[:4], rest[4:]
        self._contacts.take({leg: (names[s], b) for leg, s, b in zip(LEGS, surfaces, bases) if s >= 0})
        self.ik.restore(saved[_NODE_STATE.size :])
        self.shell.counts["restored"] += 1
        self.get_logger().warning(f"went on with the stance locks of the solve of {solved * 1e-9:.3f} s ({frame!r})")
        return True

    def _foot_states(self, stamp: int) -> FootStates:
        data = self.ik.configuration.data
        feet = {}
        for leg in LEGS:
            pose = self.ik.foot_pose(leg)
            contact = self._contacts.readout(leg, pose.translation())
            feet[leg] = FootStateData(
                pose.translation(),
                np.asarray(pose.rotation().wxyz),
                data.site_xpos[self._index.hip_sites[leg]].copy(),
                self.ik.modes[leg],
                contact.in_contact,
                contact.penetration,
                contact.lift,
            )
        return foot_states_to_msg(stamp, feet, self._frame)

    def destroy_node(self) -> None:
        """The node, and the IK's solve process if it has one."""
        ik = getattr(self, "ik", None)  # (none when the constructor failed before it)
        if isinstance(ik, SolveProcess):
            ik.close()
        super().destroy_node()

    def _publish_diagnostics(self) -> None:
        counts = dict(sorted(self.shell.counts.items()))
        problems = self.shell.health.summary()
        warn = bool(problems or counts.get("code_stalled") or counts.get("code_infeasible"))
        values = {
            **counts,
            "sync_lost": self._ticks.lost,
            "target_wait_timeouts": self._ticks.timeouts,
            "states_dropped": self._ticks.dropped,
        }
        message = (
            ", ".join(filter(None, [problems, ", ".join(f"{k} {v}" for k, v in counts.items())]))
            or "waiting for states"
        )
        self.shell.publish("warn" if warn else "ok", message, values)


def main(args: list[str] | None = None) -> int:
    """Run the IK node (executable ``sally_ik_node``)."""
    return run_node("sally_ik", IKNode, args, start_errors=(IKError,))


if __name__ == "__main__":
    sys.exit(main())
