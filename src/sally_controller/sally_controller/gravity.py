"""Gravity feed-forward: the motor torques that hold each leg's own weight at the measured pose.

On Sally's free-floating base, the gravity term of a motor joint is the moment of everything
beyond that joint (the rest of its leg, not the body), about the joint's axis, for the measured
joint angles and the body's orientation (gravity is sideways for a leg on the wall). It comes from
MuJoCo's recursive Newton-Euler with zero velocity and acceleration.
"""

from __future__ import annotations

import mujoco
import numpy as np

from sally_description import JOINT_NAMES
from sally_description.constants import ACTUATED_JOINT_NAMES


class GravityModel:
    """Gravity torques of the actuated joints at a configuration, from MuJoCo's inverse dynamics of ``model``."""

    def __init__(self, model: mujoco.MjModel) -> None:
        self.model = model
        self.data = mujoco.MjData(model)
        self._qpos_adr = np.array([model.joint(n).qposadr[0] for n in JOINT_NAMES])
        self._act_dof = np.array([model.joint(n).dofadr[0] for n in ACTUATED_JOINT_NAMES])
        self._bias = np.zeros(model.nv)
        self.data.qpos[:] = model.qpos0

    def torques(self, joint_positions: np.ndarray, body_quat_wxyz=(1.0, 0.0, 0.0, 0.0)) -> np.ndarray:
        """Gravity torques on the motor joints (ACTUATED_JOINT_NAMES order) for the joints in
        JOINT_NAMES order at ``joint_positions`` with the body turned by ``body_quat_wxyz``."""
        m, d = self.model, self.data
        d.qpos[3:7] = body_quat_wxyz
        d.qpos[self._qpos_adr] = joint_positions
        mujoco.mj_kinematics(m, d)
        mujoco.mj_comPos(m, d)
        mujoco.mj_rne(m, d, 0, self._bias)
        return self._bias[self._act_dof].copy()
