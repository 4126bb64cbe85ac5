"""What every Sally node has besides its own logic, in one place: its parameters declared from its
table, its inputs' health and stamp order, the sim's resets, its counters and its /diagnostics.

A node keeps one :class:`NodeShell` (composition: the node stays an ``rclpy`` ``Node``, as in
ros2/examples' minimal nodes) and says only what is its own: which inputs it watches, what it does
on a reset, and what its diagnostics status says (:meth:`NodeShell.publish`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping

from diagnostic_msgs.msg import DiagnosticArray

from .diagnostics import diagnostic_array, diagnostic_status
from .input_health import InputHealth
from .inputs import OUT_OF_RANGE, StampOrder
from .parameters import ParameterTable
from .sim_resets import RESET_TOPIC, ResetWatch, subscribe_resets
from .wall_timers import wall_timer

DIAGNOSTICS_DEPTH = 10
"""/diagnostics publishers' history depth (the ROS convention)."""


class NodeShell:
    """A node's parameters, input health, stamp orders, resets, counters and diagnostics."""

    def __init__(
        self,
        node,
        table: ParameterTable,
        status: str,
        report: Callable[[], None] | None,
        *,
        watched: Iterable[str] = (),
        orders: Mapping[str, StampOrder] | None = None,
        on_change: Callable[[set[str]], None] | None = None,
        on_reset: Callable[[int], None] | None = None,
        diagnostics_period: float | str | None = 1.0,
    ) -> None:
        """Declare ``table``'s parameters on ``node`` (``on_change`` after an accepted set request);
        watch the ``watched`` inputs; keep ``orders`` (topic -> its stamp order); call
        ``on_reset(stamp_ns)`` on each of the sim's reset notices; call ``report`` every
        ``diagnostics_period`` wall seconds (a name: the parameter that says how many; None: the
        node times it), which publishes the node's status named ``status`` with :meth:`publish`
        (``report`` None: the node publishes its /diagnostics itself, as the sim does from its loop)."""
        table.declare(node, on_change=on_change)
        self.node, self.status = node, status
        self.health = InputHealth(lambda text: node.get_logger().error(text), watched=watched)
        self.orders: dict[str, StampOrder] = dict(orders or {})
        self.counts: Counter[str] = Counter()
        self.resets = ResetWatch()
        if on_reset is not None:
            subscribe_resets(node, lambda stamp: self._reset_notice(stamp, on_reset))
        self._publisher = None
        if report is None:
            return
        self._publisher = node.create_publisher(DiagnosticArray, "/diagnostics", DIAGNOSTICS_DEPTH)
        if isinstance(diagnostics_period, str):
            diagnostics_period = float(node.get_parameter(diagnostics_period).value)
        if diagnostics_period is not None:
            wall_timer(node, diagnostics_period, report)

    def _reset_notice(self, stamp: int, on_reset: Callable[[int], None]) -> None:
        """Hand the node a reset notice, unless it is stamped far past the newest state it took
        (:meth:`~.sim_resets.ResetWatch.ahead`): refused, counted on /diagnostics."""
        if self.resets.ahead(stamp):
            newest = (self.resets.last_state or 0) * 1e-9
            self.health.reject(
                RESET_TOPIC,
                OUT_OF_RANGE,
                f"a reset notice stamped {stamp * 1e-9:.3f} s, {stamp * 1e-9 - newest:.3f} s past the newest state "
                f"({newest:.3f} s): not a reset of this sim, not acted on",
            )
            return
        on_reset(stamp)

    def publish(self, level: str, message: str, values: Mapping[str, object]) -> None:
        """The node's status on /diagnostics: ``level`` (ok, warn, error), ``message``, ``values``
        and then the inputs' health (rejections by topic and reason, each watched input's age)."""
        if self._publisher is None:
            raise RuntimeError(f"{self.status}: this node publishes its /diagnostics itself")
        status = diagnostic_status(self.status, level, message, {**values, **self.health.values()})
        self._publisher.publish(diagnostic_array([status], self.node.get_clock().now().nanoseconds))
