"""One candidate: its three scenario graphs, run headless, scored.

Backends: ``inprocess`` (the optimizer's default; :mod:`sally_optimizer.inprocess`: the same node
classes hosted together on one executor in this process, messages handed over as Python objects)
and ``processes`` (the bringup runner starts each node as its own process, as
``sally-launch composed:=false`` does). Each evaluation leases its own ROS domain, discovery stays on
loopback. A scenario whose graph crashes, diverges or times out is scored with
:data:`~sally_optimizer.scenarios.PENALISED` and the reason is kept; it never raises.
"""

from __future__ import annotations

import json
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

from sally_description import PhysicsParams

from .scenarios import COSTS, SCENARIOS, MetricsError, ScenarioConfig, combined_cost, metrics, penalised

BACKENDS = ("processes", "inprocess")
CRASH_EXITS = {"sim", "controller", "ik", "pulloff"}
"""Nodes whose non-zero exit means the graph broke (the sequencer exits 1 on a failed sequence,
which is a result, not a crash)."""


@dataclass
class ScenarioOutcome:
    """One scenario's cost, its metrics and whether (and why) it was penalised."""

    cost: float
    metrics: dict[str, float]
    penalised: bool = False
    reason: str = ""
    wall_s: float = 0.0
    run_dir: str = ""


@dataclass
class Evaluation:
    """One candidate's combined cost and its scenarios."""

    cost: float
    scenarios: dict[str, ScenarioOutcome] = field(default_factory=dict)
    wall_s: float = 0.0
    reports: dict[str, dict] = field(default_factory=dict)
    """Scenario -> its run's report, for an evaluation that ran elsewhere (its folders stayed there)."""

    @property
    def penalised(self) -> bool:
        """Whether any scenario was penalised."""
        return any(s.penalised for s in self.scenarios.values())

    @property
    def reason(self) -> str:
        """Why the penalised scenarios were, one clause each."""
        return "; ".join(f"{name}: {s.reason}" for name, s in self.scenarios.items() if s.penalised)


def run_scenario_graph(
    backend: str,
    graph: str,
    args: dict,
    overrides: dict,
    run_dir: Path,
    wall_timeout: float,
    out=None,
    plots: bool = True,
):
    """Run one graph to its end with ``backend``; returns the runner's RunResult. Both backends
    run the graph's nodes one by one (``composed:=false``): each process, or each hosted node,
    takes its own parameter overrides. Evaluations are not recorded (``record:=false``): a run.mcap
    is ~25 MB and recording halves a graph's speed. To record a candidate, run its graph with ``sally-launch``
    and ``params:=best_params.json``. ``plots``: draw the run's run.png and forces.png."""
    args = {**args, "composed": "false", "record": "false"}
    if backend == "processes":
        from sally_bringup.runner import GraphRun

        run = GraphRun(
            graph, args, run_dir=run_dir, out=out, wall_timeout=wall_timeout, overrides=overrides, plots=plots
        )
        return run.run()
    if backend == "inprocess":
        from .inprocess import run_in_process

        return run_in_process(
            graph, args, run_dir=run_dir, out=out, wall_timeout=wall_timeout, overrides=overrides, plots=plots
        )
    raise ValueError(f"unknown backend {backend!r}; valid: {list(BACKENDS)}")


def broken(result) -> str:
    """Why a finished graph run cannot be scored ('' when it can)."""
    from sally_bringup.report import counted_exits

    report = result.report or {}
    codes = report.get("exit_codes", {})
    after_verdict = report.get("diverged_after_verdict_s") is not None  # the sim's exit 3 came after the run
    if report.get("diverged") or (codes.get("sim") == 3 and not after_verdict):
        return "the physics diverged" + (" (sim exit 3)" if codes.get("sim") == 3 else "")
    bad = {name: code for name, code in counted_exits(codes, after_verdict).items() if name in CRASH_EXITS}
    if bad:  # with the runner's account of each, the node's own last words among them
        said = [p for p in report.get("problems", []) if p.split(" ", 1)[0] in bad]
        return f"node exit codes {bad}" + "".join(f"; {p}" for p in said)
    if result.exit_code == 130:
        return "interrupted"
    if report.get("timed_out"):
        return "stopped at the wall-clock limit"
    return ""


def evaluate_scenario(
    scenario: str,
    params_file: Path,
    config: ScenarioConfig,
    backend: str,
    run_dir: Path,
    out=None,
    plots: bool = True,
) -> ScenarioOutcome:
    """Run ``scenario`` with the parameters in ``params_file`` on ``backend``; its cost and metrics (penalised if it
    failed). ``plots``: draw the run's plots (a replay; the optimizer's evaluations do without)."""
    start = time.monotonic()
    graph, args, overrides = config.graph(scenario, str(params_file))
    try:
        result = run_scenario_graph(backend, graph, args, overrides, run_dir, config.wall_timeout, out, plots)
        why = broken(result)
        if not why:
            values = metrics(scenario, result.record, config)
            return ScenarioOutcome(
                COSTS[scenario](values), values, wall_s=time.monotonic() - start, run_dir=str(run_dir)
            )
    except MetricsError as exc:
        why = f"cannot be scored: {exc}"
    except Exception as exc:  # noqa: BLE001 - any failure of one candidate is its penalty, not the run's end
        why = f"{type(exc).__name__}: {exc}"
        (run_dir / "error.txt").parent.mkdir(parents=True, exist_ok=True)
        (run_dir / "error.txt").write_text(traceback.format_exc())
    values = penalised(scenario, PhysicsParams.from_file(params_file).max_force_per_wheel)
    return ScenarioOutcome(COSTS[scenario](values), values, True, why, time.monotonic() - start, str(run_dir))


def evaluate(params: PhysicsParams, config: ScenarioConfig, backend: str, workdir: Path, out=None) -> Evaluation:
    """Run every scenario for ``params`` under ``workdir`` (its params file and run folders)."""
    start = time.monotonic()
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    params_file = workdir / "params.json"
    params_file.write_text(json.dumps(params.as_dict(), indent=2) + "\n")
    outcomes = {  # plots are for replays (sally-replay): ~1.6 s of CPU a scenario
        name: evaluate_scenario(name, params_file, config, backend, workdir / name, out, plots=False)
        for name in SCENARIOS
    }
    cost = combined_cost({name: o.cost for name, o in outcomes.items()})
    return Evaluation(cost, outcomes, time.monotonic() - start)
