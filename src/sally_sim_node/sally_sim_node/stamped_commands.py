"""Magnet switches and external forces (a rig's pull on a foot), each applied at the physics step
its stamp names. No ROS: the sim node parses the messages and hands the commands here.

* A command stamped ahead of sim time waits for its step (:class:`.command_schedule.CommandSchedule`),
  so a lockstep run applies it at the same step whichever thread or process delivered it. With a
  control latency (gated periods) a stamped command applies that much after its stamp, as the
  efforts do.
* An unstamped command applies before the next step, outside the stamp order.
* A stamped command for a step already taken applies before the next step and is counted
  (``magnet_commands_past_due``, ``external_forces_past_due``: a run that depends on when it was
  delivered).
* A command stamped for a time line a reset ended (in flight when the reset came) is dropped and
  counted (``commands_before_reset``).
* A stamp older than the stream's last is refused (``out_of_order``, an
  :class:`~sally_node_common.inputs.InputError`).

An external force stays on from its stamp until the foot's next one (a zero force and rate remove
it); a ramp's value is set again before every run of steps.

Thread-safe for one caller thread and the physics loop: commands go into the schedule, and only
the loop (:meth:`StampedCommands.due`, or a service holding the sim's lock) changes the physics.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping

from sally_description.constants import magnet_body
from sally_node_common.external_force_msg import ExternalLoad
from sally_node_common.inputs import StampOrder

from .command_schedule import Action, CommandSchedule, run_due
from .sim_clock import SimClock
from .simulator import Simulator


class StampedCommands:
    """The magnet and external-force commands of one sim, taken by stamp and applied by the loop.

    ``counts`` is the sim's command counter (``magnet_commands``, ``external_forces``,
    ``magnet_commands_past_due``, ``external_forces_past_due``, ``commands_before_reset``); ``warn``
    says a late command once in the log (it may throttle)."""

    def __init__(self, sim: Simulator, clock: SimClock, counts: Counter[str], warn: Callable[[str], None]) -> None:
        self.sim, self.clock, self.counts, self._warn = sim, clock, counts, warn
        self._scheduled: CommandSchedule[Action] = CommandSchedule()
        self._loads: dict[str, ExternalLoad] = {}
        """Active external forces by foot."""
        self._magnet_order = StampOrder("magnet command", gap=None)
        self._force_order = StampOrder("external force", gap=None)
        self.latency_ns = 0
        """How long after the time its stamp names a stamped command applies (ns of sim time): the
        control latency (:mod:`sally_node_common.time_contract`), as for the efforts."""

    @property
    def loaded_feet(self) -> list[str]:
        """The feet an external force pulls on now."""
        return list(self._loads)

    def magnets(self, stamp: int, switches: Mapping[str, bool]) -> bool:
        """Switch these magnets at the step ``stamp`` (ns; 0: unstamped) names. False when the
        command was dropped (a time line a reset ended); raises ``InputError`` (out of order)."""
        if not self._admit(stamp, self._magnet_order):
            return False
        at = self._due(stamp, "magnet command", "magnet_commands_past_due")
        self._scheduled.add(at, lambda: self.sim.magnets.set_enabled(switches))
        self.counts["magnet_commands"] += 1
        return True

    def force(self, load: ExternalLoad) -> bool:
        """Apply ``load`` from the step its stamp names. False when dropped (as :meth:`magnets`)."""
        if not self._admit(load.stamp, self._force_order):
            return False
        at = self._due(load.stamp, f"external force on {load.foot}", "external_forces_past_due")
        self._scheduled.add(at, lambda: self._set_load(load))
        self.counts["external_forces"] += 1
        return True

    def _due(self, stamp: int, what: str, past_due: str) -> int:
        """The sim time (ns) a command stamped ``stamp`` applies at (0: before the next step); one
        for a step already taken is counted under ``past_due`` and said once."""
        now, at = self.clock.now_ns, stamp + self.latency_ns if stamp else 0
        if at and at < now:  # the step it names has been stepped: a run that depends on delivery
            self.counts[past_due] += 1
            self._warn(f"{what} for {at * 1e-9:.4f} s came at {now * 1e-9:.4f} s; applied now")
        return at

    def due(self, at_most: int) -> int:
        """Before a run of steps: apply the commands due now and the forces' values now; how many
        steps (at most ``at_most``) the run may take before the next command falls due."""
        run = at_most
        if self._scheduled:
            run = min(run, run_due(self._scheduled, self.clock.now_ns, self.clock.dt_ns))
        if self._loads:
            now = self.clock.now_ns
            for foot, load in self._loads.items():
                self.sim.apply_external_force(magnet_body(foot), load.at(now))
        return run

    def clear(self) -> None:
        """A reset: every waiting command and every force gone."""
        self._scheduled.clear()
        self._loads.clear()
        self.sim.clear_external_forces()

    def _admit(self, stamp: int, order: StampOrder) -> bool:
        if self.clock.ended_line(stamp):  # for the time line a reset ended (in flight when it came)
            self.counts["commands_before_reset"] += 1
            return False
        if stamp:  # unstamped: before the next step, outside the order
            order.admit(stamp)
        return True

    def _set_load(self, load: ExternalLoad) -> None:
        if not load.force.any() and not load.rate.any():
            self._loads.pop(load.foot, None)
            self.sim.apply_external_force(magnet_body(load.foot), (0.0, 0.0, 0.0))
        else:
            self._loads[load.foot] = load
