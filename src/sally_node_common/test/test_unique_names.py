"""A node refuses to run beside another of its name: the pure check and the watch, on a graph list
given by the test (the real thing, two controller processes on one domain, is a fault case)."""

import threading

from sally_node_common.unique_names import UniqueNameWatch, duplicated, full_name


def test_full_names_are_what_ros_prints():
    assert full_name("sally_sim", "/") == "/sally_sim"
    assert full_name("sally_sim", "/robot") == "/robot/sally_sim"


def test_only_a_name_held_twice_is_duplicated():
    graph = [("sally_sim", "/"), ("sally_ik", "/"), ("sally_sim", "/robot"), ("sally_ik", "/")]
    assert duplicated(graph, ["/sally_sim", "/sally_ik"]) == ["/sally_ik"]
    assert duplicated(graph, ["/robot/sally_sim"]) == []


def test_the_watch_refuses_a_duplicate_within_its_window_and_stops():
    graph = [("sally_controller", "/")]
    stop = threading.Event()
    watch = UniqueNameWatch(lambda: list(graph), ["/sally_controller"], stop, domain_id=7, window=30.0)
    assert not watch.check() and watch.refusal is None
    thread = watch.start()
    graph.append(("sally_controller", "/"))  # a second one appears
    assert stop.wait(10.0), "the watch stops the node"
    thread.join(5.0)
    assert "another node named /sally_controller is already running in ROS domain 7" in watch.refusal


def test_after_its_window_the_watch_no_longer_looks():
    graph = [("sally_controller", "/")]
    stop = threading.Event()
    watch = UniqueNameWatch(lambda: list(graph), ["/sally_controller"], stop, window=0.3)
    watch.start().join(5.0)
    graph.append(("sally_controller", "/"))  # too late: the first was there first
    assert not stop.is_set() and watch.refusal is None


def test_a_refusing_node_stays_while_the_clash_lasts_and_goes_once_it_ends():
    graph = [("sally_controller", "/"), ("sally_controller", "/")]
    watch = UniqueNameWatch(lambda: list(graph), ["/sally_controller"], threading.Event())
    assert watch.check()
    threading.Timer(0.5, graph.pop).start()  # the other one goes too
    assert watch.linger(timeout=10.0) is True
    assert watch.linger(timeout=10.0) is True  # nothing left to wait for: at once


def test_a_refusing_node_goes_after_its_linger_when_the_other_stays():
    graph = [("sally_controller", "/"), ("sally_controller", "/")]
    watch = UniqueNameWatch(lambda: list(graph), ["/sally_controller"], threading.Event())
    assert watch.linger(timeout=0.5) is False  # the other came first and runs on
