"""The sim's physics loop: when to step, how far, what to wait for, and when to pause, step on
request or reset. No ROS: the node around it (a :class:`LoopPort`) publishes, logs and looks at
the graph.

Each pacing mode steps control periods (``state_every`` physics steps, 5 ms by default) with the
servos tracking the latest command (:class:`~.drive.Drive`; they close their loops inside every
physics step, in C):

* **lockstep** (gated): publish the state at t, wait for the command stamped t (re-sending the
  state if no answer comes, holding the pose if none comes within ``lockstep_timeout``), then step
  the period with it; with a control latency of 1 (:attr:`LoopSettings.control_latency`) the
  period steps with the answer to t - 1 period instead, in the physics thread, while the state at
  t goes out and is answered, and ends once both are done;
* **realtime**: the same gated period once the wall clock has reached its end when ``synchronous``,
  otherwise physics steps as the wall clock allows (:class:`~.pacing.Pacer`), never running ahead
  of a live controller's answers by more than ``command_max_age``;
* **fast**: periods back to back.

A run of steps stops wherever a publication that reads the physics
(:class:`~.sim_clock.PublishSchedule`: the state, telemetry, TF, visuals, camera; their periods are
whole control periods) or a stamped command (:class:`~.stamped_commands.StampedCommands`) falls
due. The clock does not stop it: after a run, /clock goes out for each clock tick the run passed
(every 1 ms of sim time by default), in order, before what the run's end publishes. Requests from other threads (a
pause, a client's step request, a reset) go through :attr:`SimLoop.answer`; anything else that
touches the physics state (a service reading or setting an entity, a parameter change) is handed
to the loop (:meth:`SimLoop.call`), which does it with the physics still: between two periods, or
inside one once its steps are done. So the thread that asks, which may be the executor that
delivers the answer a period waits for, never waits on :attr:`SimLoop.physics` (the loop holds it
while it steps). Resets happen between two control periods, never inside one.
"""

from __future__ import annotations

import functools
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from sally_node_common.partners import keep_waiting, longest_wait

from .drive import Drive
from .errors import DivergenceError
from .joint_drive import JointDrive
from .lockstep import Admission, CommandGate, LockstepWait, Step, Verdict
from .pacing import Pacer
from .servo import ServoSetting
from .sim_clock import PublishSchedule, SimClock
from .sim_control import Outcome, State, StepRun, step_refusal
from .simulator import Simulator
from .stamped_commands import StampedCommands

T = TypeVar("T")
EXIT_DIVERGED = 3
CALL_WAIT = 30.0
"""Wall seconds a :meth:`SimLoop.call` waits for the loop before it gives up (the loop is stuck)."""
LOCKSTEP_RESEND = 0.1
"""Wall seconds after which lockstep re-sends the state it waits on (a reply lost at discovery)."""
COMMANDS_LIVE = 0.1
"""Wall seconds since the last command within which realtime/fast pacing treats the controller as live."""
LOCKSTEP_HELD_WAIT = 0.001
"""While the hold is on in lockstep, how long each period waits for a controller to come back (s)."""
PARTNER_POLL = 0.5
"""Wall seconds between two looks at the graph while a lockstep wait goes on past lockstep_timeout."""
LONGEST_WAIT = longest_wait(2)
"""Wall seconds a gated period waits at most while a controller is on the graph: two links above
the IK's wait for the sequencer (:mod:`sally_node_common.partners`)."""
IDLE_WAIT = 0.05
"""Wall seconds the loop waits between checks while paused or diverged."""


@dataclass(frozen=True)
class LoopSettings:
    """How the loop paces and waits (from the sim's parameters)."""

    mode: str
    """``lockstep``, ``realtime`` or ``fast``."""
    gated: bool
    """Every state is answered before the sim steps on (lockstep, or realtime synchronous)."""
    state_every: int
    """Physics steps in a control period (one state each)."""
    publications: PublishSchedule
    """Where a run of physics steps stops to publish (a gated period publishes its state itself)."""
    clock_every: int = 2
    """Physics steps between two /clock messages (published after the run that passes them)."""
    lockstep_timeout: float = 2.0
    """Wall seconds a gated period waits for its answer before holding (longer while a controller
    is on the graph: :func:`~sally_node_common.partners.keep_waiting`)."""
    command_max_age_ns: int = 0
    """Realtime/fast: how far (ns of sim time) the sim may run ahead of a live controller's last answer."""
    command_wait: float = 0.0
    """Realtime/fast: wall seconds the sim waits for that answer at most."""
    exit_on_divergence: bool = False
    """End the loop (:data:`EXIT_DIVERGED`) when the physics diverges, instead of waiting for a reset."""
    control_latency: int = 0
    """Gated periods: control periods from a state to the period its answer applies from
    (:mod:`sally_node_common.time_contract`). 0: publish, wait for the answer, step. 1: the period
    steps (in the physics thread) with the answer to the state before while the graph answers this
    one."""
    command_delay: int = 0
    """Physics steps a servo command takes on the driver's bus: each control period's first
    ``command_delay`` steps still track the command before (legged_control's ``delay``)."""
    physics_thread: bool = True
    """With a control latency, step the periods in the physics thread (False: in the loop's thread
    before the state goes out; the same run on one core, for machines whose cores are all busy)."""


class Outputs(Protocol):
    """What the loop publishes off the physics (:class:`~.loop_outputs.LoopOutputs`)."""

    def publish_clock(self, stamp: int) -> None:
        """/clock at ``stamp`` (ns of sim time)."""
        ...

    def publish_state(self) -> None:
        """The state (joint states, odometry when due) at sim time now."""
        ...

    def prepare_state(self) -> Callable[[], None]:
        """The state now, read at once: a call publishes it (a new message each call, as
        :meth:`publish_state` would have published it now), whatever the physics does meanwhile."""
        ...

    def publish_due(self, due: set[str]) -> None:
        """Those of ``due`` other than the clock and the state (telemetry, TF, ...), after a run of steps."""
        ...

    def prepare_due(self, due: set[str]) -> Callable[[], None]:
        """:meth:`publish_due`, read now: what reads the physics is read (or published) in this
        call, and the call returned publishes the rest, whatever the physics does meanwhile."""
        ...


class LoopPort(Protocol):
    """What the loop asks of the node around it (its publications aside: :class:`Outputs`)."""

    def ok(self) -> bool:
        """The node can still publish (its context is up)."""
        ...

    def between_periods(self) -> None:
        """Once per pass of the loop: diagnostics when due, the viewer."""
        ...

    def idle(self, until: Callable[[], bool]) -> None:
        """A spare moment (the physics thread steps, or realtime pacing waits for the wall clock):
        work that can wait may run until ``until()`` (the steps are done, the wait is over) or there
        is none (the composed host's deferred taps)."""
        ...

    def publish_diagnostics(self) -> None:
        """/diagnostics now."""
        ...

    def holding(self, why: str) -> None:
        """The watchdog engaged (``why``): say so."""
        ...

    def diverged(self, exc: DivergenceError) -> None:
        """The physics diverged: say so."""
        ...

    def reset_done(self) -> None:
        """After a reset, under the physics lock: the reset notice and the first state of the new time line."""
        ...

    def new_drive(self) -> JointDrive | None:
        """ros2_control's joint drive anew for a reset (None without one)."""
        ...

    def controller_present(self) -> bool:
        """A controller (publishes commands, reads the states) is on the graph."""
        ...


@dataclass
class Asked:
    """What other threads asked of the sim loop (read and changed under its ``answer`` lock)."""

    step_run: StepRun | None = None
    """The steps a client asked for while paused."""
    resets: list[Callable[[], None]] = field(default_factory=list)
    """What to call once the loop has reset."""
    calls: list[_Call] = field(default_factory=list)
    """What to do with the physics still."""
    played: bool = False
    """Played after a pause: the pacer restarts at the loop's next pass."""
    server: threading.Thread | None = None
    """The thread that serves what is asked: the one running the loop, while it does."""
    stop: threading.Event = field(default_factory=threading.Event)
    """Set once the loop must end (:meth:`SimLoop.run`'s; read without the lock)."""


@dataclass
class BusDelay:
    """The servo command on the bus (:attr:`LoopSettings.command_delay`): within a period's first
    steps the servos still track the command in force before the latest."""

    in_force: ServoSetting | None = None
    """The servo command in force before the latest."""
    on_bus: ServoSetting | None = None
    """The latest command while it is still on the bus, in a period's first steps."""

    def setting(self, latest: ServoSetting, into: int, delay: int, run: int) -> tuple[ServoSetting, int]:
        """What the servos track ``into`` steps into a period and for how many of ``run`` steps, the
        latest command being ``latest`` and the bus's delay ``delay`` steps."""
        if delay <= 0:
            return latest, run
        if into == 0:  # a period starts: the command taken last is still on the bus
            self.on_bus, self.in_force = latest, self.in_force or latest
        if into < delay and self.on_bus is latest and self.in_force is not None:
            return self.in_force, min(run, delay - into)
        self.in_force = latest
        return latest, run


@dataclass
class Period:
    """A control period whose steps were begun: where, and how they went."""

    start: int
    """The publication schedule's step at which it started."""
    sim_time: float
    """Sim time (s) at its start (the loop's time while the physics thread steps it)."""
    open: bool = True
    """Not ended yet (:meth:`SimLoop._end_period`)."""
    error: DivergenceError | None = None
    """How its steps diverged."""


@dataclass
class RunState:
    """Whether the loop steps: ``paused`` (not stepping), and ``stopped`` (paused at the start state
    by a stop and not stepped since)."""

    paused: bool = False
    stopped: bool = False

    @property
    def state(self) -> State:
        """PLAYING, PAUSED or STOPPED."""
        if not self.paused:
            return State.PLAYING
        return State.STOPPED if self.stopped else State.PAUSED


class SimLoop:
    """Steps ``sim`` with the servos as ``drive`` says and ``commands`` on ``clock``'s time line,
    paced by ``pacer`` as ``settings`` say; it publishes what it reads off the physics on
    ``outputs`` and asks the rest of ``port`` (the node). ``counts`` are the sim's diagnostics
    counters; ``log`` an rclpy logger."""

    def __init__(
        self,
        sim: Simulator,
        clock: SimClock,
        drive: Drive,
        commands: StampedCommands,
        pacer: Pacer,
        settings: LoopSettings,
        outputs: Outputs,
        port: LoopPort,
        counts: Counter[str],
        log,
        paused: bool = False,
    ) -> None:
        self.sim, self.clock, self.drive, self.commands, self.pacer = sim, clock, drive, commands, pacer
        self.outputs, self.port, self.counts, self.log = outputs, port, counts, log
        self.settings = settings
        self._run = RunState(paused)
        self.asked = Asked()
        """What other threads asked of the loop (read and changed under :attr:`answer`)."""
        self.diverged: DivergenceError | None = None
        self.physics = threading.RLock()
        """Held while stepping: anything that changes the physics state takes it."""
        self.answer = threading.Condition()
        """Signalled on an answer, a pause, a step request or a reset request."""
        self.gate = CommandGate()  # read and changed under self.answer
        self._period: Period | None = None
        """The control period whose steps were begun (:meth:`_begin_period`) until they are ended."""
        self._bus = BusDelay()
        self._pending: list[Callable[[], None]] = []
        """What the last period (with a control latency) left to publish: read when it ended."""

    @property
    def settings(self) -> LoopSettings:
        """How the loop paces and waits; set anew when a parameter changes (under :attr:`physics`)."""
        return self._settings

    @settings.setter
    def settings(self, settings: LoopSettings) -> None:
        self._settings = settings
        period_ns = settings.state_every * self.clock.dt_ns
        self.commands.latency_ns = settings.control_latency * period_ns if settings.gated else 0
        # what one step of the pacer's plan is: a gated control period, or a physics step
        self.pacer.chunk = self.sim.timestep * (settings.state_every if settings.gated else 1)

    @property
    def state(self) -> State:
        """PLAYING, PAUSED or STOPPED (paused at the start state by a stop)."""
        return self._run.state

    @property
    def paused(self) -> bool:
        """Not stepping (paused or stopped; :meth:`set_paused` pauses and plays)."""
        return self._run.paused

    @property
    def stopped(self) -> bool:
        """Paused at the start state by a stop (SimulationState STOPPED) and not stepped since."""
        return self._run.stopped

    @stopped.setter
    def stopped(self, stopped: bool) -> None:
        self._run.stopped = stopped

    # --- the loop -------------------------------------------------------------------------------
    def run(self, stop: threading.Event) -> int:
        """Step and publish until ``stop`` is set or the port's context is down. Returns the exit
        status (0, or :data:`EXIT_DIVERGED`)."""
        self.asked.stop = stop
        port = self.port
        self.outputs.publish_clock(self.clock.now_ns)
        with self.answer:
            self.asked.server = threading.current_thread()
        try:
            while port.ok() and not stop.is_set():
                self._serve_calls()
                settings = self.settings
                if self._pending and not self._ahead_next():
                    self._flush()
                if self.asked.resets:
                    self._reset()
                if self.asked.played:
                    self._restart_pacer()
                if self.diverged is not None and settings.exit_on_divergence:
                    port.publish_diagnostics()
                    return EXIT_DIVERGED
                if self.paused and self.diverged is None and self.asked.step_run is not None:
                    self._take_step()
                elif self.paused or self.diverged is not None:
                    with self.answer:
                        if self.asked.step_run is None and not self.asked.resets:
                            self.answer.wait(IDLE_WAIT)
                elif settings.mode == "realtime" and settings.gated:
                    self._paced_period()
                elif settings.mode == "realtime":
                    with self.physics:
                        plan = self.pacer.plan(self.sim.time)
                        if plan.steps and not self.paused:
                            self._advance(plan.steps)
                    if not plan.steps:
                        self._rest(plan.sleep)
                elif settings.mode == "fast" or not settings.gated:  # (lockstep without answers to wait for)
                    with self.physics:
                        if not self.paused:
                            self._advance(settings.state_every)
                else:
                    self._lockstep_period()
                port.between_periods()
            if port.ok():
                self._flush()
            return 0
        finally:
            with self.answer:
                self.asked.server = None
                self.answer.notify_all()
            self._serve_calls()  # what came too late for the loop: done here, the loop over

    def _ahead_next(self) -> bool:
        """The loop's next pass is a gated period with a control latency (it publishes what the
        last one left once its own steps are under way)."""
        settings = self.settings
        running = not self.paused and self.diverged is None and not self.asked.resets
        return running and settings.gated and settings.control_latency > 0 and settings.mode != "fast"

    def _flush(self) -> None:
        """Publish what a period left to publish (read when its steps ended)."""
        pending, self._pending = self._pending, []
        for publish in pending:
            publish()

    def _advance(self, n: int) -> None:
        """Step ``n`` physics steps with the servos tracking the latest command (or the hold),
        publishing what falls due.

        Steps run in one compiled Simulator call (no interpreter lock held) up to the next
        publication that reads the physics (at most a control period at the default rates), which
        is also how often the watchdog is checked.
        """
        settings, clock = self.settings, self.clock
        done = 0
        while done < n:
            self._check_watchdog()
            if not settings.gated:
                self._wait_for_fresh_commands()
            k = clock.since_start_over  # the publication schedule starts over with a reset
            run = self.commands.due(settings.publications.steps_to_next(k, n - done))
            setting, run = self._servo_setting(k, run)
            try:
                self.sim.set_servo(setting)
                self.sim.step(run)
            except DivergenceError as exc:
                self._on_divergence(exc)
                return
            done += run
            self._stepped(k, run)

    def _servo_setting(self, k: int, run: int) -> tuple[ServoSetting, int]:
        """What the servos track from the schedule's step ``k`` and for how many of ``run`` steps:
        the latest command, or, within a period's first :attr:`LoopSettings.command_delay` steps, the
        one in force before it (the bus's delay)."""
        settings = self.settings
        return self._bus.setting(self.drive.setting, k % settings.state_every, settings.command_delay, run)

    def _stepped(self, k: int, run: int, later: bool = False) -> None:
        """After ``run`` steps from the schedule's step ``k``: the clock on, its ticks the run passed
        and what falls due read and published (``later``: read now, published by :meth:`_flush`)."""
        self.clock.advance(run)
        due = self.settings.publications.due(k + run)
        outputs, every = self.outputs, self.settings.clock_every
        first = k + every - k % every  # the first clock tick after k
        ticks = [self.clock.now_ns - (k + run - tick) * self.clock.dt_ns for tick in range(first, k + run + 1, every)]
        publications: list[Callable[[], None]] = [
            *(functools.partial(outputs.publish_clock, stamp) for stamp in ticks),
            *([outputs.prepare_state()] if "state" in due else []),
            outputs.prepare_due(due),
        ]
        if later:
            self._pending = publications
            return
        for publish in publications:
            publish()

    def _check_watchdog(self) -> None:
        """Hold the pose once no command has come for the watchdog's timeout."""
        watchdog = self.drive.watchdog
        if not watchdog.engaged and watchdog.check(self.sim.time):
            self.engage_hold(f"no command for {watchdog.timeout:.3f} s")

    def _wait_for_fresh_commands(self) -> None:
        """Realtime/fast: do not run ahead of a live controller by more than ``command_max_age``.

        A sim catching up on the wall clock runs several times faster than real time; the commands
        answering a state a period of wall time old would then be applied several periods of sim
        time late. So before each run of steps the sim waits, up to ``command_wait`` wall seconds,
        for the answer to a recent state. It waits only while commands are coming (one within the
        last 0.1 s): a controller that is gone is the watchdog's case, and a graph without one is
        never held up. The time spent waiting shows as lag and a lowered effective factor on
        /diagnostics, as any other lag.
        """
        settings = self.settings
        if settings.command_max_age_ns <= 0 or self.drive.watchdog.engaged:
            return
        start = time.monotonic()
        if start - self.gate.last_wall > COMMANDS_LIVE:
            return
        with self.answer:
            while (
                self.clock.now_ns - self.gate.last_stamp > settings.command_max_age_ns and not self.asked.stop.is_set()
            ):
                left = settings.command_wait - (time.monotonic() - start)
                if left <= 0:
                    self.counts["command_waits_timed_out"] += 1
                    now = self.clock.now_ns
                    self.log.warning(
                        f"no answer within command_wait ({settings.command_wait:g} s) at {now * 1e-9:.3f} s: "
                        f"stepping on with a command {(now - self.gate.last_stamp) * 1e-6:.1f} ms of sim time old",
                        throttle_duration_sec=1.0,
                    )
                    return
                self.answer.wait(timeout=left)

    def _paced_period(self) -> None:
        """Realtime synchronous: one gated control period once the wall clock has reached its end
        (sim time never leads the wall clock; behind it, periods run back to back)."""
        with self.physics:
            plan = self.pacer.plan(self.sim.time)  # in control periods (the pacer's chunk)
        if plan.steps:
            self._lockstep_period()
        else:
            self._rest(plan.sleep)

    def _rest(self, seconds: float) -> None:
        """Realtime, ahead of the wall clock: the port's spare-moment work for up to ``seconds``,
        then sleep what is left of them."""
        until = time.monotonic() + seconds
        self.port.idle(lambda: time.monotonic() >= until)
        left = until - time.monotonic()
        if left > 0:
            time.sleep(left)

    def _lockstep_period(self, stepping: bool = False) -> None:
        """Publish the state, wait for the command answering it (matched by stamp), step.

        ``stepping``: a step a client asked for while paused (a pause does not end the wait then).
        """
        settings, port = self.settings, self.port
        stamp = self.clock.now_ns
        halted = (lambda: False) if stepping else (lambda: self.paused)
        with self.answer:
            self.gate.expect(stamp)
            held, limit = self.gate.wait_for(self.drive.watchdog.engaged, settings.lockstep_timeout, LOCKSTEP_HELD_WAIT)
        ahead = settings.control_latency > 0
        if ahead:  # the period steps with the answer to the state before, while this one is answered
            publish_state = self.outputs.prepare_state()
            with self.physics:  # held until the period's steps are done
                if halted():
                    return self._flush()
                self._begin_period()
                self._flush()  # what the last period left (the clock, telemetry), while this one steps
                try:
                    timed_out = self._await_answer(stamp, limit, held, halted, publish_state)
                finally:
                    self._end_period()
        else:
            timed_out = self._await_answer(stamp, limit, held, halted, self.outputs.publish_state)
        if timed_out:
            self.counts["lockstep_timeouts"] += 1
            self.drive.watchdog.engage(self.sim.time)
            self.engage_hold(f"no answer within {limit:g} s in lockstep")
        if ahead or self.asked.stop.is_set() or not port.ok():
            return
        with self.physics:
            if not halted():  # (checked under the lock: a pause's reset must not be stepped past)
                self._advance(settings.state_every)

    def _begin_period(self) -> None:
        """Start the control period's steps (under :attr:`physics`): in the physics thread when
        nothing falls due inside it, else here, now."""
        n, clock = self.settings.state_every, self.clock
        self._check_watchdog()
        k = clock.since_start_over
        if self.diverged is not None:
            return None
        if self.commands.due(self.settings.publications.steps_to_next(k, n)) < n or self.settings.command_delay:
            self._flush()  # what the period before left goes out before what this one publishes
            return self._advance(n)  # (a command or a publication falls due inside the period)
        self.sim.set_servo(self.drive.setting)
        period = self._period = Period(k, self.sim.time)
        if self.settings.physics_thread:
            self.sim.start_steps(n)
            return None
        try:  # the same steps, here and now: the same run, on one core
            self.sim.step(n)
        except DivergenceError as exc:
            period.error = exc
        return None

    def _join_period(self) -> None:
        """The period's steps in the physics thread taken back (a divergence kept for
        :meth:`_end_period`)."""
        try:
            self.sim.finish_steps()
        except DivergenceError as exc:
            if self._period is not None:
                self._period.error = exc

    def _end_period(self) -> None:
        """The period's steps done (waited for when in the physics thread), the clock on, what falls
        due published."""
        period = self._period
        if period is None or not period.open:
            return
        k, n = period.start, self.settings.state_every
        period.open = False
        try:
            if self.sim.stepping:
                self.port.idle(self.sim.steps_done)  # (the loop's Python is usually done first)
                self._join_period()
            if period.error is not None:
                raise period.error
        except DivergenceError as exc:
            self._on_divergence(exc)
            return
        finally:
            self._period = None
        # read now, published once the next period's steps are under way (or by the loop's next pass)
        self._stepped(k, n, later=True)

    def _await_answer(
        self, stamp: int, limit: float, held: bool, halted: Callable[[], bool], publish_state: Callable[[], None]
    ) -> bool:
        """Publish the state stamped ``stamp`` and wait for its answer (re-sending it, holding on, as
        :class:`~.lockstep.LockstepWait` says); whether the wait timed out."""
        port = self.port
        publish_state()
        wait = LockstepWait(time.monotonic(), limit, LOCKSTEP_RESEND, held)
        timed_out = False
        # publishing happens outside the answer lock: a controller hosted in this process answers
        # inside the publish call, in this thread, and its answer takes that lock
        while True:
            if self.asked.calls and self.sim.steps_done():  # the physics still: another thread's request
                if self.sim.stepping:
                    self._join_period()
                self._serve_calls()
            with self.answer:
                if self.gate.is_answered(stamp) or not port.ok() or halted() or self.asked.stop.is_set():
                    break
                step = wait.next(time.monotonic())
                if step.step is Step.WAIT:
                    self.answer.wait(timeout=step.seconds)
                    continue
                if step.step is Step.EXPIRED:
                    waited = time.monotonic() - wait.start
                    if not held and keep_waiting(waited, limit, port.controller_present, LONGEST_WAIT):
                        # slow, not gone (a busy machine): waiting on keeps the run deterministic
                        if wait.limit == limit:
                            self.counts["slow_answers"] += 1
                        wait.limit = min(waited + PARTNER_POLL, LONGEST_WAIT)
                        continue
                    timed_out = not held
                    break
            publish_state()  # Step.RESEND: same stamp again (a state lost at discovery); answered once
        return timed_out

    def _take_step(self) -> None:
        """One step of a client's step request: a control period, gated as the pacing mode gates it."""
        with self.answer:
            run = self.asked.step_run
            if run is None:
                return
            if run.cancelled():
                self.asked.step_run = None
                run.stop("cancelled")
                return
        self.stopped = False
        every = self.settings.state_every
        if self.settings.gated:
            self._lockstep_period(stepping=True)
        else:
            with self.physics:  # to the next state's step: the state goes out at its end
                self._advance(every - self.clock.since_start_over % every)
        with self.answer:
            if self.asked.step_run is not run:  # ended meanwhile (a play, a reset)
                return
            if self.diverged is not None:
                self.asked.step_run = None
                run.stop(str(self.diverged))
            elif self.asked.stop.is_set() or not self.port.ok():
                self.asked.step_run = None
                run.stop("the sim is shutting down")
            elif run.stepped():
                self.asked.step_run = None

    # --- commands -------------------------------------------------------------------------------
    def offer_command(self, take: Callable[[float], bool], stamp: int) -> tuple[Admission, bool]:
        """A controller's command answering the state stamped ``stamp`` (ns; 0: unstamped), which
        ``take(sim_time)`` hands to the drive if the gate admits it (True when that released the
        hold): the gate's admission, and whether it released the hold."""
        released = False
        if self.settings.gated:  # the answer must carry the stamp of the state it answers
            with self.answer:
                admission = self.gate.offer_gated(stamp, self.drive.watchdog.engaged)
                if admission.verdict is Verdict.TAKEN:
                    released = take(self._now_s())
                if admission.verdict is not Verdict.REJECTED:
                    self.answer.notify_all()  # an answer, or a controller back while holding
        else:
            admission = self.gate.offer_free(stamp, self.clock.now_ns)
            if admission.verdict is Verdict.TAKEN:
                released = take(self.sim.time)
                if stamp:  # only a stamped command says which state it answers
                    with self.answer:
                        self.gate.last_wall = time.monotonic()
                        self.answer.notify_all()
        return admission, released

    def _now_s(self) -> float:
        """Sim time (s) as the loop stands: a period's start while its steps run in the physics thread."""
        return self._period.sim_time if self._period is not None else self.sim.time

    def engage_hold(self, why: str) -> None:
        """Hold the pose the actuated joints have now (the watchdog engaged: ``why``)."""
        with self.answer:
            self.gate.hold_engaged()
        self.drive.hold(self.sim.actuated_positions())
        self.port.holding(why)

    def _on_divergence(self, exc: DivergenceError) -> None:
        self.diverged = exc
        self.counts["divergences"] += 1
        self.port.diverged(exc)

    # --- requests from other threads ------------------------------------------------------------
    def set_paused(self, paused: bool) -> None:
        """Pause or play (the period under way, if any, ends first). Never waits for
        :attr:`physics`: the thread that asks may be the one that delivers the answer a period
        holds it for (one process per node: the sim's executor). Played after a pause, the pacer
        restarts at the loop's next pass."""
        with self.answer:
            self.asked.played = self.asked.played or (self.paused and not paused)
            self._run.paused = paused
            if not paused:
                self._end_step_run("the simulation was played")
            self.answer.notify_all()

    def call(self, work: Callable[[], T]) -> T:
        """``work()``'s result, done with the physics still: by the loop at its next pass (between
        two periods, or in a period once its steps are done), or here, under :attr:`physics`, when
        no loop runs or this is its thread. Raises what ``work`` raises; TimeoutError after
        :data:`CALL_WAIT` s (a loop that never comes round)."""
        with self.answer:
            loop = self.asked.server
            if loop is not None and loop is not threading.current_thread():
                call = _Call(work)
                self.asked.calls.append(call)
                self.answer.notify_all()
            else:
                call = None
        if call is None:
            with self.physics:
                return work()
        if not call.done.wait(CALL_WAIT):
            with self.answer:
                if call in self.asked.calls:
                    self.asked.calls.remove(call)
            raise TimeoutError(f"the sim's loop did not come round within {CALL_WAIT:g} s")
        return call.result()

    def _serve_calls(self) -> None:
        """Do what other threads handed over (:meth:`call`), in order, with the physics still."""
        with self.answer:
            calls, self.asked.calls = self.asked.calls, []
        if calls:
            with self.physics:
                for call in calls:
                    call.run()

    def _restart_pacer(self) -> None:
        """Sim time and the wall clock anchored anew after a pause (the pause is not chased)."""
        with self.answer:
            self.asked.played = False
        with self.physics:
            self.pacer.restart(self.sim.time)

    def request_reset(self, why: str, then: Callable[[], None]) -> None:
        """Have the loop reset between two control periods (never inside one: a lockstep period's
        answer belongs to the time line it was asked on), then call ``then``."""
        with self.answer:
            self._end_step_run(why)
            self.asked.resets.append(then)
            self.answer.notify_all()

    def begin_steps(self, run: StepRun) -> Outcome | None:
        """Hand a client's step request to the loop; None, or why not."""
        with self.answer:
            diverged = str(self.diverged) if self.diverged is not None else None
            refused = step_refusal(self.state, run.total, self.asked.step_run is not None, diverged)
            if refused is None:
                self.asked.step_run = run
                self.answer.notify_all()
        return refused

    def _end_step_run(self, why: str) -> None:
        """End a client's step request before its last step (call under ``answer``)."""
        run, self.asked.step_run = self.asked.step_run, None
        if run is not None:
            run.stop(why)

    def _reset(self) -> None:
        """The robot back at its start state, commands and loads cleared, the reset notice sent; the
        clients that asked for it are answered."""
        with self.answer:
            asked, self.asked.resets = self.asked.resets, []
        with self.physics:
            # the clock never runs backwards: the new time line starts at the next whole second, where
            # every periodic schedule (states, IK solves, gravity, telemetry) stands as it does at 0,
            # so the run after a reset is the run from a fresh start, shifted by whole seconds
            self.clock.start_over()
            self.commands.clear()
            self.sim.reset()
            self.drive.start_over(self.sim.actuated_positions(), self.port.new_drive())
            self.diverged = None
            with self.answer:
                self.gate.restart_free()
            self.pacer.restart(self.sim.time)
            self.counts["resets"] += 1
            self.port.reset_done()
        self.log.info(f"reset to the initial state at sim time {self.clock.now_ns * 1e-9:.4f} s")
        for then in asked:
            then()


class _Call:
    """One :meth:`SimLoop.call`: the work, then its result or error for the thread that waits."""

    def __init__(self, work: Callable[[], Any]) -> None:
        self.work = work
        self.done = threading.Event()
        self._value: Any = None
        self._error: BaseException | None = None

    def run(self) -> None:
        try:
            self._value = self.work()
        except Exception as exc:  # noqa: BLE001 - handed to the caller's thread
            self._error = exc
        finally:
            self.done.set()

    def result(self) -> Any:
        if self._error is not None:
            raise self._error
        return self._value
