"""Deferred work: done in the order it came, when someone has a moment, never more than its limit waiting."""

from __future__ import annotations

import threading

import pytest

from sally_node_common.deferred import Deferred


def test_work_waits_until_run_and_runs_in_order_until_told_to_stop():
    later = Deferred()
    done: list[int] = []
    for i in range(5):
        later.add(lambda i=i: done.append(i))
    assert done == [] and len(later) == 5
    assert later.run(until=lambda: len(done) >= 2) == 2  # asked before each item
    assert done == [0, 1] and len(later) == 3
    assert later.run() == 3 and done == [0, 1, 2, 3, 4] and len(later) == 0
    assert later.run() == 0


def test_past_the_limit_the_oldest_are_done_by_whoever_adds():
    later = Deferred(limit=4)
    done: list[int] = []
    for i in range(5):
        later.add(lambda i=i: done.append(i))
    assert done == [0, 1, 2] and len(later) == 2  # down to half the limit, oldest first
    later.run()
    assert done == [0, 1, 2, 3, 4]


def test_an_error_goes_to_the_runner_and_the_rest_still_wait():
    later = Deferred()
    done: list[str] = []
    later.add(lambda: done.append("first"))
    later.add(lambda: 1 / 0)
    later.add(lambda: done.append("third"))
    with pytest.raises(ZeroDivisionError):
        later.run()
    assert done == ["first"] and len(later) == 1
    later.run()
    assert done == ["first", "third"]


def test_a_bad_limit_is_refused():
    with pytest.raises(ValueError, match="at least 1"):
        Deferred(limit=0)


def test_work_added_from_many_threads_is_all_done_once():
    later = Deferred(limit=100)
    done: list[tuple[int, int]] = []
    threads = [
        threading.Thread(target=lambda t=t: [later.add(lambda t=t, i=i: done.append((t, i))) for i in range(500)])
        for t in range(4)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    later.run()
    assert sorted(done) == [(t, i) for t in range(4) for i in range(500)]
    for t in range(4):  # each thread's work in the order it added it
        assert [i for who, i in done if who == t] == list(range(500))
