"""SequenceRunner: drives a list of phases by sim time."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sally_description.pose import Pose
from sally_node_common.ik_target import IKTarget

from .errors import SequenceError
from .phase import Phase, PhaseContext
from .trajectory import progress


@dataclass(frozen=True)
class RunnerStatus:
    """Where a phase runner stands: its phase, index, count and progress."""

    phase: str
    phase_index: int
    phase_count: int
    phase_progress: float
    elapsed: float
    done: bool


class SequenceRunner:
    """Enters phases (calling on_enter), advances when a phase's time is up unless it is unbounded,
    and can be force-completed (the dual-foot handoff freezes FL where it is)."""

    def __init__(self, phases: Sequence[Phase], ctx: PhaseContext, start_time: float) -> None:
        if not phases:
            raise SequenceError("a sequence needs at least one phase")
        self.phases = list(phases)
        self.ctx = ctx
        self.start_time = start_time
        self.index = 0
        self.phase_start = start_time
        self.done = False
        self._last: IKTarget | Pose | None = None
        self._enter(0, start_time)

    def _enter(self, index: int, t: float) -> None:
        self.index, self.phase_start = index, t
        phase = self.phases[index]
        if phase.on_enter is not None:
            phase.on_enter(self.ctx)

    @property
    def phase(self) -> Phase:
        """The phase running now."""
        return self.phases[self.index]

    def step(self, t: float) -> IKTarget | Pose:
        """The target at sim time ``t`` (non-decreasing); enters the next phases as their times come."""
        if self.done:
            if self._last is None:
                raise SequenceError("the sequence was completed before it produced a target")
            return self._last
        while True:
            phase = self.phase
            t_rel = t - self.phase_start
            if phase.unbounded or t_rel < phase.duration or self.index == len(self.phases) - 1:
                break
            self._last = phase.step(phase.duration, self.ctx)  # finish exactly at the phase's end
            self._enter(self.index + 1, self.phase_start + phase.duration)
        self._last = self.phase.step(max(0.0, t - self.phase_start), self.ctx)
        if (
            not self.phase.unbounded
            and self.index == len(self.phases) - 1
            and t - self.phase_start >= self.phase.duration
        ):
            self.done = True
        return self._last

    def force_complete(self) -> None:
        """Stop here: from now on the last target is held (the foot stays where it was put)."""
        self.done = True

    def status(self, t: float) -> RunnerStatus:
        """Where the runner stands at sim time ``t``."""
        phase = self.phase
        return RunnerStatus(
            phase=phase.name,
            phase_index=self.index,
            phase_count=len(self.phases),
            phase_progress=1.0 if self.done else progress(t - self.phase_start, phase.duration),
            elapsed=t - self.start_time,
            done=self.done,
        )
