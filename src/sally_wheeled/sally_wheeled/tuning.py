"""Gaussian-process tuning of the wheeled platform (scikit-optimize ``gp_minimize``).

One mode per run (:mod:`.modes`): the 8 parameters of :data:`~.params.WHEELED_SPACE` (friction,
contact time constant, noslip iterations, drive and steering gains, magnet Br and clip) are
searched as unit-cube coordinates (log scale where the dimension is log-uniform; shared with the
legged optimizer through :mod:`sally_search.space`); the first evaluation is the defaults. The run
folder ``<results>/<UTC time>_wheeled_<mode>/`` holds:

* ``config.json``: mode, settings, the search space, the defaults;
* ``evaluations.csv``: every evaluation as it finishes (cost, the mode's metrics, parameters);
* ``best_params.json``: the best parameters so far (``sally-wheeled --params``);
* ``convergence.png``: every cost and the best so far.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path

from sally_search import space
from sally_search.convergence import plot_convergence
from sally_search.records import append_row, read_rows, write_atomic

from .modes import MODES, ModeConfig, run_mode
from .params import WHEELED_NAMES, WHEELED_SPACE, WheeledParams

EVALUATIONS, BEST_PARAMS, CONFIG, CONVERGENCE = "evaluations.csv", "best_params.json", "config.json", "convergence.png"
METRICS = {
    "hold": ("displacement",),
    "drive_sideways": ("velocity", "velocity_error", "drift_speed"),
    "drive_up": ("velocity", "velocity_error", "drift_speed"),
}


@dataclass(frozen=True)
class TuneSettings:
    """The tuning's mode, budget and seed."""

    mode: str
    n_calls: int = 40
    n_initial_points: int = 10
    seed: int = 0

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"unknown mode {self.mode!r}; valid: {list(MODES)}")
        if not 2 <= self.n_initial_points <= self.n_calls:
            raise ValueError(f"need 2 <= n_initial_points <= n_calls, got {self.n_initial_points} and {self.n_calls}")


def columns(mode: str) -> tuple[str, ...]:
    """The CSV columns of a tuning of ``mode``."""
    return ("eval", "timestamp", "cost", *METRICS[mode], "eval_wall_s", *WHEELED_NAMES)


def tune(settings: TuneSettings, results: Path, config: ModeConfig | None = None, say=print) -> Path:
    """Run the search; returns the run folder."""
    from skopt import gp_minimize

    config = config or ModeConfig()
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S")
    folder = Path(results) / f"{stamp}_wheeled_{settings.mode}"
    folder.mkdir(parents=True, exist_ok=False)
    defaults = WheeledParams()
    snapshot = {
        "settings": asdict(settings),
        "modes": asdict(config),
        "space": [asdict(d) for d in WHEELED_SPACE],
        "defaults": defaults.as_dict(),
    }
    write_atomic(folder / CONFIG, json.dumps(snapshot, indent=2) + "\n")
    costs: list[float] = []

    def objective(x: list[float]) -> float:
        params = WheeledParams(**space.decode(WHEELED_SPACE, x))
        started = time.monotonic()
        result = run_mode(settings.mode, params, config)
        row = {
            "eval": len(costs) + 1,
            "timestamp": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "cost": result.cost,
            **result.metrics,
            "eval_wall_s": round(time.monotonic() - started, 3),
            **params.as_dict(),
        }
        append_row(folder / EVALUATIONS, columns(settings.mode), row)
        if not costs or result.cost < min(costs):
            write_atomic(folder / BEST_PARAMS, json.dumps(params.as_dict(), indent=2) + "\n")
            say(f"eval {len(costs) + 1}: new best {result.cost:.6g}")
        costs.append(result.cost)
        return float(result.cost)

    say(f"tuning {settings.mode} into {folder}: {settings.n_calls} evaluations, {len(WHEELED_SPACE)} parameters")
    gp_minimize(
        objective,
        [(0.0, 1.0)] * len(WHEELED_SPACE),
        n_calls=settings.n_calls,
        n_initial_points=settings.n_initial_points - 1,  # the defaults are the first
        x0=[list(space.encode(WHEELED_SPACE, defaults.as_dict()))],
        random_state=settings.seed,
    )
    plot_convergence(costs, folder / CONVERGENCE, f"wheeled Sally, {settings.mode}: gp_minimize")
    say(f"best {min(costs):.6g} (defaults {costs[0]:.6g}); {folder / BEST_PARAMS}")
    return folder


def ranked(folder: Path, rank: int = 1) -> tuple[WheeledParams, dict[str, str]]:
    """The parameters of the ``rank``-th best evaluation of run folder ``folder`` (1 = best)."""
    rows = read_rows(Path(folder) / EVALUATIONS)
    if not rows:
        raise FileNotFoundError(f"{Path(folder) / EVALUATIONS} has no evaluations")
    if not 1 <= rank <= len(rows):
        raise ValueError(f"rank {rank} is not in 1..{len(rows)} (the evaluations of {folder})")
    row = sorted(rows, key=lambda r: float(r["cost"]))[rank - 1]
    return WheeledParams(**space.values_from_row(WHEELED_SPACE, row)), row


def run_config(folder: Path) -> ModeConfig:
    """The mode settings run folder ``folder`` was tuned with (a replay scores the same way)."""
    return ModeConfig(**json.loads((Path(folder) / CONFIG).read_text())["modes"])


def latest_run(results: Path, mode: str) -> Path:
    """The newest run folder of ``mode`` under ``results``."""
    runs = sorted(Path(results).glob(f"*_wheeled_{mode}"))
    if not runs:
        raise FileNotFoundError(f"no wheeled {mode} tuning run under {results}/ (sally-wheeled-tune --mode {mode})")
    return runs[-1]
