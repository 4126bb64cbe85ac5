"""Node processes of a graph: started in their own process group, stopped by their own ids.

``stop`` sends SIGINT to the process group (what Ctrl-C does), waits, then SIGTERM, then SIGKILL,
so nothing a graph starts outlives it. Output goes to a log file (or is passed through a
line-prefixing pump by the runner).
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO


def ros_args(
    parameters: Mapping[str, object] | None = None,
    remaps: Mapping[str, str] | None = None,
    params_files: Sequence[Path | str] = (),
) -> list[str]:
    """``--ros-args --params-file f ... -p name:=value ... -r from:=to ...`` with YAML-safe values
    (a later file overrides an earlier one; ``-p`` overrides every file)."""
    out: list[str] = []
    for path in params_files:
        out += ["--params-file", str(path)]
    for name, value in (parameters or {}).items():
        out += ["-p", f"{name}:={_yaml(value)}"]
    for source, target in (remaps or {}).items():
        out += ["-r", f"{source}:={target}"]
    return ["--ros-args", *out] if out else []


def _yaml(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_yaml(v) for v in value) + "]"
    raise TypeError(f"cannot pass {value!r} as a ROS parameter")


STARTED: set[int] = set()
"""Every process started through :class:`NodeProcess` in this process (and any a caller adds):
what a test session or a fault run checks is gone at its end."""


class NodeProcess:
    """One child process of a graph in its own process group, its output to a log file or a pipe."""

    def __init__(
        self, name: str, argv: Sequence[str], env: Mapping[str, str], log: Path | IO[bytes] | None = None
    ) -> None:
        self.name = name
        self.argv = list(argv)
        self.env = dict(env)
        self.log_path = log if isinstance(log, Path) else None
        self._log = log
        self.popen: subprocess.Popen | None = None

    def start(self, stdout: int | IO[bytes] | None = None) -> NodeProcess:
        """Start it; output goes to ``stdout`` if given, else to the log file or stream."""
        opened: IO[bytes] | None = None
        if stdout is None:
            if self.log_path is not None:
                stdout = opened = open(self.log_path, "wb")
            elif not isinstance(self._log, Path):
                stdout = self._log
        try:
            self.popen = subprocess.Popen(
                self.argv,
                env=self.env,
                stdout=stdout,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
            STARTED.add(self.popen.pid)
        finally:
            if opened is not None:
                opened.close()  # only what we opened; the child holds its own copy
        return self

    @property
    def pid(self) -> int:
        """The process id (once started)."""
        assert self.popen is not None
        return self.popen.pid

    @property
    def running(self) -> bool:
        """Whether the process has started and not exited."""
        return self.popen is not None and self.popen.poll() is None

    @property
    def returncode(self) -> int | None:
        """The exit code, or None while it runs (or before it starts)."""
        return None if self.popen is None else self.popen.poll()

    def wait(self, timeout: float) -> int | None:
        """Wait up to ``timeout`` s for the process to exit; its exit code, or None if it still runs."""
        try:
            return self.popen.wait(timeout=timeout) if self.popen else None
        except subprocess.TimeoutExpired:
            return None

    def signal_group(self, sig: int) -> None:
        """Send ``sig`` to the process's whole group (a process already gone is ignored)."""
        if self.popen is not None:
            try:
                os.killpg(self.popen.pid, sig)
            except ProcessLookupError:
                pass

    def stop(self, timeout: float = 5.0) -> int | None:
        """SIGINT, then SIGTERM, then SIGKILL to the process group; returns the exit status."""
        return stop_together([self], timeout)[self.name]

    def kill(self) -> None:
        """SIGKILL now (fault injection)."""
        self.signal_group(signal.SIGKILL)
        self.wait(5.0)

    def log_text(self) -> str:
        """What the process wrote to its log file ('' without one)."""
        if self.log_path is None or not self.log_path.exists():
            return ""
        return self.log_path.read_text(errors="replace")


def stop_together(processes: Sequence[NodeProcess], timeout: float = 5.0) -> dict[str, int | None]:
    """Stop every process at once: SIGINT to all (what Ctrl-C does), up to ``timeout`` for them to
    exit, then SIGTERM, then SIGKILL to those still running; their exit statuses by name."""
    started = [p for p in processes if p.popen is not None]
    for sig, grace in ((signal.SIGINT, timeout), (signal.SIGTERM, 2.0), (signal.SIGKILL, 5.0)):
        running = [p for p in started if p.running]
        if not running:
            break
        for process in running:
            process.signal_group(sig)
        wait_until(lambda running=running: not any(p.running for p in running), grace)
    for process in started:
        process.signal_group(signal.SIGKILL)  # anything a node itself started
    return {p.name: p.returncode for p in processes}


def wait_until(predicate, timeout: float, interval: float = 0.02) -> bool:
    """Poll ``predicate`` until it is true or ``timeout`` seconds pass."""
    deadline = time.monotonic() + timeout
    while True:
        if predicate():
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(interval)


def find_executable(name: str) -> str:
    """A node executable: the venv's console script first (this machine), then PATH."""
    import shutil
    import sys

    found = shutil.which(name, path=os.path.join(sys.prefix, "bin")) or shutil.which(name)
    if found is None:
        raise FileNotFoundError(f"no executable {name!r} in {sys.prefix}/bin or on PATH; run scripts/bootstrap.sh")
    return found


class ProcessGroup:
    """Node processes of one graph: one domain, one log file each, stopped together."""

    def __init__(self, domain_id: int, log_dir: Path, env: Mapping[str, str] | None = None) -> None:
        from .environment import graph_environment

        self.domain_id = domain_id
        self.log_dir = Path(log_dir)
        self.log_dir.mkdir(parents=True, exist_ok=True)
        self.env = graph_environment(domain_id, env)
        self.processes: dict[str, NodeProcess] = {}

    def start(
        self,
        name: str,
        executable: str,
        parameters: Mapping[str, object] | None = None,
        remaps: Mapping[str, str] | None = None,
        argv: Sequence[str] = (),
    ) -> NodeProcess:
        """Start node ``executable`` as ``name`` with these parameters, remaps and extra arguments."""
        return self.start_command(name, [find_executable(executable), *argv, *ros_args(parameters, remaps)])

    def start_command(self, name: str, command: Sequence[str]) -> NodeProcess:
        """Any command (a script, a tool) in the graph's environment."""
        if name in self.processes and self.processes[name].running:
            raise RuntimeError(f"{name} is already running")
        process = NodeProcess(name, command, self.env, self.log_dir / f"{name}.log")
        self.processes[name] = process
        return process.start()

    def stop_all(self, timeout: float = 5.0) -> dict[str, int | None]:
        """Stop every process together (SIGINT, then harder after ``timeout`` s); their exit codes by name."""
        return stop_together(list(self.processes.values()), timeout)

    def logs(self) -> str:
        """Every process's log, one section each."""
        return "\n".join(f"----- {name} -----\n{p.log_text()}" for name, p in self.processes.items())
