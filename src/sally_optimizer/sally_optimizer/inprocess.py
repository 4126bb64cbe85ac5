"""The in-process backend: a graph's node classes on one executor in this process.

The same nodes as the multi-process graph (:func:`sally_bringup.graphs.graph` decides which, with
the same parameters), but constructed here, in one rclpy context of the run's own ROS domain, and
spun by one EventsExecutor; the sim node's physics loop runs in a thread of its own, as it does in
its process. The nodes are hosted together (:class:`sally_node_common.host.Host`): messages between
them are handed over as Python objects, and only what the runner's probe reads goes through DDS:
the verdicts and diagnostics. The run's record is kept here, on the host's tap, as a composed
container keeps it (:func:`sally_bringup.composed.keep_record`): the streams it is made of never
cross DDS to the runner, which would take and convert them under this same interpreter lock.
The runner, its probe, report and plots are the multi-process run's (:class:`sally_bringup.runner.GraphRun` with this
:class:`~sally_bringup.node_backends.NodeBackend`), so both backends are scored from the same records.
"""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, Any

from sally_bringup.composed import keep_record, node_class
from sally_bringup.graphs import NodeSpec
from sally_bringup.node_backends import NodeBackend
from sally_bringup.runner import GraphRun, RunResult
from sally_node_common.discovery import default_to_loopback
from sally_node_common.host import Host

EXIT_FAILED, EXIT_CRASHED = 1, 70


class _GuardedExecutor:
    """The executor as the sim node's spinner sees it: an exception escaping a callback is kept
    (and ends the graph) instead of silently killing the spinner thread."""

    def __init__(self, executor, on_error) -> None:
        self._executor, self._on_error = executor, on_error

    def spin_once(self, timeout_sec: float | None = None) -> None:
        try:
            self._executor.spin_once(timeout_sec=timeout_sec)
        except Exception as exc:  # noqa: BLE001 - reported as the graph's failure
            self._on_error(exc)
            raise


class InProcessBackend(NodeBackend):
    """The graph's node classes hosted in this process, in their own rclpy context."""

    def __init__(self) -> None:
        self._hosted: dict[str, Any] = {}
        """Node name -> the hosted node (the sim's ``run``, a finishing node's ``finished``)."""
        self._codes: dict[str, int | None] = {}
        self._errors: list[str] = []
        self._halt = threading.Event()
        self._loop: threading.Thread | None = None
        self._out: IO[str] | None = None
        self._context: Any = None
        self._executor: Any = None
        self._host: Any = None
        self._record: Any = None

    def open(self, domain: int, log_dir: Path, out: IO[str] | None) -> None:
        """Start rclpy on ``domain`` in this process and an executor for the nodes to come."""
        import rclpy
        from rclpy.experimental import EventsExecutor

        default_to_loopback()  # read by rmw at init: discovery stays on this machine
        self._out = out
        self._context = rclpy.Context()
        rclpy.init(context=self._context, domain_id=domain)
        self._executor = EventsExecutor(context=self._context)
        self._host = Host()
        self._record = keep_record(self._host)  # before the nodes: it sees their first messages

    keeps_record = True

    def kept_record(self):
        """The run's record as the hosted nodes published it (None before :meth:`open`)."""
        return None if self._record is None else self._record.record

    def start(
        self,
        spec: NodeSpec,
        parameters: Mapping[str, object],
        arguments: tuple[str, ...],
        params_files: Sequence[Path],
        env: Mapping[str, str],
    ) -> str:
        """Create node ``spec`` in this process with these parameters; its name."""
        from rclpy.parameter import Parameter

        overrides = [Parameter(name, value=value) for name, value in parameters.items()]
        files = [arg for path in params_files for arg in ("--params-file", str(path))]
        node = self._host.create(
            node_class(spec.executable),
            context=self._context,
            parameter_overrides=overrides,
            cli_args=["--ros-args", *files],
        )
        self._executor.add_node(node)
        self._hosted[spec.name] = node
        return f"started {spec.name} ({spec.executable}, in process)"

    def started_all(self) -> None:
        """Every node is created: start the executor (and the sim's loop)."""
        from sally_node_common.gc_pauses import settle

        settle()  # start-up is done: no full collection walks what it made again (until close)
        guarded = _GuardedExecutor(self._executor, self._on_error)
        sim = self._hosted.get("sim")
        if sim is not None:
            target = lambda: self._codes.__setitem__("sim", sim.run(guarded, self._halt))  # noqa: E731
        else:
            from sally_node_common import spin_until_shutdown

            target = lambda: spin_until_shutdown(guarded, self._context, self._halt)  # noqa: E731
        self._loop = threading.Thread(target=target, name="in-process graph", daemon=True)
        self._loop.start()

    def _on_error(self, exc: Exception) -> None:
        self._errors.append(f"{type(exc).__name__}: {exc}")
        if self._out is not None:
            self._out.write(f"[runner] a callback raised {type(exc).__name__}: {exc}; stopping the graph\n")
        self._halt.set()

    def gone(self) -> str | None:
        """The name of a node that has finished (its result drained to the probe), if any."""
        for name, node in self._hosted.items():
            if getattr(node, "finished", None) is not None and node.finished.is_set():
                self._drain()
                return name
        if self._errors:
            return "sim" if "sim" in self._hosted else next(iter(self._hosted))
        if self._loop is not None and not self._loop.is_alive():
            return "sim"
        return None

    def ended(self, name: str) -> str:
        """How the run ended, in words."""
        return "raised: " + "; ".join(self._errors) if self._errors else "finished"

    def failed(self, name: str) -> bool:
        """Whether a node raised."""
        return bool(self._errors)

    def _drain(self) -> None:
        """Let a finished node's last messages (its result) reach the probe."""
        end = time.monotonic() + 0.2
        while time.monotonic() < end and self._loop is not None and self._loop.is_alive():
            time.sleep(0.02)

    def stop_all(self) -> dict[str, int | None]:
        """Stop the loop and destroy the nodes; exit codes by name (0, or 1 for a node that raised)."""
        self._halt.set()
        if self._loop is not None:
            self._loop.join(timeout=5.0)
        codes: dict[str, int | None] = {}
        for name, node in reversed(list(self._hosted.items())):
            if hasattr(node, "succeeded"):
                codes[name] = 0 if node.succeeded else EXIT_FAILED
            else:
                codes[name] = self._codes.get(name, 0)
            if self._errors and name == "sim":
                codes[name] = EXIT_CRASHED
            try:
                self._executor.remove_node(node)
            except Exception:  # noqa: BLE001 - a node already torn down
                pass
        # The events executor holds every entity it served until it updates its sets, which only a
        # spin or its shutdown does; until then a destroyed node is only marked, and stays in the
        # domain's graph for as long as the executor lives (here: the pool worker's life, until
        # the garbage collector finds it). A later graph on the domain then saw a second /sally_sim
        # and refused to start (CI: the optimizer's backend check, twice in one run).
        if self._executor is not None:
            self._executor.shutdown(timeout_sec=2.0)
        for node in reversed(list(self._hosted.values())):
            node.destroy_node()
        return codes

    def close(self) -> None:
        """Shut this backend's rclpy context down and let its DDS participant go."""
        if self._context is not None:
            self._context.try_shutdown()
            try:
                self._context.destroy()
            except Exception:  # noqa: BLE001 - destroyed already
                pass
        # The hosted sim node stays in the domain's graph after destroy_node (measured: a /sally_sim
        # listed 25 s after its run, in the same process) until the garbage collector frees the
        # cycle that still holds it; collected now, it is gone at once.
        from sally_node_common.gc_pauses import unsettle

        self._hosted.clear()
        self._executor = None
        self._host = None
        unsettle()  # this graph's objects are collectable again: the next graph builds its own
        gc.collect()


def run_in_process(
    name: str,
    arguments: Mapping[str, str] | None = None,
    run_dir: Path | None = None,
    out: IO[str] | None = None,
    wall_timeout: float | None = None,
    overrides: Mapping[str, Mapping[str, object]] | None = None,
    domain_id: int | None = None,
    plots: bool = True,
) -> RunResult:
    """Run graph ``name`` to its end in this process; the same result as the multi-process runner
    (``plots``: draw its run.png and forces.png)."""
    run = GraphRun(
        name,
        arguments,
        run_dir=run_dir,
        domain_id=domain_id,
        out=out,
        wall_timeout=wall_timeout,
        overrides=overrides,
        backend=InProcessBackend(),
        plots=plots,
    )
    return run.run()
