"""A client node for tests, benchmarks and scripts: record topics, publish, call services.

It lives in its own rclpy context on its own domain (so one process can talk to several graphs),
spins on a background thread, and every wait is a poll with a time limit: discovery is awaited
by matched counts, never by sleeping.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import rclpy
from rcl_interfaces.msg import Parameter, ParameterValue, SetParametersResult
from rcl_interfaces.srv import SetParameters
from rclpy.executors import ExternalShutdownException
from rclpy.parameter import Parameter as RclpyParameter
from rclpy.qos import HistoryPolicy, QoSProfile, ReliabilityPolicy
from rclpy.signals import SignalHandlerOptions

from .processes import wait_until

SIM = "/sally_sim"
"""The sim node's namespace for its simulation_interfaces services."""
RELIABLE_DEEP = QoSProfile(depth=1000, reliability=ReliabilityPolicy.RELIABLE, history=HistoryPolicy.KEEP_LAST)


class ProbeTimeoutError(AssertionError):
    """A probe's wait ran out (an ``AssertionError``: tests report it as a failure)."""

    pass


@dataclass
class Recording:
    """Messages of one topic with the wall time (monotonic) each arrived."""

    topic: str
    messages: list = field(default_factory=list)
    arrivals: list = field(default_factory=list)
    subscription: Any = None
    keep: bool = True
    """False: only the last message is kept (a long run's consumer keeps what it needs itself)."""

    def append(self, msg) -> None:
        """Keep ``msg`` and the wall time it arrived (only the latest when ``keep`` is off)."""
        if not self.keep:
            self.messages.clear()
            self.arrivals.clear()
        self.arrivals.append(time.monotonic())
        self.messages.append(msg)

    def __len__(self) -> int:
        return len(self.messages)

    @property
    def last(self):
        """The latest message, or None before the first."""
        return self.messages[-1] if self.messages else None

    def clear(self) -> None:
        """Forget every message kept so far."""
        self.messages.clear()
        self.arrivals.clear()


class Probe:
    """A ROS node of its own (own context, own domain) that tests and tools use to talk to a graph."""

    def __init__(self, domain_id: int, name: str = "sally_probe") -> None:
        self.domain_id = domain_id
        self.context = rclpy.Context()
        rclpy.init(args=[], context=self.context, domain_id=domain_id, signal_handler_options=SignalHandlerOptions.NO)
        self.node = rclpy.create_node(name, context=self.context)
        from rclpy.experimental import EventsExecutor

        self.executor = EventsExecutor(context=self.context)
        self.executor.add_node(self.node)
        self._clients: dict[tuple[Any, str], Any] = {}
        """Service clients by (type, name), made once and kept until :meth:`close` (see :meth:`stop_spinning`)."""
        self._closing = threading.Event()
        self._spin_lock = threading.Lock()
        """Held by every spin of the background thread; :meth:`action_client` holds it to make a client."""
        self._thread = threading.Thread(target=self._spin, name=f"{name} spin", daemon=True)
        self._thread.start()

    def _spin(self) -> None:
        while self.context.ok() and not self._closing.is_set():
            try:
                with self._spin_lock:
                    self.executor.spin_once(timeout_sec=0.05)
            except (ExternalShutdownException, rclpy._rclpy_pybind11.InvalidHandle):
                return

    # --- topics ---------------------------------------------------------------------------------
    def record(
        self, msg_type, topic: str, qos: QoSProfile | int = RELIABLE_DEEP, on_message: Callable | None = None
    ) -> Recording:
        """Subscribe to ``topic`` and keep what arrives in a :class:`Recording` (``on_message`` is
        called too, first: whoever sees a message in the recording sees what ``on_message`` made of it)."""
        rec = Recording(topic)

        def callback(msg) -> None:
            if on_message is not None:
                on_message(msg)
            rec.append(msg)

        rec.subscription = self.node.create_subscription(msg_type, topic, callback, qos)
        return rec

    def publisher(self, msg_type, topic: str, qos: QoSProfile | int = RELIABLE_DEEP):
        """A publisher of ``msg_type`` on ``topic`` on the probe's node."""
        return self.node.create_publisher(msg_type, topic, qos)

    def wait_for_subscribers(self, publisher, count: int = 1, timeout: float = 15.0) -> None:
        """Wait until ``publisher`` has ``count`` matched subscriptions; else :class:`ProbeTimeoutError`."""
        if not wait_until(lambda: publisher.get_subscription_count() >= count, timeout):
            raise ProbeTimeoutError(
                f"{publisher.topic_name}: {publisher.get_subscription_count()} of {count} subscribers after {timeout} s"
            )

    def wait_for_publishers(self, recording: Recording, count: int = 1, timeout: float = 15.0) -> None:
        """Wait until ``recording``'s topic has ``count`` matched publishers; else :class:`ProbeTimeoutError`."""
        sub = recording.subscription
        if not wait_until(lambda: sub.get_publisher_count() >= count, timeout):
            raise ProbeTimeoutError(
                f"{recording.topic}: {sub.get_publisher_count()} of {count} publishers after {timeout} s"
            )

    def wait_for(self, predicate: Callable[[], bool], timeout: float, what: str) -> None:
        """Wait until ``predicate()`` holds; :class:`ProbeTimeoutError` naming ``what`` after ``timeout`` s."""
        if not wait_until(predicate, timeout):
            raise ProbeTimeoutError(f"timed out after {timeout} s waiting for {what}")

    def wait_for_messages(self, recording: Recording, count: int, timeout: float = 15.0) -> None:
        """Wait until ``recording`` holds ``count`` messages."""
        self.wait_for(
            lambda: len(recording) >= count, timeout, f"{count} messages on {recording.topic} (got {len(recording)})"
        )

    # --- services and parameters ----------------------------------------------------------------
    def call(self, srv_type, name: str, request, timeout: float = 10.0, resend_every: float | None = None):
        """Call service ``name`` and return its answer. ``resend_every`` (for idempotent services
        only: a parameter set, a pause): send the request again each time this many seconds pass
        without an answer; the first answer counts. A service counts as available once its
        request reader has matched; the answer's way back may not have yet, and an answer sent
        before it has is lost (CI once waited 10 s for a set_parameters answer that never came).
        The client is made on the first call and kept for the next ones (it goes at :meth:`close`,
        not while the probe spins; an answer to an earlier call that comes late is ignored)."""
        client = self._client(srv_type, name, timeout)
        deadline = time.monotonic() + timeout
        futures = [client.call_async(request)]
        while True:
            left = deadline - time.monotonic()
            wait = left if resend_every is None else min(left, resend_every)
            if wait_until(lambda: any(f.done() for f in futures), max(wait, 0.0)):
                return next(f for f in futures if f.done()).result()
            if time.monotonic() >= deadline:
                raise ProbeTimeoutError(f"timed out after {timeout} s waiting for the answer of {name}")
            futures.append(client.call_async(request))

    def call_async(self, srv_type, name: str, request, timeout: float = 10.0):
        """Send ``request`` to service ``name`` once (waiting up to ``timeout`` s for the service) and
        return the future of its answer, for a caller that also watches what the call does (an
        answer can be lost: :meth:`call`)."""
        return self._client(srv_type, name, timeout).call_async(request)

    def _client(self, srv_type, name: str, timeout: float) -> Any:
        client: Any = self._clients.get((srv_type, name))
        if client is None:
            client = self._clients[srv_type, name] = self.node.create_client(srv_type, name)
        if not client.wait_for_service(timeout_sec=timeout):
            raise ProbeTimeoutError(f"service {name} not available after {timeout} s")
        return client

    def set_parameters(
        self, node_name: str, values: Mapping[str, Any], timeout: float = 10.0
    ) -> list[SetParametersResult]:
        """Set parameters of node ``node_name`` over its ``set_parameters`` service; one result per value."""
        request = SetParameters.Request(
            parameters=[Parameter(name=k, value=_parameter_value(v)) for k, v in values.items()]
        )
        answer = self.call(SetParameters, f"/{node_name}/set_parameters", request, timeout, resend_every=2.0)
        return list(answer.results)

    def set_simulation_state(self, state: int, timeout: float = 10.0, sim: str = SIM) -> None:
        """Play, pause or stop the sim (``simulation_interfaces/SetSimulationState``: ``state`` is a
        ``SimulationState`` value); raises ``RuntimeError`` saying why when it refuses. Resent while
        unanswered: a repeat answers ALREADY_IN_TARGET_STATE, which counts as done."""
        from simulation_interfaces.msg import Result, SimulationState
        from simulation_interfaces.srv import SetSimulationState

        request = SetSimulationState.Request(state=SimulationState(state=state))
        answer = self.call(SetSimulationState, f"{sim}/set_simulation_state", request, timeout, resend_every=2.0)
        if answer.result.result not in (Result.RESULT_OK, SetSimulationState.Response.ALREADY_IN_TARGET_STATE):
            raise RuntimeError(f"the sim refused state {state}: {answer.result.error_message}")

    def action_client(self, action_type, name: str):
        """An ``rclpy.action.ActionClient`` of ``action_type`` for action ``name`` on the probe's node.

        Made with the spinning thread held off: rclpy's ``ActionClient`` adds itself to the node
        before it makes its lock, and an executor spinning meanwhile asks it for its entities and
        dies on the missing lock (CI once lost every later answer that way). Make action clients
        here, never with ``ActionClient(probe.node, ...)`` while the probe spins."""
        from rclpy.action import ActionClient

        with self._spin_lock:
            return ActionClient(self.node, action_type, name)

    def stop_spinning(self) -> None:
        """No more callbacks: the spinning thread ends (messages still on their way are dropped).

        Call it before destroying what the node made while it spins: the events executor then
        tears those entities down in the spinning thread, beside the middleware's own threads,
        and a runner's process once hung there (the spinning thread stuck in an event handler's
        ``__exit__`` with the interpreter lock, every other thread waiting for it). Stopped first,
        the teardown happens in :meth:`close`, in the caller's thread, with nothing spinning."""
        self._closing.set()
        self._thread.join(timeout=2.0)

    def close(self) -> None:
        """Leave the graph at once.

        The spinning stops, the node's endpoints are deleted while the
        context is still valid (the others' graphs drop them now, not when a lease runs out), then
        the context and its DDS participant go. (Shutting the context down first left the node's
        publishers alive: a sim went on listing a closed probe's /clock for over 30 s.)"""
        self.stop_spinning()
        try:
            self.executor.remove_node(self.node)
            self.executor.shutdown(timeout_sec=1.0)
            self.node.destroy_node()
        except Exception:  # noqa: BLE001 - closed twice, or the context is gone already: nothing to clean
            pass
        self.context.try_shutdown()
        try:
            self.context.destroy()
        except Exception:  # noqa: BLE001 - destroyed already
            pass

    def __enter__(self) -> Probe:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _parameter_value(value: Any) -> ParameterValue:
    return RclpyParameter("x", value=value).to_parameter_msg().value
