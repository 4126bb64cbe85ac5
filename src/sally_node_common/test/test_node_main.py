"""A node started by the runner stops when the runner is gone (the parent watch), pure."""

import threading

from sally_node_common.node_main import PARENT_ENV, watch_parent


def test_nothing_is_watched_unless_the_runner_named_itself_the_parent():
    stop = threading.Event()
    assert watch_parent(stop, "n", environ={}, getppid=lambda: 10) is None
    assert watch_parent(stop, "n", environ={PARENT_ENV: "abc"}, getppid=lambda: 10) is None
    assert watch_parent(stop, "n", environ={PARENT_ENV: "11"}, getppid=lambda: 10) is None  # gone already
    assert not stop.is_set()


def test_the_stop_is_set_once_the_parent_changes(capsys):
    stop, parents = threading.Event(), [10, 10]
    thread = watch_parent(stop, "sally_x", environ={PARENT_ENV: "10"}, getppid=lambda: parents[-1])
    assert thread is not None and not stop.wait(0.7)  # the parent is there: nothing happens
    parents.append(1)  # reparented to init: the runner is gone
    assert stop.wait(5.0)
    thread.join(5.0)
    assert "sally_x: the runner (pid 10) is gone; stopping" in capsys.readouterr().err
