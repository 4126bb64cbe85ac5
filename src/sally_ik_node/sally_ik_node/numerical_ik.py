"""Single-foot numerical IK by bounded least squares, independent of mink (a cross-check of the whole-body IK).

Solves for one leg's actuated joints (hip_pitch, knee, wrist, ee) with the body and the other legs
frozen, from a warm start, within the joint limits. Used to cross-check the whole-body mink solver
and by tests that need a joint-space target for a foot position.
"""

from __future__ import annotations

from dataclasses import dataclass

import mujoco
import numpy as np
from scipy.optimize import least_squares

from sally_description import LEGS
from sally_description.constants import ACTUATED_KINDS, FACE_AXIS_LOCAL, ee_site, joint_name

from .errors import IKError


@dataclass(frozen=True)
class NumericalIKResult:
    qpos: np.ndarray
    """The full configuration with the leg's joints solved."""
    position_error: float
    """Distance from the foot to the target (m)."""
    face_error: float
    """Angle between the magnet face normal and the requested face axis (rad; 0 if none requested)."""
    success: bool


class NumericalFootIK:
    def __init__(self, model: mujoco.MjModel, face_weight: float = 0.1) -> None:
        self.model = model
        self.data = mujoco.MjData(model)
        self.face_weight = face_weight

    def solve(
        self,
        qpos_seed: np.ndarray,
        leg: str,
        target: np.ndarray,
        face_axis: np.ndarray | None = None,
        tolerance: float = 1e-4,
    ) -> NumericalIKResult:
        """Move ``leg``'s EE site to ``target`` (world), with its magnet face along ``face_axis``."""
        if leg not in LEGS:
            raise IKError(f"unknown foot {leg!r}; valid: {list(LEGS)}")
        target = np.asarray(target, dtype=float)
        if target.shape != (3,) or not np.isfinite(target).all():
            raise IKError(f"target must be a finite 3-vector, got {target!r}")
        m = self.model
        jids = [m.joint(joint_name(kind, leg)).id for kind in ACTUATED_KINDS]
        adr = m.jnt_qposadr[jids]
        lower, upper = m.jnt_range[jids, 0], m.jnt_range[jids, 1]
        site = m.site(ee_site(leg)).id
        qpos = np.array(qpos_seed, dtype=float)
        want_face = None if face_axis is None else np.asarray(face_axis, float) / np.linalg.norm(face_axis)
        local_face = np.asarray(FACE_AXIS_LOCAL)

        def forward(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            qpos[adr] = x
            self.data.qpos[:] = qpos
            mujoco.mj_kinematics(m, self.data)
            return self.data.site_xpos[site], self.data.site_xmat[site].reshape(3, 3) @ local_face

        def residual(x: np.ndarray) -> np.ndarray:
            pos, face = forward(x)
            if want_face is None:
                return pos - target
            return np.concatenate([pos - target, self.face_weight * (face - want_face)])

        x0 = np.clip(qpos[adr], lower, upper)
        fit = least_squares(residual, x0, bounds=(lower, upper), xtol=1e-12, ftol=1e-12, gtol=1e-12)
        pos, face = forward(fit.x)
        pos_err = float(np.linalg.norm(pos - target))
        face_err = 0.0 if want_face is None else float(np.arccos(np.clip(face @ want_face, -1.0, 1.0)))
        return NumericalIKResult(qpos.copy(), pos_err, face_err, pos_err <= tolerance)
