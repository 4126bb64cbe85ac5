"""Sim time as a step count (exact stamps, a reset never turns it back) and the sim's publish schedule."""

import pytest

from sally_sim_node.sim_clock import PublishSchedule, SimClock

DT = 500_000  # ns: the sim's 2 kHz step


def test_sim_time_is_steps_times_dt_exactly():
    clock = SimClock(DT)
    clock.advance(172_800_001)  # a day of sim time and a step: no float rounding in a stamp
    assert clock.now_ns == 172_800_001 * DT and clock.since_start_over == 172_800_001


def test_a_reset_begins_a_new_time_line_at_the_next_whole_second():
    clock = SimClock(DT)
    clock.advance(2_001)  # 1.0005 s
    assert clock.start_over() == 2_000_000_000 and clock.now_ns == 2_000_000_000
    assert clock.since_start_over == 0 and clock.steps == 2_001
    clock.advance(3)
    assert clock.now_ns == 2_000_000_000 + 3 * DT
    assert clock.ended_line(1_999_999_999) and not clock.ended_line(2_000_000_000)
    assert not clock.ended_line(0), "an unstamped command belongs to no time line"


def test_a_reset_on_a_whole_second_still_moves_on():
    clock = SimClock(DT)
    clock.advance(2_000)  # exactly 1 s
    assert clock.start_over() == 2_000_000_000, "the clock never stands still or runs back"
    assert SimClock(DT).start_over() == 1_000_000_000


def test_bad_steps_are_refused():
    with pytest.raises(ValueError, match="dt_ns and align_ns must be > 0"):
        SimClock(0)
    with pytest.raises(ValueError, match="steps must be >= 0"):
        SimClock(DT).advance(-1)
    with pytest.raises(ValueError, match="periods must be >= 1 step"):
        PublishSchedule({"clock": 2, "tf": 0})


def test_runs_of_steps_stop_at_every_publication_and_each_falls_due_on_its_steps():
    schedule = PublishSchedule({"clock": 2, "telemetry": 40, "tf": 20, "visuals": 66})
    assert schedule.due(0) == {"clock", "telemetry", "tf", "visuals"}
    k, stops = 0, []
    while k < 200:
        run = schedule.steps_to_next(k, 200 - k)
        k += run
        stops.append((k, schedule.due(k)))
    assert all(due for _, due in stops[:-1]), "a run ends only where something falls due (or at its end)"
    published = {name: [k for k, due in stops if name in due] for name in schedule.periods}
    assert published["clock"] == list(range(2, 201, 2))
    assert published["tf"] == list(range(20, 201, 20))
    assert published["telemetry"] == [40, 80, 120, 160, 200]
    assert published["visuals"] == [66, 132, 198]
    assert schedule.steps_to_next(3, 1) == 1, "at most what is asked"
