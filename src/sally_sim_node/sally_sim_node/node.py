"""The sim node: Sally's MuJoCo physics behind ROS 2 topics, services and parameters.

The ROS shell around pure parts: physics is :class:`Simulator`, the loop that steps it (pacing,
lockstep waits, pauses, step requests, resets) :class:`.sim_loop.SimLoop`, sim time and the publish
schedule :mod:`.sim_clock`, what the motors' servos track :class:`.drive.Drive`, stamped magnet and
force commands :class:`.stamped_commands.StampedCommands`, which effort answers count
:mod:`.lockstep`, the /diagnostics statuses :mod:`.sim_diagnostics`, the state's topics (clock,
joint states, odometry, telemetry, diagnostics, holding, reset notice)
:class:`.state_outputs.StateOutputs`, the scene's topics (TF, markers, wrenches, camera)
:class:`.scene_outputs.SceneOutputs`, the viewer
:class:`.viewer_bridge.ViewerBridge`, and every message is built or checked by :mod:`conversions`.
This module reads the parameters, parses the messages and hands them over, and has the outputs
publish what the loop asks for (it is the loop's :class:`~.sim_loop.LoopPort`).

Publishes ``/clock``, the sensors (``/joint_states`` from the encoders, ``/sally/imu``, each foot's
range, ``/sally/magnets``: the switches and contact readings), the world's truth
(``/sally/ground_truth/odom``, ``/feet``, ``/magnets``; on ``/sally/odom`` too with ``truth_odom``,
and with ``odom_joint_states`` its joint states on ``/sally/odom_joint_states``), ``/diagnostics`` and
``/sally_sim/holding`` (latched: true while the watchdog holds the pose because commands stopped);
subscribes the commands of its ``command_source`` (``/sally/servo_commands`` by default,
``/sally/joint_efforts`` on the effort path, ``/sally/joint_commands`` from ros2_control),
``/sally/magnet_cmd`` and ``/sally_sim/external_force`` (a
test rig's force on a foot, e.g. the pull-off ramp); serves the ``simulation_interfaces`` standard
(:mod:`.sim_interfaces`: play, pause, stop, step, reset, entity states). Sim time is a step
counter, so stamps are exact; a reset restores the initial physical state but never turns
``/clock`` back. A magnet command stamped ahead of sim time is
applied at the step its stamp names (unstamped or past: before the next step).

Threads: the physics loop runs in the main thread and paces itself with ``time.sleep``; the
executor spins in a second thread (``spin_once`` costs ~90 us, far too much to call between 0.5 ms
steps). A run of steps is one compiled call that holds no GIL (:mod:`.physics_kernel`), so
callbacks run while it computes; with ``control_latency`` 1 (the default) a lockstep period's steps
run in a physics thread of their own (:mod:`.physics_thread`) while this thread publishes the state
the period started from and the nodes hosted here answer it. Callbacks only swap in new command
arrays or flags; anything that touches the physics state (services, parameter changes) takes the
loop's ``physics`` lock, which the loop holds while it steps.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable

import numpy as np
from rclpy._rclpy_pybind11 import InvalidHandle, RCLError
from rclpy.node import Node
from sensor_msgs.msg import JointState

from sally_description import JOINT_NAMES, LEGS, DescriptionError, PhysicsParams, build_model
from sally_description.constants import ACTUATED_JOINT_NAMES
from sally_description.scene import scene
from sally_description.wall_start import wall_stance
from sally_interfaces.msg import ExternalForce, MagnetCommand, ServoCommand
from sally_node_common import StartupError, run_node, spin_until_shutdown
from sally_node_common.external_force_msg import external_force_from_msg
from sally_node_common.inputs import InputError
from sally_node_common.magnet_command_msg import magnet_command_from_msg
from sally_node_common.node_shell import NodeShell
from sally_node_common.partners import other_publishers, publishes
from sally_node_common.qos import RELIABLE_DEEP
from sally_node_common.servo_command_msg import servo_command_from_msg
from sally_node_common.time_contract import JOINT_COMMANDS, JOINT_EFFORTS, SERVO_COMMANDS, gated
from sally_node_common.unique_names import full_name

from . import conversions as conv
from . import entities, sim_diagnostics
from .drive import Drive
from .errors import DivergenceError, SimulationError
from .joint_drive import JointCommandError, JointDrive, parse_joint_command
from .lockstep import Verdict
from .loop_outputs import LoopOutputs
from .pacing import Pacer, PacingConfig
from .scene_outputs import SceneOutputs
from .sensing import Sensing
from .servo import ServoGains
from .sim_clock import PublishSchedule, SimClock
from .sim_control import Outcome, State, StepRun, reset_plan, transition
from .sim_interfaces import SimulationInterfaces
from .sim_loop import LoopSettings, SimLoop
from .sim_parameters import TABLE, steps_per
from .simulator import Simulator
from .stamped_commands import StampedCommands
from .state_outputs import StateOutputs
from .viewer_bridge import ViewerBridge, display_available

SWITCH_INTERVAL = 0.0002
"""GIL switch interval (s) while the loop runs; Python's default is 5 ms, ten physics steps."""
MAGNET_CMD, EXTERNAL_FORCE = "/sally/magnet_cmd", "/sally_sim/external_force"
COMMAND_TOPICS = {"servo": SERVO_COMMANDS, "efforts": JOINT_EFFORTS, "joint_commands": JOINT_COMMANDS}
"""The topic each command source reads."""


class SimNode(Node):
    """The sim node: steps MuJoCo at 2 kHz and publishes the clock, joint states, magnets and visuals."""

    def __init__(self, **kwargs) -> None:
        super().__init__("sally_sim", **kwargs)
        # a refused start value raises; run_node reports it in one line (exit 2)
        # its /diagnostics (several statuses, stamped with sim time) go out from the loop
        self.shell = NodeShell(
            self, TABLE, "sally_sim", None, on_change=self._apply_parameters, diagnostics_period=None
        )

        p = self._p
        self.sim = self._simulator()
        self.dt = self.sim.timestep
        self._sim_clock = SimClock(conv.to_nanoseconds(self.dt))
        self._source = p("command_source")
        if self._source == "joint_commands" and (p("pacing") == "lockstep" or p("synchronous")):
            raise StartupError(
                "command_source joint_commands cannot run lockstep or synchronous: ros2_control does not answer "
                "each state by its stamp; use pacing realtime (synchronous false) or fast"
            )
        self._commands_topic = COMMAND_TOPICS[self._source]
        self._clock_rivals: list[str] = []
        """The other publishers of /clock last seen (said once per change)."""
        camera = (int(p("camera_width")), int(p("camera_height"))) if float(p("camera_rate")) > 0 else None
        self._out = LoopOutputs(
            StateOutputs(self, self.sim, self._sensing(), bool(p("odom_joint_states")), bool(p("truth_odom"))),
            SceneOutputs(self, self.sim, self.now_ns, camera, room=scene(p("scene")), estimated=not p("truth_odom")),
            self._sim_clock,
        )
        """What the loop publishes off the physics; the node publishes the rest of the state's topics with it."""
        self._loop = self._sim_loop()
        """Steps the physics: pacing, waits, pauses, step requests and resets."""
        self._passive_joints = tuple(n for n in JOINT_NAMES if n not in ACTUATED_JOINT_NAMES)
        self._motor_index = {name: i for i, name in enumerate(ACTUATED_JOINT_NAMES)}
        self._subscribe()
        self._interfaces = SimulationInterfaces(self, self, entities.listing(self.sim))
        self._next_diag = time.monotonic()
        self._viewer = self._open_viewer() if not p("headless") else None
        self.idle_work: Callable[[Callable[[], bool]], object] | None = None
        """Work for the loop's spare moments, run ``idle_work(until)`` (a composed container gives
        its host's deferred taps, :attr:`sally_node_common.host.Host.later`)."""
        self.get_logger().info(
            f"Sally sim ready: {p('pacing')} pacing, dt {self.dt * 1e3:g} ms, magnets on {list(p('magnets_on') or [])}"
        )

    def _simulator(self) -> Simulator:
        """Sally in her scene as the parameters say, warmed up; StartupError names a refused value."""
        p = self._p
        try:
            params = PhysicsParams.from_file(p("params_file")) if p("params_file") else PhysicsParams()
            model = build_model(
                params=params,
                spawn=tuple(float(v) for v in p("initial_pose")),
                start=p("start"),
                wall=wall_stance(p("start"), [float(v) for v in p("wall_pose")]),
                scene=p("scene"),
                in_room=True,  # the world is the room's frame, gravity -z, whatever corner is climbed
                moved=float(p("surface_offset")),
            )
            sim = Simulator(model, params=params, magnets_on={leg: leg in (p("magnets_on") or ()) for leg in LEGS})
        except (DescriptionError, SimulationError) as exc:
            raise StartupError(str(exc)) from None
        sim.warm_up(thread=bool(p("physics_thread")) and int(p("control_latency")) > 0)
        return sim

    def _sensing(self) -> Sensing:
        """The robot's sensors, their errors as ``sensing`` and ``sensors_file`` say, sampled at the
        rates they are published at; StartupError names a refused file."""
        p, dt = self._p, self.dt
        state = steps_per(float(p("state_rate")), dt) * dt

        def period(rate: str) -> float:
            return max(1, round(steps_per(float(p(rate)), dt) * dt / state)) * state

        periods = {"imu": state, "encoders": state, "ranges": period("range_rate")}
        periods["contacts"] = period("telemetry_rate")
        try:
            return Sensing.from_file(self.sim, p("sensors_file"), p("sensing"), periods, int(p("sensor_seed")))
        except SimulationError as exc:
            raise StartupError(str(exc)) from None

    def _sim_loop(self) -> SimLoop:
        """The loop that steps the physics with one drive for the servos (from the command source)."""
        p = self._p
        self.sim.servos.set_defaults(self._servo_gains())
        drive = Drive(
            self._source,
            self.sim.servos.defaults,
            self.sim.actuated_positions(),
            p("hold_kp"),
            p("hold_kd"),
            float(p("command_timeout")),
            self._make_drive() if self._source == "joint_commands" else None,
        )
        return SimLoop(
            self.sim,
            self._sim_clock,
            drive,
            StampedCommands(self.sim, self._sim_clock, self.shell.counts, self._warn_late),
            Pacer(self.dt, PacingConfig(factor=float(p("real_time_factor")))),
            self._settings(),
            self._out,
            self,
            self.shell.counts,
            self.get_logger(),
            paused=bool(p("start_paused")),
        )

    def _subscribe(self) -> None:
        """The command source's topic, the magnet commands and the external forces."""
        if self._source == "servo":
            self.create_subscription(ServoCommand, SERVO_COMMANDS, self._on_servo_command, RELIABLE_DEEP)
        elif self._source == "efforts":
            self.create_subscription(JointState, JOINT_EFFORTS, self._on_efforts, RELIABLE_DEEP)
        else:
            self.create_subscription(JointState, JOINT_COMMANDS, self._on_joint_commands, 10)
        self.create_subscription(MagnetCommand, MAGNET_CMD, self._on_magnet_cmd, 10)
        self.create_subscription(ExternalForce, EXTERNAL_FORCE, self._on_external_force, RELIABLE_DEEP)

    # --- parameters -----------------------------------------------------------------------------
    def _p(self, name: str):
        return self.get_parameter(name).value

    def _apply_parameters(self, names: set[str]) -> None:
        """Accepted parameter changes, applied by the loop between runs of steps."""
        self._loop.call(lambda: self._apply_now(names))

    def _apply_now(self, names: set[str]) -> None:
        loop = self._loop
        if "real_time_factor" in names:
            loop.pacer.set_factor(float(self._p("real_time_factor")), self.sim.time)
        if "pacing" in names:
            loop.pacer.restart(self.sim.time)
        if "command_timeout" in names:
            loop.drive.watchdog.set_timeout(float(self._p("command_timeout")))
        if names & {"hold_kp", "hold_kd"}:
            loop.drive.set_hold_gains(self._p("hold_kp"), self._p("hold_kd"))
        if names & {"servo_kp", "servo_kd", "servo_ki", "servo_i_clamp"}:
            self.sim.servos.set_defaults(self._servo_gains())
            loop.drive.gains = self.sim.servos.defaults  # for the commands from now on
        joints = loop.drive.joint_drive
        if joints is not None and names & {"drive_kp", "drive_kd", "drive_kv"}:
            joints.kp, joints.kd, joints.kv = (float(self._p(n)) for n in ("drive_kp", "drive_kd", "drive_kv"))
            loop.drive.retune()
        loop.settings = self._settings()

    def _make_drive(self) -> JointDrive:
        """The ros2_control joint drive, holding the joints where they are until commanded."""
        kp, kd, kv = (float(self._p(n)) for n in ("drive_kp", "drive_kd", "drive_kv"))
        return JointDrive(kp, kd, kv, self.sim.actuated_positions())

    def _servo_gains(self) -> ServoGains:
        """The servos' own gains, from the parameters (one value for every motor)."""
        n = len(ACTUATED_JOINT_NAMES)
        return ServoGains(*(np.full(n, float(self._p(f"servo_{g}"))) for g in ("kp", "kd", "ki", "i_clamp")))

    def _settings(self) -> LoopSettings:
        """The loop's settings and the publication rates, from the parameters now."""
        p, dt = self._p, self.dt
        state_every = steps_per(float(p("state_rate")), dt)

        def periods(rate: str) -> int:  # a publication that reads the physics goes out at a period's end
            return max(1, round(steps_per(float(p(rate)), dt) / state_every)) * state_every

        # odometry goes out with every n-th state, so that it always carries a joint state's stamp
        self._out.odom_every = state_every * max(1, round(float(p("state_rate")) / float(p("odom_rate"))))
        self._diag_period = float(p("diagnostics_period"))
        mode = p("pacing")
        stamped = self._source != "joint_commands"  # (ros2_control does not answer states by stamp)
        is_gated = stamped and gated(mode, bool(p("synchronous")))
        camera = self._out.scene.camera is not None
        # where a run of physics steps has to stop to publish; a gated period publishes the state
        # at its start itself
        publications = PublishSchedule(
            {
                **({} if is_gated else {"state": state_every}),
                "telemetry": periods("telemetry_rate"),
                "ranges": periods("range_rate"),
                "tf": periods("tf_rate"),
                "visuals": periods("visual_rate"),
                **({"camera": periods("camera_rate")} if camera else {}),
            }
        )
        return LoopSettings(
            mode,
            is_gated,
            state_every,
            publications,
            clock_every=steps_per(float(p("clock_rate")), dt),
            lockstep_timeout=float(p("lockstep_timeout")),
            command_max_age_ns=conv.to_nanoseconds(float(p("command_max_age"))),
            command_wait=float(p("command_wait")),
            exit_on_divergence=bool(p("exit_on_divergence")),
            control_latency=int(p("control_latency")),
            command_delay=round(float(p("command_delay")) / dt),
            physics_thread=bool(p("physics_thread")),
        )

    # --- time -----------------------------------------------------------------------------------
    @property
    def now_ns(self) -> int:
        """Sim time now (ns), counted from the last reset."""
        return self._sim_clock.now_ns

    # --- main loop ------------------------------------------------------------------------------
    def run(self, executor, stop: threading.Event) -> int:
        """Step and publish until ``stop`` is set or the context shuts down. Returns the exit status."""
        # the executor thread runs Python callbacks while a step computes; a short switch interval
        # keeps the physics from waiting milliseconds for the GIL when a step returns
        sys.setswitchinterval(SWITCH_INTERVAL)
        spinner = threading.Thread(
            target=spin_until_shutdown, args=(executor, self.context, stop), name="sally_sim executor", daemon=True
        )
        spinner.start()
        try:
            return self._loop.run(stop)
        except (InvalidHandle, RCLError):
            if self.context.ok():
                raise
            return 0  # shut down (Ctrl-C, SIGTERM) while publishing
        finally:
            spinner.join(timeout=2.0)
            self.sim.close()
            if self._viewer is not None:
                self._viewer.close()

    # --- what the loop asks of the node (sim_loop.LoopPort) -----------------------------------------
    def ok(self) -> bool:
        """The context is up."""
        return self.context.ok()

    def idle(self, until: Callable[[], bool]) -> None:
        """While the physics thread steps: :attr:`idle_work`, if any."""
        if self.idle_work is not None:
            self.idle_work(until)

    def between_periods(self) -> None:
        """/diagnostics when due; the viewer."""
        if time.monotonic() >= self._next_diag:
            self.publish_diagnostics()
        if self._viewer is not None:
            self._viewer.sync()

    def publish_diagnostics(self) -> None:
        """/diagnostics now: pacing, commands, physics."""
        self._next_diag = time.monotonic() + self._diag_period
        loop = self._loop
        wd, diverged = loop.drive.watchdog, str(loop.diverged) if loop.diverged is not None else None
        statuses = [
            sim_diagnostics.pacing_status(
                loop.settings.mode, loop.paused, self.now_ns * 1e-9, loop.pacer.status, self._other_clocks()
            ),
            sim_diagnostics.commands_status(
                self._commands_topic,
                self.shell.counts,
                self.shell.health.values(),
                self.shell.health.total,
                wd.engaged,
                wd.engagements,
                wd.age(self.sim.time),
            ),
            sim_diagnostics.physics_status(
                diverged,
                self.shell.counts,
                [leg for leg in LEGS if self.sim.magnet_enabled(leg)],
                loop.commands.loaded_feet,
            ),
        ]
        self._out.state.diagnostics(statuses, self.now_ns)

    def holding(self, why: str) -> None:
        """The watchdog holds the pose: /sally_sim/holding (once a controller had answered) and the log."""
        if self.shell.counts["commands"]:  # an outage; before any controller ever answered the graph is only starting
            self._out.state.holding(True)
        self.get_logger().warning(f"watchdog: {why}; holding the current pose, magnets unchanged")

    def _commands_back(self, what: str) -> None:
        """``what`` came back after an outage: the watchdog let go (the log, /sally_sim/holding)."""
        self.get_logger().info(f"{what} are back: watchdog released")
        self._out.state.holding(False)

    def diverged(self, exc: DivergenceError) -> None:
        """The physics diverged: the log and /diagnostics."""
        self.get_logger().error(f"{exc}; stepping stopped (reset the simulation to continue: ResetSimulation)")
        self.publish_diagnostics()

    def reset_done(self) -> None:
        """Not holding, the reset notice, then the new time line's first state."""
        self._out.state.holding(False)
        self._out.state.sensing.reset()  # the sensors read as in a fresh run
        self._out.state.reset_notice(self.now_ns)  # before the first state after it: the nodes start over
        self._out.publish_state()

    def new_drive(self) -> JointDrive | None:
        """ros2_control's joint drive anew (None unless it is the command source)."""
        return self._make_drive() if self._loop.drive.joint_drive is not None else None

    def controller_present(self) -> bool:
        """A controller (a node that publishes commands and reads the states) is on the graph."""
        return publishes(self, self._commands_topic, reads="/joint_states")

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

    # --- callbacks ------------------------------------------------------------------------------
    def _on_servo_command(self, msg: ServoCommand) -> None:
        """Our controller's answer: the named servos' setpoints, feed-forward and gains."""
        try:
            cmd = servo_command_from_msg(msg, ACTUATED_JOINT_NAMES, self._passive_joints)
        except InputError as exc:
            return self._reject(SERVO_COMMANDS, exc.reason, str(exc))
        indices = np.array([self._motor_index[n] for n in cmd.names])
        drive = self._loop.drive
        self._offer(
            SERVO_COMMANDS,
            cmd.stamp,
            lambda t: drive.take_servo(indices, cmd.position, cmd.velocity, cmd.effort, cmd.kp, cmd.kd, t),
        )
        limit = self.sim.actuators.effort_limit[indices]
        self.shell.counts["clamped"] += int((np.abs(cmd.effort) > limit).sum())
        return None

    def _on_efforts(self, msg: JointState) -> None:
        """A torque controller's answer (the effort path): the named motors' efforts."""
        try:
            cmd = conv.parse_effort_command(msg, ACTUATED_JOINT_NAMES, self._passive_joints)
        except conv.CommandError as exc:
            return self._reject(JOINT_EFFORTS, exc.reason, str(exc))
        drive = self._loop.drive
        if self._offer(JOINT_EFFORTS, cmd.stamp, lambda t: drive.take_efforts(cmd.indices, cmd.efforts, t)):
            self.shell.counts["clamped"] += int(
                (np.abs(cmd.efforts) > self.sim.actuators.effort_limit[cmd.indices]).sum()
            )
        return None

    def _offer(self, topic: str, stamp: int, take) -> bool:
        """A stamped answer offered to the loop (``take(sim_time)`` hands it to the drive); whether
        it was taken."""
        admission, released = self._loop.offer_command(take, stamp)
        if admission.verdict is Verdict.TAKEN:
            self.shell.counts["commands"] += 1
            self.shell.health.heard(topic)
            if released:
                self._commands_back("commands")
            return True
        if admission.verdict is Verdict.LATE:
            self.shell.counts["late"] += 1
        else:
            self._reject(topic, admission.reason, admission.detail)
        return False

    def _on_joint_commands(self, msg: JointState) -> None:
        """ros2_control's command: each joint's position, velocity or effort, tracked by the servos."""
        try:
            cmd = parse_joint_command(
                msg.name, msg.position, msg.velocity, msg.effort, ACTUATED_JOINT_NAMES, self._passive_joints
            )
        except JointCommandError as exc:
            return self._reject(JOINT_COMMANDS, exc.reason, str(exc))
        self.shell.counts["joint_commands"] += 1
        self.shell.counts["commands"] += 1
        self.shell.health.heard(JOINT_COMMANDS)
        if self._loop.drive.take_joint_command(cmd, self.sim.time):
            self._commands_back("joint commands")
        return None

    def _on_magnet_cmd(self, msg: MagnetCommand) -> None:
        """Applied now, or at the step its stamp names when that is still ahead of sim time."""
        try:
            taken = self._loop.commands.magnets(*magnet_command_from_msg(msg))
        except InputError as exc:
            return self._reject(MAGNET_CMD, exc.reason, str(exc))
        if taken:
            self.shell.health.heard(MAGNET_CMD)
        return None

    def _on_external_force(self, msg: ExternalForce) -> None:
        """A rig's force on a foot, from the step its stamp names; zero force and rate remove it."""
        try:
            taken = self._loop.commands.force(external_force_from_msg(msg))
        except InputError as exc:
            return self._reject(EXTERNAL_FORCE, exc.reason, str(exc))
        if taken:
            self.shell.health.heard(EXTERNAL_FORCE)
        return None

    def _warn_late(self, text: str) -> None:
        """A command came after the step it names (throttled: a slow graph sends many)."""
        self.get_logger().warning(text, throttle_duration_sec=5.0)

    def _reject(self, topic: str, reason: str, detail: str) -> None:
        self.shell.health.reject(topic, reason, detail)

    # --- simulation_interfaces (sim_interfaces.Controls) ---------------------------------------------
    @property
    def sim_state(self) -> State:
        """PLAYING, PAUSED or STOPPED (paused at the start state by a stop)."""
        return self._loop.state

    def set_sim_state(self, target: int, done: Callable[[Outcome], None]) -> None:
        """Play, pause or stop (paused, then reset by the loop); ``done`` gets the outcome."""
        change = transition(self.sim_state, target)
        if not change.outcome.ok:
            return done(change.outcome)
        self._loop.set_paused(change.state is not State.PLAYING)  # first: no step between a stop's reset and its pause
        self.get_logger().info(f"simulation {change.state.name.lower()} at {self.now_ns * 1e-9:.4f} s")

        def settled() -> None:
            self._loop.stopped = change.state is State.STOPPED
            done(change.outcome)

        if change.reset:
            return self._loop.request_reset("the simulation was stopped", settled)
        return settled()

    def reset_sim(self, scope: int, done: Callable[[Outcome], None]) -> None:
        """Reset what ``scope`` asks for (the state; time runs on); ``done`` gets the outcome."""
        plan = reset_plan(scope)
        if not plan.reset_state:
            return done(plan.outcome)
        return self._loop.request_reset("the simulation was reset", lambda: done(plan.outcome))

    def begin_steps(self, run: StepRun) -> Outcome | None:
        """Hand a client's step request to the loop, or say why not."""
        return self._loop.begin_steps(run)

    def entity_kinematics(self, name: str) -> entities.Kinematics:
        """An entity's state now (read by the loop with the physics still)."""
        return self._loop.call(lambda: entities.kinematics(self.sim, name))

    def set_base(self, state: entities.Kinematics) -> None:
        """Sally's base to ``state``'s pose and twist (the magnets see it at the next step)."""

        def move() -> None:
            self.sim.set_base(state.pose, state.linear, state.angular)
            self._loop.stopped = False

        self._loop.call(move)
        self.get_logger().info(f"base set to {state.pose.position.round(4).tolist()} at {self.now_ns * 1e-9:.4f} s")

    # --- viewer ---------------------------------------------------------------------------------
    def _open_viewer(self) -> ViewerBridge | None:
        if not display_available():
            self.get_logger().warning("headless:=false but no display is available; running headless")
            return None
        viewer = ViewerBridge(self.sim, self._toggle_pause)
        self.get_logger().info("viewer open: Space pauses and plays the sim (as SetSimulationState does)")
        return viewer

    def _toggle_pause(self) -> None:
        paused = self._loop.paused
        self.set_sim_state(State.PAUSED if not paused else State.PLAYING, lambda outcome: None)
        self.get_logger().info("paused from the viewer" if self._loop.paused else "resumed from the viewer")


def main(args: list[str] | None = None) -> int:
    """Run the sim node (executable ``sally_sim_node``)."""
    return run_node("sally_sim", SimNode, args, run=lambda node, executor, stop: node.run(executor, stop))


if __name__ == "__main__":
    sys.exit(main())
