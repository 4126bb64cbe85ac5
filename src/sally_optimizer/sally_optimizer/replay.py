"""Replay: the scenarios of a parameter file, each run through its graph, with per-leg force plots.

``--mode floor|wall|pulloff|both|all`` (both = floor + wall, all = the three). Each scenario's run
folder gets the runner's report.json, run.png and forces.png (magnet and contact force per leg);
with a display the force plots are shown too. The pull-off replay runs the ramp to detachment
(no early stop at the clip), so its plot shows the release.
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

from sally_description import PhysicsParams

from .evaluation import evaluate_scenario
from .scenarios import SCENARIOS, ScenarioConfig

MODES = {"floor": ("floor",), "wall": ("wall",), "pulloff": ("pulloff",), "both": ("floor", "wall"), "all": SCENARIOS}


def replay(
    params_file: Path,
    mode: str,
    out_dir: Path,
    config: ScenarioConfig | None = None,
    backend: str = "processes",
    show: bool = False,
    say=print,
) -> dict:
    """Run the scenarios of ``mode``; returns scenario -> ScenarioOutcome."""
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; valid: {sorted(MODES)}")
    PhysicsParams.from_file(params_file)  # a broken file is refused before anything starts
    config = dataclasses.replace(config or ScenarioConfig(), stop_above_clip=False)
    outcomes = {}
    for scenario in MODES[mode]:
        outcome = evaluate_scenario(
            scenario, Path(params_file), config, backend, Path(out_dir) / scenario, out=sys.stdout if show else None
        )
        outcomes[scenario] = outcome
        state = f"PENALISED ({outcome.reason})" if outcome.penalised else "ok"
        metrics = ", ".join(f"{k} {v:.6g}" for k, v in outcome.metrics.items())
        say(f"replay {scenario}: cost {outcome.cost:.6g} [{state}] {metrics}; plots in {outcome.run_dir}")
    if show:
        _show([Path(o.run_dir) / "forces.png" for o in outcomes.values()])
    return outcomes


def _show(paths: list[Path]) -> None:
    import os

    if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        return
    import matplotlib.image as mpimg
    import matplotlib.pyplot as plt

    for path in paths:
        if path.exists():
            plt.figure(path.parent.name)
            plt.imshow(mpimg.imread(path))
            plt.axis("off")
    plt.show()
