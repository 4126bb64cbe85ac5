"""The sim's physics loop on a real Simulator, without ROS: the port below stands where the node
is, records what the loop asks it to publish and, when told to, answers each state as a controller
hosted in the same process does (inside the publish call)."""

import threading
import time
from collections import Counter

import numpy as np

from sally_sim_node import Simulator
from sally_sim_node.drive import Drive
from sally_sim_node.lockstep import Verdict
from sally_sim_node.pacing import Pacer
from sally_sim_node.sim_clock import PublishSchedule, SimClock
from sally_sim_node.sim_control import Code, State, StepRun
from sally_sim_node.sim_loop import EXIT_DIVERGED, LoopSettings, SimLoop
from sally_sim_node.stamped_commands import StampedCommands

STATE_EVERY = 10
"""Physics steps a control period (5 ms at 2 kHz), as at the defaults."""
CLOCK_EVERY = 2
"""Physics steps between two /clock messages (1 ms), as at the defaults."""


class Log:
    def __init__(self):
        self.lines = []

    def info(self, text, **_):
        self.lines.append(text)

    warning = info


class Port:
    """The node's side and the loop's outputs: what was published (sim time in ns) and, if ``answer``, a servo command
    stamped with each state, given inside the publish as a hosted controller gives it."""

    def __init__(self, answer=True, stop_after_states=None):
        self.answer, self.stop_after_states = answer, stop_after_states
        """True, False, or how many states to answer (then no more)."""
        self.loop: SimLoop | None = None
        self.stop = threading.Event()
        self.states, self.clocks, self.due, self.held, self.resets, self.divergences = [], [], [], [], [], []
        self.positions = []
        self.idled: list[bool] = []
        """Whether the physics run was done at each spare moment the loop gave."""

    def ok(self):
        return True

    def publish_clock(self, stamp):
        self.clocks.append(stamp)

    def publish_state(self):
        self.prepare_state()()

    def prepare_state(self):
        now, position = self.loop.clock.now_ns, self.loop.sim.joint_positions()

        def publish():
            self.states.append(now)
            self.positions.append(position)
            if self.answer is True or (self.answer and len(self.states) <= self.answer):
                self.give(now)
            if self.stop_after_states is not None and len(self.states) >= self.stop_after_states:
                self.stop.set()

        return publish

    def give(self, stamp):
        """The answer to the state ``stamp``: setpoints that differ from state to state."""
        drive, joints = self.loop.drive, np.arange(3)
        position = drive.commanded.position[joints] + 0.01 * np.sin(stamp * 1e-8)
        zeros = np.zeros(3)
        admission, _ = self.loop.offer_command(
            lambda t: drive.take_servo(joints, position, zeros, zeros, None, None, t), stamp
        )
        assert admission.verdict in (Verdict.TAKEN, Verdict.LATE)

    def publish_due(self, due):
        self.prepare_due(due)()

    def prepare_due(self, due):
        now = self.loop.clock.now_ns
        return lambda: self.due.append((now, frozenset(due)))

    def idle(self, until):
        self.idled.append(until())

    def between_periods(self):
        pass

    def publish_diagnostics(self):
        pass

    def holding(self, why):
        self.held.append(why)

    def diverged(self, exc):
        self.divergences.append(str(exc))

    def reset_done(self):
        self.resets.append(self.loop.clock.now_ns)
        self.states.append(self.loop.clock.now_ns)  # the new time line's first state (the next period answers it)

    def new_drive(self):
        return None

    def controller_present(self):
        return False


def wait(predicate, timeout):
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.005)  # polling a condition, with a time limit
    return True


def make_loop(
    port, mode="lockstep", paused=False, lockstep_timeout=2.0, sim=None, control_latency=0, thread=True, delay=0
):
    sim = sim or Simulator()
    clock = SimClock(round(sim.timestep * 1e9))
    counts = Counter()
    drive = Drive("servo", sim.servos.defaults, sim.actuated_positions(), 50.0, 2.0, timeout=0.5)
    gated = mode == "lockstep"
    publications = PublishSchedule(
        {**({} if gated else {"state": STATE_EVERY}), "telemetry": 40, "tf": 20, "visuals": 70}
    )
    settings = LoopSettings(
        mode, gated, STATE_EVERY, publications, clock_every=CLOCK_EVERY, lockstep_timeout=lockstep_timeout,
        control_latency=control_latency, physics_thread=thread, command_delay=delay,
    )  # fmt: skip
    loop = SimLoop(
        sim, clock, drive, StampedCommands(sim, clock, counts, print), Pacer(sim.timestep), settings, port, port,
        counts, Log(), paused=paused,
    )  # fmt: skip
    port.loop = loop
    return loop


def test_lockstep_steps_one_control_period_per_answered_state():
    port = Port(stop_after_states=50)
    loop = make_loop(port)
    assert loop.run(port.stop) == 0
    period = STATE_EVERY * loop.clock.dt_ns
    assert port.states == [i * period for i in range(50)]  # each state once, on the period's grid
    assert loop.clock.now_ns == 49 * period  # the 50th state's period was not stepped: stopped first
    tick = CLOCK_EVERY * loop.clock.dt_ns
    assert port.clocks == [i * tick for i in range(49 * period // tick + 1)]  # /clock at 0, then every 1 ms
    assert [t for t, due in port.due if "tf" in due][:2] == [2 * period, 4 * period]
    assert loop.counts["lockstep_timeouts"] == 0 and port.held == []


class LatePort(Port):
    """Answers each state from another thread once the publish has returned, as a controller in
    another process does."""

    def __init__(self, **kwargs):
        super().__init__(answer=False, **kwargs)
        self.asked = []
        self._thread = threading.Thread(target=self._answer, daemon=True)
        self._thread.start()

    def prepare_state(self):
        publish = super().prepare_state()

        def publish_and_ask():
            publish()
            self.asked.append(self.states[-1])

        return publish_and_ask

    def _answer(self):
        answered = 0
        while not self.stop.is_set():
            if len(self.asked) > answered:
                time.sleep(0.0003)  # the answer comes late, while the period steps
                self.give(self.asked[answered])
                answered += 1
            else:
                time.sleep(0.0001)


def test_with_control_latency_1_a_period_steps_with_the_answer_to_the_state_before():
    runs = {}
    for name, port, latency, thread in (
        ("hosted", Port(stop_after_states=60), 1, True),
        ("late", LatePort(stop_after_states=60), 1, True),
        ("one thread", Port(stop_after_states=60), 1, False),
        ("latency 0", Port(stop_after_states=60), 0, True),
    ):
        loop = make_loop(port, control_latency=latency, thread=thread)
        assert loop.run(port.stop) == 0
        assert not loop.sim.stepping and loop.counts["lockstep_timeouts"] == 0
        period = STATE_EVERY * loop.clock.dt_ns
        assert port.states == [i * period for i in range(60)]  # each state read at its own time, once
        tick = CLOCK_EVERY * loop.clock.dt_ns
        assert port.clocks[:295] == [i * tick for i in range(295)]  # /clock every 1 ms, in order
        assert [t for t, due in port.due if "tf" in due][:2] == [2 * period, 4 * period]
        runs[name] = (loop.sim.data.qpos.copy(), np.array(port.positions))
        loop.sim.close()
        if name == "hosted":  # a spare moment each period the physics thread stepped, before its end
            assert len(port.idled) >= 50 and not all(port.idled)
        elif name == "one thread":
            assert port.idled == []  # no physics thread: nothing to wait for
    # however late the answers come, the run is the same: each period waits for the answer before it
    for other in ("late", "one thread"):  # nor whether the period steps in the physics thread or before
        assert np.array_equal(runs["hosted"][0], runs[other][0]) and np.array_equal(runs["hosted"][1], runs[other][1])
    # and it is not the latency-0 run: there each answer applies to the period of its own state
    assert not np.array_equal(runs["hosted"][0], runs["latency 0"][0])


def test_with_control_latency_1_the_clock_never_runs_back_when_the_hold_takes_over():
    """Held, a period steps in the loop's thread and publishes as it goes: what the period before
    left (its clock) goes out first."""
    port = Port(answer=5)
    loop = make_loop(port, lockstep_timeout=0.1, control_latency=1)
    thread = threading.Thread(target=loop.run, args=(port.stop,))
    thread.start()
    try:
        assert wait(lambda: port.held and len(port.clocks) > 20, 10.0)
    finally:
        port.stop.set()
        thread.join(10.0)
    assert port.clocks == sorted(port.clocks) and len(set(port.clocks)) == len(port.clocks)
    loop.sim.close()


def test_a_state_nobody_answers_is_sent_again_and_then_held():
    port = Port(answer=5)  # a controller that answered five states, then went
    loop = make_loop(port, lockstep_timeout=0.25)
    thread = threading.Thread(target=loop.run, args=(port.stop,))
    thread.start()
    try:
        assert wait(lambda: port.held, 10.0)
    finally:
        port.stop.set()
        thread.join(10.0)
    period = STATE_EVERY * loop.clock.dt_ns
    assert port.states[4:7] == [4 * period, 5 * period, 5 * period]  # re-sent (a state lost?): the same stamp
    assert "no answer within 0.25 s in lockstep" in port.held[0]
    assert loop.counts["lockstep_timeouts"] == 1 and loop.drive.watchdog.engaged


def test_a_step_request_while_paused_takes_that_many_control_periods():
    port = Port()
    loop = make_loop(port, paused=True)
    outcomes, feedback = [], []
    run = StepRun(3, lambda done, left: feedback.append((done, left)), outcomes.append)
    assert loop.begin_steps(run) is None
    refused = loop.begin_steps(StepRun(1, lambda *_: None, lambda _: None))
    assert refused is not None and refused.code == Code.OPERATION_FAILED  # one request at a time
    thread = threading.Thread(target=loop.run, args=(port.stop,))
    thread.start()
    try:
        assert wait(lambda: outcomes, 10.0)
    finally:
        port.stop.set()
        thread.join(10.0)
    assert outcomes[0].code == Code.OK and feedback == [(1, 2), (2, 1), (3, 0)]
    assert loop.clock.now_ns == 3 * STATE_EVERY * loop.clock.dt_ns and loop.state is State.PAUSED


def test_a_reset_starts_a_new_time_line_at_the_next_whole_second():
    port = Port()
    loop = make_loop(port)
    answered = []

    def request_reset_after_some_states():
        assert wait(lambda: len(port.states) >= 20, 10.0)
        loop.request_reset("test", lambda: answered.append(loop.clock.now_ns))
        assert wait(lambda: answered, 10.0)
        assert wait(lambda: len([t for t in port.states if t >= 1_000_000_000]) >= 3, 10.0)
        port.stop.set()

    helper = threading.Thread(target=request_reset_after_some_states)
    helper.start()
    loop.run(port.stop)
    helper.join(10.0)
    assert port.resets == [1_000_000_000] and answered == [1_000_000_000] and loop.counts["resets"] == 1
    period = STATE_EVERY * loop.clock.dt_ns
    after = [t for t in port.states if t >= 1_000_000_000]
    assert after[:3] == [1_000_000_000, 1_000_000_000, 1_000_000_000 + period]  # the notice's state, then periods


def test_a_diverged_sim_ends_the_loop_when_told_to():
    port = Port()
    sim = Simulator()
    sim.data.qvel[0] = 1e12  # no reader would take this state: a divergence at the first step
    loop = make_loop(port, sim=sim)
    loop.settings = LoopSettings("lockstep", True, STATE_EVERY, loop.settings.publications, exit_on_divergence=True)
    assert loop.run(port.stop) == EXIT_DIVERGED
    assert port.divergences and loop.counts["divergences"] == 1


def test_fast_pacing_steps_without_waiting_for_answers():
    port = Port(answer=False, stop_after_states=30)
    loop = make_loop(port, mode="fast")
    assert loop.run(port.stop) == 0
    period = STATE_EVERY * loop.clock.dt_ns
    assert port.states[:3] == [period, 2 * period, 3 * period]  # published at each period's end
    assert port.held  # no command ever: the watchdog holds from the first run of steps


def test_a_command_delay_keeps_the_command_before_for_a_period_s_first_steps():
    """With the bus's delay (``command_delay`` steps) each answer reaches the servos that many steps
    into its period; until then the one before acts. Without it, at the period's start."""
    applied = {}
    for delay in (0, 4):
        port = Port(stop_after_states=12)
        loop = make_loop(port, control_latency=1, delay=delay)
        calls = []
        sim, set_servo = loop.sim, loop.sim.set_servo
        sim.set_servo = lambda s, calls=calls, sim=sim, set_servo=set_servo: (
            calls.append((round(sim.time / sim.timestep), s.position[0])),
            set_servo(s),
        )
        assert loop.run(port.stop) == 0
        applied[delay] = calls
    first = {}
    for step, position in applied[0]:
        first.setdefault(position, step)  # when each command first acted
    delayed = {}
    for step, position in applied[4]:
        delayed.setdefault(position, step)
    moved = [p for p in first if p in delayed and first[p] > 0]
    assert len(moved) >= 8, "every answered period's command acted in both runs"
    assert all(delayed[p] == first[p] + 4 for p in moved), {p: (first[p], delayed[p]) for p in moved}
