"""Joint and effort limits of the motor-driven joints, read from a compiled model: each joint's one
servo (its actuator, whose force range is the motor's effort limit)."""

from __future__ import annotations

from dataclasses import dataclass

import mujoco
import numpy as np

from .constants import ACTUATED_JOINT_NAMES
from .errors import DescriptionError


@dataclass(frozen=True)
class ActuatedLimits:
    """The actuated joints' names, position and effort limits, and their actuators, in the actuated order."""

    names: tuple[str, ...]
    lower: np.ndarray
    """Joint position limits (rad)."""
    upper: np.ndarray
    effort: np.ndarray
    """Symmetric effort limit of each joint's motor (N m): its servo's force range."""
    actuator_ids: np.ndarray
    """The servo (actuator) driving each joint."""


def actuated_limits(model: mujoco.MjModel) -> ActuatedLimits:
    """The actuated joints' limits as ``model`` has them (each joint's one servo)."""
    lower, upper, effort, ids = [], [], [], []
    for name in ACTUATED_JOINT_NAMES:
        joint = model.joint(name)
        motors = [
            a
            for a in range(model.nactuator)
            if model.actuator_trntype[a] == mujoco.mjtTrn.mjTRN_JOINT and model.actuator_trnid[a, 0] == joint.id
        ]
        if len(motors) != 1:
            raise DescriptionError(f"joint {name!r} must be driven by exactly one motor, found {len(motors)}")
        lo, hi = model.actuator_forcerange[motors[0]]
        if not model.actuator_forcelimited[motors[0]] or not lo < 0.0 < hi:
            raise DescriptionError(f"the motor of joint {name!r} needs a forcerange around 0, got [{lo:g}, {hi:g}]")
        lower.append(joint.range[0])
        upper.append(joint.range[1])
        effort.append(min(-lo, hi))
        ids.append(motors[0])
    return ActuatedLimits(ACTUATED_JOINT_NAMES, np.array(lower), np.array(upper), np.array(effort), np.array(ids))
