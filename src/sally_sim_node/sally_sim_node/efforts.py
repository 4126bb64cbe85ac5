"""The efforts the physics steps with. No ROS: the sim node parses the commands and hands them here.

At every physics step the actuated joints' efforts (N m, actuated-joint order) come from:

* the controller's latest effort command (``command_source`` efforts), swapped in whole when one
  is taken, never edited in place: the physics loop reads it without a lock;
* or ros2_control's commands, tracked by a :class:`~.joint_drive.JointDrive` (``command_source``
  joint_commands);
* and, whatever the source, while the :class:`~.watchdog.EffortWatchdog` holds (no command for its
  timeout of sim time), a PD brake toward the pose latched when it engaged.
"""

from __future__ import annotations

import numpy as np

from sally_node_common.pid import JointPID, PIDGains

from .joint_drive import JointDrive
from .watchdog import EffortWatchdog


class Efforts:
    """The effort function :meth:`~.simulator.Simulator.step` calls: ``efforts(q, qdot)``.

    ``effort_limit`` (N m per actuated joint) bounds the hold; ``dt`` (s) is the physics step the
    hold's PD differentiates over; ``hold_kp`` / ``hold_kd`` its gains; ``timeout`` (s of sim time)
    the watchdog's; ``drive`` ros2_control's joint drive, if it is the source."""

    def __init__(
        self,
        effort_limit: np.ndarray,
        dt: float,
        hold_kp: float,
        hold_kd: float,
        timeout: float,
        drive: JointDrive | None = None,
    ) -> None:
        self.effort_limit, self.dt, self.drive = np.asarray(effort_limit, dtype=float), dt, drive
        n = len(self.effort_limit)
        self.command = np.zeros(n)
        """The controller's latest efforts (zero before the first)."""
        self.watchdog = EffortWatchdog(timeout)
        self._hold_target = np.zeros(n)
        self.set_hold_gains(hold_kp, hold_kd)

    def __call__(self, q: np.ndarray, qdot: np.ndarray) -> np.ndarray:
        """The efforts for joint positions ``q`` and rates ``qdot`` (actuated joints)."""
        if self.watchdog.engaged:
            return self._hold.update(self._hold_target, q, qdot, self.dt)
        if self.drive is not None:
            return self.drive.efforts(q, qdot)
        return self.command

    @property
    def fixed(self) -> bool:
        """The efforts are the controller's command, the same every step until the next (not the
        hold's or the drive's, which follow the state step by step)."""
        return not self.watchdog.engaged and self.drive is None

    def set_hold_gains(self, kp: float, kd: float) -> None:
        """The hold's PD gains (no integral), within the motor limits."""
        gains = PIDGains.uniform(len(self.effort_limit), kp=kp, ki=0.0, kd=kd, effort_limit=self.effort_limit)
        self._hold = JointPID(gains)

    def take(self, indices: np.ndarray, efforts: np.ndarray, sim_time: float) -> bool:
        """A controller's efforts for the joints at ``indices`` (the others keep theirs), at
        ``sim_time`` (s). True when it released the hold."""
        command = self.command.copy()  # swap, never edit in place: the loop reads it unlocked
        command[indices] = efforts
        self.command = command
        return self.watchdog.feed(sim_time)

    def hold(self, positions: np.ndarray) -> None:
        """The watchdog engaged: brake toward ``positions`` (the actuated joints' now) from here on."""
        self._hold_target = np.asarray(positions, dtype=float).copy()
        self._hold.reset()

    def start_over(self, drive: JointDrive | None = None) -> None:
        """A reset: no efforts yet, a fresh watchdog (same timeout) and hold, ``drive`` anew."""
        self.command = np.zeros_like(self.command)
        self.drive = drive
        self._hold.reset()
        self.watchdog = EffortWatchdog(self.watchdog.timeout)
