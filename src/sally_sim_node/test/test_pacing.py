"""The pacer against a fake clock: on time, transient stall, long stall, persistent lag, recovery.

Each scenario drives the pacer the way the sim node does (step the chunks it says are due, else
wait as long as it says) with a fake wall clock that advances by the simulated cost of each chunk.
The universal invariant, checked after every chunk: sim time never leads the wall clock.
"""

import pytest

from sally_sim_node.pacing import Pacer, PacingConfig, PacingState

CHUNK = 0.0005


class FakeClock:
    def __init__(self):
        self.t = 0.0

    def __call__(self):
        return self.t


def drive(pacer, clock, cost, until, stall_at=None, stall=0.0, factor=1.0):
    """Run the loop until wall time ``until``; ``cost(t)`` is the wall cost of one chunk at t."""
    sim, trace, stalled = 0.0, [], False
    while clock.t < until:
        plan = pacer.plan(sim)
        if plan.steps:
            assert plan.steps <= pacer.config.max_burst
            for _ in range(plan.steps):
                clock.t += cost(clock.t)
                sim += CHUNK
                assert sim <= factor * clock.t + 1e-9, "sim time led the wall clock"
        else:
            assert plan.sleep > 0
            clock.t += plan.sleep
        if stall_at is not None and not stalled and clock.t >= stall_at:
            clock.t += stall
            stalled = True
        trace.append((clock.t, sim, pacer.status.lag, pacer.status.state))
    return trace


def make(**config):
    clock = FakeClock()
    return Pacer(CHUNK, PacingConfig(**config), clock), clock


def test_on_time():
    pacer, clock = make()
    trace = drive(pacer, clock, lambda t: 0.2 * CHUNK, until=10.0)
    assert all(lag <= CHUNK + 1e-9 for _, _, lag, _ in trace)
    assert all(state is PacingState.ON_TIME for *_, state in trace)
    assert trace[-1][1] == pytest.approx(10.0, abs=2 * CHUNK)
    assert pacer.status.achieved_factor == pytest.approx(1.0, abs=0.01)
    assert pacer.status.dropped == 0.0 and pacer.status.catch_ups == 0


def test_half_speed_factor():
    pacer, clock = make(factor=0.5)
    trace = drive(pacer, clock, lambda t: 0.2 * CHUNK, until=4.0, factor=0.5)
    assert trace[-1][1] == pytest.approx(2.0, abs=2 * CHUNK)


def test_transient_stall_is_caught_up_within_its_budget():
    pacer, clock = make()
    cost = 0.3 * CHUNK  # the machine runs ~3.3x real time
    trace = drive(pacer, clock, lambda t: cost, until=6.0, stall_at=3.0, stall=0.2)
    after = [(t, lag, state) for t, _, lag, state in trace if t >= 3.0]
    assert max(lag for _, lag, _ in after) == pytest.approx(0.2, abs=0.002)
    caught = next(t for t, lag, _ in after if t > 3.2 and lag < CHUNK)
    # 0.2 s of lag closed at (1 / 0.3 - 1) sim s per wall s, plus burst granularity
    assert caught - 3.2 < 0.2 / (1 / 0.3 - 1) * 1.2
    assert any(state is PacingState.CATCHING_UP for _, _, state in after)
    assert trace[-1][3] is PacingState.ON_TIME
    assert pacer.status.dropped == 0.0 and pacer.status.catch_ups == 1 and pacer.status.degradations == 0
    assert trace[-1][1] == pytest.approx(6.0, abs=2 * CHUNK)  # nothing lost


def test_stall_beyond_the_budget_is_dropped_not_chased():
    pacer, clock = make(catch_up_limit=0.5)
    trace = drive(pacer, clock, lambda t: 0.3 * CHUNK, until=6.0, stall_at=2.0, stall=2.0)
    assert max(lag for *_, lag, _ in trace) <= 0.5 + 1e-9
    assert pacer.status.dropped == pytest.approx(1.5, abs=0.01)
    assert trace[-1][2] < CHUNK and trace[-1][3] is PacingState.ON_TIME
    assert trace[-1][1] == pytest.approx(6.0 - 1.5, abs=0.01)


def test_persistent_lag_lowers_the_factor_instead_of_spiralling():
    pacer, clock = make()
    trace = drive(pacer, clock, lambda t: 1.5 * CHUNK, until=10.0)  # can only do 0.67x
    capacity = 1 / 1.5
    assert pacer.status.state is PacingState.DEGRADED and pacer.status.degradations >= 1
    # lowered to 0.9 x the achieved factor, then raised toward 0.97 x the capacity it measured
    assert 0.9 * capacity * 0.99 <= pacer.status.effective_factor <= 0.97 * capacity * 1.01
    late = [lag for t, _, lag, _ in trace if t > 5.0]
    assert max(late) < 2 * CHUNK  # paced at the lower factor: no growing lag
    assert max(lag for *_, lag, _ in trace) < 1.5  # never ran away before degrading
    # sim time advances at the effective factor, not in bursts
    t5, s5 = next((t, s) for t, s, *_ in trace if t > 5.0)
    assert 0.89 * capacity <= (trace[-1][1] - s5) / (trace[-1][0] - t5) <= 0.98 * capacity


def test_recovers_the_target_factor_when_the_load_goes_away():
    pacer, clock = make()
    trace = drive(pacer, clock, lambda t: 1.5 * CHUNK if t < 5.0 else 0.3 * CHUNK, until=20.0)
    assert any(state is PacingState.DEGRADED for *_, state in trace)
    assert pacer.status.state is PacingState.ON_TIME
    assert pacer.status.effective_factor == 1.0
    late = [lag for t, _, lag, _ in trace if t > 18.0]
    assert max(late) <= CHUNK + 1e-9


def test_restart_after_pause_does_not_chase_the_pause():
    pacer, clock = make()
    drive(pacer, clock, lambda t: 0.2 * CHUNK, until=1.0)
    clock.t += 5.0  # paused for 5 s
    pacer.restart(1.0)
    assert pacer.plan(1.0).steps == 0
    assert pacer.status.lag < CHUNK and pacer.status.dropped == 0.0


def test_recovers_to_the_target_when_capacity_is_only_just_enough():
    """Degraded at start-up (a slow first second), then the machine manages 1.05x: back to 1.0x."""
    pacer, clock = make()
    trace = drive(pacer, clock, lambda t: 1.5 * CHUNK if t < 2.0 else CHUNK / 1.05, until=30.0)
    assert any(state is PacingState.DEGRADED for *_, state in trace)
    assert pacer.status.state is PacingState.ON_TIME and pacer.status.effective_factor == 1.0


@pytest.mark.parametrize(
    "bad", [dict(factor=0.0), dict(factor=float("nan")), dict(max_burst=0), dict(degrade_margin=1.5)]
)
def test_bad_config(bad):
    with pytest.raises(ValueError):
        PacingConfig(**bad)


def test_control_periods_woken_a_little_late_are_on_time_not_degraded():
    """A gated sim paces whole control periods (5 ms): each is stepped once its end is due, after
    a sleep the OS ends a little late, so the lag at each plan is a period and a bit. That is the
    pacing, not falling behind: the factor stays the target."""
    import random

    period, clock, rng = 0.005, FakeClock(), random.Random(7)
    pacer = Pacer(period, PacingConfig(), clock)
    sim = 0.0
    while clock.t < 30.0:
        plan = pacer.plan(sim)
        if plan.steps:
            for _ in range(plan.steps):
                clock.t += 0.002  # the period's work
                sim += period
        else:
            clock.t += plan.sleep + rng.uniform(0.0, 0.0005)  # woken up to 0.5 ms late
    assert pacer.status.degradations == 0 and pacer.status.effective_factor == 1.0
    assert sim == pytest.approx(30.0, abs=2 * period)
