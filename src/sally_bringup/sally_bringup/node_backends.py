"""Where a graph's nodes run for the runner: the interface, and the one-process-per-node backend.

:class:`~sally_bringup.runner.GraphRun` sequences a run (start the nodes, unpause the sim once
every node is heard, wait for the end, stop, report) and leaves running the nodes to a
:class:`NodeBackend`. :class:`ProcessBackend` starts each :class:`~sally_bringup.graphs.NodeSpec`
as a process (a composed container is one process hosting several nodes) and passes its output
through with a ``[name]`` prefix; the optimizer's in-process backend hosts the node classes in the
calling process instead (``sally_optimizer.inprocess``).
"""

from __future__ import annotations

import os
import subprocess
import threading
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO

from sally_node_common.node_main import EXIT_BAD_START, PARENT_ENV

from .graphs import NodeSpec
from .processes import NodeProcess, find_executable, ros_args, stop_together


class NodeBackend(ABC):
    """Runs the nodes of one graph run. The runner calls :meth:`open`, :meth:`start` for each spec,
    :meth:`started_all`, then polls :meth:`gone` until the graph ends, and :meth:`stop_all`,
    :meth:`close` at the end, whatever happened."""

    def open(self, domain: int, log_dir: Path, out: IO[str] | None) -> None:  # noqa: B027 - optional hook
        """Before the first node: the run's ROS domain, the folder for node logs, where output goes."""

    @abstractmethod
    def start(
        self,
        spec: NodeSpec,
        parameters: Mapping[str, object],
        arguments: tuple[str, ...],
        params_files: Sequence[Path],
        env: Mapping[str, str],
    ) -> str:
        """Start ``spec`` with its parameter files (the later overriding the earlier), then these ROS
        ``parameters`` over them, and these command-line ``arguments``; a line saying how."""

    def started_all(self) -> None:  # noqa: B027 - optional hook
        """Every node is started."""

    @abstractmethod
    def gone(self) -> str | None:
        """The name of a required node that is no longer running (ended or failed), if any."""

    @abstractmethod
    def ended(self, name: str) -> str:
        """How node ``name`` ended, e.g. ``exited with 2``."""

    def failed(self, name: str) -> bool:
        """Whether node ``name`` ended with a failure status."""
        return False

    def could_not_start(self, name: str) -> bool:
        """Whether node ``name`` exited saying it cannot start (status 2): whatever verdict the
        runner saw is another graph's, not this one's."""
        return False

    def last_words(self, name: str) -> str:
        """The last line node ``name`` wrote (a node that cannot start says why in it), if known."""
        return ""

    keeps_record = False
    """Whether the backend keeps the run's record where the messages are published
    (:meth:`kept_record`), so the runner need not take the streams over DDS."""

    def kept_record(self):
        """The run's record kept where the messages were published (a
        :class:`~.recording.RunRecord`), or None (the runner reports what it heard)."""
        return None

    @abstractmethod
    def stop_all(self) -> dict[str, int | None]:
        """Stop every node; exit status by name (None: did not stop)."""

    def close(self) -> None:  # noqa: B027 - optional hook
        """After :meth:`stop_all`: release what :meth:`open` took."""


class _Pump(threading.Thread):
    """Copies a process's output line by line to ``out`` with a prefix, and to its log file."""

    def __init__(self, name: str, stream: IO[bytes], out: IO[str] | None, log: Path) -> None:
        super().__init__(name=f"pump {name}", daemon=True)
        self.prefix, self.stream, self.out, self.log = f"[{name}] ", stream, out, log
        self.last_line = ""
        """The last non-empty line the process wrote (a node that cannot start says why in it)."""

    def run(self) -> None:
        with open(self.log, "wb") as log:
            for line in iter(self.stream.readline, b""):
                log.write(line)
                log.flush()
                if line.strip():
                    self.last_line = line.decode(errors="replace").strip()
                if self.out is not None:
                    self.out.write(self.prefix + line.decode(errors="replace").rstrip("\n") + "\n")
                    self.out.flush()


class ProcessBackend(NodeBackend):
    """One process per :class:`NodeSpec`, output prefixed with ``[name]`` and kept in ``logs/``."""

    def __init__(self) -> None:
        self.processes: dict[str, NodeProcess] = {}
        self._pumps: dict[str, _Pump] = {}
        self._required: list[str] = []
        self._log_dir = Path(".")
        self._out: IO[str] | None = None

    def open(self, domain: int, log_dir: Path, out: IO[str] | None) -> None:  # noqa: B027 - optional hook
        """Prepare for a graph on ``domain``: node logs go under ``log_dir``, node output to ``out``."""
        self._log_dir, self._out = log_dir, out

    def start(
        self,
        spec: NodeSpec,
        parameters: Mapping[str, object],
        arguments: tuple[str, ...],
        params_files: Sequence[Path],
        env: Mapping[str, str],
    ) -> str:
        """Start node ``spec`` as a process with these parameters, arguments, files and environment; its name."""
        argv = [find_executable(spec.executable), *arguments, *ros_args(parameters, params_files=params_files)]
        process = NodeProcess(spec.name, argv, {**env, PARENT_ENV: str(os.getpid())})  # it stops when we are gone
        process.start(stdout=subprocess.PIPE)
        assert process.popen is not None and process.popen.stdout is not None
        pump = _Pump(spec.name, process.popen.stdout, self._out, self._log_dir / f"{spec.name}.log")
        pump.start()
        self.processes[spec.name], self._pumps[spec.name] = process, pump
        if spec.required:
            self._required.append(spec.name)
        return f"started {spec.name} ({spec.executable}, pid {process.pid})"

    def gone(self) -> str | None:
        """The name of a required node whose process has exited, if any."""
        return next((name for name in self._required if not self.processes[name].running), None)

    def ended(self, name: str) -> str:
        """How node ``name`` ended, in words."""
        return f"exited with {self.processes[name].returncode}"

    def failed(self, name: str) -> bool:
        """Whether node ``name``'s process exited with an error code."""
        process = self.processes.get(name)
        return process is not None and process.returncode not in (0, None)

    def could_not_start(self, name: str) -> bool:
        """Whether node ``name``'s process exited with :data:`EXIT_BAD_START`."""
        process = self.processes.get(name)
        return process is not None and process.returncode == EXIT_BAD_START

    def last_words(self, name: str) -> str:
        """The last lines node ``name`` wrote (for a failure's message)."""
        pump = self._pumps.get(name)
        if pump is None:
            return ""
        pump.join(timeout=2.0)  # the rest of its output, up to the end of the stream
        return pump.last_line

    def stop_all(self) -> dict[str, int | None]:
        """Stop every node process together; their exit codes by name."""
        return stop_together(list(self.processes.values()), timeout=3.0)
