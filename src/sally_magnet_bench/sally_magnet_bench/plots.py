"""Force versus displacement of bench runs (PNG)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from .bench import BenchResult


def plot_force_displacement(runs: Sequence[tuple[str, BenchResult]], path: Path, target: float | None = None) -> Path:
    """Each run's pull against the pull point's rise (mm), its detach point marked; ``target``
    (the datasheet's force for the test) as a line."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    try:
        for label, run in runs:
            (line,) = ax.plot(run.lift * 1e3, run.applied, label=f"{label}: {run.detach_force:.0f} N")
            if run.detached:
                ax.plot(run.lift[-1] * 1e3, run.detach_force, "o", color=line.get_color())
        if target is not None:
            ax.axhline(target, ls="--", color="k", lw=1, label=f"datasheet {target:.0f} N")
        test = runs[0][1] if runs else None
        what = "" if test is None else f"{test.test}" + (f", lever {test.lever * 1e3:.1f} mm" if test.lever else "")
        ax.set_title(f"EML63mm-12 bench: {what}")
        ax.set_xlabel("rise of the pull point (mm)")
        ax.set_ylabel("pull (N)")
        ax.grid(alpha=0.3)
        ax.legend()
        fig.tight_layout()
        fig.savefig(path, dpi=100)
    finally:
        plt.close(fig)
    return Path(path)
