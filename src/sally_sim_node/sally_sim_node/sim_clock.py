"""Sim time as a count of physics steps, and which of the sim's publications fall due at a step.
No ROS, no wall clock.

:class:`SimClock`: sim time is ``offset + steps since the time line began × dt``, in integer
nanoseconds, so every stamp is exact and two runs stamp the same steps alike. A reset begins a new
time line at the next multiple of ``align_ns`` (a whole second): the clock never runs backwards,
and every periodic schedule stands as it does at 0.

:class:`PublishSchedule`: the sim's periodic publications (the clock, states, telemetry, TF,
visuals, camera frames), each every so many steps of the time line; how far the physics may step
before one falls due, and which fall due at a step.
"""

from __future__ import annotations

from collections.abc import Mapping

RESET_ALIGN_NS = 1_000_000_000
"""A reset begins the new time line at the next multiple of this (ns): a whole second."""


class SimClock:
    """Sim time (ns) from a step counter of ``dt_ns`` steps."""

    def __init__(self, dt_ns: int, align_ns: int = RESET_ALIGN_NS) -> None:
        if dt_ns <= 0 or align_ns <= 0:
            raise ValueError(f"dt_ns and align_ns must be > 0 ns, got {dt_ns} and {align_ns}")
        self.dt_ns, self.align_ns = int(dt_ns), int(align_ns)
        self.steps = 0
        """Physics steps since the start (never reset)."""
        self.offset_ns = 0
        """Sim time at which the current time line began (0, or a reset's whole second)."""
        self._line_start = 0

    @property
    def since_start_over(self) -> int:
        """Steps since the current time line began: what the publish schedule counts."""
        return self.steps - self._line_start

    @property
    def now_ns(self) -> int:
        """Sim time now (ns)."""
        return self.offset_ns + self.since_start_over * self.dt_ns

    def advance(self, steps: int) -> None:
        """``steps`` physics steps were taken."""
        if steps < 0:
            raise ValueError(f"steps must be >= 0, got {steps}")
        self.steps += steps

    def start_over(self) -> int:
        """Begin a new time line at the next multiple of ``align_ns`` after now; its start (ns)."""
        self.offset_ns = -(-(self.now_ns + 1) // self.align_ns) * self.align_ns
        self._line_start = self.steps
        return self.offset_ns

    def ended_line(self, stamp: int) -> bool:
        """Whether ``stamp`` (ns, > 0) belongs to a time line a reset ended (a command in flight
        when it came)."""
        return 0 < stamp < self.offset_ns


class PublishSchedule:
    """Publications by name, each due every ``periods[name]`` steps of the time line (counted from
    its start: step 0 has every one due)."""

    def __init__(self, periods: Mapping[str, int]) -> None:
        bad = {name: every for name, every in periods.items() if every < 1}
        if bad:
            raise ValueError(f"publication periods must be >= 1 step, got {bad}")
        self.periods = dict(periods)

    def steps_to_next(self, k: int, at_most: int) -> int:
        """From step ``k`` of the time line, how many steps until the next publication falls due
        (at most ``at_most``)."""
        return min(at_most, *(every - k % every for every in self.periods.values()))

    def due(self, k: int) -> set[str]:
        """The publications due at step ``k`` of the time line."""
        return {name for name, every in self.periods.items() if k % every == 0}
