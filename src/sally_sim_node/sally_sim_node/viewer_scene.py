"""Arrows drawn into a MuJoCo viewer's user scene (``viewer.user_scn``): the magnet forces the
legged sim and the wheeled platform show. Pure: mujoco and numpy only."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import mujoco
import numpy as np

ARROW_WIDTH = 0.008
"""Arrow shaft width (m)."""


def draw_arrows(
    scene: mujoco.MjvScene, arrows: Iterable[tuple[np.ndarray, np.ndarray, Sequence[float]]], keep: int = 0
) -> int:
    """Replace the scene's geoms after the first ``keep`` (a viewer's user scene: none; a rendered
    scene: the model's) with one arrow per (start m, end m, rgba); arrows shorter than 0.1 mm and
    those beyond the scene's capacity are left out. Returns the scene's geom count."""
    scene.ngeom = keep
    for start, end, rgba in arrows:
        start, end = np.asarray(start, dtype=float), np.asarray(end, dtype=float)
        if scene.ngeom >= scene.maxgeom or np.linalg.norm(end - start) < 1e-4:
            continue
        geom = scene.geoms[scene.ngeom]
        color = np.asarray(rgba, dtype=np.float32)
        mujoco.mjv_initGeom(geom, mujoco.mjtGeom.mjGEOM_ARROW, np.zeros(3), np.zeros(3), np.zeros(9), color)
        mujoco.mjv_connector(geom, mujoco.mjtGeom.mjGEOM_ARROW, ARROW_WIDTH, start, end)
        scene.ngeom += 1
    return scene.ngeom
