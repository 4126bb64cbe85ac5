"""The interactive viewer: MuJoCo's passive viewer over a :class:`~.platform.WheeledSim`, paced
to the wall clock, with an arrow per wheel for its magnet's force.

Keys: ``S`` starts and stops the drive, Space pauses and resumes the physics. Arrows: green for a
magnet on and in contact, orange for on and not in contact, grey for off (as the legged sim's).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sally_sim_node.viewer_scene import draw_arrows

from .platform import WheeledSim

S_KEY, SPACE_KEY = 83, 32
"""GLFW key codes."""
FORCE_SCALE = 2e-4
"""Arrow length per newton (m/N): an 800 N magnet is a 16 cm arrow."""
OFF, HOLDING, LOOSE = (0.6, 0.6, 0.6, 0.8), (0.1, 0.8, 0.2, 0.9), (1.0, 0.55, 0.0, 0.9)
FRAME = 1 / 30
"""s between viewer syncs."""


@dataclass
class Controls:
    """What the keys have asked for. The viewer's thread calls :meth:`key`; the physics loop reads."""

    driving: bool = False
    paused: bool = False

    def key(self, keycode: int) -> str:
        """Apply one key press; returns what it did ('' for keys without a meaning)."""
        if keycode == S_KEY:
            self.driving = not self.driving
            return "drive on" if self.driving else "drive off"
        if keycode == SPACE_KEY:
            self.paused = not self.paused
            return "paused" if self.paused else "resumed"
        return ""


def force_arrows(sim: WheeledSim) -> list[tuple[np.ndarray, np.ndarray, tuple[float, ...]]]:
    """(start, end, rgba) of every wheel magnet's force arrow."""
    arrows: list[tuple[np.ndarray, np.ndarray, tuple[float, ...]]] = []
    for wheel, readout in sim.readouts().items():
        start = sim.magnet_position(wheel)
        color = OFF if not readout.enabled else HOLDING if readout.in_contact else LOOSE
        arrows.append((start, start + FORCE_SCALE * np.asarray(readout.force), color))
    return arrows


def run_viewer(
    sim: WheeledSim, drive: tuple[float, float], duration: float | None = None, driving: bool = False, say=print
) -> Controls:
    """Show ``sim`` until the window closes (or ``duration`` s of sim time pass): real time, ``S``
    toggling the drive at ``drive`` (body vx, vy m/s), Space pausing. Returns the final controls."""
    import mujoco.viewer

    controls = Controls(driving=driving)
    pressed: list[str] = []
    before = set(threading.enumerate())
    viewer = mujoco.viewer.launch_passive(
        sim.model, sim.data, key_callback=lambda code: pressed.append(controls.key(code))
    )
    threads = [t for t in threading.enumerate() if t not in before]
    say("viewer open: S starts and stops the drive, Space pauses")
    try:
        wall_start, sim_start = time.monotonic(), sim.time
        paused_at: float | None = None
        while viewer.is_running() and (duration is None or sim.time - sim_start < duration):
            for what in [p for p in pressed if p]:
                say(what)
            pressed.clear()
            sim.drive(*(drive if controls.driving else (0.0, 0.0)))
            if controls.paused:
                paused_at = paused_at or time.monotonic()
            else:
                if paused_at is not None:  # the wall clock ran on while paused: start pacing anew
                    wall_start, sim_start, paused_at = time.monotonic(), sim.time, None
                behind = (time.monotonic() - wall_start) - (sim.time - sim_start)
                if behind > 0:
                    sim.run(min(behind, FRAME))
            with viewer.lock():
                draw_arrows(viewer.user_scn, force_arrows(sim))
            viewer.sync()
            time.sleep(FRAME / 2)
    finally:
        viewer.close()
        for thread in threads:  # GLFW teardown must end before the process does
            thread.join(timeout=5.0)
    return controls


def snapshot(sim: WheeledSim, path: Path, width: int = 640, height: int = 480) -> Path:
    """Render ``sim``'s current state from the room side (the sampling spheres shown) to a PNG.
    Needs an OpenGL context: a display (Xvfb will do) or ``MUJOCO_GL=egl``/``osmesa``."""
    import mujoco
    from PIL import Image

    renderer = mujoco.Renderer(sim.model, height, width)
    try:
        camera = mujoco.MjvCamera()
        camera.lookat[:] = sim.position()
        camera.distance, camera.azimuth, camera.elevation = 0.8, 30.0, -35.0
        options = mujoco.MjvOption()
        options.geomgroup[3] = 1
        renderer.update_scene(sim.data, camera, options)
        scene = renderer.scene
        extra = scene.ngeom
        draw_arrows(scene, force_arrows(sim), keep=extra)
        Image.fromarray(renderer.render()).save(path)
    finally:
        renderer.close()
    return Path(path)
