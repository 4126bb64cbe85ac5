"""The optimizer end to end on real graphs (shortened scenarios): its files, kill -9 and resume,
warm start, the in-process backend against the multi-process graph, and the same evaluations on a
Dask cluster (a LocalCluster, and a scheduler with two workers started by hand, one killed)."""

import json
import os
import pickle
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from sally_bringup.processes import wait_until
from sally_bringup.shm import remove_stale_segments
from sally_description import PhysicsParams
from sally_description.params import PARAM_NAMES
from sally_optimizer.results import BEST_COLUMNS, RESULT_COLUMNS, read_rows
from sally_optimizer.space import decode

pytestmark = pytest.mark.graph  # real graphs, in processes or hosted in this process

OPTIMIZE = [sys.executable, "-m", "sally_optimizer", "--tiny", "--popsize", "2", "--backend", "inprocess"]
NO_CHECK = "--no-backend-check"
"""For the runs whose test is not about the backend check: tiny_run checks the backends, once."""
SKIPPED = "check against the multi-process graph is skipped"
OUTPUTS = ("optimization_results.csv", "optimization_bests.csv", "cmaes_state.pkl", "best_params.json", "config.json")


def optimize(args, tmp_path, **kwargs):
    return subprocess.run(
        [*OPTIMIZE, "--results", str(tmp_path), *args], capture_output=True, text=True, timeout=900, **kwargs
    )


def run_folder(parent, suffix):
    (folder,) = [p for p in parent.iterdir() if p.name.endswith("_" + suffix)]
    return folder


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    parent = tmp_path_factory.mktemp("optimizer")
    done = optimize(["--n-calls", "2", "--workers", "2", "--suffix", "tiny"], parent)
    print(done.stdout[-4000:], done.stderr[-4000:])
    assert done.returncode == 0
    return run_folder(parent, "tiny"), done.stdout


def test_tiny_run_writes_every_output(tiny_run):
    folder, stdout = tiny_run
    for name in OUTPUTS:
        assert (folder / name).stat().st_size > 0, name
    rows = read_rows(folder / "optimization_results.csv")
    assert len(rows) == 2 and list(rows[0]) == list(RESULT_COLUMNS)
    assert sorted((r["batch"], r["candidate"]) for r in rows) == [("1", "0"), ("1", "1")]
    for r in rows:  # every scenario scored (or penalised with its reason), and the combination holds
        costs = [float(r[f"{s}_cost"]) for s in ("floor", "wall", "pulloff")]
        assert float(r["cost"]) == pytest.approx(0.4 * costs[0] + 0.4 * costs[1] + 0.2 * costs[2])
        assert r["penalised"] == "0" or r["reason"]
    bests = read_rows(folder / "optimization_bests.csv")
    assert bests and list(bests[0]) == list(BEST_COLUMNS)
    assert float(bests[-1]["cost"]) == min(float(r["cost"]) for r in rows)
    best = PhysicsParams.from_file(folder / "best_params.json")  # what the sim's params_file loads
    assert best.Br == pytest.approx(float(bests[-1]["Br"]))
    config = json.loads((folder / "config.json").read_text())
    assert config["settings"]["popsize"] == 2 and config["scenarios"]["settle"] == 0.5
    assert (folder / "snapshot" / "scenarios.py").exists()
    state = pickle.loads((folder / "cmaes_state.pkl").read_bytes())
    assert state["batch"] == 1 and state["candidates"] is None and state["es"].countiter == 1
    assert "batch 1: best" in stdout and "evals/h" in stdout
    assert "backends agree at x0" in stdout  # the in-process run showed that its numbers are the graph's
    assert (folder / "backend_check" / "processes").is_dir() and (folder / "backend_check" / "inprocess").is_dir()
    for scenario in ("floor", "wall", "pulloff"):  # the headless replay of the best
        assert (folder / "replay" / scenario / "forces.png").exists(), scenario


def test_warm_start_seeds_x0_from_the_last_best(tiny_run, tmp_path):
    folder, _ = tiny_run
    arguments = ["--n-calls", "0", "--warm-start-from", str(folder), "--suffix", "warm", "--no-replay", NO_CHECK]
    done = optimize(arguments, tmp_path)
    assert done.returncode == 0, done.stderr
    assert SKIPPED in done.stdout and not (run_folder(tmp_path, "warm") / "backend_check").exists()
    config = json.loads((run_folder(tmp_path, "warm") / "config.json").read_text())
    last = read_rows(folder / "optimization_bests.csv")[-1]
    for name, value in config["x0"].items():
        assert value == pytest.approx(float(last[name]), rel=1e-9), name
    assert config["origin"] == {"warm_start_from": str(folder)}


def semaphores():
    return set(Path("/dev/shm").glob("sem.mp-*"))


def test_kill_9_then_resume_loses_and_repeats_nothing(tmp_path):
    existing = semaphores()
    output = open(tmp_path / "optimizer.out", "w+b")  # shown when the run ends before it is killed
    process = subprocess.Popen(
        [*OPTIMIZE, "--results", str(tmp_path), "--n-calls", "3", "--workers", "1", "--suffix", "killed"]
        + ["--no-replay", NO_CHECK],
        stdout=output, stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    try:
        started = lambda: list(tmp_path.glob("*_killed/optimization_results.csv")) or process.poll() is not None  # noqa: E731
        assert wait_until(started, 300) and process.poll() is None, (tmp_path / "optimizer.out").read_text()[-3000:]
        results = next(tmp_path.glob("*_killed/optimization_results.csv"))
        assert wait_until(lambda: len(read_rows(results)) >= 1, 300)
        os.killpg(process.pid, signal.SIGKILL)  # the optimizer, its worker and the worker's graph
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=30)
        output.close()
    remove_stale_segments()
    for leftover in semaphores() - existing:  # the killed pool's semaphores (nothing else frees them)
        leftover.unlink(missing_ok=True)
    folder = results.parent
    before = read_rows(results)
    assert len(before) == 1  # killed while batch 1's second candidate was being evaluated
    state = pickle.loads((folder / "cmaes_state.pkl").read_bytes())
    assert state["batch"] == 1 and state["candidates"] is not None
    asked = state["candidates"]

    done = optimize(["--resume-from", str(folder), "--no-replay", NO_CHECK], tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert SKIPPED in done.stdout
    after = read_rows(results)
    assert after[0] == before[0]  # nothing completed was lost or rewritten
    keys = [(r["batch"], r["candidate"]) for r in after]
    assert len(after) == 3 and len(set(keys)) == 3, keys  # ... or evaluated twice
    assert [r["eval"] for r in after] == ["1", "2", "3"]
    second = next(r for r in after if (r["batch"], r["candidate"]) == ("1", "1"))
    expected = decode(asked[1])  # the very candidate CMA-ES had asked for before the kill
    assert float(second["Br"]) == pytest.approx(expected.Br) and float(second["margin"]) == pytest.approx(
        expected.margin
    )
    final = pickle.loads((folder / "cmaes_state.pkl").read_bytes())
    assert final["batch"] == 2 and final["es"].countiter == 1  # batch 1 told once; batch 2 cut by the budget


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_bad_arguments_are_refused_in_one_line(tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    nobody = f"tcp://127.0.0.1:{free_port()}"  # nothing listens there
    calls = (
        ["--resume-from", str(tmp_path / "nope")],
        ["--workers", "0"],
        ["--scheduler", "local:0"],
        ["--scheduler", "slurm"],
        ["--scheduler", nobody, "--n-calls", "1"],
    )
    with ThreadPoolExecutor(len(calls)) as pool:  # five processes at once: each is refused on its own
        resumed, workers, local0, slurm, unreachable = pool.map(lambda args: optimize(args, tmp_path), calls)
    assert resumed.returncode == 2 and "nothing to resume" in resumed.stderr and "Traceback" not in resumed.stderr
    assert workers.returncode == 2 and "workers" in workers.stderr
    for done, reason in ((local0, "N >= 1"), (slurm, "must be local:N")):
        assert done.returncode == 2 and reason in done.stderr and len(done.stderr.strip().splitlines()) == 1
    done = unreachable
    assert done.returncode == 2 and f"cannot reach the Dask scheduler at {nobody}" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and not list(tmp_path.iterdir())  # refused before anything is written


def same_evaluations(folder: Path, expected: Path) -> None:
    """``folder``'s CSV holds ``expected``'s evaluations, in the same order, and its CMA-ES state
    is the state ``expected`` reached."""
    rows, reference = read_rows(folder / "optimization_results.csv"), read_rows(expected / "optimization_results.csv")
    keys = lambda table: [(r["eval"], r["batch"], r["candidate"], r["penalised"]) for r in table]  # noqa: E731
    assert keys(rows) == keys(reference)
    for row, want in zip(rows, reference):
        for column in ("cost", "floor_cost", "wall_cost", "pulloff_cost"):
            assert float(row[column]) == pytest.approx(float(want[column]), rel=1e-9, abs=1e-12), column
        for name in PARAM_NAMES:
            assert float(row[name]) == pytest.approx(float(want[name]), rel=1e-12), name
    state, reference_state = (pickle.loads((f / "cmaes_state.pkl").read_bytes()) for f in (folder, expected))
    assert state["batch"] == reference_state["batch"] and state["candidates"] is None
    assert state["es"].countiter == reference_state["es"].countiter
    assert state["es"].mean == pytest.approx(reference_state["es"].mean, rel=1e-9)


def test_a_local_dask_cluster_writes_the_local_pools_evaluations(tiny_run, tmp_path):
    done = optimize(["--n-calls", "2", "--scheduler", "local:2", "--suffix", "dask", "--no-replay", NO_CHECK], tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "evaluating on a local Dask cluster of 2 worker processes" in done.stdout
    folder = run_folder(tmp_path, "dask")
    same_evaluations(folder, tiny_run[0])
    for candidate in ("b001_c00", "b001_c01"):  # files stayed on the workers; the reports came back
        for scenario in ("floor", "wall", "pulloff"):
            kept = sorted(p.name for p in (folder / "evals" / candidate / scenario).iterdir())
            assert kept == ["report.json"], (candidate, scenario, kept)


@pytest.fixture
def dask_by_hand(tmp_path):
    """A Dask scheduler and two single-threaded workers (no nanny: a killed worker stays dead) on
    127.0.0.1, started as the README's "Running on many machines" does."""
    dask = str(Path(sys.executable).parent / "dask")
    address = f"tcp://127.0.0.1:{free_port()}"
    logs = {name: tmp_path / f"{name}.log" for name in ("scheduler", "w1", "w2")}
    port = address.rsplit(":", 1)[1]
    commands = {
        "scheduler": [dask, "scheduler", "--host", "127.0.0.1", "--port", port, "--no-dashboard"],
        **{
            name: [dask, "worker", address, "--nthreads", "1", "--no-nanny", "--no-dashboard", "--host", "127.0.0.1"]
            + ["--name", name]
            for name in ("w1", "w2")
        },
    }
    processes = {}
    try:
        for name, command in commands.items():
            with open(logs[name], "wb") as log:
                processes[name] = subprocess.Popen(
                    command, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
                )
        yield address, processes, logs
    finally:
        for process in processes.values():  # nothing of theirs is kept: no need for a graceful end
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=30)
        remove_stale_segments()


def test_a_worker_killed_mid_evaluation_costs_only_time(tiny_run, dask_by_hand, tmp_path):
    from distributed import Client

    address, processes, logs = dask_by_hand
    output = open(tmp_path / "optimizer.out", "w+b")
    with Client(address, timeout=30) as client:
        client.wait_for_workers(2, timeout=60)
        optimizer = subprocess.Popen(
            [*OPTIMIZE, "--results", str(tmp_path / "runs"), "--n-calls", "2", "--scheduler", address]
            + ["--suffix", "killed", "--no-replay", NO_CHECK],
            stdout=output, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
        try:
            # a worker is mid-evaluation once its first graph's sim is up (its log says so)
            running = lambda: next((n for n in ("w1", "w2") if b"Sally sim ready" in logs[n].read_bytes()), None)  # noqa: E731
            assert wait_until(lambda: running() is not None or optimizer.poll() is not None, 300)
            victim = running()
            assert victim is not None and optimizer.poll() is None, (tmp_path / "optimizer.out").read_text()[-3000:]
            processes[victim].send_signal(signal.SIGKILL)
            processes[victim].wait(timeout=30)
            assert optimizer.wait(timeout=600) == 0, (tmp_path / "optimizer.out").read_text()[-3000:]
        finally:
            if optimizer.poll() is None:
                os.killpg(optimizer.pid, signal.SIGKILL)
                optimizer.wait(timeout=30)
            output.close()
    same_evaluations(run_folder(tmp_path / "runs", "killed"), tiny_run[0])
    survivor = logs["w2" if victim == "w1" else "w1"].read_bytes()
    assert survivor.count(b"Sally sim ready") == 6  # its own three graphs, then the killed worker's again


def test_a_backend_disagreement_is_named_per_scenario():
    from sally_optimizer.evaluation import Evaluation, ScenarioOutcome
    from sally_optimizer.optimizer import broke_alone, disagreements

    def evaluation(floor: float) -> Evaluation:
        costs = {"floor": floor, "wall": 0.25, "pulloff": 0.5}
        return Evaluation(0.0, {n: ScenarioOutcome(c, {}) for n, c in costs.items()})

    assert disagreements(evaluation(0.1), evaluation(0.1 * (1 + 1e-12))) == []
    (text,) = disagreements(evaluation(0.1), evaluation(0.1001))
    assert text.startswith("floor 0.1 in process vs 0.1001 as processes")
    penalised = evaluation(0.1)
    penalised.scenarios["wall"] = ScenarioOutcome(0.46, {}, True, "stopped at the wall-clock limit")
    (text,) = disagreements(evaluation(0.1), penalised)
    assert text == "wall 0.25 in process vs 0.46 as processes (as processes penalised: stopped at the wall-clock limit)"
    assert broke_alone(penalised, evaluation(0.1)) == ["wall was penalised (stopped at the wall-clock limit)"]
    assert broke_alone(evaluation(0.1), penalised) == [] and broke_alone(penalised, penalised) == []
