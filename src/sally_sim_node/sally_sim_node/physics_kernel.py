"""Physics steps without the interpreter lock: ``n`` times ``mj_step1``, the magnet kernel and
``mj_step2`` in one compiled call.

MuJoCo's Python functions release the GIL while they compute, but take it back between two calls,
so a step made of three calls (``mj_step1``, the magnets, ``mj_step2``) waits for the lock three
times. With another thread running Python that wait is the switch interval each time: measured
here, a step took 10.6 ms with a busy Python thread beside it instead of 0.13 ms. Here the C
functions are called through ctypes from numba (``nogil``), so a run of steps holds no lock from
its first step to its last, and the physics can compute on one core while the nodes' Python runs
on the other. The arithmetic is MuJoCo's and the magnet kernel's own: a run gives the same bits as
the same steps made one call at a time (tested).
"""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import mujoco
from numba import njit

from .magnet_kernel import magnet_step


class MujocoSteps(NamedTuple):
    """``mj_step1`` and ``mj_step2`` of the MuJoCo library the Python bindings loaded."""

    step1: Callable[[int, int], None]
    step2: Callable[[int, int], None]


@functools.cache
def mujoco_steps() -> MujocoSteps:
    """The library's two half steps as ctypes functions (loaded once per process)."""
    folder = Path(mujoco.__file__).parent
    found = sorted(folder.glob("libmujoco.so*")) or sorted(folder.glob("libmujoco*.dylib"))
    if not found:
        raise ImportError(f"no libmujoco shared library beside the mujoco package in {folder}")
    library = ctypes.CDLL(str(found[0]))
    halves = []
    for name in ("mj_step1", "mj_step2"):
        function = getattr(library, name)
        function.argtypes, function.restype = [ctypes.c_void_p, ctypes.c_void_p], None
        halves.append(function)
    return MujocoSteps(*halves)


@njit(cache=True, nogil=True)
def run_steps(
    step1, step2, model, data, n, warnings, unstable, unstable_count,
    geom_xpos, xipos, xfrc, external, sphere_geoms, magnet_bodies, enabled,
    plate_pos, plate_rot, plate_half, sphere_radius, coefficient, min_distance, max_distance, max_force,
    out_force, out_torque, out_min_distance, out_surface, out_sphere_distance, out_sphere_force,
):  # fmt: skip
    """``n`` physics steps of ``model``/``data`` (their addresses) with the magnets applied between the
    halves; the number made: fewer than ``n`` when MuJoCo reported an unstable state (``warnings``
    at the ``unstable`` indices no longer adding up to ``unstable_count[0]``) and reset it."""
    for k in range(n):
        step1(model, data)
        magnet_step(
            geom_xpos, xipos, xfrc, external, sphere_geoms, magnet_bodies, enabled,
            plate_pos, plate_rot, plate_half, sphere_radius, coefficient, min_distance, max_distance, max_force,
            out_force, out_torque, out_min_distance, out_surface, out_sphere_distance, out_sphere_force,
        )  # fmt: skip
        step2(model, data)
        total = 0
        for i in range(unstable.shape[0]):
            total += warnings[unstable[i]]
        if total != unstable_count[0]:
            return k + 1
    return n
