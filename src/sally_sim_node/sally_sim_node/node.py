"""The sim node: Sally's MuJoCo physics behind ROS 2 topics, services and parameters.

A thin layer: physics is :class:`Simulator`, sim time and the publish schedule :mod:`.sim_clock`,
pacing :class:`Pacer`, the hold :class:`EffortWatchdog`,
which effort answers count :mod:`.lockstep`, the /diagnostics statuses :mod:`.sim_diagnostics`, the
scene's topics (TF, markers, wrenches, camera) :class:`.scene_outputs.SceneOutputs`, the viewer
:class:`.viewer_bridge.ViewerBridge`, and every message is built or checked by :mod:`conversions`.
This module only wires them to ROS and runs the loop.

Publishes ``/clock``, ``/joint_states``, ``/sally/odom``, ``/sally/magnets``, ``/diagnostics`` and
``/sally_sim/holding`` (latched: true while the watchdog holds the pose because efforts stopped);
subscribes ``/sally/joint_efforts``, ``/sally/magnet_cmd`` and ``/sally_sim/external_force`` (a
test rig's force on a foot, e.g. the pull-off ramp); serves the ``simulation_interfaces`` standard
(:mod:`.sim_interfaces`: play, pause, stop, step, reset, entity states). Sim time is a step
counter, so stamps are exact; a reset restores the initial physical state but never turns
``/clock`` back. A magnet command stamped ahead of sim time is
applied at the step its stamp names (unstamped or past: before the next step).

Threads: the physics loop runs in the main thread and paces itself with ``time.sleep``; the
executor spins in a second thread (``spin_once`` costs ~90 us, far too much to call between 0.5 ms
steps). MuJoCo and the compiled kernels release the GIL, so callbacks run while a step computes.
Callbacks only swap in new command arrays or flags; anything that touches the physics state
(services, parameter changes) takes ``_physics`` lock, which the loop holds while it steps.
"""

from __future__ import annotations

import sys
import threading
import time
from collections import Counter
from collections.abc import Callable

import numpy as np
from diagnostic_msgs.msg import DiagnosticArray
from nav_msgs.msg import Odometry
from rclpy._rclpy_pybind11 import InvalidHandle, RCLError
from rclpy.node import Node
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import JointState
from std_msgs.msg import Bool, Header

from sally_description import JOINT_NAMES, LEGS, DescriptionError, PhysicsParams, build_model
from sally_description.constants import ACTUATED_JOINT_NAMES
from sally_interfaces.msg import ExternalForce, MagnetArray, MagnetCommand
from sally_node_common import StartupError, run_node, spin_until_shutdown
from sally_node_common.diagnostics import diagnostic_array
from sally_node_common.external_force_msg import external_force_from_msg
from sally_node_common.input_health import InputHealth
from sally_node_common.inputs import InputError
from sally_node_common.magnet_array_msg import magnet_array_to_msg
from sally_node_common.magnet_command_msg import magnet_command_from_msg
from sally_node_common.partners import SLOW_PARTNER_WAIT, keep_waiting, other_publishers, publishes
from sally_node_common.qos import LATCHED, LATEST, RELIABLE_DEEP
from sally_node_common.sim_resets import RESET_TOPIC
from sally_node_common.unique_names import full_name

from . import conversions as conv
from . import entities, sim_diagnostics
from .efforts import Efforts
from .errors import DivergenceError, SimulationError
from .joint_drive import JointCommandError, JointDrive, parse_joint_command
from .lockstep import EffortGate, LockstepWait, Step, Verdict
from .pacing import Pacer, PacingConfig
from .scene_outputs import SceneOutputs
from .sim_clock import PublishSchedule, SimClock
from .sim_control import Outcome, State, StepRun, reset_plan, step_refusal, transition
from .sim_interfaces import SimulationInterfaces
from .sim_parameters import TABLE, steps_per
from .simulator import Simulator
from .stamped_commands import StampedCommands
from .viewer_bridge import ViewerBridge, display_available

EXIT_DIVERGED = 3
LOCKSTEP_RESEND = 0.1
"""Wall seconds after which lockstep re-sends the state it waits on (a reply lost at discovery)."""
EFFORTS_LIVE = 0.1
"""Wall seconds since the last effort within which realtime/fast pacing treats the controller as live."""
LOCKSTEP_HELD_WAIT = 0.001
"""While the hold is on in lockstep, how long each period waits for a controller to come back (s)."""
PARTNER_POLL = 0.5
"""Wall seconds between two looks at the graph while a lockstep wait goes on past lockstep_timeout."""
SWITCH_INTERVAL = 0.0002
"""GIL switch interval (s) while the loop runs; Python's default is 5 ms, ten physics steps."""
IDLE_WAIT = 0.05
"""Wall seconds the loop waits between checks while paused or diverged."""
EFFORTS, MAGNET_CMD, EXTERNAL_FORCE = "/sally/joint_efforts", "/sally/magnet_cmd", "/sally_sim/external_force"
JOINT_COMMANDS = "/sally/joint_commands"
"""ros2_control's commands (command_source joint_commands): JointStateTopicSystem's command topic."""


class SimNode(Node):
    """The sim node: steps MuJoCo at 2 kHz and publishes the clock, joint states, magnets and visuals."""

    def __init__(self, **kwargs) -> None:
        super().__init__("sally_sim", **kwargs)
        # a refused start value raises; run_node reports it in one line (exit 2)
        TABLE.declare(self, on_change=self._apply_parameters)

        p = self._p
        try:
            params = PhysicsParams.from_file(p("params_file")) if p("params_file") else PhysicsParams()
            model = build_model(params=params, spawn=tuple(float(v) for v in p("initial_pose")))
            self.sim = Simulator(model, params=params, magnets_on={leg: leg in (p("magnets_on") or ()) for leg in LEGS})
        except (DescriptionError, SimulationError) as exc:
            raise StartupError(str(exc)) from None

        self.dt = self.sim.timestep
        self._dt_ns = conv.to_nanoseconds(self.dt)
        self._sim_clock = SimClock(self._dt_ns)
        self._pacer = Pacer(self.dt, PacingConfig(factor=float(p("real_time_factor"))))
        self._mode = p("pacing")
        self._source = p("command_source")
        if self._source == "joint_commands" and (self._mode == "lockstep" or p("synchronous")):
            raise StartupError(
                "command_source joint_commands cannot run lockstep or synchronous: ros2_control does not answer "
                "each state by its stamp; use pacing realtime (synchronous false) or fast"
            )
        self._efforts = Efforts(
            self.sim.actuators.effort_limit,
            self.dt,
            p("hold_kp"),
            p("hold_kd"),
            float(p("effort_timeout")),
            self._make_drive() if self._source == "joint_commands" else None,
        )
        """What the physics steps with: the controller's efforts, ros2_control's drive, or the hold."""
        self._paused = bool(p("start_paused"))
        self._stopped = False
        """Paused at the start state by a stop (SimulationState STOPPED) and not stepped since."""
        self._step_run: StepRun | None = None
        """The steps a client asked for while paused, taken by the loop (read and changed under _answer)."""
        self._resets_asked: list[Callable[[], None]] = []
        """What to call once the loop has reset (resets asked by clients; read and changed under _answer)."""
        self._stop = threading.Event()
        self._diverged: DivergenceError | None = None
        self._physics = threading.RLock()
        self._answer = threading.Condition()
        self._gate = EffortGate()  # read and changed under self._answer
        self._last_effort_wall = -float("inf")  # realtime/fast: when the latest effort came (monotonic)
        self._counts: Counter[str] = Counter()
        self._clock_rivals: list[str] = []
        """The other publishers of /clock last seen (said once per change)."""
        self._health = InputHealth(lambda text: self.get_logger().error(text))
        late = lambda text: self.get_logger().warning(text, throttle_duration_sec=5.0)  # noqa: E731
        self._commands = StampedCommands(self.sim, self._sim_clock, self._counts, late)
        """Magnet and external-force commands, applied at the step their stamp names."""
        self._apply_rates()

        self._joint_writer = conv.JointStateWriter(JOINT_NAMES)
        self._passive_joints = tuple(n for n in JOINT_NAMES if n not in ACTUATED_JOINT_NAMES)
        self._odom_writer = conv.OdometryWriter()
        self._pub_clock = self.create_publisher(Clock, "/clock", LATEST)
        self._pub_joints = self.create_publisher(JointState, "/joint_states", RELIABLE_DEEP)
        self._pub_odom = self.create_publisher(Odometry, "/sally/odom", RELIABLE_DEEP)
        self._pub_magnets = self.create_publisher(MagnetArray, "/sally/magnets", 10)
        self._pub_diag = self.create_publisher(DiagnosticArray, "/diagnostics", 10)
        self._pub_holding = self.create_publisher(Bool, "/sally_sim/holding", LATCHED)
        self._pub_holding.publish(Bool(data=False))
        camera = (int(p("camera_width")), int(p("camera_height"))) if float(p("camera_rate")) > 0 else None
        self._scene = SceneOutputs(self, self.sim, self.now_ns, camera)
        if self._scene.camera is not None:
            self._camera_every = steps_per(float(p("camera_rate")), self.dt)
            self._apply_rates()  # runs of steps now also stop at camera frames
        if self._efforts.drive is None:
            self.create_subscription(JointState, EFFORTS, self._on_efforts, RELIABLE_DEEP)
        else:
            self.create_subscription(JointState, JOINT_COMMANDS, self._on_joint_commands, 10)
        self.create_subscription(MagnetCommand, MAGNET_CMD, self._on_magnet_cmd, 10)
        self.create_subscription(ExternalForce, EXTERNAL_FORCE, self._on_external_force, RELIABLE_DEEP)
        self._pub_reset = self.create_publisher(Header, RESET_TOPIC, LATCHED)
        self._interfaces = SimulationInterfaces(self, self)
        self._next_diag = time.monotonic()
        self._viewer = self._open_viewer() if not p("headless") else None
        self.get_logger().info(
            f"Sally sim ready: {self._mode} pacing, dt {self.dt * 1e3:g} ms, magnets on {list(p('magnets_on') or [])}"
        )

    # --- parameters -----------------------------------------------------------------------------
    def _p(self, name: str):
        return self.get_parameter(name).value

    def _apply_parameters(self, names: set[str]) -> None:
        with self._physics:
            self._apply_parameter_names(names)

    def _apply_parameter_names(self, names: set[str]) -> None:
        if "real_time_factor" in names:
            self._pacer.set_factor(float(self._p("real_time_factor")), self.sim.time)
        if "pacing" in names:
            self._mode = self._p("pacing")
            self._pacer.restart(self.sim.time)
        if "effort_timeout" in names:
            self._efforts.watchdog.set_timeout(float(self._p("effort_timeout")))
        if names & {"hold_kp", "hold_kd"}:
            self._efforts.set_hold_gains(self._p("hold_kp"), self._p("hold_kd"))
        drive = self._efforts.drive
        if drive is not None and names & {"drive_kp", "drive_kd", "drive_kv"}:
            drive.kp, drive.kd, drive.kv = (float(self._p(n)) for n in ("drive_kp", "drive_kd", "drive_kv"))
        self._apply_rates()

    def _make_drive(self) -> JointDrive:
        """The ros2_control joint drive, holding the joints where they are until commanded."""
        kp, kd, kv = (float(self._p(n)) for n in ("drive_kp", "drive_kd", "drive_kv"))
        return JointDrive(kp, kd, kv, self.sim.actuators.effort_limit, self.sim.actuated_positions())

    def _apply_rates(self) -> None:
        self._clock_every = steps_per(float(self._p("clock_rate")), self.dt)
        self._state_every = steps_per(float(self._p("state_rate")), self.dt)
        # odometry goes out with every n-th state, so that it always carries a joint state's stamp
        self._odom_every = self._state_every * max(1, round(float(self._p("state_rate")) / float(self._p("odom_rate"))))
        self._telemetry_every = steps_per(float(self._p("telemetry_rate")), self.dt)
        self._tf_every = steps_per(float(self._p("tf_rate")), self.dt)
        self._visual_every = steps_per(float(self._p("visual_rate")), self.dt)
        self._diag_period = float(self._p("diagnostics_period"))
        self._gated = self._source == "efforts" and (
            self._mode == "lockstep" or (self._mode == "realtime" and bool(self._p("synchronous")))
        )
        """Every state is answered before the sim steps on (lockstep, or realtime synchronous)."""
        self._pacer.chunk = self.dt * (self._state_every if self._gated else 1)  # what one plan step is
        # where a run of physics steps has to stop to publish; a gated period publishes the state
        # at its start itself
        scene = getattr(self, "_scene", None)
        self._publications = PublishSchedule(
            {
                "clock": self._clock_every,
                **({} if self._gated else {"state": self._state_every}),
                "telemetry": self._telemetry_every,
                "tf": self._tf_every,
                "visuals": self._visual_every,
                **({"camera": self._camera_every} if scene is not None and scene.camera is not None else {}),
            }
        )
        self._lockstep_timeout = float(self._p("lockstep_timeout"))
        self._effort_max_age_ns = conv.to_nanoseconds(float(self._p("effort_max_age")))
        self._effort_wait = float(self._p("effort_wait"))

    # --- time -----------------------------------------------------------------------------------
    @property
    def now_ns(self) -> int:
        """Sim time now (ns), counted from the last reset."""
        return self._sim_clock.now_ns

    # --- main loop ------------------------------------------------------------------------------
    def run(self, executor, stop: threading.Event) -> int:
        """Step and publish until ``stop`` is set or the context shuts down. Returns the exit status."""
        self._stop = stop
        # the executor thread runs Python callbacks while a step computes; a short switch interval
        # keeps the physics from waiting milliseconds for the GIL when a step returns
        sys.setswitchinterval(SWITCH_INTERVAL)
        spinner = threading.Thread(
            target=spin_until_shutdown, args=(executor, self.context, stop), name="sally_sim executor", daemon=True
        )
        spinner.start()
        self._publish_clock()
        try:
            while self.context.ok() and not stop.is_set():
                if self._resets_asked:
                    self._reset()
                if self._diverged is not None and self._p("exit_on_divergence"):
                    self._publish_diagnostics()
                    return EXIT_DIVERGED
                if self._paused and self._diverged is None and self._step_run is not None:
                    self._take_step()
                elif self._paused or self._diverged is not None:
                    with self._answer:
                        if self._step_run is None and not self._resets_asked:
                            self._answer.wait(IDLE_WAIT)
                elif self._mode == "realtime" and self._gated:
                    self._paced_period()
                elif self._mode == "realtime":
                    with self._physics:
                        plan = self._pacer.plan(self.sim.time)
                        if plan.steps and not self._paused:
                            self._advance(plan.steps)
                    if not plan.steps:
                        time.sleep(plan.sleep)
                elif self._mode == "fast" or not self._gated:  # (lockstep without answers to wait for)
                    with self._physics:
                        if not self._paused:
                            self._advance(self._state_every)
                else:
                    self._lockstep_period()
                if time.monotonic() >= self._next_diag:
                    self._publish_diagnostics()
                if self._viewer is not None:
                    self._viewer.sync()
            return 0
        except (InvalidHandle, RCLError):
            if self.context.ok():
                raise
            return 0  # shut down (Ctrl-C, SIGTERM) while publishing
        finally:
            with self._answer:
                self._answer.notify_all()
            spinner.join(timeout=2.0)
            if self._viewer is not None:
                self._viewer.close()

    def _advance(self, n: int) -> None:
        """Step ``n`` physics steps with the latest efforts (or the hold), publishing what falls due.

        Steps run in one Simulator call up to the next publication (at most 1 ms of sim time at
        the default rates), which is also how often the watchdog is checked.
        """
        done = 0
        while done < n:
            watchdog = self._efforts.watchdog
            if not watchdog.engaged and watchdog.check(self.sim.time):
                self._engage_hold(f"no effort command for {watchdog.timeout:.3f} s")
            if not self._gated:
                self._wait_for_fresh_efforts()
            k = self._sim_clock.since_start_over  # the publication schedule starts over with a reset
            run = self._commands.due(self._publications.steps_to_next(k, n - done))
            try:
                self.sim.step(run, self._efforts)
            except DivergenceError as exc:
                self._on_divergence(exc)
                return
            done += run
            self._sim_clock.advance(run)
            due = self._publications.due(k + run)
            if "clock" in due:
                self._publish_clock()
            if "state" in due:
                self._publish_state()
            if "telemetry" in due:
                self._publish_magnets()
            if "tf" in due:
                self._scene.publish_tf(self.now_ns)
            if "visuals" in due:
                self._scene.publish_visuals(self.now_ns)
            if "camera" in due:
                self._scene.publish_camera(self.now_ns)

    def _wait_for_fresh_efforts(self) -> None:
        """Realtime/fast: do not run ahead of a live controller by more than ``effort_max_age``.

        A sim catching up on the wall clock runs several times faster than real time; the efforts
        answering a state 1 ms of wall time old would then be applied 5-10 ms of sim time late, and
        a Kp 500 / Kd 30 PID goes unstable with that delay (the f2w graph fell over). So before each
        run of steps the sim waits, up to ``effort_wait`` wall seconds, for the answer to a recent
        state. It waits only while efforts are coming (one within the last 0.1 s): a controller that
        is gone is the watchdog's case, and a graph without one is never held up. The time spent
        waiting shows as lag and a lowered effective factor on /diagnostics, as any other lag.
        """
        if self._effort_max_age_ns <= 0 or self._efforts.watchdog.engaged:
            return
        start = time.monotonic()
        if start - self._last_effort_wall > EFFORTS_LIVE:
            return
        with self._answer:
            while self.now_ns - self._gate.last_stamp > self._effort_max_age_ns and not self._stop.is_set():
                left = self._effort_wait - (time.monotonic() - start)
                if left <= 0:
                    self._counts["effort_waits_timed_out"] += 1
                    self.get_logger().warning(
                        f"no effort answer within effort_wait ({self._effort_wait:g} s) at {self.now_ns * 1e-9:.3f} "
                        "s: stepping on "
                        f"with efforts {(self.now_ns - self._gate.last_stamp) * 1e-6:.1f} ms of sim time old",
                        throttle_duration_sec=1.0,
                    )
                    return
                self._answer.wait(timeout=left)

    def _paced_period(self) -> None:
        """Realtime synchronous: one gated control period once the wall clock has reached its end
        (sim time never leads the wall clock; behind it, periods run back to back)."""
        with self._physics:
            plan = self._pacer.plan(self.sim.time)  # in control periods (the pacer's chunk)
        if plan.steps:
            self._lockstep_period()
        else:
            time.sleep(plan.sleep)

    def _lockstep_period(self, stepping: bool = False) -> None:
        """Publish the state, wait for the effort command answering it (matched by stamp), step.

        ``stepping``: a step a client asked for while paused (a pause does not end the wait then).
        """
        stamp = self.now_ns
        halted = (lambda: False) if stepping else (lambda: self._paused)
        with self._answer:
            self._gate.expect(stamp)
            held, limit = self._gate.wait_for(
                self._efforts.watchdog.engaged, self._lockstep_timeout, LOCKSTEP_HELD_WAIT
            )
        self._publish_state()
        wait = LockstepWait(time.monotonic(), limit, LOCKSTEP_RESEND, held)
        timed_out = False
        # publishing happens outside the answer lock: a controller hosted in this process answers
        # inside the publish call, in this thread, and its answer takes that lock
        while True:
            with self._answer:
                if self._gate.is_answered(stamp) or not self.context.ok() or halted() or self._stop.is_set():
                    break
                step = wait.next(time.monotonic())
                if step.step is Step.WAIT:
                    self._answer.wait(timeout=step.seconds)
                    continue
                if step.step is Step.EXPIRED:
                    waited = time.monotonic() - wait.start
                    if not held and keep_waiting(waited, limit, self._controller_present):
                        # slow, not gone (a busy machine): waiting on keeps the run deterministic
                        if wait.limit == limit:
                            self._counts["slow_answers"] += 1
                        wait.limit = min(waited + PARTNER_POLL, SLOW_PARTNER_WAIT)
                        continue
                    timed_out = not held
                    break
            self._publish_state()  # Step.RESEND: same stamp again (a state lost at discovery); answered once
        if timed_out:
            self._counts["lockstep_timeouts"] += 1
            self._efforts.watchdog.engage(self.sim.time)
            self._engage_hold(f"no effort answer within {limit:g} s in lockstep")
        if self._stop.is_set() or not self.context.ok():
            return
        with self._physics:
            if not halted():  # (checked under the lock: a pause's reset must not be stepped past)
                self._advance(self._state_every)

    def _take_step(self) -> None:
        """One step of a client's step request: a control period, gated as the pacing mode gates it."""
        with self._answer:
            run = self._step_run
            if run is None:
                return
            if run.cancelled():
                self._step_run = None
                run.stop("cancelled")
                return
        self._stopped = False
        if self._gated:
            self._lockstep_period(stepping=True)
        else:
            with self._physics:  # to the next state's step: the state goes out at its end
                self._advance(self._state_every - self._sim_clock.since_start_over % self._state_every)
        with self._answer:
            if self._step_run is not run:  # ended meanwhile (a play, a reset)
                return
            if self._diverged is not None:
                self._step_run = None
                run.stop(str(self._diverged))
            elif self._stop.is_set() or not self.context.ok():
                self._step_run = None
                run.stop("the sim is shutting down")
            elif run.stepped():
                self._step_run = None

    def _other_clocks(self) -> list[str]:
        """Nodes besides this one that publish /clock (a bag played with --clock, a second sim): every
        reader of /clock then gets two interleaved time lines. Said on /diagnostics and, once per new
        set of publishers, in the log. Sally's own nodes take time from the messages' stamps, not
        from /clock, so they are not misled."""
        others = sorted(full_name(name, namespace) for name, namespace in other_publishers(self, "/clock"))
        if others != self._clock_rivals:
            self._clock_rivals = others
            if others:
                self.get_logger().warning(
                    f"another node publishes /clock ({', '.join(others)}): readers of /clock see two time lines"
                )
        return others

    def _controller_present(self) -> bool:
        """A controller (a node that publishes efforts and reads the states) is on the graph."""
        return publishes(self, EFFORTS, reads="/joint_states")

    # --- callbacks ------------------------------------------------------------------------------
    def _on_efforts(self, msg: JointState) -> None:
        try:
            cmd = conv.parse_effort_command(msg, ACTUATED_JOINT_NAMES, set(JOINT_NAMES) - set(ACTUATED_JOINT_NAMES))
        except conv.CommandError as exc:
            return self._reject(EFFORTS, exc.reason, str(exc))
        if self._gated:  # the answer must carry the stamp of the state it answers
            with self._answer:
                admission = self._gate.offer_gated(cmd.stamp, self._efforts.watchdog.engaged)
                if admission.verdict is Verdict.TAKEN:
                    self._set_command(cmd)
                if admission.verdict is not Verdict.REJECTED:
                    self._answer.notify_all()  # an answer, or a controller back while holding
        else:
            admission = self._gate.offer_free(cmd.stamp, self.now_ns)
            if admission.verdict is Verdict.TAKEN:
                self._set_command(cmd)
                if cmd.stamp:  # only a stamped effort says which state it answers
                    with self._answer:
                        self._last_effort_wall = time.monotonic()
                        self._answer.notify_all()
        if admission.verdict is Verdict.LATE:
            self._counts["late"] += 1
        elif admission.verdict is Verdict.REJECTED:
            self._reject(EFFORTS, admission.reason, admission.detail)

    def _on_joint_commands(self, msg: JointState) -> None:
        """ros2_control's command: each joint's position, velocity or effort, tracked by the drive."""
        try:
            cmd = parse_joint_command(
                msg.name, msg.position, msg.velocity, msg.effort, ACTUATED_JOINT_NAMES, self._passive_joints
            )
        except JointCommandError as exc:
            return self._reject(JOINT_COMMANDS, exc.reason, str(exc))
        assert self._efforts.drive is not None
        self._efforts.drive.command(cmd)
        self._counts["joint_commands"] += 1
        self._health.heard(JOINT_COMMANDS)
        if self._efforts.watchdog.feed(self.sim.time):
            self.get_logger().info("joint commands are back: watchdog released")
            self._pub_holding.publish(Bool(data=False))
        return None

    def _set_command(self, cmd: conv.EffortCommand) -> None:
        released = self._efforts.take(cmd.indices, cmd.efforts, self.sim.time)
        self._counts["efforts"] += 1
        self._health.heard(EFFORTS)
        self._counts["clamped"] += int((np.abs(cmd.efforts) > self.sim.actuators.effort_limit[cmd.indices]).sum())
        if released:
            self.get_logger().info("effort commands are back: watchdog released")
            self._pub_holding.publish(Bool(data=False))

    def _on_magnet_cmd(self, msg: MagnetCommand) -> None:
        """Applied now, or at the step its stamp names when that is still ahead of sim time."""
        try:
            taken = self._commands.magnets(*magnet_command_from_msg(msg))
        except InputError as exc:
            return self._reject(MAGNET_CMD, exc.reason, str(exc))
        if taken:
            self._health.heard(MAGNET_CMD)
        return None

    def _on_external_force(self, msg: ExternalForce) -> None:
        """A rig's force on a foot, from the step its stamp names; zero force and rate remove it."""
        try:
            taken = self._commands.force(external_force_from_msg(msg))
        except InputError as exc:
            return self._reject(EXTERNAL_FORCE, exc.reason, str(exc))
        if taken:
            self._health.heard(EXTERNAL_FORCE)
        return None

    def _reject(self, topic: str, reason: str, detail: str) -> None:
        self._health.reject(topic, reason, detail)

    def _set_paused(self, paused: bool) -> None:
        """Pause or play (SetSimulationState; the viewer's Space key comes here too)."""
        with self._physics:
            if not paused and self._paused:
                self._pacer.restart(self.sim.time)
            self._paused = paused
        with self._answer:
            if not paused:
                self._end_step_run("the simulation was played")
            self._answer.notify_all()

    def _end_step_run(self, why: str) -> None:
        """End a client's step request before its last step (call under ``_answer``)."""
        run, self._step_run = self._step_run, None
        if run is not None:
            run.stop(why)

    # --- simulation_interfaces (sim_interfaces.Controls) ---------------------------------------------
    @property
    def sim_state(self) -> State:
        """PLAYING, PAUSED or STOPPED (paused at the start state by a stop)."""
        if not self._paused:
            return State.PLAYING
        return State.STOPPED if self._stopped else State.PAUSED

    def set_sim_state(self, target: int, done: Callable[[Outcome], None]) -> None:
        """Play, pause or stop (paused, then reset by the loop); ``done`` gets the outcome."""
        change = transition(self.sim_state, target)
        if not change.outcome.ok:
            return done(change.outcome)
        self._set_paused(change.state is not State.PLAYING)  # first: no step between a stop's reset and its pause
        self.get_logger().info(f"simulation {change.state.name.lower()} at {self.now_ns * 1e-9:.4f} s")

        def settled() -> None:
            self._stopped = change.state is State.STOPPED
            done(change.outcome)

        if change.reset:
            return self._request_reset("the simulation was stopped", settled)
        return settled()

    def reset_sim(self, scope: int, done: Callable[[Outcome], None]) -> None:
        """Reset what ``scope`` asks for (the state; time runs on); ``done`` gets the outcome."""
        plan = reset_plan(scope)
        if not plan.reset_state:
            return done(plan.outcome)
        return self._request_reset("the simulation was reset", lambda: done(plan.outcome))

    def _request_reset(self, why: str, then: Callable[[], None]) -> None:
        """Have the loop reset between two control periods (never inside one: a lockstep period's
        answer belongs to the time line it was asked on), then call ``then``."""
        with self._answer:
            self._end_step_run(why)
            self._resets_asked.append(then)
            self._answer.notify_all()

    def begin_steps(self, run: StepRun) -> Outcome | None:
        """Hand a client's step request to the loop, or say why not."""
        with self._answer:
            diverged = str(self._diverged) if self._diverged is not None else None
            refused = step_refusal(self.sim_state, run.total, self._step_run is not None, diverged)
            if refused is None:
                self._step_run = run
                self._answer.notify_all()
        return refused

    def entity_kinematics(self, name: str) -> entities.Kinematics:
        """An entity's state now."""
        with self._physics:
            return entities.kinematics(self.sim, name)

    def set_base(self, state: entities.Kinematics) -> None:
        """Sally's base to ``state``'s pose and twist (the magnets see it at the next step)."""
        with self._physics:
            self.sim.set_base(state.pose, state.linear, state.angular)
            self._stopped = False
        self.get_logger().info(f"base set to {state.pose.position.round(4).tolist()} at {self.now_ns * 1e-9:.4f} s")

    def _reset(self) -> None:
        """The robot back at its start state, commands and loads cleared, the reset notice sent; the
        clients that asked for it are answered."""
        with self._answer:
            asked, self._resets_asked = self._resets_asked, []
        with self._physics:
            # the clock never runs backwards: the new time line starts at the next whole second, where
            # every periodic schedule (states, IK solves, gravity, telemetry) stands as it does at 0,
            # so the run after a reset is the run from a fresh start, shifted by whole seconds
            self._sim_clock.start_over()
            self._commands.clear()
            self.sim.reset()
            self._efforts.start_over(self._make_drive() if self._efforts.drive is not None else None)
            self._pub_holding.publish(Bool(data=False))
            self._diverged = None
            with self._answer:
                self._gate.restart_free()
            self._pacer.restart(self.sim.time)
            self._counts["resets"] += 1
            notice = Header(frame_id="world")
            notice.stamp = conv.clock_msg(self.now_ns).clock
            self._pub_reset.publish(notice)  # before the first state after it: the nodes start over
            self._publish_state()
        self.get_logger().info(f"reset to the initial state at sim time {self.now_ns * 1e-9:.4f} s")
        for then in asked:
            then()

    # --- hold and divergence --------------------------------------------------------------------
    def _engage_hold(self, why: str) -> None:
        if self._counts["efforts"]:  # an outage; before any controller ever answered the graph is only starting
            self._pub_holding.publish(Bool(data=True))
        with self._answer:
            self._gate.hold_engaged()
        self._efforts.hold(self.sim.actuated_positions())
        self.get_logger().warning(f"watchdog: {why}; holding the current pose, magnets unchanged")

    def _on_divergence(self, exc: DivergenceError) -> None:
        self._diverged = exc
        self._counts["divergences"] += 1
        self.get_logger().error(f"{exc}; stepping stopped (reset the simulation to continue: ResetSimulation)")
        self._publish_diagnostics()

    # --- publishing -----------------------------------------------------------------------------
    def _publish_clock(self) -> None:
        self._pub_clock.publish(conv.clock_msg(self.now_ns))

    def _publish_state(self) -> None:
        now, sim = self.now_ns, self.sim
        self._pub_joints.publish(
            self._joint_writer.fill(now, sim.joint_positions(), sim.joint_velocities(), sim.joint_efforts())
        )
        if self._sim_clock.since_start_over % self._odom_every == 0:
            body, qvel = sim.body_pose(), sim.data.qvel
            self._pub_odom.publish(self._odom_writer.fill(now, body.position, body.quat, qvel[0:3], qvel[3:6]))

    def _publish_magnets(self) -> None:
        forces = {leg: self.sim.foot_contact_force(leg) for leg in LEGS}
        self._pub_magnets.publish(
            magnet_array_to_msg(self.now_ns, conv.magnet_states(self.sim.magnet_readouts(), forces))
        )

    def _publish_diagnostics(self) -> None:
        self._next_diag = time.monotonic() + self._diag_period
        wd, diverged = self._efforts.watchdog, str(self._diverged) if self._diverged is not None else None
        statuses = [
            sim_diagnostics.pacing_status(
                self._mode, self._paused, self.now_ns * 1e-9, self._pacer.status, self._other_clocks()
            ),
            sim_diagnostics.commands_status(
                self._counts,
                self._health.values(),
                self._health.total,
                wd.engaged,
                wd.engagements,
                wd.age(self.sim.time),
            ),
            sim_diagnostics.physics_status(
                diverged,
                self._counts,
                [leg for leg in LEGS if self.sim.magnet_enabled(leg)],
                self._commands.loaded_feet,
            ),
        ]
        self._pub_diag.publish(diagnostic_array(statuses, self.now_ns))

    # --- viewer ---------------------------------------------------------------------------------
    def _open_viewer(self) -> ViewerBridge | None:
        if not display_available():
            self.get_logger().warning("headless:=false but no display is available; running headless")
            return None
        viewer = ViewerBridge(self.sim, self._toggle_pause)
        self.get_logger().info("viewer open: Space pauses and plays the sim (as SetSimulationState does)")
        return viewer

    def _toggle_pause(self) -> None:
        self.set_sim_state(State.PAUSED if not self._paused else State.PLAYING, lambda outcome: None)
        self.get_logger().info("paused from the viewer" if self._paused else "resumed from the viewer")


def main(args: list[str] | None = None) -> int:
    """Run the sim node (executable ``sally_sim_node``)."""
    return run_node("sally_sim", SimNode, args, run=lambda node, executor, stop: node.run(executor, stop))


if __name__ == "__main__":
    sys.exit(main())
