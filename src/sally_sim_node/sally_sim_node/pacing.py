"""Real-time pacing of the physics loop with catch-up. No ROS, injected clock.

The pacer keeps sim time in step with ``factor`` x wall time. Each call to :meth:`Pacer.plan` says
how many chunks (physics steps) are due now, or how long to wait until the next one is due:

* **never lead**: a chunk is stepped only once the wall clock has reached its end, so sim time
  never runs ahead of the wall clock (lag stays >= 0 after every plan);
* **catch up, within a budget**: when behind, due chunks are stepped back to back, at most
  ``max_burst`` per plan so the caller still services its callbacks between bursts; lag beyond
  ``catch_up_limit`` cannot be caught up quickly and is dropped at once (counted in ``dropped``);
* **degrade instead of spiralling**: when the lag has not shrunk for ``degrade_after`` seconds of
  wall time (the machine cannot run at the target factor), the effective factor is lowered to
  ``degrade_margin`` x the factor actually achieved and the lag is dropped; after keeping up for
  ``recover_after`` seconds it is raised again, toward the capacity the idle time shows
  (effective / (1 - idle fraction), times ``recover_margin``), up to the target.

Everything the pacer decides is visible in :attr:`Pacer.status`.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum

DUE_TOLERANCE = 1e-9
"""A chunk within this of being due (sim s) is due: no nanosecond waits."""


class PacingState(str, Enum):
    """How the sim keeps up with the wall clock."""

    ON_TIME = "on_time"
    CATCHING_UP = "catching_up"
    DEGRADED = "degraded"


@dataclass(frozen=True)
class PacingConfig:
    """The pacing's target factor and its catch-up limits."""

    factor: float = 1.0
    """Target real-time factor (sim seconds per wall second)."""
    max_burst: int = 40
    """Most chunks stepped back to back in one plan."""
    catch_up_limit: float = 0.5
    """Most lag (sim s) the pacer tries to catch up; lag beyond it is dropped at once."""
    window: float = 0.25
    """Wall seconds per measurement window (achieved factor, lag trend, idle fraction)."""
    degrade_after: float = 1.0
    """Wall seconds of non-shrinking lag (above ``lag_tolerance``) before the factor is lowered."""
    degrade_margin: float = 0.9
    lag_tolerance: float = 0.005
    """Lag (sim s) beyond a chunk below which the pacer counts as keeping up (a chunk is stepped
    once its end is due, so a lag of up to a chunk is the pacing itself, not falling behind)."""
    recover_after: float = 2.0
    """Wall seconds of keeping up before a degraded factor is raised."""
    recover_margin: float = 0.97
    """A degraded factor is raised to this x the capacity the idle time shows."""
    min_factor: float = 0.01

    def __post_init__(self) -> None:
        for name in ("factor", "catch_up_limit", "window", "degrade_after", "recover_after", "lag_tolerance"):
            value = getattr(self, name)
            if not (math.isfinite(value) and value > 0):
                raise ValueError(f"pacing {name} must be a positive finite number, got {value!r}")
        if self.max_burst < 1:
            raise ValueError(f"pacing max_burst must be >= 1, got {self.max_burst}")
        if not (0 < self.degrade_margin <= 1 and 0 < self.recover_margin <= 1):
            raise ValueError("pacing degrade_margin and recover_margin must be in (0, 1]")


@dataclass(frozen=True)
class PacingPlan:
    """What to do now: how many chunks to step, or how long to sleep."""

    steps: int
    """Chunks to step now (0 when the next one is not due yet)."""
    sleep: float
    """Wall seconds until the next chunk is due (0 when steps > 0)."""


@dataclass
class PacingStatus:
    """The pacing's state and figures for /diagnostics."""

    state: PacingState = PacingState.ON_TIME
    lag: float = 0.0
    """Sim seconds behind the wall clock at the last plan (>= 0)."""
    target_factor: float = 1.0
    effective_factor: float = 1.0
    """The factor currently paced to (lower than the target while degraded)."""
    achieved_factor: float = 1.0
    """Sim seconds per wall second over the last complete window."""
    dropped: float = 0.0
    """Total lag given up (sim s): stalls beyond the catch-up budget and degradations."""
    catch_ups: int = 0
    degradations: int = 0
    recent_lags: deque = field(default_factory=lambda: deque(maxlen=4096))


class Pacer:
    """Plans the sim's steps against the wall clock, catching up a lag within limits."""

    def __init__(
        self, chunk: float, config: PacingConfig = PacingConfig(), clock: Callable[[], float] = time.monotonic
    ):
        if not (math.isfinite(chunk) and chunk > 0):
            raise ValueError(f"chunk must be a positive duration, got {chunk!r}")
        self.chunk = chunk
        self.config = config
        self.clock = clock
        self.status = PacingStatus(target_factor=config.factor, effective_factor=config.factor)
        self.restart(0.0)

    def restart(self, sim_time: float) -> None:
        """Anchor sim time ``sim_time`` to now (after a pause, a reset or a mode change)."""
        now = self.clock()
        self._anchor_wall, self._anchor_sim = now, sim_time
        self._window_start, self._window_sim, self._window_lag = now, sim_time, 0.0
        self._idle = 0.0
        self._behind_since: float | None = None
        self._headroom_since: float | None = None
        self._catching_up = False

    def set_factor(self, factor: float, sim_time: float) -> None:
        """Pace at ``factor`` from ``sim_time`` on."""
        self.config = dataclasses.replace(self.config, factor=factor)
        self.status.target_factor = self.status.effective_factor = factor
        self.status.state = PacingState.ON_TIME
        self.restart(sim_time)

    def plan(self, sim_time: float) -> PacingPlan:
        """The plan at sim time ``sim_time``: chunks due now, or the sleep until the next one."""
        cfg, st = self.config, self.status
        now = self.clock()
        lag = self._anchor_sim + st.effective_factor * (now - self._anchor_wall) - sim_time
        if lag > cfg.catch_up_limit:  # a stall longer than the budget: give up the excess now
            self._drop(lag - cfg.catch_up_limit)
            lag = cfg.catch_up_limit
        st.lag = max(lag, 0.0)
        st.recent_lags.append(st.lag)
        self._measure(now, sim_time, lag)
        if lag < self.chunk - DUE_TOLERANCE:  # the next chunk is not due: never step ahead of the wall clock
            sleep = (self.chunk - lag) / st.effective_factor
            self._idle += sleep
            self._catching_up = False
            if st.state is PacingState.CATCHING_UP:
                st.state = PacingState.ON_TIME
            return PacingPlan(0, sleep)
        due = int((lag + DUE_TOLERANCE) / self.chunk)
        if due > 1 and st.state is PacingState.ON_TIME:
            st.state = PacingState.CATCHING_UP
            if not self._catching_up:
                st.catch_ups += 1
                self._catching_up = True
        return PacingPlan(min(due, cfg.max_burst), 0.0)

    # --- internals ------------------------------------------------------------------------------
    def _drop(self, amount: float) -> None:
        self._anchor_sim -= amount
        self.status.dropped += amount

    def _rebase(self, now: float, sim_time: float, factor: float) -> None:
        lag = self._anchor_sim + self.status.effective_factor * (now - self._anchor_wall) - sim_time
        self.status.dropped += max(lag, 0.0)
        self.status.effective_factor = factor
        self._anchor_wall, self._anchor_sim = now, sim_time

    def _measure(self, now: float, sim_time: float, lag: float) -> None:
        cfg, st = self.config, self.status
        span = now - self._window_start
        if span < cfg.window:
            return
        if span > 2 * cfg.window:  # the loop itself stalled: that is the catch-up budget's business
            self._window_start, self._window_sim, self._window_lag, self._idle = now, sim_time, lag, 0.0
            return
        st.achieved_factor = (sim_time - self._window_sim) / span
        idle_fraction = min(self._idle / span, 1.0)
        tolerance = self.chunk + cfg.lag_tolerance
        not_shrinking = lag > tolerance and lag >= self._window_lag - 1e-12
        self._window_start, self._window_sim, self._window_lag, self._idle = now, sim_time, lag, 0.0

        self._behind_since = (self._behind_since or now - span) if not_shrinking else None
        if self._behind_since is not None and now - self._behind_since >= cfg.degrade_after:
            factor = max(cfg.min_factor, min(st.effective_factor, st.achieved_factor) * cfg.degrade_margin)
            self._rebase(now, sim_time, factor)
            st.state = PacingState.DEGRADED
            st.degradations += 1
            self._behind_since = self._headroom_since = None
            return
        if st.state is PacingState.DEGRADED:
            keeping_up = lag <= tolerance
            self._headroom_since = (self._headroom_since or now - span) if keeping_up else None
            if self._headroom_since is not None and now - self._headroom_since >= cfg.recover_after:
                capacity = st.effective_factor / max(1.0 - idle_fraction, 1e-3)
                factor = min(cfg.factor, cfg.recover_margin * capacity)
                self._headroom_since = None
                if factor > st.effective_factor * 1.01:
                    self._rebase(now, sim_time, factor)
                if st.effective_factor >= cfg.factor:
                    st.state = PacingState.ON_TIME
