"""The MuJoCo viewer beside the sim node (``headless:=false``): opened on the node's model and data,
synced from the physics loop at most 30 times a wall second, each magnet's force drawn as an arrow;
Space pauses and plays the sim (as ``SetSimulationState`` does)."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable

import numpy as np

from . import visuals
from .viewer_scene import draw_arrows

SPACE_KEY = 32
"""GLFW's key code of the space bar (the viewer's key callback gets GLFW codes)."""
SYNC_PERIOD = 1 / 30
"""Wall seconds between two syncs of the viewer."""


def display_available() -> bool:
    """Whether a display (X11 or Wayland) is there for a viewer."""
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


class ViewerBridge:
    """A passive viewer on ``sim``; ``toggle_pause()`` is called, in the physics loop's thread, when
    Space was pressed."""

    def __init__(self, sim, toggle_pause: Callable[[], None]) -> None:
        import mujoco.viewer

        self.sim, self._toggle_pause = sim, toggle_pause
        self._next_sync = 0.0
        self._pause_key = False
        before = set(threading.enumerate())
        self._viewer = mujoco.viewer.launch_passive(sim.model, sim.data, key_callback=self._on_key)
        self._threads = [t for t in threading.enumerate() if t not in before]
        """The viewer's own thread: it must have finished (its GLFW teardown included) before the
        process exits, or the exit handlers tear GLFW down beneath it."""

    def _on_key(self, keycode: int) -> None:
        """The viewer's thread: only note the key; :meth:`sync` acts on it."""
        if keycode == SPACE_KEY:
            self._pause_key = True

    def sync(self) -> None:
        """From the physics loop: act on Space, draw the force arrows, show the current state."""
        viewer, now = self._viewer, time.monotonic()
        if viewer is None or now < self._next_sync or not viewer.is_running():
            return
        if self._pause_key:
            self._pause_key = False
            self._toggle_pause()
        with viewer.lock():
            draw_arrows(viewer.user_scn, self.force_arrows())
        viewer.sync()
        self._next_sync = now + SYNC_PERIOD

    def force_arrows(self) -> list[tuple[np.ndarray, np.ndarray, tuple]]:
        """Each magnet's force as (start, end, colour), coloured as on /sally/markers."""
        arrows = []
        for leg, readout in self.sim.magnet_readouts().items():
            start = self.sim.magnet_position(leg)
            arrows.append((start, start + visuals.FORCE_SCALE * np.asarray(readout.force), visuals.foot_color(readout)))
        return arrows

    def close(self) -> None:
        """Close the viewer and wait for its thread: a process that exits under a running viewer
        tears GLFW down beneath it (a segfault)."""
        viewer, self._viewer = self._viewer, None
        if viewer is None:
            return
        viewer.close()
        for thread in self._threads:  # is_running() turns false before its teardown ends
            thread.join(timeout=5.0)
