"""The CMA-ES loop (``cma``): ask a batch, evaluate it on an executor, tell, checkpoint.

The executor (:mod:`.executors`) is this machine's pool of spawned processes (``--workers``,
default: the cores) or a Dask cluster (``--scheduler``); each worker evaluates one candidate at a
time, running its three scenario graphs with the chosen backend. Results are written, and told to
CMA-ES, in the order of the batch whatever order they finish in, so a run gives the same CSV on
any executor. See :mod:`results` for what is written when, and why a kill -9 loses no completed
evaluation and a resume repeats none.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, wait
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from sally_description import PhysicsParams

from .evaluation import BACKENDS, Evaluation, ScenarioOutcome
from .executors import EvaluationTask, Executor, LocalPool, open_executor, parse_scheduler
from .results import CONFIG, RunFolder, RunFolderError, result_row
from .scenarios import COSTS, SCENARIOS, ScenarioConfig, combined_cost, penalised
from .space import decode, encode


@dataclass(frozen=True)
class Settings:
    """The optimizer's budget and CMA-ES settings."""

    n_calls: int = 300
    popsize: int = 16
    sigma0: float = 0.3
    seed: int = 42
    workers: int = os.cpu_count() or 1
    backend: str = "inprocess"
    scheduler: str | None = None
    """None: this machine's process pool of ``workers``; else a Dask cluster (:mod:`.executors`)."""

    def __post_init__(self) -> None:
        """Refuse settings that cannot run, naming the setting."""
        parse_scheduler(self.scheduler)
        if self.backend not in BACKENDS:
            raise ValueError(f"backend must be one of {list(BACKENDS)}, got {self.backend!r}")
        for name in ("n_calls", "popsize", "workers"):
            if not isinstance(getattr(self, name), int) or getattr(self, name) < (0 if name == "n_calls" else 1):
                raise ValueError(f"{name} must be a positive whole number, got {getattr(self, name)!r}")
        if not (isinstance(self.sigma0, (int, float)) and 0 < self.sigma0 <= 1 and math.isfinite(self.sigma0)):
            raise ValueError(f"sigma0 must be in (0, 1], got {self.sigma0!r}")


RETRIES = 2
"""How many times a candidate whose worker was lost is evaluated again before it is penalised."""


AGREEMENT = 1e-9
"""Relative difference within which the two backends' costs count as the same."""


class BackendMismatchError(RuntimeError):
    """The in-process backend's costs differ from the multi-process graph's: its numbers are not
    the graph's, so the run stops."""


def check_backends(x0: np.ndarray, config: ScenarioConfig, workdir: Path, say=print) -> None:
    """Evaluate ``x0`` with both backends (at once, in a worker process each, on machines with two
    cores or more: both run lockstep graphs, whose costs do not depend on how the machine shares its
    time) and raise :class:`BackendMismatchError` unless every scenario's cost agrees within
    :data:`AGREEMENT`. A backend whose run of a scenario broke (penalised: timed out, crashed,
    unscorable) where the other's did not is run once more first, and the output says why."""
    say("checking that the in-process backend gives the multi-process graph's costs at x0 ...")
    pool = LocalPool(min(len(BACKENDS), os.cpu_count() or 1))
    try:

        def submit(backend: str, folder: str):
            return pool.submit(EvaluationTask(tuple(map(float, x0)), config.as_dict(), backend, str(workdir / folder)))

        def run(backend: str, folder: str) -> Evaluation:
            return submit(backend, folder).result()

        tasks = {b: submit(b, b) for b in BACKENDS}
        found = {b: task.result() for b, task in tasks.items()}
        for backend, other in (("inprocess", "processes"), ("processes", "inprocess")):
            broke = broke_alone(found[backend], found[other])
            if broke:  # a run that broke says nothing about the numbers: once more before comparing
                say(f"{backend}: {'; '.join(broke)}, the other backend's did not; running {backend} once more")
                found[backend] = run(backend, f"{backend}_again")
    finally:
        pool.close()
    fast, graph = found["inprocess"], found["processes"]
    differ = disagreements(fast, graph)
    if differ:
        raise BackendMismatchError(
            "the in-process backend does not give the multi-process graph's costs at x0 ("
            + "; ".join(differ)
            + f"; runs in {workdir}): use --backend processes, and report this"
        )
    say(
        f"backends agree at x0: cost {graph.cost:.9g} "
        f"({', '.join(f'{n} {graph.scenarios[n].cost:.6g}' for n in SCENARIOS)})"
    )


def broke_alone(mine: Evaluation, other: Evaluation) -> list[str]:
    """The scenarios penalised in ``mine`` and not in ``other``, with the reason of each."""
    return [
        f"{name} was penalised ({mine.scenarios[name].reason})"
        for name in SCENARIOS
        if mine.scenarios[name].penalised and not other.scenarios[name].penalised
    ]


def disagreements(fast: Evaluation, graph: Evaluation) -> list[str]:
    """The scenarios whose costs differ by more than :data:`AGREEMENT` (relative), described."""
    differ = []
    for name in SCENARIOS:
        a, b = fast.scenarios[name].cost, graph.scenarios[name].cost
        if not math.isclose(a, b, rel_tol=AGREEMENT, abs_tol=AGREEMENT):
            why = [
                f"{label} penalised: {outcome.reason}"
                for label, outcome in (("in process", fast.scenarios[name]), ("as processes", graph.scenarios[name]))
                if outcome.penalised
            ]
            differ.append(f"{name} {a!r} in process vs {b!r} as processes" + "".join(f" ({w})" for w in why))
    return differ


def worst(params: PhysicsParams, reason: str) -> Evaluation:
    """Every scenario at its worst (the worker running the candidate died)."""
    outcomes = {}
    for name in SCENARIOS:
        values = penalised(name, params.max_force_per_wheel)
        outcomes[name] = ScenarioOutcome(COSTS[name](values), values, True, reason)
    return Evaluation(combined_cost({n: o.cost for n, o in outcomes.items()}), outcomes)


def new_strategy(x0: np.ndarray, settings: Settings):
    """A CMA-ES strategy from ``x0`` (unit cube) with ``settings``' population, sigma and seed."""
    import cma

    options = {"popsize": settings.popsize, "seed": settings.seed, "bounds": [0.0, 1.0], "verbose": -9}
    return cma.CMAEvolutionStrategy(list(x0), settings.sigma0, options)


def write_config(folder: RunFolder, settings: Settings, config: ScenarioConfig, x0: np.ndarray, origin: dict) -> None:
    """The configuration snapshot: settings, scenarios, x0, code version, and the optimizer's source."""
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "HEAD"], capture_output=True, text=True, cwd=Path(__file__).parent, timeout=10
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        commit = ""
    snapshot = {
        "settings": asdict(settings),
        "scenarios": config.as_dict(),
        "x0": decode(x0).as_dict(),
        "origin": origin,
        "git_commit": commit,
        "argv": sys.argv,
        "started_unix": time.time(),
    }
    (folder.path / CONFIG).write_text(json.dumps(snapshot, indent=2) + "\n")
    source = folder.path / "snapshot"
    source.mkdir(exist_ok=True)
    for path in Path(__file__).parent.glob("*.py"):
        shutil.copy2(path, source / path.name)


class Optimization:
    """One optimization: asks CMA-ES for candidates, evaluates them, tells the costs and keeps the run folder."""

    def __init__(
        self,
        folder: RunFolder,
        settings: Settings,
        config: ScenarioConfig,
        executor: Executor,
        say: Callable[[str], None] = print,
    ) -> None:
        """``executor``: where the candidates are evaluated (closed when :meth:`run` ends)."""
        self.folder, self.settings, self.config, self.executor, self.say = folder, settings, config, executor, say
        started = json.loads((folder.path / CONFIG).read_text()).get("started_unix", time.time())
        self.started = float(started)
        self.session_start = time.monotonic()
        self.session_evals = 0

    def run(self, es, batch: int, candidates: np.ndarray | None) -> float:
        """Until ``n_calls`` evaluations have rows; returns the best cost."""
        s = self.settings
        try:
            while len(self.folder.rows) < s.n_calls:
                if candidates is None:
                    candidates = np.array(es.ask())
                    batch += 1
                    self.folder.save_state(es, batch, candidates)
                self._evaluate_batch(batch, candidates)
                done = self.folder.done_in_batch(batch)
                if len(done) < len(candidates):
                    break  # the budget ended inside this batch
                es.tell(list(candidates), [float(done[i]["cost"]) for i in range(len(candidates))])
                candidates = None
                self.folder.save_state(es, batch, None)
                self._progress(batch)
        finally:
            self.executor.close()
        return self.folder.best_cost

    def _evaluate_batch(self, batch: int, candidates: np.ndarray) -> None:
        """Evaluate the batch's candidates that have no row yet (within the budget) and write their
        rows in candidate order as the results come in."""
        done = self.folder.done_in_batch(batch)
        budget = self.settings.n_calls - len(self.folder.rows)
        todo = [i for i in range(len(candidates)) if i not in done][: max(0, budget)]
        config = self.config.as_dict()

        def submit(i: int) -> Future[Evaluation]:
            workdir = self.folder.path / "evals" / f"b{batch:03d}_c{i:02d}"
            x = tuple(map(float, candidates[i]))
            return self.executor.submit(
                EvaluationTask(x, config, self.settings.backend, str(workdir) if self.executor.keeps_files else None)
            )

        futures = {submit(i): i for i in todo}
        results: dict[int, Evaluation] = {}
        lost_before: dict[int, int] = {}
        written = 0
        while futures:
            finished, _ = wait(futures, return_when=FIRST_COMPLETED)
            again = []
            for future in finished:
                i = futures.pop(future)
                try:
                    results[i] = future.result()
                except Exception as exc:  # noqa: BLE001 - a candidate's failure is its penalty
                    if self.executor.worker_lost(exc) and lost_before.get(i, 0) < RETRIES:
                        lost_before[i] = lost_before.get(i, 0) + 1
                        again.append(i)
                        continue
                    why = "its worker died every time" if self.executor.worker_lost(exc) else "it raised"
                    results[i] = worst(decode(candidates[i]), f"{why}: {type(exc).__name__}: {exc}")
            if again:
                self.say(f"batch {batch}: a worker was lost; evaluating candidates {sorted(again)} again")
                self.executor.renew()
                futures.update({submit(i): i for i in again})
            while written < len(todo) and todo[written] in results:  # rows in the batch's order
                i = todo[written]
                self._record(batch, i, decode(candidates[i]), results.pop(i))
                written += 1

    def _record(self, batch: int, candidate: int, params: PhysicsParams, ev: Evaluation) -> None:
        index = len(self.folder.rows) + 1
        new_best = ev.cost < self.folder.best_cost
        elapsed = (time.time() - self.started) / 60.0
        row = result_row(index, batch, candidate, time.strftime("%Y-%m-%dT%H:%M:%S"), elapsed, params, ev)
        for name, report in ev.reports.items():  # an evaluation that ran elsewhere: its reports, here
            folder = self.folder.path / "evals" / f"b{batch:03d}_c{candidate:02d}" / name
            folder.mkdir(parents=True, exist_ok=True)
            (folder / "report.json").write_text(json.dumps(report, indent=2) + "\n")
        self.folder.add_result(row)
        self.session_evals += 1
        if ev.penalised:
            self.say(f"eval {index} (batch {batch}, candidate {candidate}) penalised: {ev.reason}")
        if new_best:
            best = {"timestamp": row["timestamp"], "elapsed_min": row["elapsed_min"], "evals": index, "cost": ev.cost}
            best.update({f"{n}_cost": o.cost for n, o in ev.scenarios.items()})
            best.update(params.as_dict())
            self.folder.add_best(best, params)

    def _progress(self, batch: int) -> None:
        done, total = len(self.folder.rows), self.settings.n_calls
        hours = (time.monotonic() - self.session_start) / 3600.0
        rate = self.session_evals / hours if hours > 0 else 0.0
        eta = (total - done) / rate * 3600.0 if rate > 0 else float("inf")
        eta_text = time.strftime("%H:%M:%S", time.gmtime(eta)) if math.isfinite(eta) else "?"
        self.say(
            f"batch {batch}: best {self.folder.best_cost:.6g} | {done}/{total} evals | {rate:.1f} evals/h | ETA "
            f"{eta_text}"
        )


def _check_or_say(check: bool, x0: np.ndarray, config: ScenarioConfig, run: RunFolder, say) -> None:
    """:func:`check_backends` at ``x0`` into the run folder, or say that it was skipped."""
    if check:
        check_backends(x0, config, run.path / "backend_check", say)
    else:
        say("the in-process backend's check against the multi-process graph is skipped (--no-backend-check)")


def _executor(settings: Settings, say) -> Executor:
    executor = open_executor(settings.scheduler, settings.workers, settings.popsize, say)
    say(f"evaluating on {executor.description}")
    return executor


def start(
    folder: Path,
    settings: Settings,
    config: ScenarioConfig,
    x0: PhysicsParams | None = None,
    origin: dict | None = None,
    say=print,
    check_backend: bool = True,
) -> float:
    """A fresh run in ``folder`` from ``x0`` (default: the default parameters). With the in-process
    backend, :func:`check_backends` first unless ``check_backend`` is False. A scheduler that cannot
    be used is refused (:class:`~.executors.SchedulerError`) before anything is written."""
    executor = _executor(settings, say)
    try:
        run = RunFolder.open(folder)
        x = encode(x0 or PhysicsParams())
        write_config(run, settings, config, x, origin or {"x0": "defaults"})
        es = new_strategy(x, settings)
        say(
            f"optimizing into {run.path}: {settings.n_calls} evaluations, popsize {settings.popsize}, "
            f"{settings.backend} backend"
        )
        if settings.backend == "inprocess":
            _check_or_say(check_backend, x, config, run, say)
    except BaseException:
        executor.close()
        raise
    return Optimization(run, settings, config, executor, say).run(es, 0, None)


def resume(
    folder: Path,
    n_calls: int | None = None,
    workers: int | None = None,
    say=print,
    check_backend: bool = True,
    scheduler: str | None = None,
) -> float:
    """Continue the run in ``folder`` from its exact CMA-ES state and results (``check_backend``: as
    in :func:`start`). Where the evaluations run belongs to this session, not to the run:
    ``scheduler`` (None: this machine's pool) and ``workers`` are today's, whatever the run started on."""
    if not (Path(folder) / CONFIG).exists():
        raise FileNotFoundError(f"{folder} is not an optimization run folder (no {CONFIG}): nothing to resume")
    run = RunFolder.open(folder)
    try:
        saved = json.loads((run.path / CONFIG).read_text())
        settings = Settings(
            **{
                **saved["settings"],
                **({"n_calls": n_calls} if n_calls is not None else {}),
                **({"workers": workers} if workers else {}),
                "scheduler": scheduler,
            }
        )
        config = ScenarioConfig(**saved["scenarios"])
        x0 = PhysicsParams.from_mapping(saved["x0"])
    except (ValueError, KeyError, TypeError, UnicodeDecodeError) as exc:
        raise RunFolderError(
            f"{run.path / CONFIG} is not a run's configuration ({type(exc).__name__}: {exc}); cannot resume"
        ) from None
    state = run.load_state()
    executor = _executor(settings, say)
    try:
        say(f"resuming {run.path}: {len(run.rows)} of {settings.n_calls} evaluations done, batch {state['batch']}")
        if settings.backend == "inprocess":
            _check_or_say(check_backend, encode(x0), config, run, say)
    except BaseException:
        executor.close()
        raise
    return Optimization(run, settings, config, executor, say).run(state["es"], state["batch"], state["candidates"])
