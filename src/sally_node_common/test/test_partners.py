"""Waiting on a partner: past its base length a wait goes on only while the partner is on the
graph, and never past SLOW_PARTNER_WAIT. The graph is asked only once the base wait is over."""

from types import SimpleNamespace

from sally_node_common.partners import SLOW_PARTNER_WAIT, given_up, keep_waiting, publishes


def counted(answer: bool):
    asked = []

    def present() -> bool:
        asked.append(1)
        return answer

    return present, asked


def test_within_the_base_wait_nothing_is_asked_and_nothing_gives_up():
    present, asked = counted(False)
    assert not given_up(0.5, 1.0, present) and not keep_waiting(0.5, 1.0, present)
    assert asked == []


def test_a_partner_on_the_graph_is_waited_for_up_to_the_cap():
    there, _ = counted(True)
    assert keep_waiting(5.0, 1.0, there) and not given_up(5.0, 1.0, there)
    assert given_up(SLOW_PARTNER_WAIT, 1.0, there), "there but silent: given up once, at the cap"
    gone, _ = counted(False)
    assert given_up(1.0, 1.0, gone) and given_up(1.5, 1.0, None)


def info(node, namespace="/"):
    return SimpleNamespace(node_name=node, node_namespace=namespace)


class Graph:
    """A node's view of the graph: who publishes and who reads each topic."""

    def __init__(self, me, publishers, subscribers):
        self.me, self.pubs, self.subs = me, publishers, subscribers

    def get_name(self):
        return self.me

    def get_namespace(self):
        return "/"

    def get_publishers_info_by_topic(self, topic):
        return [info(n) for n in self.pubs.get(topic, [])]

    def get_subscriptions_info_by_topic(self, topic):
        return [info(n) for n in self.subs.get(topic, [])]


def test_a_partner_is_another_node_that_publishes_and_reads_what_it_should():
    efforts, states = "/sally/joint_efforts", "/joint_states"
    graph = Graph("sally_sim", {efforts: ["sally_controller"]}, {states: ["sally_controller", "sally_ik"]})
    assert publishes(graph, efforts, reads=states)
    stray = Graph("sally_sim", {efforts: ["a_tool"]}, {states: ["sally_ik"]})
    assert publishes(stray, efforts) and not publishes(stray, efforts, reads=states)
    assert not publishes(Graph("sally_sim", {efforts: ["sally_sim"]}, {}), efforts), "itself is no partner"
