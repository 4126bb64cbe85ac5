"""Where each named joint lives in a compiled model: qpos/qvel addresses, limits, actuators."""

from __future__ import annotations

from dataclasses import dataclass

import mujoco
import numpy as np

from sally_description import ACTUATED_JOINT_NAMES, JOINT_NAMES
from sally_description.limits import actuated_limits

from .errors import SimulationError


@dataclass(frozen=True)
class JointIndex:
    """Named joints' addresses in qpos and qvel and their limits."""

    names: tuple[str, ...]
    qpos_adr: np.ndarray
    dof_adr: np.ndarray
    lower: np.ndarray
    upper: np.ndarray

    @classmethod
    def build(cls, model: mujoco.MjModel, names: tuple[str, ...]) -> JointIndex:
        """The index of ``names`` in ``model`` (an unknown name is refused)."""
        ids = []
        for name in names:
            jid = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, name)
            if jid < 0:
                raise SimulationError(f"model has no joint named {name!r}")
            ids.append(jid)
        id_array = np.array(ids)
        return cls(
            names=tuple(names),
            qpos_adr=model.jnt_qposadr[id_array].copy(),
            dof_adr=model.jnt_dofadr[id_array].copy(),
            lower=model.jnt_range[id_array, 0].copy(),
            upper=model.jnt_range[id_array, 1].copy(),
        )

    def __len__(self) -> int:
        return len(self.names)

    def index(self, name: str) -> int:
        """The position of joint ``name`` in :attr:`names`."""
        try:
            return self.names.index(name)
        except ValueError:
            raise SimulationError(f"unknown joint {name!r}; valid: {list(self.names)}") from None


@dataclass(frozen=True)
class ActuatorIndex:
    """The motors, in ACTUATED_JOINT_NAMES order, with their effort limits."""

    joints: JointIndex
    actuator_ids: np.ndarray
    effort_limit: np.ndarray

    @classmethod
    def build(cls, model: mujoco.MjModel) -> ActuatorIndex:
        """The actuated joints of ``model`` and their motors."""
        limits = actuated_limits(model)
        return cls(JointIndex.build(model, ACTUATED_JOINT_NAMES), limits.actuator_ids, limits.effort)


def all_joints(model: mujoco.MjModel) -> JointIndex:
    """The index of every joint of Sally in ``model``."""
    return JointIndex.build(model, JOINT_NAMES)
