"""The IK's state/odometry pairing and its wait for the sequencer's tick, without ROS or a clock."""

import pytest

from sally_ik_node.stamp_sync import StampPairs, TickWait


def test_pairs_complete_in_either_order_and_older_halves_go():
    pairs = StampPairs(pending=64)
    assert pairs.add_first(1, "q1") is None
    assert pairs.add_first(2, "q2") is None
    assert pairs.add_second(2, "b2") == ("q2", "b2"), "odometry second"
    assert len(pairs) == 0, "q1 is older than a completed pair: never solved"
    assert pairs.add_second(3, "b3") is None
    assert pairs.add_first(3, "q3") == ("q3", "b3"), "state second"


def test_pairs_keep_at_most_pending_unmatched():
    pairs = StampPairs(pending=3)
    for t in range(10):
        pairs.add_first(t, t)
    assert len(pairs) == 3
    assert pairs.add_second(5, "b") is None, "dropped long ago"
    assert pairs.add_second(9, "b") == (9, "b")
    with pytest.raises(ValueError, match="pending"):
        StampPairs(0)


def test_tick_wait_holds_states_in_order_until_the_sequencer_ticks_at_each():
    wait = TickWait(enabled=True, wait=2.0)
    assert wait.state(0, "s0", now=0.0, first=True) == ["s0"], "the first state never waits"
    assert wait.state(5, "s5", now=0.0) == []
    assert wait.state(10, "s10", now=1.0) == [], "a newer state waits behind it (an IK latency runs the sim ahead)"
    assert wait.state(10, "s10 again", now=1.1) == [] and len(wait) == 2, "a state sent again waits once"
    assert wait.waiting_stamp == 5
    assert wait.tick(5) == ["s5"]
    assert wait.check(now=1.9) == []
    assert wait.tick(10) == ["s10"]
    wait.tick(15)
    assert wait.state(15, "s15", now=3.0) == ["s15"], "the tick came first"


def test_tick_wait_runs_out_then_stops_waiting_until_the_next_tick():
    wait = TickWait(enabled=True, wait=2.0)
    wait.state(0, "s0", 0.0, first=True)
    assert wait.state(5, "s5", now=0.0) == []
    assert wait.check(now=100.0) == [], "no limit before the run's first tick"
    wait.tick(0)
    assert wait.state(10, "s10", now=1.5) == []
    assert wait.check(now=2.0) == ["s10"], "the wait counts from the oldest state waiting; the newest is solved"
    assert (wait.lost, wait.timeouts, wait.dropped) == (True, 1, 1)
    assert wait.state(15, "s15", now=2.1) == ["s15"]
    wait.tick(12)
    assert not wait.lost
    assert wait.state(20, "s20", now=2.2) == []
    wait.restart()
    assert wait.waiting_stamp is None and wait.tick_stamp == -1


def test_disabled_never_waits():
    wait = TickWait(enabled=False)
    assert wait.state(5, "s5", 0.0) == ["s5"]


def test_a_slow_sequencer_still_on_the_graph_is_waited_for():
    wait = TickWait(enabled=True, wait=2.0)
    there = [True]
    wait.partner_present = lambda: there[0]
    wait.state(0, "s0", 0.0, first=True)
    wait.tick(0)
    assert wait.state(5, "s5", now=0.0) == []
    assert wait.check(now=5.0) == [] and not wait.lost
    there[0] = False
    assert wait.check(now=5.1) == ["s5"] and wait.lost


def test_a_state_after_skipped_ones_is_not_held_for_a_tick_the_sequencer_cannot_give():
    """The sequencer ticks only on the IK's foot states: once it has answered the last solve, a
    state further on (the IK went without odometry for a while, a killed estimator) is solved at
    once, not held until the wait runs out (the sim went on 5 s meanwhile, the robot holding)."""
    wait = TickWait(enabled=True, wait=2.0)
    wait.state(0, "s0", 0.0, first=True)
    wait.tick(5)  # the sequencer answered the solve of 0
    assert wait.state(5000, "s5000", now=1.0, last_solved=0) == ["s5000"]
    assert wait.timeouts == 0 and not wait.lost
    assert wait.state(5005, "s5005", now=1.0, last_solved=5000) == [], "its answer not in yet: waits again"
    assert wait.tick(5005) == ["s5005"]
    wait.tick(5010)
    assert wait.state(5010, "s5010", now=1.1, last_solved=5005) == ["s5010"], "as before: the tick came first"
