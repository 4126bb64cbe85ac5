"""Start, run and stop a node process the same way everywhere.

* rclpy's own signal handlers are not installed: with them, Python's SIGINT handler raises
  KeyboardInterrupt inside whatever callback the C++ executor is running, which aborts the
  process. Instead SIGINT and SIGTERM set a stop event; the loops end on it, and only then is the
  node destroyed and the context shut down (shutting it down from the handler would pull it from
  under a callback that is publishing).
* A node that cannot start (bad parameter, missing file, another node of its name already in the
  domain: :mod:`.unique_names`) exits with status 2 and one line on stderr naming the reason, no
  traceback.
* The EventsExecutor is driven with ``spin_once`` (its ``spin()`` busy-loops without delivering
  anything in this rclpy).
* ``kill -USR1 <pid>`` writes every thread's Python stack to stderr (:func:`faulthandler.register`):
  how a node that hangs says where.
* Started by the embedded runner, a node stops when the runner is gone (:func:`watch_parent`):
  the runner starts each node in a session of its own (so one Ctrl-C reaches only the runner,
  which stops the nodes in order), so nothing else would stop them after a ``kill -9`` of the
  runner or a closed terminal.
"""

from __future__ import annotations

import faulthandler
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Sequence

import rclpy
from rclpy._rclpy_pybind11 import InvalidHandle, RCLError
from rclpy.exceptions import InvalidParameterTypeException, InvalidParameterValueException
from rclpy.executors import ExternalShutdownException
from rclpy.node import Node
from rclpy.signals import SignalHandlerOptions

from .discovery import default_to_loopback
from .gc_pauses import settle
from .graph_end import EndsGraph
from .unique_names import UniqueNameWatch

EXIT_BAD_START = 2
STACK_SIGNAL = signal.SIGUSR1
"""The signal on which a node writes every thread's Python stack to stderr and runs on."""
PARENT_ENV = "SALLY_PARENT_PID"
"""Set by the runner to its pid: the node stops when its parent is no longer that process."""
PARENT_POLL = 0.5
"""s between checks of the parent."""


class StartupError(RuntimeError):
    """A node cannot start: the message is the one-line reason."""


START_ERRORS: tuple[type[Exception], ...] = (
    StartupError,
    InvalidParameterValueException,
    InvalidParameterTypeException,
)


def follow_parent(
    parent: int, on_gone: Callable[[], None], getppid=os.getppid, poll: float = PARENT_POLL
) -> threading.Thread:
    """A daemon thread that calls ``on_gone()`` once this process's parent is no longer ``parent``
    (that process is gone: its children are handed to init or a subreaper), looking every ``poll``
    seconds. Returns the thread, started."""

    def watch() -> None:
        while getppid() == parent:
            time.sleep(poll)
        on_gone()

    thread = threading.Thread(target=watch, name="parent watch", daemon=True)
    thread.start()
    return thread


def watch_parent(stop: threading.Event, name: str, environ=os.environ, getppid=os.getppid) -> threading.Thread | None:
    """When ``SALLY_PARENT_PID`` names this process's parent, a daemon thread sets ``stop`` (with a
    line on stderr) once the parent has changed (:func:`follow_parent`). Returns the thread, or None
    when there is nothing to watch."""
    wanted = environ.get(PARENT_ENV, "")
    if not wanted.isdigit() or int(wanted) != getppid():
        return None  # not started by the runner (or the runner is gone already: then nothing to wait for)
    parent = int(wanted)

    def gone() -> None:
        if stop.is_set():
            return  # stopping anyway
        stop.set()  # first: the runner read our output, so saying it may fail (a broken pipe)
        try:
            print(f"{name}: the runner (pid {parent}) is gone; stopping", file=sys.stderr, flush=True)
        except OSError:
            pass

    return follow_parent(parent, gone, getppid)


def spin_until_shutdown(executor, context, stop: threading.Event) -> None:
    """Run callbacks until ``stop`` is set or the context is shut down."""
    while context.ok() and not stop.is_set():
        try:
            executor.spin_once(timeout_sec=0.1)
        except (ExternalShutdownException, InvalidHandle):
            return


FINAL_ACK_WAIT = 5.0
"""Wall seconds a finishing node waits for its readers to acknowledge its final messages."""


def run_until_finished(node: Node, executor, stop: threading.Event, failed: int = 1) -> int:
    """The ``run`` of a node that ends its graph (:class:`~.graph_end.EndsGraph`): spin until ``node.finished`` is set,
    then let its last messages go out and return 0 if ``node.succeeded`` else ``failed``. A node
    with ``exit_when_done`` False keeps spinning until stopped.

    The publishers in ``node.final_publishers`` (the verdict, latched) are waited on until every
    reader has acknowledged them, at most :data:`FINAL_ACK_WAIT` s: a latched message goes with its
    writer, and a runner under load once lost the pull-off rig's verdict that way."""
    from rclpy.duration import Duration

    if not isinstance(node, EndsGraph):
        raise TypeError(f"{node.get_name()} does not end a graph: it declares none of EndsGraph's attributes")
    while not stop.is_set() and node.context.ok():
        executor.spin_once(timeout_sec=0.1)
        if node.finished.is_set() and node.exit_when_done:
            for _ in range(5):  # let the final messages go out
                executor.spin_once(timeout_sec=0.02)
            for publisher in node.final_publishers:
                publisher.wait_for_all_acked(Duration(seconds=FINAL_ACK_WAIT))
            return 0 if node.succeeded else failed
    return 0


STOP_ACK_WAIT = 3.0
"""Wall seconds a stopping process waits, all its publishers together, for their reliable readers to
acknowledge what it published. A writer's unacknowledged messages go with it: a run's recording
that had fallen behind the graph (two cores shared with four busy loops) lost the last 1-9 s of sim
time of some streams that way."""


def wait_for_readers(nodes: Sequence[Node], timeout: float = STOP_ACK_WAIT) -> bool:
    """Wait until the reliable readers of every publisher of ``nodes`` have acknowledged all it
    published, at most ``timeout`` s in all (a reader that never does, a hung one, costs that once);
    whether they all did."""
    from rclpy.duration import Duration

    deadline = time.monotonic() + timeout
    for node in nodes:
        for publisher in node.publishers:
            left = deadline - time.monotonic()
            try:
                if left <= 0 or not publisher.wait_for_all_acked(Duration(nanoseconds=int(left * 1e9))):
                    return False
            except (InvalidHandle, RCLError):  # already torn down: nothing of it can arrive now
                continue
    return True


def watch_unique_names(nodes: Sequence[Node], stop: threading.Event) -> UniqueNameWatch:
    """:class:`~.unique_names.UniqueNameWatch` over ``nodes`` (one process's, one context): the
    caller exits :data:`EXIT_BAD_START` with its ``refusal`` when it set one."""
    first = nodes[0]

    def graph_names() -> list[tuple[str, str]]:
        try:
            return first.get_node_names_and_namespaces()
        except (InvalidHandle, RCLError):  # torn down under the watch: nothing left to look at
            return []

    watch = UniqueNameWatch(
        graph_names, [n.get_fully_qualified_name() for n in nodes], stop, first.context.get_domain_id()
    )
    watch.start()
    return watch


def run_node(
    name: str,
    factory: Callable[[], Node],
    args: list[str] | None = None,
    run: Callable[[Node, object, threading.Event], int | None] | None = None,
    start_errors: tuple[type[Exception], ...] = (),
) -> int:
    """``factory`` builds the node; ``run(node, executor, stop)`` drives it until ``stop`` is set
    (default: spin until then).

    Returns the process exit status: ``run``'s result, 0 on a signal, 2 when the node cannot start.
    """
    default_to_loopback()
    faulthandler.register(STACK_SIGNAL, all_threads=True)
    rclpy.init(args=args, signal_handler_options=SignalHandlerOptions.NO)
    context = rclpy.get_default_context()
    stop = threading.Event()
    for s in (signal.SIGINT, signal.SIGTERM):
        signal.signal(s, lambda signum, frame: stop.set())
    watch_parent(stop, name)
    try:
        try:
            node = factory()
        except START_ERRORS + start_errors as exc:
            print(f"{name}: cannot start: {exc}", file=sys.stderr)
            return EXIT_BAD_START
        from rclpy.experimental import EventsExecutor

        executor = EventsExecutor(context=context)
        executor.add_node(node)
        names = watch_unique_names([node], stop)
        settle()  # start-up is done: no full collection walks what it made again
        try:
            try:
                if run is None:
                    spin_until_shutdown(executor, context, stop)
                    code = 0
                else:
                    code = run(node, executor, stop) or 0
            except (ExternalShutdownException, InvalidHandle):
                code = 0
            if names.refusal is not None:
                print(f"{name}: cannot start: {names.refusal}", file=sys.stderr, flush=True)
                names.linger()  # idle but visible: another node in its window sees the clash too
                return EXIT_BAD_START
            return code
        finally:
            executor.remove_node(node)
            wait_for_readers([node])
            node.destroy_node()
    finally:
        context.try_shutdown()
        # the stop handlers stay: a signal arriving while rclpy tears down must not raise
        # KeyboardInterrupt inside its C++ destructors (that aborts the process)
