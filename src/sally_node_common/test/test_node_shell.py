"""The node shell: a node's parameters declared from its table, its status on /diagnostics with its
inputs' health after its own values, the sim's resets handed to the node (real rclpy, loopback)."""

from __future__ import annotations

import pytest
import rclpy
from builtin_interfaces.msg import Time
from diagnostic_msgs.msg import DiagnosticArray
from rclpy.experimental import EventsExecutor
from rclpy.node import Node
from rclpy.signals import SignalHandlerOptions
from std_msgs.msg import Header

from sally_node_common.inputs import StampOrder
from sally_node_common.node_shell import NodeShell
from sally_node_common.parameters import Param, ParameterTable
from sally_node_common.qos import LATCHED
from sally_node_common.sim_resets import RESET_TOPIC

TABLE = ParameterTable(
    (Param("period", 0.2, "how often it reports", low=0.0, high=10.0, open_low=True, unit="wall s"),)
)


class Shelled(Node):
    """The least a Sally node is: its shell and one value of its own."""

    def __init__(self, **kwargs) -> None:
        super().__init__("shelled", **kwargs)
        self.resets: list[int] = []
        self.shell = NodeShell(
            self,
            TABLE,
            "shelled: thing",
            self._report,
            watched=("/input",),
            orders={"/input": StampOrder("input")},
            on_reset=self.resets.append,
            diagnostics_period="period",
        )

    def _report(self) -> None:
        self.shell.publish("ok", "fine", {"own": 7})


@pytest.fixture
def shelled(ros_domain):
    context = rclpy.Context()
    rclpy.init(args=[], context=context, domain_id=ros_domain, signal_handler_options=SignalHandlerOptions.NO)
    node = Shelled(context=context)
    executor = EventsExecutor(context=context)
    executor.add_node(node)
    yield node, executor
    node.destroy_node()
    context.try_shutdown()


def test_the_shell_declares_reports_and_hands_on_resets(shelled, probe):
    node, executor = shelled
    diagnostics = probe.record(DiagnosticArray, "/diagnostics")
    reset = probe.publisher(Header, RESET_TOPIC, LATCHED)
    node.shell.health.reject("/input", "non_finite", "a NaN")
    assert node.get_parameter("period").value == 0.2  # declared from the table
    probe.wait_for_publishers(diagnostics, timeout=30.0)
    probe.wait_for_subscribers(reset, timeout=30.0)
    reset.publish(Header(stamp=Time(sec=3)))

    def heard() -> bool:
        executor.spin_once(timeout_sec=0.05)
        return bool(diagnostics.messages) and bool(node.resets)

    probe.wait_for(heard, 30.0, "a report and the reset")
    status = diagnostics.last.status[0]
    values = {v.key: v.value for v in status.values}
    assert (status.name, status.message) == ("shelled: thing", "fine")
    assert list(values)[0] == "own" and values["own"] == "7"  # its own values first, then the health
    assert values["rejected"] == "1" and values["rejected /input non_finite"] == "1"
    assert node.resets == [3_000_000_000]
    assert "age /input s" in values  # a watched input has an age from the start
    assert node.shell.orders["/input"].admit(5) is False and node.shell.orders["/input"].latest == 5


def test_a_reset_notice_stamped_far_in_the_future_is_refused_and_counted_not_handed_on(shelled, probe):
    """A notice far past the newest state would make every later command stale: refused, counted; a
    real one after it is still handed on."""
    node, executor = shelled
    diagnostics = probe.record(DiagnosticArray, "/diagnostics")
    reset = probe.publisher(Header, RESET_TOPIC, LATCHED)
    node.shell.resets.state(1_000_000_000)
    probe.wait_for_subscribers(reset, timeout=30.0)
    reset.publish(Header(stamp=Time(sec=100_000)))

    def counted() -> bool:
        executor.spin_once(timeout_sec=0.05)
        return node.shell.health.rejected.get((RESET_TOPIC, "out_of_range"), 0) == 1

    probe.wait_for(counted, 30.0, "the refusal counted")
    assert node.resets == [] and node.shell.resets.latest == -1
    reset.publish(Header(stamp=Time(sec=2)))

    def handed() -> bool:
        executor.spin_once(timeout_sec=0.05)
        return node.resets == [2_000_000_000] and bool(diagnostics.messages)

    probe.wait_for(handed, 30.0, "the real reset handed on")
    values = {v.key: v.value for v in diagnostics.last.status[0].values}
    assert values[f"rejected {RESET_TOPIC} out_of_range"] == "1"
