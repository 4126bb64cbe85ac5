"""Where each foot is in main_frame, from the joints' encoders: Sally's forward kinematics (MuJoCo's
``mj_kinematics`` on the robot's own model, main_frame held at the origin). Pure: no ROS."""

from __future__ import annotations

from dataclasses import dataclass

import mujoco
import numpy as np

from sally_description import JOINT_NAMES, LEGS, build_model
from sally_description.constants import FACE_AXIS_LOCAL, ROOT_BODY, ee_site


@dataclass(frozen=True)
class Feet:
    """Every foot in main_frame: ``points`` (4, 3) the EE sites (m), ``normals`` (4, 3) the magnet
    faces' outward normals (unit), both in :data:`LEGS` order."""

    points: np.ndarray
    normals: np.ndarray


class LegKinematics:
    """The feet in main_frame for joint positions in :data:`JOINT_NAMES` order."""

    def __init__(self, model: mujoco.MjModel | None = None) -> None:
        self.model = model if model is not None else build_model()
        self._data = mujoco.MjData(self.model)
        root = mujoco.mj_name2id(self.model, mujoco.mjtObj.mjOBJ_BODY, ROOT_BODY)
        free = int(self.model.body_jntadr[root])
        self._base = int(self.model.jnt_qposadr[free])
        self._qpos = np.array([self.model.jnt_qposadr[self.model.joint(n).id] for n in JOINT_NAMES])
        self._sites = [self.model.site(ee_site(leg)).id for leg in LEGS]
        self._face = np.asarray(FACE_AXIS_LOCAL, float)

    def feet(self, positions: np.ndarray) -> Feet:
        """The feet for ``positions`` (rad, :data:`JOINT_NAMES` order)."""
        d = self._data
        d.qpos[self._base : self._base + 7] = (0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0)
        d.qpos[self._qpos] = positions
        mujoco.mj_kinematics(self.model, d)
        points = d.site_xpos[self._sites].copy()
        normals = np.einsum("kij,j->ki", d.site_xmat[self._sites].reshape(-1, 3, 3), self._face)
        return Feet(points, normals)
