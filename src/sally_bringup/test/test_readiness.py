"""A graph that does not come up is refused with what it lacks: each topic whose publishers or
readers the runner has not seen, by count (a composed graph once waited out its 60 s, and the
report said only that it had waited)."""

from types import SimpleNamespace

import pytest

from sally_bringup import runner
from sally_bringup.probe import ProbeTimeoutError


class Graph:
    """The runner's view of the ROS graph: counts by topic."""

    def __init__(self, publishers: dict[str, int], readers: dict[str, int]) -> None:
        self.count_publishers = lambda topic: publishers.get(topic, 0)
        self.count_subscribers = lambda topic: readers.get(topic, 0)


def test_a_graph_that_does_not_come_up_names_what_it_lacks(monkeypatch):
    monkeypatch.setattr(runner, "DISCOVERY_TIMEOUT", 0.05)
    publishers, readers = runner.readiness({"sim", "controller", "ik", "sequencer"})
    readers = {**readers, "/sally/ik_target": 0}  # the IK's reader of the targets not matched
    probe = SimpleNamespace(node=Graph(publishers, readers))
    with pytest.raises(ProbeTimeoutError) as refused:
        runner.start_sim_time(probe, {"sim", "controller", "ik", "sequencer"}, play=False)
    assert "(missing: /sally/ik_target 0 of 1 readers)" in str(refused.value)


def test_a_graph_that_is_up_is_not_refused():
    publishers, readers = runner.readiness({"sim", "controller"})
    runner.start_sim_time(SimpleNamespace(node=Graph(publishers, readers)), {"sim", "controller"}, play=False)
