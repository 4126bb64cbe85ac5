"""The command watchdog: with no command for ``timeout`` seconds of sim time, hold safely.

Hold = every servo stiffly at the joint positions latched when the watchdog engaged (like a motor
driver's position hold or a brake on hardware); magnets keep their state. The watchdog releases as
soon as a valid command arrives.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass
class CommandWatchdog:
    """Holds the robot when commands stop coming for ``timeout`` s of sim time."""

    timeout: float
    last_command: float | None = None
    """Sim time of the last accepted command (None: none yet)."""
    engaged: bool = False
    engaged_since: float | None = None
    engagements: int = 0

    def __post_init__(self) -> None:
        self.set_timeout(self.timeout)

    def set_timeout(self, timeout: float) -> None:
        """Use ``timeout`` s from now on (a positive number)."""
        if not (math.isfinite(timeout) and timeout > 0):
            raise ValueError(f"command timeout must be a positive number of seconds, got {timeout!r}")
        self.timeout = timeout

    def feed(self, sim_time: float) -> bool:
        """A command arrived. Returns True if this released an engaged watchdog."""
        self.last_command = sim_time
        released = self.engaged
        self.engaged, self.engaged_since = False, None
        return released

    def check(self, sim_time: float) -> bool:
        """Returns True if the watchdog engaged just now (it stays engaged until fed)."""
        stale = self.last_command is None or sim_time - self.last_command > self.timeout
        if stale and not self.engaged:
            self.engage(sim_time)
            return True
        return False

    def engage(self, sim_time: float) -> None:
        """Take over at ``sim_time`` (counted once per engagement)."""
        if not self.engaged:
            self.engaged, self.engaged_since = True, sim_time
            self.engagements += 1

    def reset(self, sim_time: float) -> None:
        """A new time line at ``sim_time``: as if a command had just come."""
        self.last_command, self.engaged, self.engaged_since = sim_time, False, None

    def age(self, sim_time: float) -> float:
        """Sim seconds since the last accepted command (inf before the first)."""
        return math.inf if self.last_command is None else sim_time - self.last_command
