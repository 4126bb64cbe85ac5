"""Sally's motor servos in MuJoCo: what each tracks (:class:`ServoSetting`) and how that is written
into the model's actuators (:class:`Servos`). No ROS.

Each motor joint is driven by a MuJoCo ``pid`` actuator (sally_description's MJCF) with three
controls: a position setpoint ``p*``, a velocity setpoint ``v*`` and a feed-forward effort ``ff``.
Inside every physics step, in C, MuJoCo applies

    kp (p* - q) + kd (v* - qdot) + ki act + ff,   d act/dt = p* - q,  |act| <= imax

clamped to the motor's force range, with ``kd`` integrated implicitly (the ``implicitfast``
integrator): a stiff servo at dt 0.5 ms does not chatter. The gains are model parameters
(``actuator_biasprm[1] = -kp``, ``[2] = -kd``, ``actuator_gainprm[0] = ki``) that may change between
two steps, so a setting carries its own per motor and :meth:`Servos.write` puts them in with the
setpoints. Whatever commands the motors (a servo command, an effort, ros2_control, the watchdog's
hold), it is one setting, and no Python runs between two physics steps.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import mujoco
import numpy as np

from .errors import SimulationError

CONTROLS = 3
"""Controls of one servo: position setpoint, velocity setpoint, feed-forward effort."""
SIGNATURE = 1 | 2 | 4
"""``actuator_ctrlspec`` of a pid actuator whose input is ``pos vel ff``."""


@dataclass(frozen=True)
class ServoGains:
    """The servos' own gains, one value per motor: what a command that sets none gets."""

    kp: np.ndarray
    """Stiffness (N m/rad)."""
    kd: np.ndarray
    """Damping (N m s/rad)."""
    ki: np.ndarray
    """Integral gain (N m/(rad s)); acts only where a setting's kp is above 0."""
    i_clamp: np.ndarray
    """Bound of the integral term (N m): the integral state is clamped to ``i_clamp / ki``."""

    def __post_init__(self) -> None:
        for name in ("kp", "kd", "ki", "i_clamp"):
            value = np.array(getattr(self, name), dtype=float)
            if not (np.isfinite(value).all() and (value >= 0).all()):
                raise SimulationError(f"servo {name} must be finite and >= 0, got {value.tolist()}")
            value.setflags(write=False)
            object.__setattr__(self, name, value)


@dataclass(frozen=True)
class ServoSetting:
    """What every motor's servo tracks until the next setting (arrays in actuated-joint order)."""

    position: np.ndarray
    """Position setpoints (rad)."""
    velocity: np.ndarray
    """Velocity setpoints (rad/s)."""
    effort: np.ndarray
    """Feed-forward efforts (N m)."""
    kp: np.ndarray
    kd: np.ndarray
    ki: np.ndarray

    @classmethod
    def hold(cls, position: np.ndarray, kp: float, kd: float) -> ServoSetting:
        """Stay at ``position``: a stiff position hold with no integral and no feed-forward."""
        position = np.asarray(position, dtype=float).copy()
        n = len(position)
        return cls(position, np.zeros(n), np.zeros(n), np.full(n, float(kp)), np.full(n, float(kd)), np.zeros(n))

    def with_joints(self, indices: np.ndarray, **values: np.ndarray | float) -> ServoSetting:
        """This setting with the joints at ``indices`` given new ``values`` (fields by name; a new
        setting, this one unchanged: the physics may be reading it)."""
        changed = {}
        for name, value in values.items():
            array = getattr(self, name).copy()
            array[indices] = value
            changed[name] = array
        return replace(self, **changed)


def torque(effort: np.ndarray, position: np.ndarray) -> ServoSetting:
    """The servos as plain motors: ``effort`` (N m) each, every gain 0 (``position`` is only where
    the setpoints rest)."""
    effort = np.asarray(effort, dtype=float).copy()
    zeros = np.zeros(len(effort))
    return ServoSetting(np.asarray(position, dtype=float).copy(), zeros, effort, zeros, zeros, zeros)


class Servos:
    """The servos of the motors driving the joints, by actuator id (``actuator_ids``, actuated-joint
    order) in ``model`` / ``data``: their defaults, and :meth:`write`."""

    def __init__(self, model: mujoco.MjModel, data: mujoco.MjData, actuator_ids: np.ndarray) -> None:
        ids = np.asarray(actuator_ids, dtype=int)
        for a in ids.tolist():
            if model.actuator_gaintype[a] != mujoco.mjtGain.mjGAIN_PID or model.actuator_ctrlspec[a] != SIGNATURE:
                raise SimulationError(
                    f"actuator {model.actuator(a).name!r} is not a servo with inputs pos vel ff (a pid actuator, "
                    'input="pos vel ff"); the sim drives every motor through one'
                )
        self.model, self.data, self.ids = model, data, ids
        first = model.actuator_ctrladr[ids]
        self._position, self._velocity, self._effort = first, first + 1, first + 2
        self._act = model.actuator_actadr[ids]
        """Each servo's integral state in ``data.act`` (-1: compiled without one)."""
        if (self._act < 0).any():
            raise SimulationError("every servo needs its integral state: compile the model with ki > 0")
        ki = model.actuator_gainprm[ids, 0].copy()
        self.defaults = ServoGains(
            -model.actuator_biasprm[ids, 1], -model.actuator_biasprm[ids, 2], ki, ki * model.actuator_dynprm[ids, 0]
        )
        self._integrating = ki > 0
        """Per servo, whether the integral acts (as last written)."""

    def __len__(self) -> int:
        return len(self.ids)

    def set_defaults(self, gains: ServoGains) -> None:
        """The servos' own gains from now on (the integral's clamp into the model; the caller's next
        setting carries the rest)."""
        if len(gains.kp) != len(self):
            raise SimulationError(f"servo gains need {len(self)} values each, got {len(gains.kp)}")
        self.defaults = gains
        self.model.actuator_dynprm[self.ids, 0] = np.divide(
            gains.i_clamp, gains.ki, out=np.zeros(len(self)), where=gains.ki > 0
        )

    def write(self, setting: ServoSetting) -> None:
        """Make ``setting`` the servos' until the next write (the physics must not be stepping). A
        servo whose integral is switched on starts it from 0."""
        m, d = self.model, self.data
        d.ctrl[self._position] = setting.position
        d.ctrl[self._velocity] = setting.velocity
        d.ctrl[self._effort] = setting.effort
        m.actuator_biasprm[self.ids, 1] = -setting.kp
        m.actuator_biasprm[self.ids, 2] = -setting.kd
        m.actuator_gainprm[self.ids, 0] = setting.ki
        integrating = setting.ki > 0
        starting = integrating & ~self._integrating
        if starting.any():
            d.act[self._act[starting]] = 0.0
        self._integrating = integrating

    def setting(self, position: np.ndarray) -> ServoSetting:
        """The default setting at ``position``: tracking it with the servos' own gains, at rest."""
        g = self.defaults
        n = len(self)
        return ServoSetting(np.asarray(position, dtype=float).copy(), np.zeros(n), np.zeros(n), g.kp, g.kd, g.ki)

    def integral(self) -> np.ndarray:
        """Each servo's integral state (rad s)."""
        return self.data.act[self._act].copy()
