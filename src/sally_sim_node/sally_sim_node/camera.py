"""The MJCF camera rendered offscreen, headless, for a ROS image topic. No ROS here.

Rendering uses EGL (``mujoco.egl``), which needs no display and works with Mesa's software
renderer on a machine without a GPU; the GL context belongs to the thread that created the camera,
so create and render in the same thread (the sim's physics loop). Images are RGB, row 0 at the top.

ROS cameras look along +z of an *optical* frame (x right, y down); MuJoCo's look along -z of the
camera frame (x right, y up): :func:`optical_quaternion` turns one into the other.
"""

from __future__ import annotations

import math

import mujoco
import numpy as np

OPTICAL_SUFFIX = "_optical"


def optical_quaternion(camera_quat_wxyz) -> np.ndarray:
    """The optical frame's orientation (w, x, y, z) from MuJoCo's camera orientation: half a turn
    about the camera's x axis."""
    out = np.empty(4)
    mujoco.mju_mulQuat(out, np.asarray(camera_quat_wxyz, dtype=float), np.array([0.0, 1.0, 0.0, 0.0]))
    return out


class OffscreenCamera:
    """Renders camera ``name`` of ``model`` at ``width`` x ``height`` pixels."""

    def __init__(self, model: mujoco.MjModel, name: str, width: int, height: int) -> None:
        from mujoco.egl import GLContext  # imported here: only a node with a camera needs EGL

        limit = (model.vis.global_.offwidth, model.vis.global_.offheight)
        if not (0 < width <= limit[0] and 0 < height <= limit[1]):
            raise ValueError(
                f"camera image {width} x {height} does not fit the model's offscreen buffer {limit[0]} x {limit[1]}"
            )
        self.model, self.name, self.width, self.height = model, name, width, height
        self.id = model.camera(name).id
        self._gl = GLContext(width, height)
        self._gl.make_current()
        self._scene = mujoco.MjvScene(model, maxgeom=2000)
        self._context = mujoco.MjrContext(model, mujoco.mjtFontScale.mjFONTSCALE_100)
        mujoco.mjr_setBuffer(mujoco.mjtFramebuffer.mjFB_OFFSCREEN, self._context)
        self._camera = mujoco.MjvCamera()
        self._camera.type = mujoco.mjtCamera.mjCAMERA_FIXED
        self._camera.fixedcamid = self.id
        self._option = mujoco.MjvOption()
        self._viewport = mujoco.MjrRect(0, 0, width, height)
        self._pixels = np.empty((height, width, 3), dtype=np.uint8)

    def render(self, data: mujoco.MjData) -> np.ndarray:
        """The current view, (height, width, 3) uint8 RGB, top row first."""
        self._gl.make_current()
        mujoco.mjv_updateScene(
            self.model, data, self._option, None, self._camera, mujoco.mjtCatBit.mjCAT_ALL, self._scene
        )
        mujoco.mjr_render(self._viewport, self._scene, self._context)
        mujoco.mjr_readPixels(self._pixels, None, self._viewport, self._context)
        return np.flipud(self._pixels).copy()

    def intrinsics(self) -> tuple[float, float, float, float]:
        """(fx, fy, cx, cy) in pixels of the pinhole MuJoCo renders (square pixels, ``cam_fovy``)."""
        f = 0.5 * self.height / math.tan(math.radians(self.model.cam_fovy[self.id]) / 2)
        return f, f, (self.width - 1) / 2, (self.height - 1) / 2

    def close(self) -> None:
        """Free the renderer's MuJoCo and OpenGL contexts."""
        self._context.free()
        self._gl.free()
