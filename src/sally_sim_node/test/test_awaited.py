"""An outcome the sim's loop reports later is awaited in the executor's task without spinning it:
real rclpy, the EventsExecutor every Sally process spins, an outcome reported from another thread.
Awaited on a Future instead, the executor iterated the task about 200,000 times a second here
(2026-12-03), a core and much of the interpreter lock taken from the loop taking the steps."""

from __future__ import annotations

import threading
import time

import pytest
import rclpy
from rclpy.experimental import EventsExecutor
from rclpy.signals import SignalHandlerOptions
from rclpy.task import Future

from sally_sim_node.sim_control import Code, Outcome
from sally_sim_node.sim_interfaces import AWAIT_POLL_S, awaited

pytestmark = pytest.mark.graph  # a real executor on a leased domain (no DDS traffic)
LATER_S = 0.5
"""Wall seconds after which the other thread reports the outcome."""


@pytest.fixture
def executor(ros_domain):
    context = rclpy.Context()
    rclpy.init(args=[], context=context, domain_id=ros_domain, signal_handler_options=SignalHandlerOptions.NO)
    node = rclpy.create_node("awaiting", context=context)
    executor = EventsExecutor(context=context)
    executor.add_node(node)
    yield executor
    node.destroy_node()
    context.try_shutdown()


def spins_until_done(executor, coroutine) -> tuple[int, object]:
    """Spin ``executor`` once at a time until the task of ``coroutine`` is done: the spins, the result."""
    task = executor.create_task(coroutine)
    spins, start = 0, time.monotonic()
    while not task.done() and time.monotonic() - start < 10 * LATER_S:
        executor.spin_once(timeout_sec=0.1)
        spins += 1
    assert task.done(), "the outcome was never awaited"
    return spins, task.result()


def report_later(done, outcome) -> None:
    threading.Timer(LATER_S, lambda: done(outcome)).start()


def test_an_outcome_reported_later_is_awaited_without_spinning(executor):
    spins, outcome = spins_until_done(executor, awaited(lambda done: report_later(done, Outcome(Code.OK))))
    assert outcome == Outcome(Code.OK)
    # at most one iteration per poll (and a few for the executor's own wake-ups), not thousands
    assert spins <= 2 * LATER_S / AWAIT_POLL_S, spins


def test_a_future_awaited_instead_spins_the_executor(executor):
    """What the poll is for: the same wait on an rclpy Future (as the services awaited it before)."""

    async def on_a_future():
        answered: Future = Future()
        report_later(answered.set_result, Outcome(Code.OK))
        return await answered

    spins, outcome = spins_until_done(executor, on_a_future())
    assert outcome == Outcome(Code.OK)
    assert spins > 20 * LATER_S / AWAIT_POLL_S, spins  # about 100,000 in the 0.5 s here


def test_an_outcome_given_at_once_or_dropped_needs_no_wait(executor):
    spins, outcome = spins_until_done(executor, awaited(lambda done: done(Outcome(Code.OK))))
    assert outcome == Outcome(Code.OK) and spins == 1
    _, dropped = spins_until_done(executor, awaited(lambda done: done(None)))
    assert dropped.code == Code.OPERATION_FAILED and "dropped" in dropped.message
