"""Campaign time from the foot states' stamps, and what each step's commands are stamped. No ROS.

Each foot state stamped ``t`` is one step of the sequence: its commands are for the next solve
(:func:`~sally_node_common.time_contract.commands_for`), a magnet switch among them for when that
solve's targets act (:func:`~sally_node_common.time_contract.magnets_for`). Campaign time is sim
time since the run started (0, or a sim reset it started again from), except that it stands still
while the sim holds the robot and does not run on over an outage (a gap in the foot states longer
than :data:`MAX_STEP_NS`: a restarted IK, or this sequencer started again, its journal's last step
long before its first live one), so that no phase runs out while the robot cannot move and a phase
goes on after an outage from where it stood: one period on, as if no time had passed.
"""

from __future__ import annotations

from sally_node_common.time_contract import commands_for, magnets_for

MAX_STEP_NS = 100_000_000
"""The longest gap between two foot states that counts in full (a message lost, a slow machine); a
longer one is an outage and adds one period only. It added 100 ms: a swing then went on 7 mm further
along its arc at once when its sequencer, killed mid-swing, resumed from its journal."""


class CampaignClock:
    """Campaign time (ns) on the foot states' stamps; the stamps of a step's commands."""

    def __init__(self, period_ns: int, duration_ns: int, ik_latency: int = 0, telemetry_ns: int = 0) -> None:
        if period_ns <= 0 or duration_ns <= 0:
            raise ValueError(f"the IK period and the duration must be positive, got {period_ns} and {duration_ns} ns")
        self.period_ns, self.duration_ns, self.ik_latency = period_ns, duration_ns, ik_latency
        self.telemetry_ns = telemetry_ns
        """Sim ns between telemetry blocks (0: none)."""
        self.last_stamp = -1
        """The stamp of the latest step (-1: none on this time line)."""
        self.campaign_ns = 0
        self.start_ns = 0
        """Sim time this run started at: 0, or the reset it started again from."""
        self.holding = False
        """Whether the sim holds the robot (campaign time stands still)."""
        self.reset_ns: int | None = None
        """Sim time of a reset the run starts again from, until the first foot states stamped from it."""
        self._next_telemetry = 0

    def step(self, stamp: int) -> tuple[int, float]:
        """A foot state stamped ``stamp`` (ns): (the stamp of its commands, campaign time in s)."""
        when = commands_for(stamp, self.period_ns)  # the solve these commands are for
        if self.last_stamp < 0:  # campaign time starts as sim time...
            self.campaign_ns = when - self.start_ns
        elif not self.holding:  # ...and does not run on while the sim holds or over an outage
            gap = stamp - self.last_stamp
            self.campaign_ns += gap if gap <= MAX_STEP_NS else self.period_ns
        self.last_stamp = stamp
        return when, self.campaign_ns * 1e-9

    def magnets_stamp(self, stamp: int) -> int:
        """The stamp of a magnet switch made at the step ``stamp``: when its solve's targets act."""
        return magnets_for(stamp, self.period_ns, self.ik_latency)

    def over(self, stamp: int) -> bool:
        """Whether the run's ``duration`` has passed at the step ``stamp``."""
        return stamp - self.start_ns >= self.duration_ns

    def telemetry_due(self, stamp: int) -> bool:
        """Whether a telemetry block is due at the step ``stamp`` (then the next is scheduled)."""
        if not self.telemetry_ns or stamp < self._next_telemetry:
            return False
        self._next_telemetry = stamp + self.telemetry_ns
        return True

    def restart(self, reset_ns: int | None = None) -> None:
        """A new run: from 0 (a new sim), or from the pending reset stamped ``reset_ns``."""
        self.last_stamp, self._next_telemetry, self.start_ns = -1, 0, reset_ns or 0
        if reset_ns is not None:
            self.reset_ns = None
