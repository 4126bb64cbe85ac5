"""The body's weight shared among the stance feet: the motor torques that carry it.

At rest the whole robot's gravity on its free base is balanced by the forces its stance feet take
from their surfaces (contact and magnet together): with ``J_b`` the base rows of the stance feet's
site Jacobians and ``g_b`` the base rows of MuJoCo's bias (its recursive Newton-Euler at zero
velocity), ``J_b^T f = g_b``. The forces ``f`` are taken as the least-norm solution (no internal
squeeze between the feet), and each motor joint then carries ``-J_a^T f``: its share of the body.
A leg's own weight (the bias on its motor joints, :class:`sally_controller.gravity.GravityModel`)
comes on top; together they are the static torques of the whole body on those feet, so a foot that
lets go hands its load to the others at once instead of through the servos' integral terms.
"""

from __future__ import annotations

from collections.abc import Iterable

import mujoco
import numpy as np

from .constants import ACTUATED_JOINT_NAMES, LEGS, ROOT_BODY, ee_site
from .errors import DescriptionError

BASE_DOFS = 6
"""The free joint's degrees of freedom: the base rows of every Jacobian."""


class StanceLoad:
    """Motor torques (ACTUATED_JOINT_NAMES order, N m) that carry the body on its stance feet, from
    a model whose gravity is the scene's (its own ``MjData``; nothing is shared)."""

    def __init__(self, model: mujoco.MjModel) -> None:
        self.model = model
        self.data = mujoco.MjData(model)
        if model.body_dofnum[model.body(ROOT_BODY).id] != BASE_DOFS:
            raise DescriptionError(f"{ROOT_BODY} must hang from a free joint for the stance load")
        self._sites = {leg: model.site(ee_site(leg)).id for leg in LEGS}
        self._act_dof = np.array([model.joint(n).dofadr[0] for n in ACTUATED_JOINT_NAMES])
        self._bias = np.zeros(model.nv)
        self._jac = np.zeros((3 * len(LEGS), model.nv))
        """Each foot's site Jacobian (3 rows per leg, LEGS order), written in place."""

    def torques(self, qpos: np.ndarray, stance: Iterable[str]) -> np.ndarray:
        """The body's share on the motor joints with the robot at ``qpos`` (the model's layout)
        standing on the feet ``stance`` (legs; none: zeros, a body in flight has nothing to carry)."""
        legs, forces = self._solve(qpos, stance)
        if not legs:
            return np.zeros(len(self._act_dof))
        rows = np.concatenate([np.arange(3 * i, 3 * i + 3) for i in legs])
        return -(self._jac[rows][:, self._act_dof].T @ forces)

    def forces(self, qpos: np.ndarray, stance: Iterable[str]) -> dict[str, np.ndarray]:
        """Each stance foot's force from its surface (world, N) that :meth:`torques` carries."""
        legs, forces = self._solve(qpos, stance)
        return {LEGS[i]: f for i, f in zip(legs, forces.reshape(-1, 3))}

    def _solve(self, qpos: np.ndarray, stance: Iterable[str]) -> tuple[list[int], np.ndarray]:
        """The stance legs (indices into LEGS) and their forces stacked (3 per leg, world, N)."""
        chosen = set(stance)
        legs = [i for i, leg in enumerate(LEGS) if leg in chosen]
        if not legs:
            return [], np.zeros(0)
        m, d = self.model, self.data
        d.qpos[:] = qpos
        d.qvel[:] = 0.0
        mujoco.mj_kinematics(m, d)
        mujoco.mj_comPos(m, d)
        mujoco.mj_rne(m, d, 0, self._bias)
        for i in legs:
            mujoco.mj_jacSite(m, d, self._jac[3 * i : 3 * i + 3], None, self._sites[LEGS[i]])
        rows = np.concatenate([np.arange(3 * i, 3 * i + 3) for i in legs])
        base = self._jac[rows, :BASE_DOFS].T  # (6, 3 per foot)
        wanted = self._bias[:BASE_DOFS]
        if len(legs) > 2:  # three feet hold any load (base has full rank): least norm, 6 x 6
            return legs, base.T @ np.linalg.solve(base @ base.T, wanted)
        return legs, np.linalg.lstsq(base, wanted, rcond=None)[0]  # one or two: the nearest they can
