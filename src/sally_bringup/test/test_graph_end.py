"""The nodes that end a graph declare what their process reads (sally_node_common.graph_end)."""

import threading

import pytest
import rclpy
from rclpy.signals import SignalHandlerOptions

from sally_bringup.composed import node_class
from sally_node_common.graph_end import EndsGraph


@pytest.mark.parametrize("executable", ["sally_sequencer", "sally_pulloff"])
def test_a_graph_ending_node_is_an_ends_graph(executable, ros_domain):
    context = rclpy.Context()
    rclpy.init(args=[], context=context, domain_id=ros_domain, signal_handler_options=SignalHandlerOptions.NO)
    try:
        node = node_class(executable)(context=context)
        try:
            assert isinstance(node, EndsGraph)
            assert isinstance(node.finished, threading.Event) and not node.finished.is_set()
            assert node.succeeded is False and node.exit_when_done is True and len(node.final_publishers) >= 1
        finally:
            node.destroy_node()
    finally:
        context.try_shutdown()


@pytest.mark.parametrize("executable", ["sally_controller", "sally_ik_node"])
def test_the_other_nodes_do_not_end_a_graph(executable, ros_domain):
    context = rclpy.Context()
    rclpy.init(args=[], context=context, domain_id=ros_domain, signal_handler_options=SignalHandlerOptions.NO)
    try:
        node = node_class(executable)(context=context)
        try:
            assert not isinstance(node, EndsGraph)
        finally:
            node.destroy_node()
    finally:
        context.try_shutdown()
