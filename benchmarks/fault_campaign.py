#!/usr/bin/env python3
"""A node may die at any moment: a fault campaign at random moments, each run against the same run
unfaulted.

Each run draws (``--seed``) a sequence (``--sequences``, default f2w, f2w_all and the route
floor,wall,ceiling), a control node (controller, IK, sequencer, state estimator: the one struck runs
in a process of its own beside the composed others, as a hardware swap-in would), a fault (``kill``:
SIGKILL, started again after 1-5 s of sim time; ``hang``: SIGSTOP for 1-6 wall seconds, then SIGCONT)
and a sim time uniform over the whole sequence (mid-swing, mid-seat, while a magnet switches, on the
ceiling: wherever it falls). The graph runs in lockstep to that moment, paused, is struck there and
plays on to its verdict. The run is held to the unfaulted run of its sequence (its committed
reference report, :mod:`sally_testing.reference`: lockstep, so the same every time): every foot's
plant within ``--band`` of the unfaulted one, the stance drift too, never fewer than three magnets
holding off the floor.

One line per run, then ``fault_campaign runs N finished F within_band W worst_delta_mm D
worst_plant_mm P fewest_holding H``: F runs reached the sequence's end with success, W of them within
the band on every plant and the drift, D the largest difference of any plant from its unfaulted run,
P the largest plant error, H the fewest magnets holding in any run (every run's own minimum, off
the floor: the sequences that count it, f2w_all and the route).
"""

from __future__ import annotations

import argparse
import math
import os
import signal
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from sally_node_common.discovery import force_loopback

SEQUENCES = ("f2w", "f2w_all", "route")
NODES = ("controller", "ik", "sequencer", "estimator")
FAULTS = ("kill", "hang")
BAND_MM = 0.3


@dataclass(frozen=True)
class Draw:
    """One run of the campaign."""

    sequence: str
    node: str
    fault: str
    at_s: float
    """Sim time of the strike (s)."""
    down_s: float
    """kill: sim seconds the node stays down; hang: wall seconds it stays stopped."""

    def line(self) -> str:
        unit = "s of sim time" if self.fault == "kill" else "wall s"
        return f"{self.sequence}: {self.fault} {self.node} at {self.at_s:.2f} s for {self.down_s:.1f} {unit}"


def draws(runs: int, seed: int, sequences) -> list[Draw]:
    """The campaign's runs, drawn from ``seed``."""
    import numpy as np

    from sally_testing import reference

    rng = np.random.default_rng(seed)
    out = []
    for _ in range(runs):
        sequence = str(rng.choice(sequences))
        end = float(reference.load(sequence)["sim_time_s"])
        fault = str(rng.choice(FAULTS))
        down = float(rng.uniform(1.0, 5.0) if fault == "kill" else rng.uniform(1.0, 6.0))
        out.append(Draw(sequence, str(rng.choice(NODES)), fault, float(rng.uniform(0.5, end - 0.5)), down))
    return out


def run(draw: Draw, work: Path, band_mm: float) -> dict:
    """One faulted run: its figures against the unfaulted run's."""
    from sally_bringup.environment import lease_domain
    from sally_bringup.processes import wait_until
    from sally_node_common.time_contract import CONTROL_PERIOD
    from sally_testing import reference
    from sally_testing.faults.live_graph import LiveGraph

    unfaulted = reference.load(draw.sequence)
    arguments = {**reference.CASES[draw.sequence].run_arguments(record="false")}
    arguments["duration"] = str(float(unfaulted["sim_time_s"]) + 60.0)  # room for the outage
    with lease_domain() as lease:
        graph = LiveGraph("f2w", arguments, work, lease.domain_id, apart=(draw.node,), keep_report=True)
        try:
            graph.start(until_s=round(draw.at_s / CONTROL_PERIOD) * CONTROL_PERIOD)
            process = graph.group.processes[draw.node]
            process.signal_group(signal.SIGSTOP) if draw.fault == "hang" else graph.kill(draw.node)
            struck = graph.sim_ns
            graph.pause(False)
            if draw.fault == "hang":
                time.sleep(draw.down_s)  # the fault itself: a stopped process, however long it lasts
                process.signal_group(signal.SIGCONT)
            else:
                wait_until(lambda: graph.sim_ns >= struck + draw.down_s * 1e9, 120.0, 0.05)
                graph.start_node(draw.node)
            finished = wait_until(lambda: graph.result.last is not None, 1800.0, 0.2)
            report = graph.report()
        finally:
            if graph.running(draw.node):
                graph.group.processes[draw.node].signal_group(signal.SIGCONT)
            graph.close()
    return judge(report, unfaulted, finished, band_mm)


def judge(report: dict, unfaulted: dict, finished: bool, band_mm: float) -> dict:
    """A faulted run's figures: whether it finished with success, its worst plant and its worst
    plant's (and the drift's) difference from the unfaulted run's, the fewest magnets holding."""
    from sally_testing.faults.cases import plants_against

    plants = plants_against(report, unfaulted)  # every plant of the unfaulted run, a route's next climb's too
    deltas = [abs(got - before) for _, got, before in plants]
    drift = abs(report.get("stance_drift_mm", math.inf) - unfaulted["stance_drift_mm"])
    done = bool(finished and report.get("success"))
    return {
        "finished": done,
        "within": done and max(deltas + [drift]) <= band_mm,
        "delta_mm": max(deltas),
        "drift_delta_mm": drift,
        "plant_mm": max((got for _, got, _ in plants), default=math.inf),
        "holding": report.get("min_magnets_holding"),  # None where the sequence does not count it (f2w)
        "problems": report.get("problems", []),
    }


def fewest_holding(results: list[dict]) -> int | float:
    """The fewest magnets holding in any run whose report counts them (f2w keeps two feet on the
    floor and does not; nor does a run that crashed before its report, counted as not finished);
    nan when none does."""
    counted = [r["holding"] for r in results if r["holding"] is not None]
    return min(counted) if counted else math.nan


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--sequences", nargs="+", choices=SEQUENCES, default=list(SEQUENCES))
    parser.add_argument("--band", type=float, default=BAND_MM, help="mm a plant may be from its unfaulted run's")
    parser.add_argument("--work", type=Path, default=None, help="folder for the runs' logs (default: a temporary one)")
    args = parser.parse_args(argv)
    if args.runs < 1 or not args.band > 0:
        parser.error("--runs must be at least 1 and --band positive")
    work = args.work or Path(tempfile.mkdtemp(prefix="sally_fault_campaign_"))
    results = []
    for i, draw in enumerate(draws(args.runs, args.seed, args.sequences)):
        start = time.monotonic()
        try:
            result = run(draw, work / f"run{i:03d}", args.band)
        except Exception as exc:  # noqa: BLE001 - a run that crashed is a run that did not finish
            result = {"finished": False, "within": False, "delta_mm": math.inf, "drift_delta_mm": math.inf}
            result |= {"plant_mm": math.inf, "holding": None, "problems": [f"{type(exc).__name__}: {exc}"]}
        results.append(result)
        verdict = "within" if result["within"] else "FINISHED, OUT OF BAND" if result["finished"] else "NOT FINISHED"
        problems = "".join(f"; {p}" for p in result["problems"])
        print(
            f"run {i}: {draw.line()}: {verdict}; worst plant {result['plant_mm']:.3f} mm, worst delta "
            f"{result['delta_mm']:.3f} mm, drift delta {result['drift_delta_mm']:.3f} mm, fewest holding "
            f"{'-' if result['holding'] is None else result['holding']} ({time.monotonic() - start:.0f} s){problems}",
            flush=True,
        )
    done = [r for r in results if r["finished"]]
    worst = lambda key: max((r[key] for r in done), default=math.nan)  # noqa: E731
    print(f"logs: {work}")
    print(
        f"fault_campaign runs {len(results)} finished {len(done)} within_band {sum(r['within'] for r in results)} "
        f"worst_delta_mm {worst('delta_mm'):.3f} worst_plant_mm {worst('plant_mm'):.3f} "
        f"fewest_holding {fewest_holding(results)}"
    )
    return 0


if __name__ == "__main__":
    force_loopback()
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
