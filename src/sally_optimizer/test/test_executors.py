"""The executor seam without graphs: the --scheduler forms, and the loop's order and re-runs.

The loop is driven here by an executor whose futures this test completes itself, in the order it
chooses, and whose worker it can declare lost: what is checked is the loop (rows in the batch's
order whatever order results come in; a lost worker's candidate evaluated again, not penalised);
real evaluations on real executors are in ``test_optimizer_run.py``.
"""

import threading
from concurrent.futures import Future

import numpy as np
import pytest

from sally_description import PhysicsParams
from sally_optimizer.evaluation import Evaluation
from sally_optimizer.executors import EvaluationTask, SchedulerError, parse_scheduler
from sally_optimizer.optimizer import RETRIES, Optimization, Settings, new_strategy, worst, write_config
from sally_optimizer.results import RunFolder, read_rows
from sally_optimizer.scenarios import ScenarioConfig
from sally_optimizer.space import decode, encode


class LostWorkerError(Exception):
    """What this test's executor raises for a task whose worker it declares lost."""


class HandDriven:
    """An executor whose futures the test completes: each task's evaluation is the penalised
    evaluation of its candidate with the cost set to the candidate's first coordinate."""

    description = "futures completed by the test"
    keeps_files = False

    def __init__(self, lose_first: int = 0) -> None:
        self.submitted: list[tuple[EvaluationTask, Future]] = []
        self.renewed = 0
        self._lose = lose_first

    def submit(self, task: EvaluationTask) -> Future:
        future: Future = Future()
        self.submitted.append((task, future))
        if len(self.submitted) % 2 == 0:  # a pair is in: the later one finishes now, the earlier after it
            (first, first_future), (later, later_future) = self.submitted[-2:]
            self._finish(later, later_future)
            threading.Timer(0.05, self._finish, (first, first_future)).start()
        return future

    def _finish(self, task: EvaluationTask, future: Future) -> None:
        if self._lose:
            self._lose -= 1
            future.set_exception(LostWorkerError("worker gone"))
        else:
            evaluation = worst(decode(np.array(task.x)), "by hand")
            future.set_result(Evaluation(task.x[0], evaluation.scenarios))

    def worker_lost(self, error: BaseException) -> bool:
        return isinstance(error, LostWorkerError)

    def renew(self) -> None:
        self.renewed += 1

    def close(self) -> None:
        pass


def optimization(tmp_path, executor, n_calls=4):
    settings = Settings(n_calls=n_calls, popsize=2, workers=2)
    folder = RunFolder.open(tmp_path)
    x0 = encode(PhysicsParams())
    write_config(folder, settings, ScenarioConfig.tiny(), x0, {"x0": "defaults"})
    return Optimization(folder, settings, ScenarioConfig.tiny(), executor, say=lambda text: None), x0, settings


def test_rows_follow_the_batch_order_whatever_order_results_come_in(tmp_path):
    executor = HandDriven()
    run, x0, settings = optimization(tmp_path, executor)
    run.run(new_strategy(x0, settings), 0, None)
    rows = read_rows(tmp_path / "optimization_results.csv")
    assert [(r["eval"], r["batch"], r["candidate"]) for r in rows] == [
        ("1", "1", "0"), ("2", "1", "1"), ("3", "2", "0"), ("4", "2", "1"),
    ]  # fmt: skip
    sent = [task.x[0] for task, _ in executor.submitted]
    assert [float(r["cost"]) for r in rows] == pytest.approx(sent)  # each row is its own candidate's result
    assert executor.renewed == 0


def test_a_lost_workers_candidate_is_evaluated_again_not_penalised(tmp_path):
    executor = HandDriven(lose_first=2)  # the first pair's workers are lost once
    run, x0, settings = optimization(tmp_path, executor, n_calls=2)
    run.run(new_strategy(x0, settings), 0, None)
    rows = read_rows(tmp_path / "optimization_results.csv")
    assert [r["candidate"] for r in rows] == ["0", "1"] and executor.renewed >= 1
    assert [r["reason"] for r in rows] == ["floor: by hand; wall: by hand; pulloff: by hand"] * 2  # not "died"
    sent = [task.x for task, _ in executor.submitted]
    assert len(sent) == 4 and set(sent[2:]) == set(sent[:2])  # the same two candidates, once more each


def test_a_candidate_that_loses_its_worker_every_time_is_penalised(tmp_path):
    executor = HandDriven(lose_first=2 * (RETRIES + 1))
    run, x0, settings = optimization(tmp_path, executor, n_calls=2)
    run.run(new_strategy(x0, settings), 0, None)
    rows = read_rows(tmp_path / "optimization_results.csv")
    assert len(rows) == 2 and all("its worker died every time" in r["reason"] for r in rows)


def test_scheduler_forms():
    assert parse_scheduler(None) == ("pool", None)
    assert parse_scheduler("local:3") == ("local", 3)
    assert parse_scheduler("tcp://10.0.0.5:8786") == ("remote", "tcp://10.0.0.5:8786")
    for bad, reason in (
        ("local:0", "N >= 1"),
        ("local", "must be"),
        ("10.0.0.5:8786", "must be"),
        ("tcp://x", "must be"),
    ):
        with pytest.raises(SchedulerError, match=reason):
            parse_scheduler(bad)
    with pytest.raises(SchedulerError, match="must be"):
        Settings(scheduler="slurm")


OPTIMIZER_STAND_IN = """
import os, sys, time
from sally_optimizer.executors import LocalPool
pool = LocalPool(1)
print(pool._pool.submit(os.getpid).result(timeout=60), flush=True)  # the worker's pid
pool._pool.submit(time.sleep, 300)  # an evaluation that outlives its optimizer
time.sleep(300)
"""


def _running(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie nobody reaped is not)."""
    try:
        state = next(line for line in open(f"/proc/{pid}/status") if line.startswith("State:"))
    except (FileNotFoundError, ProcessLookupError):
        return False
    return "Z" not in state.split()[1]


def test_a_pool_worker_stops_when_its_optimizer_is_killed():
    """``kill -9`` of the optimizer: its pool worker, busy with an evaluation, stops within seconds
    (it would otherwise run the evaluation to its end, graphs and all, for nobody)."""
    import os
    import signal
    import subprocess
    import sys
    import time

    optimizer = subprocess.Popen(
        [sys.executable, "-c", OPTIMIZER_STAND_IN], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    worker = None
    try:
        worker = int(optimizer.stdout.readline())
        assert _running(worker)
        optimizer.send_signal(signal.SIGKILL)
        optimizer.wait(10)
        deadline = time.monotonic() + 10.0  # PARENT_POLL is 0.5 s
        while _running(worker) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _running(worker), "the pool worker outlived its optimizer by 10 s"
        err = optimizer.stderr.read()  # the worker's stderr is the optimizer's
        assert f"sally-optimize worker {worker}: the optimizer (pid {optimizer.pid}) is gone; stopping" in err
    finally:
        optimizer.kill()
        optimizer.wait(10)
        if worker is not None and _running(worker):
            os.kill(worker, signal.SIGKILL)
