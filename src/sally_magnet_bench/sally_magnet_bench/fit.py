"""CMA-ES fit of the magnet's clip (``max_force_per_wheel``, [300, 1200] N) to the datasheet.

Each candidate runs one bench test (:func:`~.bench.run_test`); its cost is the relative miss of
the datasheet's force for that test, |F_detach - F_datasheet| / F_datasheet (a magnet still
held at ``give_up`` scores with ``give_up``). The space and the results files are
:mod:`sally_search`'s (shared with the legged optimizer). A run folder
``<results>/<UTC time>_bench_<test>/`` holds ``config.json``, ``evaluations.csv`` (every
evaluation, fsynced), ``best_params.json`` (the magnet parameters, a flat mapping that
``PhysicsParams.from_file`` reads once the clip is in the legged range), ``convergence.png`` and
``force_displacement.png`` (the default clip and the best). ``warm_start`` takes x0 from a
previous run folder's best.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import asdict, dataclass, replace
from datetime import datetime, timezone
from pathlib import Path

from sally_description import PhysicsParams
from sally_description.constants import RATED_HOLD_FORCE
from sally_description.params import Dim
from sally_search import space
from sally_search.convergence import plot_convergence
from sally_search.records import append_row, read_rows, write_atomic
from sally_sim_node.magnet_model import MagnetModel

from .bench import BenchConfig, BenchResult, datasheet_force, lever_of, run_test
from .plots import plot_force_displacement

FIT_SPACE = (Dim("max_force_per_wheel", 300.0, 1200.0, log=True, unit="N"),)
EVALUATIONS, BEST_PARAMS, CONFIG = "evaluations.csv", "best_params.json", "config.json"
COLUMNS = (
    "eval",
    "batch",
    "candidate",
    "timestamp",
    "cost",
    "detach_force",
    "datasheet_force",
    "detached",
    "eval_wall_s",
)
COLUMNS += tuple(d.name for d in FIT_SPACE)


@dataclass(frozen=True)
class FitSettings:
    """The fit's test, budget and search settings."""

    test: str
    lever: float | None = None
    n_calls: int = 30
    popsize: int = 6
    sigma0: float = 0.3
    seed: int = 42
    hold: float = RATED_HOLD_FORCE
    """N: the datasheet hold the fit aims at."""

    def __post_init__(self) -> None:
        lever_of(self.test, self.lever)
        if self.n_calls < 1 or self.popsize < 2 or not 0 < self.sigma0 <= 1:
            raise ValueError(f"need n_calls >= 1, popsize >= 2 and 0 < sigma0 <= 1, got {self}")


def magnet(clip: float) -> MagnetModel:
    """The legged model's magnet (Br, reach) with ``clip``."""
    return replace(MagnetModel.from_params(PhysicsParams()), max_force=clip)


def cost_of(result: BenchResult, target: float, give_up: float) -> float:
    """Relative miss of a bench result's detach force from ``target`` (``give_up`` counts for a magnet that never came
    off)."""
    force = result.detach_force if result.detached else give_up
    return abs(force - target) / target


def last_best(folder: Path) -> float:
    """The clip of the best evaluation of run folder ``folder`` (a warm start's x0)."""
    rows = read_rows(Path(folder) / EVALUATIONS)
    if not rows:
        raise FileNotFoundError(f"{Path(folder) / EVALUATIONS} has no evaluations to warm-start from")
    return float(min(rows, key=lambda r: float(r["cost"]))["max_force_per_wheel"])


def fit(
    settings: FitSettings, results: Path, config: BenchConfig | None = None, warm_start: Path | None = None, say=print
) -> Path:
    """Run the fit; returns the run folder."""
    config = config or BenchConfig()
    lever = lever_of(settings.test, settings.lever)
    target = datasheet_force(lever, settings.hold)
    clip0 = last_best(warm_start) if warm_start else PhysicsParams().max_force_per_wheel
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S")
    folder = Path(results) / f"{stamp}_bench_{settings.test}"
    folder.mkdir(parents=True, exist_ok=False)
    snapshot = {
        "settings": asdict(settings),
        "lever": lever,
        "datasheet_force": target,
        "bench": asdict(config),
        "space": [asdict(d) for d in FIT_SPACE],
        "x0": {"max_force_per_wheel": clip0},
        "origin": {"warm_start_from": str(warm_start)} if warm_start else {"x0": "defaults"},
    }
    write_atomic(folder / CONFIG, json.dumps(snapshot, indent=2) + "\n")
    say(f"fitting the clip to the {settings.test} test ({target:.1f} N) into {folder}: {settings.n_calls} evaluations")
    costs, best = _search(settings, config, folder, clip0, lever, target, say)
    plot_convergence(costs, folder / "convergence.png", f"magnet bench, {settings.test}: CMA-ES on the clip")
    default = run_test(settings.test, magnet(PhysicsParams().max_force_per_wheel), lever, config=config)
    plot_force_displacement(
        [("default clip 800.7 N", default), (f"best clip {best[1]:.1f} N", best[2])],
        folder / "force_displacement.png",
        target,
    )
    cost, clip, result = best
    say(f"best clip {clip:.2f} N: detaches at {result.detach_force:.1f} N ({target:.1f} N datasheet), cost {cost:.5f}")
    return folder


def _search(
    settings: FitSettings, config: BenchConfig, folder: Path, clip0: float, lever: float, target: float, say
) -> tuple[list[float], tuple[float, float, BenchResult]]:
    """CMA-ES on the clip from ``clip0``: every evaluation a row of the run folder's table, the
    best's parameters written as they improve; (every cost, (best cost, its clip, its test))."""
    import cma

    x0 = space.encode(FIT_SPACE, {"max_force_per_wheel": clip0})
    options = {"popsize": settings.popsize, "seed": settings.seed, "bounds": [0.0, 1.0], "verbose": -9}
    options["maxstd"] = math.inf  # pycma 4.5 derives it from the bounds, then fails to apply it in 1-D
    es = cma.CMAEvolutionStrategy(list(x0), settings.sigma0, options)
    costs: list[float] = []
    best: tuple[float, float, BenchResult] | None = None
    batch = 0
    while len(costs) < settings.n_calls:
        asked = es.ask()[: settings.n_calls - len(costs)]
        told = []
        for k, x in enumerate(asked):
            clip = float(space.decode(FIT_SPACE, x)["max_force_per_wheel"])
            started = time.monotonic()
            result = run_test(settings.test, magnet(clip), lever, config=config)
            cost = cost_of(result, target, config.give_up)
            row = {
                "eval": len(costs) + 1,
                "batch": batch,
                "candidate": k,
                "timestamp": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                "cost": cost,
                "detach_force": result.detach_force,
                "datasheet_force": target,
                "detached": int(result.detached),
                "eval_wall_s": round(time.monotonic() - started, 3),
                "max_force_per_wheel": clip,
            }
            append_row(folder / EVALUATIONS, COLUMNS, row)
            if best is None or cost < best[0]:
                best = (cost, clip, result)
                base = PhysicsParams()
                params = {
                    "Br": base.Br,
                    "max_magnetic_distance": base.max_magnetic_distance,
                    "max_force_per_wheel": clip,
                }
                write_atomic(folder / BEST_PARAMS, json.dumps(params, indent=2) + "\n")
                say(
                    f"eval {len(costs) + 1}: clip {clip:.2f} N detaches at {result.detach_force:.1f} N, cost {cost:.5f}"
                )
            costs.append(cost)
            told.append(cost)
        if len(told) == len(asked) and len(asked) == settings.popsize:
            es.tell(asked, told)
        batch += 1
    assert best is not None
    return costs, best
