"""The sim's command admission, gated-period wait and command schedule, without ROS or a clock."""

import threading

import pytest

from sally_sim_node.command_schedule import NOTHING_SCHEDULED, CommandSchedule, run_due
from sally_sim_node.lockstep import CommandGate, LockstepWait, Step, Verdict

MS = 1_000_000


def test_gated_takes_only_the_answer_to_the_state_waited_on():
    gate = CommandGate()
    gate.expect(5 * MS)
    assert gate.offer_gated(5 * MS, holding=False).verdict is Verdict.TAKEN
    assert gate.is_answered(5 * MS)
    assert gate.offer_gated(5 * MS, holding=False).verdict is Verdict.LATE, "a second copy is applied once"
    gate.expect(6 * MS)
    assert gate.offer_gated(5 * MS, holding=False).verdict is Verdict.LATE
    future = gate.offer_gated(7 * MS, holding=False)
    assert (future.verdict, future.reason) == (Verdict.REJECTED, "future")
    assert "7000000 ns, after the sim's 6000000 ns" in future.detail
    older = gate.offer_gated(4 * MS, holding=False)
    assert (older.verdict, older.reason) == (Verdict.REJECTED, "out_of_order")
    assert gate.offer_gated(6 * MS, holding=False).verdict is Verdict.TAKEN


def test_gated_waits_forever_first_then_the_timeout_then_briefly_while_holding():
    gate = CommandGate()
    assert gate.wait_for(holding=False, timeout=2.0, held_wait=0.001) == (False, float("inf"))
    gate.expect(0)
    gate.offer_gated(0, holding=False)
    assert gate.wait_for(holding=False, timeout=2.0, held_wait=0.001) == (False, 2.0)
    assert gate.wait_for(holding=True, timeout=2.0, held_wait=0.001) == (True, 0.001)
    # while holding, a late answer newer than the last taken one means the controller is back
    gate.expect(3 * MS)
    assert gate.offer_gated(1 * MS, holding=True).verdict is Verdict.LATE
    assert gate.controller_back
    assert gate.wait_for(holding=True, timeout=2.0, held_wait=0.001) == (False, 2.0)
    gate.hold_engaged()
    assert not gate.controller_back


def test_free_takes_anything_not_older_and_not_ahead_of_sim_time():
    gate = CommandGate()
    assert gate.offer_free(0, now=9 * MS).verdict is Verdict.TAKEN, "unstamped: always"
    assert gate.offer_free(3 * MS, now=9 * MS).verdict is Verdict.TAKEN
    assert gate.offer_free(2 * MS, now=9 * MS).reason == "out_of_order"
    assert gate.offer_free(10 * MS, now=9 * MS).reason == "future"
    assert gate.last_stamp == 3 * MS
    gate.restart_free()
    assert gate.offer_free(1 * MS, now=2 * MS).verdict is Verdict.TAKEN


def test_wait_resends_until_the_limit():
    wait = LockstepWait(start=10.0, limit=0.35, resend=0.1)
    assert wait.next(10.0).seconds == pytest.approx(0.1)
    step = wait.next(10.02)
    assert step.step is Step.WAIT and step.seconds == pytest.approx(0.08)
    assert wait.next(10.1).step is Step.RESEND
    assert wait.next(10.15).seconds == pytest.approx(0.05)
    assert wait.next(10.2).step is Step.RESEND
    assert wait.next(10.3).step is Step.RESEND
    step = wait.next(10.32)
    assert step.step is Step.WAIT and step.seconds == pytest.approx(0.03), "never waits past the limit"
    assert wait.next(10.35).step is Step.EXPIRED
    assert wait.resends == 3


def test_held_wait_never_resends_and_first_wait_never_expires():
    held = LockstepWait(start=0.0, limit=0.001, resend=0.1, held=True)
    assert held.next(0.0).step is Step.WAIT and held.next(0.0).seconds == pytest.approx(0.001)
    assert held.next(0.001).step is Step.EXPIRED
    first = LockstepWait(start=0.0, limit=float("inf"), resend=0.1)
    assert [first.next(t).step for t in (0.05, 0.1, 1e6)] == [Step.WAIT, Step.RESEND, Step.RESEND]
    with pytest.raises(ValueError, match="resend"):
        LockstepWait(0.0, 1.0, 0.0)


def test_schedule_runs_commands_at_their_stamp_in_arrival_order():
    schedule = CommandSchedule()
    ran = []
    schedule.add(3 * MS, lambda: ran.append("b"))
    schedule.add(1 * MS, lambda: ran.append("a"))
    schedule.add(3 * MS, lambda: ran.append("c"))
    schedule.add(0, lambda: ran.append("now"))
    step = MS // 2
    assert run_due(schedule, 0, step) == 2, "the next one is 1 ms = 2 steps away"
    assert ran == ["now"]
    assert run_due(schedule, 1 * MS + 1, step) == 4, "3 ms is 3.999999 steps away: rounds up"
    assert run_due(schedule, 3 * MS, step) == NOTHING_SCHEDULED
    assert ran == ["now", "a", "b", "c"]
    assert len(schedule) == 0
    schedule.add(-5, lambda: ran.append("past"))
    schedule.add(9 * MS, lambda: ran.append("later"))
    assert schedule.steps_until_next(9 * MS - 1, step) == 1, "at least one step"
    schedule.clear()
    assert run_due(schedule, 10 * MS, step) == NOTHING_SCHEDULED and ran[-1] == "c"


def test_schedule_takes_adds_from_other_threads():
    schedule = CommandSchedule()
    threads = [threading.Thread(target=lambda k=k: [schedule.add(k * 10 + i, k) for i in range(200)]) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    taken = schedule.take_due(10**9)
    assert len(taken) == 800 and len(schedule) == 0
