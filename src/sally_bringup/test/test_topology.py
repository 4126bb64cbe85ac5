"""The topology declared once (:mod:`sally_bringup.topology`) is what the nodes have: each node,
started as a process of its own, publishes and reads exactly the topics declared for it, each
publisher reliable and keeping its history exactly where the topic is declared kept; and what
derives from the declaration (the runner's readiness, the sequencer's readers, the recording's
topics) says what the graphs need."""

from __future__ import annotations

import pytest
from rclpy.node import NodeNameNonExistentError
from rclpy.qos import DurabilityPolicy, ReliabilityPolicy

from sally_bringup import topology
from sally_bringup.graphs import graph
from sally_bringup.processes import wait_until
from sally_bringup.raw_tap import KEPT_TOPICS, TOPICS
from sally_node_common.time_contract import JOINT_EFFORTS, ODOM_JOINT_STATES, SERVO_COMMANDS

ROS_OWN = frozenset({"/rosout", "/parameter_events"})
"""Topics every rclpy node has (its log, its parameter events)."""


def endpoints(node, ros_name: str) -> tuple[set[str], set[str]]:
    """(published, read) topics of node ``ros_name`` as the ROS graph shows them (ROS's own and the
    hidden topics of actions left out)."""

    def ours(found) -> set[str]:
        return {topic for topic, _ in found if topic not in ROS_OWN and "/_action/" not in topic}

    try:
        return (
            ours(node.get_publisher_names_and_types_by_node(ros_name, "/")),
            ours(node.get_subscriber_names_and_types_by_node(ros_name, "/")),
        )
    except NodeNameNonExistentError:  # not discovered yet
        return set(), set()


VARIANTS = {
    "servo": (SERVO_COMMANDS, "/joint_states", {}, {}, {}),
    "effort_ik_apart": (
        JOINT_EFFORTS,
        ODOM_JOINT_STATES,
        {"command_source": "efforts", "odom_joint_states": True},
        {"output": "effort"},
        {"state_topic": ODOM_JOINT_STATES},
    ),
}


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_every_node_has_exactly_the_topics_declared_for_it(graph, probe, variant):
    commands, ik_states, sim, controller, ik = VARIANTS[variant]
    graph.start("sim", "sally_sim_node", {"pacing": "lockstep", "start_paused": True, **sim})
    graph.start("controller", "sally_controller", controller)
    graph.start("estimator", "sally_state_estimator")
    graph.start("ik", "sally_ik_node", ik)
    graph.start("sequencer", "sally_sequencer")
    graph.start("pulloff", "sally_pulloff")
    declared = {kind: topology.node_topics(kind, commands, ik_states, estimated=True) for kind in topology.KINDS}

    def differences() -> dict[str, str]:
        out = {}
        for kind, node in declared.items():
            published, read = endpoints(probe.node, node.ros_name)
            wrong = {
                "publishes undeclared": published - node.publishes,
                "lacks published": node.publishes - published,
                "reads undeclared": read - node.reads,
                "lacks read": node.reads - read,
            }
            if any(wrong.values()):
                out[kind] = "; ".join(f"{what} {sorted(topics)}" for what, topics in wrong.items() if topics)
        return out

    wait_until(lambda: not differences(), 60.0)  # discovery takes a moment; then what differs is named
    assert not differences(), differences()
    for node in declared.values():  # every publisher reliable, keeping its history where declared kept
        for topic in node.publishes:
            mine = [i for i in probe.node.get_publishers_info_by_topic(topic) if i.node_name == node.ros_name]
            assert mine, (node.ros_name, topic)
            for info in mine:
                kept = info.qos_profile.durability == DurabilityPolicy.TRANSIENT_LOCAL
                assert kept == topology.TOPICS[topic].kept, f"{node.ros_name} {topic}: kept {kept}"
                assert info.qos_profile.reliability == ReliabilityPolicy.RELIABLE, f"{node.ros_name} {topic}"


def test_no_control_node_reads_the_world_s_truth():
    """The controller, the estimator, the IK and the sequencer read what a robot's drivers publish:
    never a ground-truth topic (the live test above fails on any topic a node reads undeclared)."""
    for kind in topology.CONTROL_NODES:
        for estimated in (False, True):
            for camera in (False, True):
                reads = topology.node_topics(kind, SERVO_COMMANDS, "/joint_states", camera, estimated).reads
                assert not reads & topology.GROUND_TRUTH, (kind, sorted(reads & topology.GROUND_TRUTH))
    assert topology.GROUND_TRUTH <= topology.node_topics("sim").publishes


def test_with_an_estimator_the_sim_leaves_odometry_to_it():
    nodes = topology.graph_topics({"sim", "controller", "estimator", "ik", "sequencer"})
    assert "/sally/odom" not in nodes["sim"].publishes and "/sally/odom" in nodes["estimator"].publishes
    assert "/sally/odom" in topology.graph_topics({"sim", "controller", "ik", "sequencer"})["sim"].publishes


def test_a_node_without_a_declaration_is_refused_by_name():
    with pytest.raises(ValueError, match="no topics are declared for node 'viewer'"):
        topology.node_topics("viewer")


def test_every_declared_topic_is_a_topic_with_a_type():
    for kind in topology.KINDS:
        for camera in (False, True):
            node = topology.node_topics(kind, JOINT_EFFORTS, ODOM_JOINT_STATES, camera)
            assert node.publishes | node.reads <= set(topology.TOPICS), kind
    assert set(TOPICS) == {t for t, d in topology.TOPICS.items() if d.recorded}
    assert {"/sally/ik_target", "/sally/foot_states", "/sally/joint_targets", "/tf_static"} <= KEPT_TOPICS


def test_the_sequencer_waits_for_the_graph_nodes_that_read_its_commands():
    readers = lambda arguments: graph("f2w", arguments)[-1].parameters["readers"]  # noqa: E731
    assert readers({"composed": "false"}) == "sally_ik,sally_sim"
    assert readers({"composed": "false", "sim": "false"}) == "sally_ik"


def test_readiness_waits_for_each_reader_and_publisher_of_the_graph():
    nodes = topology.graph_topics({"sim", "controller", "ik", "sequencer"})
    publishers, subscribers = topology.readiness(nodes)
    assert subscribers["/joint_states"] == 2 and subscribers["/sally/ik_target"] == 1
    assert subscribers["/sally_sim/reset"] == 3  # the controller, the IK, the sequencer
    assert publishers[SERVO_COMMANDS] == 1 and publishers["/sally/foot_states"] == 1
    assert "/diagnostics" not in subscribers  # read by no node of the graph
    alone_publishers, alone_subscribers = topology.readiness(topology.graph_topics({"sim"}))
    assert alone_publishers == {"/joint_states": 1} and alone_subscribers == {"/joint_states": 1}
