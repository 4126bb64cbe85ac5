"""The nodes that end a graph declare what their process reads (sally_node_common.graph_end)."""

import threading
from contextlib import contextmanager

import pytest
import rclpy
from rclpy.signals import SignalHandlerOptions

from sally_bringup.composed import node_class
from sally_node_common.graph_end import EndsGraph


@contextmanager
def built(executable: str, domain_id: int):
    """The node class ``executable`` runs, built in a context of its own, destroyed after."""
    context = rclpy.Context()
    rclpy.init(args=[], context=context, domain_id=domain_id, signal_handler_options=SignalHandlerOptions.NO)
    try:
        node = node_class(executable)(context=context)
        try:
            yield node
        finally:
            node.destroy_node()
    finally:
        context.try_shutdown()


@pytest.mark.parametrize("executable", ["sally_sequencer", "sally_pulloff"])
def test_a_graph_ending_node_is_an_ends_graph(executable, ros_domain):
    with built(executable, ros_domain) as node:
        assert isinstance(node, EndsGraph)
        assert isinstance(node.finished, threading.Event) and not node.finished.is_set()
        assert node.succeeded is False and node.exit_when_done is True and len(node.final_publishers) >= 1


@pytest.mark.parametrize("executable", ["sally_controller", "sally_ik_node"])
def test_the_other_nodes_do_not_end_a_graph(executable, ros_domain):
    with built(executable, ros_domain) as node:
        assert not isinstance(node, EndsGraph)
