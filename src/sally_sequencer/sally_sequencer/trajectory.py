"""Smooth time-scalings used by the phases."""

from __future__ import annotations


def quintic(s: float) -> float:
    """0 -> 1 with zero velocity and acceleration at both ends (10 s^3 - 15 s^4 + 6 s^5)."""
    s = min(max(s, 0.0), 1.0)
    return s * s * s * (10.0 + s * (-15.0 + 6.0 * s))


def progress(t_rel: float, duration: float) -> float:
    """Fraction of a phase done (1 for an instant phase)."""
    return 1.0 if duration <= 0 else min(max(t_rel / duration, 0.0), 1.0)
