"""Single-foot numerical IK, independent of mink (a cross-check of the whole-body IK).

Solves for one leg's actuated joints (hip_pitch, knee, wrist, ee) with the body and the other legs
frozen, from a warm start, within the joint limits, with the model's one leg-IK solver
(:func:`sally_description.leg_ik.solve_leg`: bounded least squares on MuJoCo's kinematics). Used to
cross-check the whole-body mink solver and by tests that need a joint-space target for a foot
position.
"""

from __future__ import annotations

from dataclasses import dataclass

import mujoco
import numpy as np

from sally_description import LEGS
from sally_description.constants import ROOT_BODY, joint_name
from sally_description.leg_ik import ACTUATED, LEG_JOINTS, LegGoal, LegKinematics, solve_leg
from sally_description.pose import Pose

from .errors import IKError


@dataclass(frozen=True)
class NumericalIKResult:
    """A leg solved: the full configuration and how far the foot is from its target."""

    qpos: np.ndarray
    """The full configuration with the leg's joints solved."""
    position_error: float
    """Distance from the foot to the target (m)."""
    face_error: float
    """Angle between the magnet face normal and the requested face axis (rad; 0 if none requested)."""
    success: bool
    """Whether the foot is within the requested tolerance of its target."""


class NumericalFootIK:
    """One foot at a time, on ``model``: :meth:`solve` moves a leg's foot to a target."""

    def __init__(self, model: mujoco.MjModel) -> None:
        """Build the legs' kinematics on ``model`` (no seeds: every solve starts from its warm start)."""
        self.model = model
        self.data = mujoco.MjData(model)
        self._legs = {leg: LegKinematics(model, leg, seeds_per_joint=1) for leg in LEGS}
        self._root = int(model.joint(model.body(ROOT_BODY).jntadr[0]).qposadr[0])

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
        adr = np.array([int(m.joint(joint_name(kind, leg)).qposadr[0]) for kind in LEG_JOINTS])
        qpos = np.array(qpos_seed, dtype=float)
        body = Pose(qpos[self._root : self._root + 3], qpos[self._root + 3 : self._root + 7])
        found = solve_leg(
            self._legs[leg], body, LegGoal(point=target, face=face_axis), qpos[adr], twist=False, max_nfev=200
        )
        qpos[adr[:ACTUATED]] = found.joints[:ACTUATED]
        face_err = float(np.radians(found.angle_error_deg))
        return NumericalIKResult(qpos, found.position_error, face_err, found.position_error <= tolerance)
