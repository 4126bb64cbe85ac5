"""Sally's coordinate frames for TF, from MuJoCo's poses. No ROS.

Frame names follow the model (and the URDF generated from it, :mod:`sally_description.urdf`): a
frame per body, named like the body. The fixed frame is ``world``: MuJoCo's world, the steel
corner, which never moves. Following REP 105, ``odom`` is the frame the robot's odometry is
expressed in; the sim's odometry is exact (it is the physics state), so ``odom`` coincides with
``world`` (a static identity) and ``odom -> main_frame`` is the pose ``/sally/odom`` carries.

* :meth:`BodyFrames.static`: ``world -> odom`` and ``world -> <plate>`` for each steel plate
  (:class:`Plate`, the plate geom's centre and orientation), and ``world -> corner`` in a scene
  whose climbed corner is turned in the room (``sally_description.scene``: corner3; the IK, the
  sequencer and the report give positions in that frame), for ``/tf_static``;
* :meth:`BodyFrames.moving`: ``odom -> main_frame`` (with a state estimator, which publishes that
  one: ``world -> ground_truth``, the exact pose) and ``parent -> child`` for every body below it,
  from the current ``xpos`` / ``xquat``, for ``/tf``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import mujoco
import numpy as np

from sally_description.constants import ROOT_BODY
from sally_description.model import subtree
from sally_description.pose import Pose
from sally_description.scene import CORNER_FRAME

WORLD, ODOM, CORNER = "world", "odom", CORNER_FRAME
GROUND_TRUTH = "ground_truth"
"""main_frame's exact pose as a frame of its own under ``world`` (a graph with a state estimator:
the estimate is ``odom -> main_frame``, and a viewer shows both)."""
"""``world`` is the room (z up, gravity -z) in every scene; ``corner`` is the climbed corner's frame
when it is turned in the room (corner3's wall-ceiling corner: :mod:`sally_description.scene`), the
frame the IK's foot states, the sequencer's targets and the report's positions are in."""


@dataclass(frozen=True)
class Frame:
    """The pose of ``child`` in ``parent``: position (m) and unit quaternion (w, x, y, z)."""

    parent: str
    child: str
    position: np.ndarray
    quaternion: np.ndarray


def quaternion_conjugate_product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """conj(a) * b for rows of unit quaternions (w, x, y, z): b's rotation seen from a's frame."""
    aw, ax, ay, az = a[:, 0], a[:, 1], a[:, 2], a[:, 3]
    bw, bx, by, bz = b[:, 0], b[:, 1], b[:, 2], b[:, 3]
    return np.stack(
        [
            aw * bw + ax * bx + ay * by + az * bz,
            aw * bx - ax * bw - ay * bz + az * by,
            aw * by + ax * bz - ay * bw - az * bx,
            aw * bz - ax * by + ay * bx - az * bw,
        ],
        axis=1,
    )


@dataclass(frozen=True)
class Plate:
    """A steel plate as a box: centre (m), orientation (w, x, y, z), half sizes (m)."""

    name: str
    position: np.ndarray
    quaternion: np.ndarray
    half_size: np.ndarray


class BodyFrames:
    """The TF frames of Sally's bodies: each body's transform from its parent, from MuJoCo's data."""

    def __init__(self, model: mujoco.MjModel, estimated: bool = False) -> None:
        """``estimated``: a state estimator publishes ``odom -> main_frame``; the body's exact pose
        goes out as ``world -> ground_truth`` instead (the bodies below main_frame as ever)."""
        root = model.body(ROOT_BODY).id
        self._root_pair = (WORLD, GROUND_TRUTH) if estimated else (ODOM, model.body(root).name)
        bodies = [b for b in subtree(model, root) if b != root]
        self._root = root
        self._child = np.array(bodies, dtype=int)
        self._parent = model.body_parentid[self._child].astype(int)
        self.root_name = model.body(root).name
        self.child_names = [model.body(b).name for b in bodies]
        self.parent_names = [model.body(b).name for b in self._parent]

    @staticmethod
    def static(plates: Sequence[Plate], corner: Pose | None = None) -> list[Frame]:
        """``world -> odom`` and ``world -> <plate>`` for each plate (``Simulator.plates()``); with
        ``corner`` (the climbed corner's frame in ``world``, the room, when it is turned) also
        ``world -> corner``."""
        frames = [Frame(WORLD, ODOM, np.zeros(3), np.array([1.0, 0.0, 0.0, 0.0]))]
        if corner is not None:
            frames.append(Frame(WORLD, CORNER, corner.position.copy(), corner.quat.copy()))
        return frames + [Frame(WORLD, p.name, p.position, p.quaternion) for p in plates]

    @property
    def moving_names(self) -> list[tuple[str, str]]:
        """(parent, child) of each moving frame, in :meth:`moving`'s order."""
        return [self._root_pair, *zip(self.parent_names, self.child_names)]

    def moving_poses(self, data: mujoco.MjData) -> tuple[np.ndarray, np.ndarray]:
        """Every moving frame's position (n, 3) and quaternion (n, 4; w, x, y, z) in its parent, in
        :attr:`moving_names`' order, now (after a step or ``mj_kinematics``)."""
        xpos, xquat, xmat = data.xpos, data.xquat, data.xmat
        parent, child = self._parent, self._child
        offset = xpos[child] - xpos[parent]
        position = np.einsum("nji,nj->ni", xmat[parent].reshape(-1, 3, 3), offset)  # R_parent^T (p_child - p_parent)
        quaternion = quaternion_conjugate_product(xquat[parent], xquat[child])
        return np.vstack([xpos[self._root], position]), np.vstack([xquat[self._root], quaternion])

    def moving(self, data: mujoco.MjData) -> list[Frame]:
        """Every moving frame now (after a step or ``mj_kinematics``)."""
        return self.frames(*self.moving_poses(data))

    def frames(self, positions: np.ndarray, quaternions: np.ndarray) -> list[Frame]:
        """The moving frames at these poses (:meth:`moving_poses`' arrays)."""
        return [Frame(p, c, positions[i], quaternions[i]) for i, (p, c) in enumerate(self.moving_names)]
