"""Waiting: items that wait for their stamp's readings, bounded."""

import pytest

from sally_node_common.waiting import Waiting


def test_items_go_in_stamp_order_once_their_readings_are_in_and_a_later_one_waits_behind_an_earlier():
    wait = Waiting[str](8)
    for stamp, item in ((10, "a"), (20, "b"), (30, "c")):
        assert wait.put(stamp, item) == []
    arrived = {10, 30}  # 20's readings not yet: 30 waits behind it
    assert list(wait.ready(lambda s: s in arrived)) == [(10, "a")]
    assert len(wait) == 2
    arrived.add(20)
    assert list(wait.ready(lambda s: s in arrived)) == [(20, "b"), (30, "c")] and len(wait) == 0


def test_an_item_sent_again_replaces_the_one_of_its_stamp_in_place():
    wait = Waiting[str](8)
    wait.put(10, "a")
    wait.put(20, "b")
    wait.put(10, "a again")
    assert list(wait.ready(lambda s: True)) == [(10, "a again"), (20, "b")]


def test_beyond_the_limit_the_oldest_go_on_without_their_readings():
    wait = Waiting[int](3)
    assert [wait.put(s, s) for s in (1, 2, 3)] == [[], [], []]
    assert wait.put(4, 4) == [(1, 1)]
    assert list(wait.ready(lambda s: True)) == [(2, 2), (3, 3), (4, 4)]


def test_a_reset_drops_the_ended_line_and_a_new_sim_everything():
    wait = Waiting[int](8)
    for s in (5, 15, 25):
        wait.put(s, s)
    wait.drop_before(15)
    assert list(wait.ready(lambda s: True)) == [(15, 15), (25, 25)]
    wait.put(1, 1)
    wait.clear()
    assert len(wait) == 0


def test_a_wait_for_nothing_is_refused():
    with pytest.raises(ValueError, match="at least one"):
        Waiting(0)
