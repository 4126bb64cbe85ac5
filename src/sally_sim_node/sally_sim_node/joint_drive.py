"""ros2_control's joint commands for the sim's servos: position, velocity or effort commands per
actuated joint (``sensor_msgs/JointState`` on ``/sally/joint_commands``, as
``JointStateTopicSystem`` publishes them) turned into a :class:`~.servo.ServoSetting`: one drive in
the sim, the servos every command source drives. Pure.

Per joint, the latest command with a finite value decides the mode: a position (with the velocity
as its setpoint when that is given too) is tracked with stiffness ``kp`` and damping ``kd``, a
velocity alone with damping ``kv`` and no stiffness, an effort is applied as given (every gain 0);
the motor's effort limit bounds each (the servo's force range). NaN (or an empty array) is "not
commanded": the joint keeps its last command, and a joint never commanded holds the position it
started in. The gains default to the servo's kp and kd (500 N m/rad, 30 N m s/rad), without its
integral: ros2_control's own controllers (a joint_trajectory_controller's PID) close the outer loop.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .servo import ServoSetting

POSITION, VELOCITY, EFFORT = 0, 1, 2
"""Drive modes."""
MAX_COMMAND = 1e4
"""Largest plausible position (rad), velocity (rad/s) or effort (N m) in a command."""


class JointCommandError(ValueError):
    """A joint command the drive refuses; ``reason`` names the rejection class."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason


@dataclass(frozen=True)
class JointCommand:
    """A checked command: the joints' indices and their position, velocity and effort (NaN: not commanded)."""

    indices: np.ndarray
    position: np.ndarray
    velocity: np.ndarray
    effort: np.ndarray


def _values(values: Sequence[float], n: int, what: str) -> np.ndarray:
    """``values`` as n floats (empty: all NaN); a length that is neither 0 nor n is refused."""
    array = np.asarray(values, dtype=float)
    if array.size == 0:
        return np.full(n, np.nan)
    if array.size != n:
        raise JointCommandError("length", f"joint command has {n} names but {array.size} {what} values")
    if np.abs(array[np.isfinite(array)]).max(initial=0.0) > MAX_COMMAND or np.isinf(array).any():
        raise JointCommandError("out_of_range", f"joint command {what} beyond +-{MAX_COMMAND:g} or infinite")
    return array


def parse_joint_command(
    names: Sequence[str],
    position: Sequence[float],
    velocity: Sequence[float],
    effort: Sequence[float],
    actuated: Sequence[str],
    passive: Sequence[str] = (),
) -> JointCommand:
    """Check a command's fields against the actuated joints. A passive joint may be named with NaN
    everywhere (ros2_control lists every joint it knows); commanding one is refused."""
    names = list(names)
    if not names:
        raise JointCommandError("empty", "joint command names no joints")
    if len(set(names)) != len(names):
        repeated = sorted({n for n in names if names.count(n) > 1})
        raise JointCommandError("duplicate", f"joint command names {repeated} more than once")
    index = {name: i for i, name in enumerate(actuated)}
    unknown = [n for n in names if n not in index and n not in passive]
    if unknown:
        raise JointCommandError(
            "unknown", f"joint command names unknown joint(s) {unknown}; actuated: {list(actuated)}"
        )
    n = len(names)
    p, v, e = _values(position, n, "position"), _values(velocity, n, "velocity"), _values(effort, n, "effort")
    ours = np.array([name in index for name in names])
    commanded = np.isfinite(p) | np.isfinite(v) | np.isfinite(e)
    if (commanded & ~ours).any():
        bad = [name for name, c, o in zip(names, commanded, ours) if c and not o]
        raise JointCommandError("passive", f"joint command commands passive (not actuated) joint(s) {bad}")
    indices = np.array([index[name] for name, o in zip(names, ours) if o], dtype=int)
    return JointCommand(indices, p[ours], v[ours], e[ours])


class JointDrive:
    """The actuated joints' modes and set-points, and the servo setting that tracks them."""

    def __init__(self, kp: float, kd: float, kv: float, start: np.ndarray) -> None:
        self.kp, self.kd, self.kv = float(kp), float(kd), float(kv)
        n = len(start)
        self.mode = np.full(n, POSITION)
        self.position = np.asarray(start, dtype=float).copy()
        self.velocity = np.zeros(n)
        self.effort = np.zeros(n)

    def command(self, cmd: JointCommand) -> None:
        """Take ``cmd``: each joint with a finite value changes mode and set-point; NaN leaves it as it was."""
        mode, position, velocity, effort = (a.copy() for a in (self.mode, self.position, self.velocity, self.effort))
        for i, p, v, e in zip(cmd.indices, cmd.position, cmd.velocity, cmd.effort):
            if np.isfinite(p):
                mode[i], position[i], velocity[i] = POSITION, p, v if np.isfinite(v) else 0.0
            elif np.isfinite(v):
                mode[i], velocity[i] = VELOCITY, v
            elif np.isfinite(e):
                mode[i], effort[i] = EFFORT, e
        # swapped in whole, never edited in place: a parameter change reads them from another thread
        self.mode, self.position, self.velocity, self.effort = mode, position, velocity, effort

    def setting(self) -> ServoSetting:
        """The servos' setting for the joints' modes now (a new one each call)."""
        position, velocity = self.mode == POSITION, self.mode == VELOCITY
        n = len(self.mode)
        return ServoSetting(
            self.position.copy(),
            np.where(position | velocity, self.velocity, 0.0),
            np.where(self.mode == EFFORT, self.effort, 0.0),
            np.where(position, self.kp, 0.0),
            np.where(position, self.kd, np.where(velocity, self.kv, 0.0)),
            np.zeros(n),
        )
