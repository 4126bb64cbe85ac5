#!/usr/bin/env python3
"""Optimizer throughput on this machine, for the full scenarios.

Evaluates one batch of ``--workers`` candidates (the default parameters and points near them) in
parallel, as the optimizer does, with the in-process backend, and times it; then, alone on the
machine, one candidate with the multi-process graph (the default backend) for comparison. Prints
each evaluation (cost per scenario, wall seconds per scenario) and the rate.

Then the same candidates' sim seconds as bare physics (MuJoCo and the magnet kernel, no nodes) on
the same workers: the rate the physics alone would allow.

With ``--scheduler local:N`` (or ``tcp://HOST:PORT``) the same batch runs on that Dask cluster too,
alternating with the local pool ``--rounds`` times, and the overhead is Dask's rate over the pool's.

Last line: ``optimizer evals_per_hour X physics_limit_per_hour Y`` (X: the in-process backend,
``--workers`` in parallel on the local pool; Y: bare physics, measured in the same run), followed by
`` overhead Z`` with ``--scheduler`` (Z: evaluations an hour on Dask over evaluations an hour on the
local pool, the same candidates, in the same run).
"""

from __future__ import annotations

import argparse
import dataclasses
import multiprocessing
import os
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from sally_description import PhysicsParams
from sally_node_common.discovery import force_loopback
from sally_optimizer.executors import EvaluationTask, LocalPool, open_executor, run_task
from sally_optimizer.scenarios import ScenarioConfig
from sally_optimizer.space import decode, encode


def run_batch(executor, points, folder: Path, config: dict) -> tuple[list, float]:
    """Every point evaluated on ``executor`` at once (the in-process backend, scenarios ``config``);
    results and wall s."""
    start = time.monotonic()
    futures = [
        executor.submit(
            EvaluationTask(
                tuple(map(float, x)),
                config,
                "inprocess",
                str(folder / f"inprocess_{i}") if executor.keeps_files else None,
            )
        )
        for i, x in enumerate(points)
    ]
    results = [f.result() for f in futures]
    return results, time.monotonic() - start


def _physics_task(x, sim_seconds: float) -> float:
    """Bare physics (MuJoCo and the magnet kernel, no nodes) of ``sim_seconds`` with ``x``'s
    parameters: the wall seconds it takes."""
    from sally_description import build_model
    from sally_sim_node import Simulator

    params = decode(x)
    sim = Simulator(build_model(params=params), params=params)
    steps = round(sim_seconds / sim.timestep)
    start = time.monotonic()
    sim.step(steps)
    return time.monotonic() - start


def _sim_seconds(ev) -> float:
    """The sim time an evaluation's three graphs ran (from their reports)."""
    import json

    total = 0.0
    for name, outcome in ev.scenarios.items():
        report = Path(outcome.run_dir) / "report.json"
        if name in ev.reports:
            total += float(ev.reports[name].get("sim_time_s") or 0.0)
        elif outcome.run_dir and report.exists():
            total += float(json.loads(report.read_text()).get("sim_time_s") or 0.0)
    return total


def show(label, ev) -> None:
    parts = ", ".join(
        f"{n} {o.cost:.4g} ({o.wall_s:.0f} s{', PENALISED ' + o.reason if o.penalised else ''})"
        for n, o in ev.scenarios.items()
    )
    print(f"{label}: cost {ev.cost:.6g} in {ev.wall_s:.1f} s: {parts}", flush=True)


def main() -> int:
    force_loopback()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--skip-processes", action="store_true", help="skip the multi-process comparison")
    parser.add_argument("--scheduler", help="also run the batch on this Dask scheduler (local:N or tcp://HOST:PORT)")
    parser.add_argument("--rounds", type=int, default=1, help="with --scheduler: pool and Dask batches, alternated")
    parser.add_argument("--dir", type=Path, default=Path(tempfile.mkdtemp(prefix="sally-optimizer-bench-")))
    parser.add_argument(
        "--physics-thread", choices=("on", "off"), help="the sims' physics_thread (default: the scenarios' own)"
    )
    args = parser.parse_args()
    config = ScenarioConfig()
    if args.physics_thread is not None:
        config = dataclasses.replace(config, physics_thread=args.physics_thread == "on")
    print(f"scenarios: {config.as_dict()}", flush=True)
    x0 = encode(PhysicsParams())
    rng = np.random.default_rng(42)
    points = [x0] + [np.clip(x0 + rng.normal(0.0, 0.02, x0.shape), 0, 1) for _ in range(args.workers - 1)]
    pool = LocalPool(args.workers)
    dask = open_executor(args.scheduler, args.workers, args.workers) if args.scheduler else None
    try:
        pool_s, dask_s = 0.0, 0.0
        for round_ in range(args.rounds if dask is not None else 1):
            results, batch = run_batch(pool, points, args.dir / f"pool_{round_}", config.as_dict())
            pool_s += batch
            for i, ev in enumerate(results):
                show(f"inprocess candidate {i} (local pool, round {round_})", ev)
            print(f"local pool: {len(results)} evaluations in parallel in {batch:.1f} s", flush=True)
            if dask is not None:
                on_dask, batch = run_batch(dask, points, args.dir / f"dask_{round_}", config.as_dict())
                dask_s += batch
                for i, ev in enumerate(on_dask):
                    show(f"inprocess candidate {i} ({dask.description}, round {round_})", ev)
                same = all(abs(a.cost - b.cost) <= 1e-9 * max(1.0, abs(a.cost)) for a, b in zip(results, on_dask))
                print(f"dask: {len(on_dask)} evaluations in parallel in {batch:.1f} s; same costs: {same}", flush=True)
        rounds = args.rounds if dask is not None else 1
        rate = rounds * len(results) / pool_s * 3600.0
        overhead = (pool_s / dask_s) if dask is not None else None
    finally:
        pool.close()
        if dask is not None:
            dask.close()
    # the same candidates' sim seconds as bare physics, on the same number of workers at once
    seconds = [_sim_seconds(ev) for ev in results]
    with ProcessPoolExecutor(args.workers, mp_context=multiprocessing.get_context("spawn")) as physics_pool:
        start = time.monotonic()
        futures = [physics_pool.submit(_physics_task, list(x), s) for x, s in zip(points, seconds)]
        physics = [f.result() for f in futures]
        physics_batch = time.monotonic() - start
    physics_rate = len(results) / physics_batch * 3600.0
    print(
        f"bare physics of the same {sum(seconds):.1f} s of sim time: {physics_batch:.1f} s on {args.workers} workers "
        f"({', '.join(f'{p:.1f}' for p in physics)} s each); the nodes reach {rate / physics_rate:.2f} of it",
        flush=True,
    )
    if not args.skip_processes:
        alone = run_task(
            EvaluationTask(
                tuple(map(float, x0)), ScenarioConfig().as_dict(), "processes", str(args.dir / "processes_0")
            )
        )
        show("processes candidate 0 (alone)", alone)
        print(
            f"processes: one evaluation alone in {alone.wall_s:.1f} s ({3600.0 / alone.wall_s:.0f} evals/h at one at "
            "a time)"
        )
        print(
            "backends agree on the defaults' cost: "
            f"{abs(alone.cost - results[0].cost) <= 1e-9 * max(1.0, abs(alone.cost))}"
        )
    print(f"run folders: {args.dir}")
    line = f"optimizer evals_per_hour {rate:.0f} physics_limit_per_hour {physics_rate:.0f}"
    print(line + (f" overhead {overhead:.3f}" if overhead is not None else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
