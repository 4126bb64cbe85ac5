"""What the sim's servos track: the latest command of the graph's command source, or the watchdog's
hold. No ROS: the sim node parses the messages and hands them here.

Every source becomes one :class:`~.servo.ServoSetting`, written into MuJoCo before each run of
physics steps, so nothing of it runs in Python between two steps:

* ``servo`` (the default): servo commands (the hybrid joint command: position, velocity,
  feed-forward effort, gains); the named joints take theirs (the servos' own gains where the
  command gives none, the integral only where kp > 0), the others keep what they had;
* ``efforts`` (the effort path, for torque controllers): the named joints become plain motors
  with those efforts (every gain 0), the others keep what they had (none before the first);
* ``joint_commands``: ros2_control's per-joint position, velocity or effort commands
  (:class:`~.joint_drive.JointDrive`).

Before the first command, and while the :class:`~.watchdog.CommandWatchdog` holds (no command for
its timeout of sim time), the servos hold the pose latched when it engaged, stiffly and without an
integral (``hold_kp``, ``hold_kd``).
"""

from __future__ import annotations

import numpy as np

from .joint_drive import JointCommand, JointDrive
from .servo import ServoGains, ServoSetting, torque
from .watchdog import CommandWatchdog

SOURCES = ("servo", "efforts", "joint_commands")
"""What commands the servos: the sim's ``command_source``."""


class Drive:
    """The servos' setting from ``source``'s commands (``joint_drive`` for ``joint_commands``), the
    servos' own gains ``gains``, the pose the sim starts in ``start``, the hold's gains and the
    watchdog's ``timeout`` (s of sim time)."""

    def __init__(
        self,
        source: str,
        gains: ServoGains,
        start: np.ndarray,
        hold_kp: float,
        hold_kd: float,
        timeout: float,
        joint_drive: JointDrive | None = None,
    ) -> None:
        if source not in SOURCES:
            raise ValueError(f"command source {source!r} is not one of {list(SOURCES)}")
        if (source == "joint_commands") != (joint_drive is not None):
            raise ValueError("a joint drive goes with the joint_commands source, and only with it")
        self.source, self.gains, self.joint_drive = source, gains, joint_drive
        self.hold_kp, self.hold_kd = float(hold_kp), float(hold_kd)
        self.watchdog = CommandWatchdog(timeout)
        self._hold = ServoSetting.hold(start, self.hold_kp, self.hold_kd)
        self.commanded = self._first(start)
        """The setting the commands made (swapped whole, never edited: the loop reads it unlocked)."""

    def _first(self, start: np.ndarray) -> ServoSetting:
        """Before any command: the servos at ``start`` (no effort at all for a torque controller)."""
        if self.joint_drive is not None:
            return self.joint_drive.setting()
        if self.source == "efforts":
            return torque(np.zeros(len(start)), start)
        g = self.gains
        n = len(start)
        return ServoSetting(np.asarray(start, dtype=float).copy(), np.zeros(n), np.zeros(n), g.kp, g.kd, g.ki)

    @property
    def setting(self) -> ServoSetting:
        """What the servos track now: the hold while the watchdog holds, else the commands'."""
        return self._hold if self.watchdog.engaged else self.commanded

    def take_servo(
        self,
        indices: np.ndarray,
        position: np.ndarray,
        velocity: np.ndarray,
        effort: np.ndarray,
        kp: np.ndarray | None,
        kd: np.ndarray | None,
        sim_time: float,
    ) -> bool:
        """A servo command for the joints at ``indices`` (checked), at ``sim_time`` (s); True when
        it released the hold."""
        g = self.gains
        kp = g.kp[indices] if kp is None else kp
        kd = g.kd[indices] if kd is None else kd
        ki = np.where(kp > 0, g.ki[indices], 0.0)
        self.commanded = self.commanded.with_joints(
            indices, position=position, velocity=velocity, effort=effort, kp=kp, kd=kd, ki=ki
        )
        return self.watchdog.feed(sim_time)

    def take_efforts(self, indices: np.ndarray, efforts: np.ndarray, sim_time: float) -> bool:
        """A torque controller's efforts (N m) for the joints at ``indices``, at ``sim_time`` (s);
        True when it released the hold."""
        self.commanded = self.commanded.with_joints(indices, velocity=0.0, effort=efforts, kp=0.0, kd=0.0, ki=0.0)
        return self.watchdog.feed(sim_time)

    def take_joint_command(self, cmd: JointCommand, sim_time: float) -> bool:
        """ros2_control's command, at ``sim_time`` (s); True when it released the hold."""
        assert self.joint_drive is not None, "joint commands need the joint_commands source"
        self.joint_drive.command(cmd)
        self.commanded = self.joint_drive.setting()
        return self.watchdog.feed(sim_time)

    def retune(self) -> None:
        """The joint drive's gains changed: its setting anew."""
        if self.joint_drive is not None:
            self.commanded = self.joint_drive.setting()

    def hold(self, positions: np.ndarray) -> None:
        """The watchdog engaged: hold ``positions`` (the actuated joints' now) from here on."""
        self._hold = ServoSetting.hold(positions, self.hold_kp, self.hold_kd)

    def set_hold_gains(self, kp: float, kd: float) -> None:
        """The hold's stiffness and damping, from the next hold on."""
        self.hold_kp, self.hold_kd = float(kp), float(kd)

    def start_over(self, start: np.ndarray, joint_drive: JointDrive | None = None) -> None:
        """A reset: no command yet (the servos at ``start``), a fresh watchdog (same timeout),
        ``joint_drive`` anew."""
        self.joint_drive = joint_drive
        self.watchdog = CommandWatchdog(self.watchdog.timeout)
        self._hold = ServoSetting.hold(start, self.hold_kp, self.hold_kd)
        self.commanded = self._first(start)
