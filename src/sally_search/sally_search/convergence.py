"""The convergence plot of a search: every evaluation's cost and the best so far."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np


def plot_convergence(costs: Sequence[float], path: Path, title: str) -> Path:
    """Draw ``costs`` (in evaluation order) and their running minimum to ``path`` (PNG)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    costs_array = np.asarray(costs, dtype=float)
    n = np.arange(1, len(costs_array) + 1)
    fig, ax = plt.subplots(figsize=(7, 4))
    try:
        ax.plot(n, costs_array, "o", ms=3, alpha=0.5, label="evaluation")
        ax.plot(n, np.minimum.accumulate(costs_array), "-", lw=2, label="best so far")
        if len(costs_array) and (costs_array > 0).all() and costs_array.max() / costs_array.min() > 100:
            ax.set_yscale("log")
        ax.set_xlabel("evaluation")
        ax.set_ylabel("cost")
        ax.set_title(title)
        ax.legend()
        ax.grid(alpha=0.3)
        fig.tight_layout()
        fig.savefig(path, dpi=100)
    finally:
        plt.close(fig)
    return path
