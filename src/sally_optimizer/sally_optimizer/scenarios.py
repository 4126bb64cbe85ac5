"""The three scenarios: which graph each runs, what it measures, and its cost. Pure.

* **floor lift** (graph f2w, sequence floor_lift): settle, FL lifts 10 cm and holds; over the hold,
  FR/BL/BR's mean drift from where they stood when the lift began (30 %), their mean depth below
  FLOOR_Z (30 %), and the fraction of telemetry samples with any of them out of magnetic contact
  (40 %).
* **wall hold** (sequence wall_hold): settle, FL's floor-to-wall sequence plants it on the wall,
  then the pose is held; over the hold, FR/BL/BR's mean drift (30 %), FL's mean push into the wall
  past where it was planted, in x (30 %), and the fraction of samples with any stance foot (FL
  included, once planted) out of magnetic contact (40 %).
* **pull-off** (graph pulloff): cost max(0, clip - pull-off force) / clip, 9999 without adhesion.

Distances are in metres and each is capped at :data:`MAX_DISTANCE`, so a graph
that crashes, diverges or times out is scored with every term at its worst, which no finished
run can exceed. Combined: 0.4 floor + 0.4 wall + 0.2 pull-off.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from sally_description.constants import FLOOR_Z

WEIGHTS = {"floor": 0.4, "wall": 0.4, "pulloff": 0.2}
TERM_WEIGHTS = (0.3, 0.3, 0.4)
MAX_DISTANCE = 0.1
"""m: a drift or depth beyond this counts as this (and a penalised run scores it)."""
NO_ADHESION = 9999.0
STANCE = ("FR", "BL", "BR")
SCENARIOS = ("floor", "wall", "pulloff")


@dataclass(frozen=True)
class ScenarioConfig:
    """The scenarios' timings. The defaults are the full scenarios'; :meth:`tiny` is for tests."""

    settle: float = 2.0
    """SETTLE_TIME: sim seconds before the sequence starts."""
    floor_hold: float = 2.0
    wall_hold: float = 3.0
    dwell: float = 3.0
    """DUAL_REACH_DWELL: FL counts as planted this long after F2W_REACH begins."""
    pull_rate: float = 40.0
    pacing: str = "lockstep"
    stop_above_clip: bool = True
    """End the pull-off once the pull passes the clip undetached (the cost is 0 from there)."""
    wall_timeout: float = 600.0
    """Wall seconds after which a graph is stopped and scored as penalised."""
    physics_thread: bool = False
    """The sim's ``physics_thread``: step in a thread of its own while the graph answers (the same
    run either way). Off here: the pool already runs as many graphs as cores, and a second busy
    thread per graph only makes them contend (``benchmarks/optimizer.py --physics-thread``, two A/B
    pairs back to back: 207 and 227 evaluations an hour off, 167 and 151 on)."""

    @classmethod
    def tiny(cls) -> ScenarioConfig:
        """Short holds and a fast ramp: a whole candidate in ~20 s of sim time."""
        return cls(settle=0.5, floor_hold=0.3, wall_hold=0.3, pull_rate=800.0, wall_timeout=300.0)

    def as_dict(self) -> dict:
        """The configuration as a dict (for the run folder)."""
        return asdict(self)

    def graph(self, scenario: str, params_file: str) -> tuple[str, dict[str, str], dict[str, dict]]:
        """(graph name, graph arguments, per-node parameter overrides) of ``scenario``."""
        common = {"pacing": self.pacing, "headless": "true", "params": params_file}
        sim = {"exit_on_divergence": True, "physics_thread": self.physics_thread}
        if scenario == "floor":
            args = {"sequence": "floor_lift", "settle": str(self.settle), "hold": str(self.floor_hold)}
            return "f2w", {**common, **args, "duration": str(self.settle + 3.0 + self.floor_hold + 5.0)}, {"sim": sim}
        if scenario == "wall":
            args = {"sequence": "wall_hold", "settle": str(self.settle), "hold": str(self.wall_hold)}
            return (
                "f2w",
                {**common, **args, "duration": str(self.settle + 12.0 + self.dwell + self.wall_hold)},
                {"sim": sim},
            )
        if scenario == "pulloff":
            ramp = 1500.0 * 1.5 / self.pull_rate + 2.0  # past the highest clip the space allows
            rig = {"stop_above_clip": self.stop_above_clip, "max_ramp_time": ramp}
            return (
                "pulloff",
                {**common, "pull_rate": str(self.pull_rate), "duration": str(2.0 + ramp + 2.0)},
                {"sim": sim, "pulloff": rig},
            )
        raise ValueError(f"unknown scenario {scenario!r}; valid: {list(SCENARIOS)}")


# --- metrics from a run record ----------------------------------------------------------------


class MetricsError(ValueError):
    """The record lacks what a metric needs (the run is scored as penalised)."""


def _phase_start(record, foot: str, phase: str) -> float:
    for t, f, p in record.phases:
        if f == foot and p == phase:
            return t
    raise MetricsError(f"{foot} never entered {phase}")


def _capped(values) -> float:
    return float(min(np.mean(values), MAX_DISTANCE)) if len(values) else MAX_DISTANCE


def _window(samples, start: float, end: float | None = None) -> list:
    return [s for s in samples if s.t >= start and (end is None or s.t <= end)]


def _end_time(record) -> float | None:
    return None if record.result is None else record.result.get("t")


def _baseline(record, start: float):
    base = next((s for s in record.feet if s.t >= start), None)
    if base is None:
        raise MetricsError("no foot state after the sequence started")
    return base


def _lost_fraction(record, feet, start: float, end: float | None) -> float:
    samples = _window(record.magnets, start, end)
    if not samples:
        raise MetricsError("no magnet telemetry during the hold")
    lost = [any(not m.in_contact.get(f, False) for f in feet) for m in samples]
    return float(np.mean(lost))


def floor_metrics(record) -> dict[str, float]:
    """The floor scenario's metrics from its run record."""
    lift = _phase_start(record, "FL", "LIFT")
    hold = _phase_start(record, "FL", "LIFT_HOLD")
    end = _end_time(record)
    base = _baseline(record, lift)
    samples = _window(record.feet, hold, end)
    if not samples:
        raise MetricsError("no foot state during the hold")
    drift = [np.linalg.norm(s.position[f] - base.position[f]) for s in samples for f in STANCE]
    depth = [max(0.0, FLOOR_Z - s.position[f][2]) for s in samples for f in STANCE]
    return {
        "mean_norm": _capped(drift),
        "mean_neg_z": _capped(depth),
        "zero_contact_frac": _lost_fraction(record, STANCE, hold, end),
    }


def wall_metrics(record, dwell: float) -> dict[str, float]:
    """The wall scenario's metrics from its run record (the foot judged ``dwell`` s after it planted)."""
    lift = _phase_start(record, "FL", "LIFT")
    planted = _phase_start(record, "FL", "F2W_REACH") + dwell
    end = _end_time(record)
    base = _baseline(record, lift)
    samples = _window(record.feet, planted, end)
    if not samples:
        raise MetricsError("FL was never held planted on the wall")
    fl_plant_x = samples[0].position["FL"][0]
    drift = [np.linalg.norm(s.position[f] - base.position[f]) for s in samples for f in STANCE]
    into = [max(0.0, s.position["FL"][0] - fl_plant_x) for s in samples]
    return {
        "fl_norm": _capped(drift),
        "fl_into_x": _capped(into),
        "zero_contact_frac": _lost_fraction(record, ("FL", *STANCE), planted, end),
    }


def pulloff_metrics(record) -> dict[str, float]:
    """The pull-off scenario's metrics from the rig's result."""
    result = record.pulloff
    if result is None:
        raise MetricsError("the pull-off rig published no result")
    return {"pulloff_force": result["pulloff_force"] if result["held"] else 0.0, "clip": result["clip"]}


# --- costs ---------------------------------------------------------------------------------------

PENALISED = {
    "floor": {"mean_norm": MAX_DISTANCE, "mean_neg_z": MAX_DISTANCE, "zero_contact_frac": 1.0},
    "wall": {"fl_norm": MAX_DISTANCE, "fl_into_x": MAX_DISTANCE, "zero_contact_frac": 1.0},
    "pulloff": {"pulloff_force": 0.0, "clip": float("nan")},
}
"""The metrics a crashed, diverged or timed-out scenario is scored with (see :func:`penalised`)."""


def penalised(scenario: str, clip: float) -> dict[str, float]:
    """:data:`PENALISED` metrics of ``scenario``, with the candidate's magnet ``clip``."""
    values = dict(PENALISED[scenario])
    if "clip" in values:
        values["clip"] = float(clip)
    return values


def floor_cost(m: dict[str, float]) -> float:
    """The floor scenario's cost from its metrics."""
    a, b, c = TERM_WEIGHTS
    return a * m["mean_norm"] + b * m["mean_neg_z"] + c * m["zero_contact_frac"]


def wall_cost(m: dict[str, float]) -> float:
    """The wall scenario's cost from its metrics."""
    a, b, c = TERM_WEIGHTS
    return a * m["fl_norm"] + b * m["fl_into_x"] + c * m["zero_contact_frac"]


def pulloff_cost(m: dict[str, float]) -> float:
    """The pull-off scenario's cost: the relative shortfall of the pull-off force (NO_ADHESION when it held nothing)."""
    if m["pulloff_force"] <= 0.0:
        return NO_ADHESION
    return max(0.0, m["clip"] - m["pulloff_force"]) / m["clip"]


COSTS = {"floor": floor_cost, "wall": wall_cost, "pulloff": pulloff_cost}


def combined_cost(costs: dict[str, float]) -> float:
    """The weighted sum of the scenarios' costs."""
    return sum(WEIGHTS[name] * costs[name] for name in SCENARIOS)


def metrics(scenario: str, record, config: ScenarioConfig) -> dict[str, float]:
    """The metrics of ``scenario`` from its run record."""
    if scenario == "floor":
        return floor_metrics(record)
    if scenario == "wall":
        return wall_metrics(record, config.dwell)
    return pulloff_metrics(record)
