"""The pull-off rig's logic, pure: what to command when, and the detachment verdict from telemetry.

The pull-off test as a plan on sim time: every magnet off for ``gravity_settle`` (the graph
starts the sim with no magnet on), then the test foot's magnet on for ``magnet_settle``, then a
vertical pull on that foot rising at ``rate`` N/s. The rig is fed the magnet telemetry
(:meth:`PullOffRig.feed`) and decides with :class:`DetachmentDetector`: detached once the magnet
force stays below ``detach_fraction`` x clip for ``detach_hold`` s; the pull-off force is the
applied pull when that drop began. While a drop lasts the rig pulls with the robot's weight only
(so a released robot is not flung away), and resumes the ramp where it was if the magnet grabs
again. A magnet that never reaches the threshold has no adhesion (pull-off force 0).
"""

from __future__ import annotations

from dataclasses import dataclass

from .detachment import DetachmentDetector


@dataclass(frozen=True)
class RigConfig:
    """The pull-off rig's foot, pull rate and settle times."""

    foot: str = "FL"
    rate: float = 40.0
    """N/s."""
    gravity_settle: float = 1.0
    magnet_settle: float = 1.0
    detach_fraction: float = 0.5
    detach_hold: float = 1.0
    max_ramp_time: float = 60.0
    stop_above_clip: bool = False
    """End as soon as the pull passes the clip with no drop under way: the pull-off force is then
    known to be at least the clip, all the optimizer's cost needs (it saves the last seconds)."""

    @property
    def magnet_on_at(self) -> float:
        """Sim time the magnet is switched on (s)."""
        return self.gravity_settle

    @property
    def ramp_start(self) -> float:
        """Sim time the pull starts to ramp (s)."""
        return self.gravity_settle + self.magnet_settle


@dataclass(frozen=True)
class Pull:
    """A pull command: ``force`` N at sim time ``start`` s, rising at ``rate`` N/s."""

    start: float
    force: float
    rate: float

    def at(self, t: float) -> float:
        """The pull (N) at sim time ``t``."""
        return self.force + self.rate * max(0.0, t - self.start)


@dataclass(frozen=True)
class Verdict:
    """The rig's verdict: held, detached, at what pull and when."""

    held: bool
    detached: bool
    pulloff_force: float
    detach_time: float
    max_applied: float
    message: str


class PullOffRig:
    """The pull-off rig's logic, pure: magnet force samples in, pulls and a verdict out."""

    def __init__(self, config: RigConfig, clip: float, weight: float) -> None:
        self.config, self.clip, self.weight = config, float(clip), float(weight)
        self.detector = DetachmentDetector(config.detach_fraction * self.clip, config.detach_hold)
        self.pull = Pull(config.ramp_start, 0.0, config.rate)
        """The pull in force now (what the sim was last told)."""
        self._ramp_at_drop = 0.0
        self.held = False
        self.max_applied = 0.0
        self.verdict: Verdict | None = None

    @property
    def threshold(self) -> float:
        """The magnet force (N) below which the foot counts as coming off."""
        return self.detector.threshold

    def feed(self, t: float, magnet_force: float) -> Pull | None:
        """One telemetry sample (sim time ``t``, the foot's magnet force); returns a new pull to
        send, if the pull must change. Sets :attr:`verdict` when the test is over."""
        c = self.config
        if self.verdict is not None or t < c.ramp_start:
            return None
        ramp_t = t - c.ramp_start
        applied = self.pull.at(t)
        self.max_applied = max(self.max_applied, applied)
        self.held = self.held or magnet_force >= self.threshold
        if not self.held:
            if ramp_t >= c.detach_hold:  # settled and pulled for a second without ever holding
                self._end(False, 0.0, 0.0, "no adhesion: the magnet force never reached the threshold")
            return None
        was_dropping = self.detector.dropping
        ramp = self._ramp_at_drop if was_dropping else applied
        if self.detector.update(ramp_t, magnet_force, ramp):
            self._end(True, self.detector.force_at_drop, self.detector.drop_start or 0.0, "detached")
            return Pull(t, 0.0, 0.0)
        if self.detector.dropping and not was_dropping:  # hold the robot's weight while it lets go
            self._ramp_at_drop = applied
            self.pull = Pull(t, self.weight, 0.0)
            return self.pull
        if was_dropping and not self.detector.dropping:  # grabbed again: the ramp goes on
            self.pull = Pull(t, self._ramp_at_drop, c.rate)
            return self.pull
        if c.stop_above_clip and applied >= self.clip and not self.detector.dropping:
            self._end(False, applied, 0.0, f"held past the clip ({self.clip:.1f} N); stopped there")
            return Pull(t, 0.0, 0.0)
        if ramp_t >= c.max_ramp_time:
            self._end(False, applied, 0.0, f"still held after {c.max_ramp_time:g} s of ramp")
            return Pull(t, 0.0, 0.0)
        return None

    def _end(self, detached: bool, force: float, when: float, message: str) -> None:
        self.verdict = Verdict(self.held, detached, float(force), float(when), self.max_applied, message)
