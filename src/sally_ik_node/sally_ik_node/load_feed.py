"""The stance load the IK sends with its joint targets, by stamp: the body's weight on the stance
feet (:class:`sally_description.stance_load.StanceLoad`), recomputed when the stance feet change
and otherwise once per :data:`LOAD_PERIOD` of sim time (it changes slowly, as the controller's
gravity term does; a foot that lets go changes it at once). Pure: no ROS.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from sally_description.stance_load import StanceLoad

LOAD_PERIOD = 0.01
"""s of sim time between recomputations while the stance feet stay the same (two IK periods)."""


class LoadFeed:
    """The stance load (ACTUATED_JOINT_NAMES order, N m) for the state stamped ``stamp``."""

    def __init__(self, load: StanceLoad, period_ns: int = round(LOAD_PERIOD * 1e9)) -> None:
        self.load = load
        self.period_ns = period_ns
        self._last: tuple[int, tuple[str, ...], np.ndarray] | None = None

    def torques(self, stamp: int, qpos: np.ndarray, stance: Sequence[str]) -> np.ndarray:
        """The load at ``qpos`` on the feet ``stance``: computed again when they differ from the last
        computation's, when ``period_ns`` has passed since it, or for an older stamp (a new run)."""
        feet = tuple(stance)
        last = self._last
        if last is None or feet != last[1] or not 0 <= stamp - last[0] < self.period_ns:
            last = self._last = (stamp, feet, self.load.torques(qpos, feet))
        return last[2]

    def clear(self) -> None:
        """Forget the last computation (a reset: the next state computes it)."""
        self._last = None
