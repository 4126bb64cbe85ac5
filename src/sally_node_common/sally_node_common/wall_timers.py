"""Timers on the wall clock, whatever ``use_sim_time`` says.

A node's ``create_timer`` follows the node's clock: with ``use_sim_time`` it fires on /clock, and
stops when sim time stops. Diagnostics and the watchdogs that notice a missing partner (targets that
do not come, a sequencer that is gone) must keep running exactly then: a lockstep sim waiting for
an answer has stopped sim time. They run on the steady clock instead. Everything that is *about*
sim time (stamps, the sequence's phases) comes from the messages' stamps, never from a timer.
"""

from __future__ import annotations

from collections.abc import Callable

from rclpy.clock import Clock, ClockType


def wall_timer(node, period: float, callback: Callable[[], None]):
    """``node.create_timer`` on the steady clock: every ``period`` wall seconds."""
    return node.create_timer(period, callback, clock=Clock(clock_type=ClockType.STEADY_TIME))
