"""Which reset notices a node acts on: those after the first state it took, once each."""

from sally_node_common.sim_resets import AHEAD_LIMIT_NS, ResetWatch


def test_a_reset_during_the_run_counts_once():
    watch = ResetWatch()
    assert not watch.reset(5), "no state taken yet: a kept notice of an earlier reset"
    watch.state(10)
    watch.state(20)
    assert not watch.reset(8), "before this node's first state: not ours"
    assert watch.reset(30) and not watch.reset(30), "once"
    assert watch.reset(40)


def test_a_new_sim_forgets_the_old_one():
    watch = ResetWatch()
    watch.state(10)
    assert watch.reset(50)
    watch.new_sim()
    assert not watch.reset(60), "no state of the new sim yet"
    watch.state(0)
    assert watch.reset(5)


def test_commands_for_the_time_line_a_reset_ended_are_stale():
    watch = ResetWatch()
    watch.state(10)
    assert not watch.stale(5), "no reset yet: nothing is stale"
    assert watch.reset(3_000)
    assert watch.stale(2_995) and not watch.stale(3_000) and not watch.stale(3_005)
    assert not watch.stale(0), "unstamped commands are never stale"


def test_the_time_line_starts_at_0_or_at_the_latest_reset():
    watch = ResetWatch()
    assert watch.start_ns == 0, "a sim's time line starts at 0"
    watch.state(10)
    assert watch.reset(3_000) and watch.start_ns == 3_000
    watch.new_sim()
    assert watch.start_ns == 0, "a new sim starts over at 0"


def test_a_notice_far_past_the_newest_state_is_ahead_and_a_new_line_s_is_not():
    watch = ResetWatch()
    assert not watch.ahead(10**18), "no state yet: nothing to judge it by (and it is ignored anyway)"
    watch.state(2_000_000_000)
    watch.state(1_000_000_000)  # (an older one: the newest stays)
    assert not watch.ahead(3_000_000_000), "the next whole second: a real reset's new line"
    assert not watch.ahead(2_000_000_000 + AHEAD_LIMIT_NS)
    assert watch.ahead(2_000_000_001 + AHEAD_LIMIT_NS)
    watch.new_sim()
    assert not watch.ahead(10**18)
