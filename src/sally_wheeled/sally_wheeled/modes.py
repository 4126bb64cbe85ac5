"""The three behaviours the wheeled platform is tuned for, run headless, and their costs.

Every mode starts on the wall with all magnets on, settles (``settle`` s, wheels stopped), then runs
``duration`` s:

* ``hold``: wheels stopped. Cost: the chassis' total 3D displacement over the run (m): slip.
* ``drive_sideways``: drive at ``speed`` along world +y. Cost: the error of the mean y velocity
  over the second half of the run (m/s) plus the mean off-axis (x, z) drift speed over the whole
  run (m/s).
* ``drive_up``: drive at ``speed`` up the wall (world +z). Cost: the error of the mean z velocity
  over the second half plus the mean off-axis (x, y) drift speed over the whole run.

A run whose physics diverges costs :data:`DIVERGED_COST`, more than any finished run can.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .params import WheeledParams
from .platform import DivergedError, WheeledSim

MODES = ("hold", "drive_sideways", "drive_up")
AXIS = {"drive_sideways": 1, "drive_up": 2}
"""World axis each drive mode moves along."""
DIVERGED_COST = 10.0


@dataclass(frozen=True)
class ModeConfig:
    """A mode's settle time, duration and drive."""

    settle: float = 0.5
    """s with the wheels stopped before the mode starts."""
    duration: float = 2.0
    """s the mode runs."""
    speed: float = 0.05
    """m/s the drive modes command."""

    def __post_init__(self) -> None:
        if not (self.settle >= 0.0 and self.duration > 0.0 and 0.0 < self.speed <= 0.5):
            raise ValueError(f"mode config needs settle >= 0, duration > 0 and 0 < speed <= 0.5 m/s, got {self}")


@dataclass
class ModeResult:
    """A mode's cost, metrics and trace."""

    mode: str
    cost: float
    metrics: dict[str, float] = field(default_factory=dict)
    trace: np.ndarray = field(default_factory=lambda: np.zeros((0, 4)))
    """(t s, x, y, z m) of the chassis, every 10 ms from the mode's start."""
    sim: WheeledSim | None = None
    """The platform at the end of the run (when asked to keep it)."""


def command(mode: str, speed: float) -> tuple[float, float]:
    """The body-frame (vx, vy) of ``mode`` on the wall (body x is up, body y is world y)."""
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; valid: {list(MODES)}")
    return {"hold": (0.0, 0.0), "drive_sideways": (0.0, speed), "drive_up": (speed, 0.0)}[mode]


def run_mode(
    mode: str, params: WheeledParams | None = None, config: ModeConfig | None = None, keep: bool = False
) -> ModeResult:
    """Run ``mode`` headless from a fresh platform and score it (``keep``: with the platform)."""
    config = config or ModeConfig()
    vx, vy = command(mode, config.speed)
    sim = WheeledSim(params)
    samples = []
    try:
        sim.run(config.settle)
        start = sim.time
        sim.drive(vx, vy)
        every = max(1, round(0.01 / sim.model.opt.timestep))
        samples.append((0.0, *sim.position()))
        while sim.time - start < config.duration - 1e-9:
            sim.step(every)
            samples.append((sim.time - start, *sim.position()))
    except DivergedError:
        return ModeResult(mode, DIVERGED_COST, {"diverged": 1.0, "at": sim.time}, np.array(samples))
    trace = np.array(samples)
    return ModeResult(mode, *score(mode, trace, config.speed), trace, sim if keep else None)


def score(mode: str, trace: np.ndarray, speed: float) -> tuple[float, dict[str, float]]:
    """The cost and metrics of a chassis ``trace`` (rows t, x, y, z) of ``mode``. Pure."""
    if len(trace) < 3:
        raise ValueError("a trace needs at least three samples")
    t, p = trace[:, 0], trace[:, 1:]
    duration = t[-1] - t[0]
    displacement = float(np.linalg.norm(p[-1] - p[0]))
    if mode == "hold":
        return displacement, {"displacement": displacement}
    axis = AXIS[mode]
    half = int(np.searchsorted(t, t[0] + duration / 2))
    velocity = float((p[-1, axis] - p[half, axis]) / (t[-1] - t[half]))
    off = [a for a in range(3) if a != axis]
    drift = float(np.linalg.norm(p[-1, off] - p[0, off]) / duration)
    error = abs(velocity - speed)
    return error + drift, {"velocity": velocity, "velocity_error": error, "drift_speed": drift}
