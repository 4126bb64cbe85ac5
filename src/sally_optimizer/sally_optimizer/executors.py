"""Where candidates are evaluated: this machine's process pool or a Dask cluster, behind one seam.

The CMA-ES loop (:mod:`.optimizer`) hands each candidate to an :class:`Executor` as an
:class:`EvaluationTask` and waits on the :class:`concurrent.futures.Future` it gets back; nothing
else in the loop knows which executor runs. Two implement it:

* :class:`LocalPool` (``sally-optimize`` with no ``--scheduler``): spawned processes on this
  machine, at most ``--workers`` (and never more than the population) at a time. A task's graphs
  write their folders into the run folder (``evals/``). A worker process that dies breaks the whole
  pool: every evaluation in flight is lost and :meth:`LocalPool.renew` starts a new pool. A worker
  whose optimizer is gone (killed, even with ``kill -9``) stops itself (:func:`stop_with_optimizer`)
  and with it the graphs it started, instead of finishing its evaluation for nobody.
* :class:`DaskExecutor` (``--scheduler tcp://HOST:PORT`` for a running Dask scheduler, or
  ``--scheduler local:N`` for a ``LocalCluster`` of N single-threaded worker processes on this
  machine, bound to 127.0.0.1, no dashboard). A task runs in a temporary folder on its worker,
  which is removed; the scenario reports come back inside the result. When a worker dies (``kill
  -9``, its machine lost), the scheduler runs its task again on another worker by itself; a task
  that has killed ``distributed.scheduler.allowed-failures`` workers (3 by default) fails with
  ``KilledWorker`` and the loop penalises the candidate.

Every graph a task starts leases its own ``ROS_DOMAIN_ID`` on the machine it runs on (domain leases
are per machine) and keeps discovery on loopback unless the worker's environment says otherwise.
"""

from __future__ import annotations

import json
import logging
import os
import re
import signal
import sys
import tempfile
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path
from typing import Any, Protocol

from sally_node_common.discovery import default_to_loopback
from sally_node_common.node_main import follow_parent

from .evaluation import Evaluation, evaluate
from .scenarios import SCENARIOS, ScenarioConfig
from .space import decode

CONNECT_TIMEOUT = 10.0
"""Seconds ``sally-optimize`` tries to reach a Dask scheduler before it refuses to start."""
WORKER_TIMEOUT = 60.0
"""Seconds it waits for the first worker to join a scheduler that has none."""
LOCAL_HOST = "127.0.0.1"
"""Where a ``local:N`` cluster's scheduler and workers listen: this machine only."""
SCHEDULER_FORMS = "local:N (N workers on this machine) or tcp://HOST:PORT (a running Dask scheduler)"


class SchedulerError(ValueError):
    """A ``--scheduler`` that is malformed, cannot be reached or has no workers; the message says which."""


@dataclass(frozen=True)
class EvaluationTask:
    """One candidate to evaluate: where it is (``x``, the unit cube), the scenarios' configuration
    (:meth:`ScenarioConfig.as_dict`), the graph backend, and where its graphs write (a folder of the
    run on this machine, or None: a temporary folder on the worker, its reports returned)."""

    x: tuple[float, ...]
    config: dict
    backend: str
    workdir: str | None = None


def run_task(task: EvaluationTask) -> Evaluation:
    """Evaluate ``task`` where this runs (a pool process or a Dask worker)."""
    default_to_loopback()  # a worker started by hand may lack it; a value the user set is kept
    params, config = decode(task.x), ScenarioConfig(**task.config)
    if task.workdir is not None:
        return evaluate(params, config, task.backend, Path(task.workdir))
    with tempfile.TemporaryDirectory(prefix="sally-eval-") as folder:
        evaluation = evaluate(params, config, task.backend, Path(folder))
        for name in SCENARIOS:
            report = Path(folder) / name / "report.json"
            if report.exists():
                evaluation.reports[name] = json.loads(report.read_text())
            evaluation.scenarios[name].run_dir = ""  # the worker's folder is gone
    return evaluation


class Executor(Protocol):
    """What the CMA-ES loop needs of whatever evaluates its candidates."""

    description: str
    """One line for the run's output, e.g. ``2 local worker processes``."""
    keeps_files: bool
    """Whether tasks run on this machine and may write into the run folder."""

    def submit(self, task: EvaluationTask) -> Future[Evaluation]:
        """Start evaluating ``task``; its future."""
        ...

    def worker_lost(self, error: BaseException) -> bool:
        """Whether a future's ``error`` means its worker was lost (run the task again), not that the
        candidate failed."""
        ...

    def renew(self) -> None:
        """Make the executor usable again after a lost worker (before tasks are submitted again)."""
        ...

    def close(self) -> None:
        """Stop the executor; evaluations in flight are cancelled."""
        ...


def stop_with_optimizer(optimizer: int) -> None:
    """A pool worker's initializer: once the optimizer process ``optimizer`` (its parent) is gone,
    the worker says so on stderr and sends itself SIGTERM. Its graphs' node processes stop with it
    (they watch their parent, :mod:`sally_node_common.node_main`); an in-process graph ends with the
    process; its domain leases are released by the OS."""

    def gone() -> None:
        try:
            print(
                f"sally-optimize worker {os.getpid()}: the optimizer (pid {optimizer}) is gone; stopping",
                file=sys.stderr,
                flush=True,
            )
        except OSError:
            pass
        os.kill(os.getpid(), signal.SIGTERM)

    follow_parent(optimizer, gone)


class LocalPool:
    """Spawned worker processes on this machine (``concurrent.futures.ProcessPoolExecutor``)."""

    keeps_files = True

    def __init__(self, workers: int) -> None:
        """``workers``: how many processes evaluate at once."""
        self.workers = workers
        self.description = f"{workers} local worker process{'es' if workers != 1 else ''}"
        self._pool = self._new()

    def _new(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(
            max_workers=self.workers,
            mp_context=get_context("spawn"),
            initializer=stop_with_optimizer,
            initargs=(os.getpid(),),
        )

    def submit(self, task: EvaluationTask) -> Future[Evaluation]:
        """Start ``task`` in a pool process."""
        return self._pool.submit(run_task, task)

    def worker_lost(self, error: BaseException) -> bool:
        """A pool whose process died fails every future in flight with ``BrokenProcessPool``."""
        return isinstance(error, BrokenProcessPool)

    def renew(self) -> None:
        """A new pool in place of a broken one (a pool that works is kept)."""
        if getattr(self._pool, "_broken", False):
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = self._new()

    def close(self) -> None:
        """Shut the pool down, cancelling what has not started."""
        self._pool.shutdown(wait=True, cancel_futures=True)


class DaskExecutor:
    """Tasks on a Dask cluster, through the client's ``concurrent.futures`` executor."""

    keeps_files = False

    def __init__(self, client: Any, cluster: Any = None, description: str = "") -> None:
        """``client``: a connected ``distributed.Client``; ``cluster``: a cluster this executor
        started and closes (None for a scheduler someone else runs)."""
        self._client, self._cluster = client, cluster
        self._executor = client.get_executor(pure=False)
        self.description = description or f"the Dask scheduler at {client.scheduler.address}"

    def submit(self, task: EvaluationTask) -> Future[Evaluation]:
        """Send ``task`` to the scheduler."""
        return self._executor.submit(run_task, task)

    def worker_lost(self, error: BaseException) -> bool:
        """Never: the scheduler itself runs a lost worker's task again (the error that reaches the
        loop, ``KilledWorker`` included, is the candidate's)."""
        return False

    def renew(self) -> None:
        """Nothing to renew: the scheduler replaces lost workers' tasks itself."""

    def close(self) -> None:
        """Cancel what is in flight, disconnect, and stop a cluster this executor started."""
        try:
            self._executor.shutdown(wait=False)
            self._client.close()
        finally:
            if self._cluster is not None:
                self._cluster.close()


def open_executor(scheduler: str | None, workers: int, popsize: int, say: Callable[[str], None] = print) -> Executor:
    """The executor for ``--scheduler`` (None: the local pool of ``min(workers, popsize)``
    processes). Raises :class:`SchedulerError` for a malformed spec, a scheduler that cannot be
    reached within :data:`CONNECT_TIMEOUT` s, or one no worker joins within :data:`WORKER_TIMEOUT` s."""
    kind, value = parse_scheduler(scheduler)
    if kind == "pool":
        return LocalPool(min(workers, popsize))
    from distributed import Client, LocalCluster

    if kind == "local":
        cluster = LocalCluster(
            n_workers=value,
            threads_per_worker=1,
            processes=True,
            host=LOCAL_HOST,
            dashboard_address=None,
            silence_logs=logging.ERROR,
        )
        plural = "es" if value != 1 else ""
        return DaskExecutor(Client(cluster), cluster, f"a local Dask cluster of {value} worker process{plural}")
    try:
        client = Client(value, timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError) as exc:
        raise SchedulerError(
            f"cannot reach the Dask scheduler at {value} within {CONNECT_TIMEOUT:g} s ({type(exc).__name__}); "
            "start it with `dask scheduler` or give another --scheduler"
        ) from None
    try:
        if not client.scheduler_info().get("workers"):
            say(f"waiting up to {WORKER_TIMEOUT:g} s for a worker to join {value} ...")
            client.wait_for_workers(1, timeout=WORKER_TIMEOUT)
    except (OSError, TimeoutError):
        client.close()
        raise SchedulerError(
            f"no worker joined the Dask scheduler at {value} within {WORKER_TIMEOUT:g} s; "
            f"start one with `dask worker {value}` in the project's environment"
        ) from None
    count = len(client.scheduler_info().get("workers", {}))
    return DaskExecutor(client, None, f"the Dask scheduler at {value} ({count} worker{'s' if count != 1 else ''} now)")


def parse_scheduler(scheduler: str | None) -> tuple[str, Any]:
    """("pool", None), ("local", N) or ("remote", address) for a ``--scheduler`` value."""
    if scheduler is None:
        return "pool", None
    local = re.fullmatch(r"local:(\d+)", scheduler)
    if local:
        n = int(local.group(1))
        if n < 1:
            raise SchedulerError(f"--scheduler local:N needs N >= 1, got {scheduler!r}")
        return "local", n
    if re.fullmatch(r"tcp://[^\s:/]+:\d+", scheduler):
        return "remote", scheduler
    raise SchedulerError(f"--scheduler must be {SCHEDULER_FORMS}, got {scheduler!r}")
