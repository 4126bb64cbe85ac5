"""TargetSync: states held for their IK period's targets, released in order, lost and found again."""

from sally_controller.target_sync import TargetSync

MS = 1_000_000
P = 5 * MS


def test_without_a_period_nothing_waits():
    sync = TargetSync(period_ns=0)
    assert sync.state(7 * MS, "s7", now=0.0) == ["s7"]
    assert len(sync) == 0


def test_a_state_waits_for_the_targets_of_its_period_whichever_comes_first():
    sync = TargetSync(period_ns=P, wait=1.0)
    sync.targets(0)
    assert sync.state(1 * MS, "s1", 0.0) == ["s1"], "the targets of 0 ms cover 0-4 ms"
    assert sync.state(5 * MS, "s5", 0.0) == [], "5 ms needs the targets of 5 ms"
    assert sync.state(6 * MS, "s6", 0.0) == [], "held behind s5 (order kept)"
    assert len(sync) == 2
    assert sync.targets(5 * MS) == ["s5", "s6"]
    # the other order: targets first, then the state
    sync.targets(10 * MS)
    assert sync.state(10 * MS, "s10", 0.0) == ["s10"]


def test_lost_after_the_wait_then_only_the_newest_state_is_answered_until_targets_come():
    sync = TargetSync(period_ns=P, wait=1.0)
    sync.targets(0)
    assert sync.state(5 * MS, "s5", now=0.0) == []
    assert sync.state(6 * MS, "s6", now=0.5) == []
    assert sync.check(now=0.9) == [] and not sync.lost
    assert sync.check(now=1.1) == ["s6"], "s5 waited too long: the newest is answered, s5 dropped"
    assert (sync.lost, sync.losses, sync.dropped) == (True, 1, 1)
    assert sync.state(10 * MS, "s10", now=1.2) == ["s10"], "lost: answered at once with the latest targets"
    sync.targets(10 * MS)
    assert not sync.lost
    assert sync.state(15 * MS, "s15", now=1.3) == [], "found again: waits for its targets once more"


def test_restart_forgets_the_old_sim():
    sync = TargetSync(period_ns=P, wait=1.0)
    sync.targets(20 * MS)
    assert sync.state(30 * MS, "old", 0.0) == []
    sync.restart()
    assert len(sync) == 0 and sync.target_stamp == -1
    assert sync.state(0, "new", 0.0) == [], "a new sim's first state waits for its first targets"
    assert sync.targets(0) == ["new"]


def test_a_slow_ik_still_on_the_graph_is_waited_for_a_gone_one_is_not():
    from sally_controller.target_sync import LONGEST_WAIT
    from sally_node_common.partners import SLOW_PARTNER_WAIT

    sync = TargetSync(period_ns=5, wait=1.0)
    there = [True]
    sync.partner_present = lambda: there[0]
    assert sync.state(5, "s5", now=0.0) == []
    assert sync.check(now=5.0) == [] and not sync.lost, "slow, not gone: still held"
    there[0] = False
    assert sync.check(now=5.1) == ["s5"] and sync.lost, "gone: answered with the latest targets"
    sync.restart()
    there[0] = True
    assert sync.state(10, "s10", now=0.0) == []
    assert sync.check(now=SLOW_PARTNER_WAIT + 0.1) == [], "the IK's own wait for its tick may end first"
    assert sync.check(now=LONGEST_WAIT + 0.1) == ["s10"] and sync.lost, "there but silent: not forever"


def test_with_an_ik_latency_targets_wait_for_the_first_state_they_answer():
    sync = TargetSync(period_ns=P, wait=1.0, latency=1)
    assert sync.state(0, "s0", 0.0) == ["s0"] and sync.due(0) == [], "before any solve: the pose it starts in"
    assert sync.keeps() and not TargetSync(period_ns=P).keeps(), "kept only with a latency"
    sync.keep(0, "t0")
    assert sync.targets(0) == []
    assert sync.state(4 * MS, "s4", 0.0) == ["s4"] and sync.due(4 * MS) == [], "0-4 ms: no solve answers them"
    assert sync.due(5 * MS) == ["t0"], "the solve of 0 answers 5-9 ms"
    assert sync.state(10 * MS, "s10", 0.0) == [], "10 ms needs the solve of 5 ms"
    sync.keep(5 * MS, "t5")
    assert sync.targets(5 * MS) == ["s10"]
    sync.keep(10 * MS, "t10")  # came early: the sim steps 10-14 ms while the IK solves 10
    sync.targets(10 * MS)
    assert sync.due(10 * MS) == ["t5"] and sync.due(14 * MS) == [], "t10 stays kept"
    assert sync.due(15 * MS) == ["t10"]


def test_with_an_ik_latency_a_lost_sync_applies_every_kept_target_and_restart_forgets_them():
    sync = TargetSync(period_ns=P, wait=1.0, latency=1)
    sync.keep(0, "t0")
    sync.targets(0)
    assert sync.state(10 * MS, "s10", now=0.0) == []
    assert sync.check(now=2.0) == ["s10"] and sync.lost
    sync.keep(20 * MS, "t20")
    assert sync.due(10 * MS) == ["t0", "t20"], "lost: the newest targets, whatever their stamp"
    sync.keep(25 * MS, "t25")
    sync.restart()
    assert sync.due(100 * MS) == []


def test_an_ik_back_on_the_graph_re_arms_the_lost_sync():
    """A killed IK: the sync is lost, states are answered at once; once an IK is on the graph again
    (a restarted one) the next state is held for its targets, as before the silence, so a lockstep
    sim waits for its first answer instead of running on without it. A slow IK that never left does
    not re-arm it (it would hold every state again)."""
    sync = TargetSync(period_ns=5, wait=1.0)
    there = [True]
    sync.partner_present = lambda: there[0]
    sync.targets(0)
    assert sync.state(5, "s5", now=0.0) == []
    there[0] = False
    assert sync.check(now=1.1) == ["s5"] and sync.lost
    assert sync.state(10, "s10", now=1.2) == ["s10"], "gone: answered at once"
    there[0] = True
    assert sync.state(15, "s15", now=1.3) == [] and not sync.lost and sync.rearmed == 1, "back: held for its targets"
    assert sync.targets(15) == ["s15"]
    slow = TargetSync(period_ns=5, wait=1.0)
    slow.partner_present = lambda: True
    slow.targets(0)
    slow.state(5, "s5", now=0.0)
    assert slow.check(now=100.0) == ["s5"] and slow.lost, "there but silent past the longest wait"
    assert slow.state(10, "s10", now=100.1) == ["s10"] and slow.rearmed == 0, "never left: stays lost"
