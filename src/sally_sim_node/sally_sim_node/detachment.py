"""The detachment criterion: a drop of the magnet force below a threshold, sustained.

Detachment is declared once the magnet force has stayed below ``threshold`` for ``hold`` seconds;
the pull-off force is the applied pull at the moment that sustained drop *began*. A dip that
recovers before ``hold`` is forgotten.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class DetachmentDetector:
    """Whether a magnet has come off: its force below ``threshold`` for ``hold`` s."""

    threshold: float
    hold: float = 1.0
    drop_start: float | None = None
    """Time at which the current drop below threshold began (None while attached)."""
    force_at_drop: float = 0.0
    detached: bool = False

    def update(self, t: float, magnet_force: float, applied_force: float) -> bool:
        """Feed one sample; returns True once detachment is confirmed (and stays True)."""
        if self.detached:
            return True
        if magnet_force < self.threshold:
            if self.drop_start is None:
                self.drop_start = t
                self.force_at_drop = applied_force
            elif t - self.drop_start >= self.hold:
                self.detached = True
        else:
            self.drop_start = None
        return self.detached

    @property
    def dropping(self) -> bool:
        """Whether the force is below the threshold now, not yet for long enough."""
        return self.drop_start is not None and not self.detached
