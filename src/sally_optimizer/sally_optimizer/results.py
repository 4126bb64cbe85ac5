"""The files of an optimization run folder, written so that a kill -9 loses nothing completed
(:mod:`sally_search.records`).

``optimization_results.csv`` gets one row per finished evaluation, flushed and fsynced as it
finishes; ``cmaes_state.pkl`` holds the CMA-ES object together with the batch it asked for
(written atomically before that batch is evaluated, and again after it is told), so a resumed run
re-evaluates only the candidates of that batch that have no row yet. ``optimization_bests.csv``
gets a row per new best, ``best_params.json`` the best parameters (the sim's ``params_file``).
"""

from __future__ import annotations

import json
import pickle
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from sally_description.params import PARAM_NAMES, PhysicsParams
from sally_search.records import append_row, read_rows, write_atomic

from .evaluation import Evaluation
from .scenarios import PENALISED, SCENARIOS

RESULTS, BESTS, STATE, BEST_PARAMS, CONFIG = (
    "optimization_results.csv",
    "optimization_bests.csv",
    "cmaes_state.pkl",
    "best_params.json",
    "config.json",
)
METRIC_COLUMNS = tuple(f"{scenario}_{name}" for scenario in SCENARIOS for name in PENALISED[scenario])
RESULT_COLUMNS = (
    "eval", "batch", "candidate", "timestamp", "elapsed_min", "cost",
    *(f"{s}_cost" for s in SCENARIOS), *METRIC_COLUMNS, "penalised", "reason", "eval_wall_s", *PARAM_NAMES,
)  # fmt: skip
BEST_COLUMNS = ("timestamp", "elapsed_min", "evals", "cost", *(f"{s}_cost" for s in SCENARIOS), *PARAM_NAMES)


def result_row(
    index: int, batch: int, candidate: int, timestamp: str, elapsed_min: float, params: PhysicsParams, ev: Evaluation
) -> dict:
    """The CSV row of one evaluation."""
    row = {
        "eval": index,
        "batch": batch,
        "candidate": candidate,
        "timestamp": timestamp,
        "elapsed_min": round(elapsed_min, 3),
        "cost": ev.cost,
    }
    for name, outcome in ev.scenarios.items():
        row[f"{name}_cost"] = outcome.cost
        for key, value in outcome.metrics.items():
            row[f"{name}_{key}"] = value
    row.update(
        {"penalised": int(ev.penalised), "reason": ev.reason, "eval_wall_s": round(ev.wall_s, 2), **params.as_dict()}
    )
    return row


class RunFolderError(ValueError):
    """A run folder's file that cannot be what it should be (damaged, truncated, another program's)."""


STATE_KEYS = frozenset({"es", "batch", "candidates"})
"""What :meth:`RunFolder.save_state` writes."""
UNREADABLE = (EOFError, pickle.UnpicklingError, AttributeError, ImportError, IndexError, TypeError, ValueError)
"""What ``pickle.load`` raises on a truncated, damaged or foreign file."""


@dataclass
class RunFolder:
    """An optimization's run folder: its result rows, bests, best parameters and CMA-ES state."""

    path: Path
    rows: list[dict[str, str]] = field(default_factory=list)

    @classmethod
    def open(cls, path: Path) -> RunFolder:
        """Open (or create) the run folder at ``path``, reading the rows written so far."""
        path = Path(path)
        path.mkdir(parents=True, exist_ok=True)
        return cls(path, read_rows(path / RESULTS))

    def add_result(self, row: dict) -> None:
        """Append one evaluation's row (crash-safe)."""
        append_row(self.path / RESULTS, RESULT_COLUMNS, row)
        self.rows.append({k: str(v) for k, v in row.items()})

    def add_best(self, row: dict, params: PhysicsParams) -> None:
        """Append a new best's row and write its parameters."""
        append_row(self.path / BESTS, BEST_COLUMNS, row)
        write_atomic(self.path / BEST_PARAMS, json.dumps(params.as_dict(), indent=2) + "\n")

    def save_state(self, es, batch: int, candidates: np.ndarray | None) -> None:
        """The CMA-ES object and the batch it asked for (None once told)."""
        write_atomic(self.path / STATE, pickle.dumps({"es": es, "batch": batch, "candidates": candidates}), binary=True)

    def load_state(self) -> dict:
        """The saved CMA-ES state; FileNotFoundError when there is none, :class:`RunFolderError`
        when the file is not one (truncated, damaged, another program's). Nothing is written."""
        path = self.path / STATE
        if not path.exists():
            raise FileNotFoundError(f"{path} does not exist: nothing to resume")
        try:
            with open(path, "rb") as f:
                state = pickle.load(f)
        except (
            EOFError,
            pickle.UnpicklingError,
            AttributeError,
            ImportError,
            IndexError,
            TypeError,
            ValueError,
        ) as exc:
            raise RunFolderError(
                f"{path} is damaged ({type(exc).__name__}: {exc}); cannot resume from it (the results in "
                f"{self.path / RESULTS} are untouched)"
            ) from None
        if not isinstance(state, dict) or not STATE_KEYS <= state.keys():
            raise RunFolderError(f"{path} is not a CMA-ES state of this optimizer (it holds no {sorted(STATE_KEYS)})")
        return state

    def done_in_batch(self, batch: int) -> dict[int, dict[str, str]]:
        """Candidate index -> its result row, for the rows of ``batch``."""
        return {int(r["candidate"]): r for r in self.rows if int(r["batch"]) == batch}

    @property
    def best_cost(self) -> float:
        """The lowest cost of any row (inf with none)."""
        return min((float(r["cost"]) for r in self.rows), default=float("inf"))


def last_best(path: Path) -> PhysicsParams:
    """The last row of ``optimization_bests.csv`` in run folder ``path`` (a warm start's x0)."""
    from .space import params_from_row

    rows = read_rows(Path(path) / BESTS)
    if not rows:
        raise FileNotFoundError(f"{Path(path) / BESTS} has no rows to warm-start from")
    return params_from_row(rows[-1])
