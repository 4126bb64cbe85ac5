"""A thread that steps the physics while the loop's thread runs the nodes' Python.

The loop hands it a run of steps (:meth:`PhysicsThread.start`), goes on with the graph (publishing
the state, the controller and the IK answering it), and takes the run back (:meth:`PhysicsThread.join`)
before it touches the physics again. The worker is compiled (:func:`~.physics_kernel.run_steps`) and
holds no interpreter lock, so the two run on two cores.

The hand-over is a shared counter, not a lock or an event: a thread blocked on a lock takes 50-100
µs to wake here, twice a control period, and on this machine that was a third of what the overlap
saves (measured: 0.40 ms a period against 0.33 ms polled, physics 0.29 ms). Both sides poll with
``sched_yield`` (the core goes to anyone else who wants it); an idle worker naps 50 µs between polls
after 2 ms without work, so a paused or slow graph does not keep a core busy.
"""

from __future__ import annotations

import ctypes
import functools
import threading

import numpy as np
from numba import njit

from .physics_kernel import run_steps

ASKED, DONE, STEPS, MADE, STOP = range(5)
"""Slots of the shared counter array."""
IDLE_POLLS = 2000
"""Polls (about 1 µs each) before an idle worker starts to nap."""
NAP_US = 50


@functools.cache
def _libc() -> tuple:
    libc = ctypes.CDLL(None)
    yield_, nap = libc.sched_yield, libc.usleep
    yield_.argtypes, yield_.restype = [], ctypes.c_int
    nap.argtypes, nap.restype = [ctypes.c_uint], ctypes.c_int
    return yield_, nap


@njit(cache=True, nogil=True)
def _serve(flags, yield_, nap, head, tail):  # pragma: no cover - runs compiled in the worker thread
    done = flags[DONE]
    idle = 0
    while flags[STOP] == 0:
        if flags[ASKED] > done:
            flags[MADE] = run_steps(head[0], head[1], head[2], head[3], flags[STEPS], *tail)
            done += 1
            flags[DONE] = done
            idle = 0
        elif idle < IDLE_POLLS:
            yield_()
            idle += 1
        else:
            nap(NAP_US)


@njit(cache=True, nogil=True)
def _wait(flags, asked, yield_):  # pragma: no cover - runs compiled
    while flags[DONE] < asked:
        yield_()
    return flags[MADE]


class PhysicsThread:
    """Runs :func:`~.physics_kernel.run_steps` with ``head`` and ``tail`` (the Simulator's arguments
    around the step count) in a thread of its own, one run at a time."""

    def __init__(self, head: tuple, tail: tuple) -> None:
        self._flags = np.zeros(5, dtype=np.int64)
        self._yield, nap = _libc()
        self._running = False
        self._thread = threading.Thread(
            target=_serve, args=(self._flags, self._yield, nap, head, tail), name="sally_sim physics", daemon=True
        )
        self._thread.start()

    @property
    def running(self) -> bool:
        """A run was started and not yet joined."""
        return self._running

    def start(self, n: int) -> None:
        """Begin ``n`` steps (the efforts, commands and forces already set)."""
        if self._running:
            raise RuntimeError("a physics run is still going: join it first")
        self._flags[STEPS] = n
        self._running = True
        self._flags[ASKED] += 1

    def join(self) -> int:
        """Wait for the run; the steps it made (fewer than asked: the physics went unstable)."""
        if not self._running:
            raise RuntimeError("no physics run to join")
        made = int(_wait(self._flags, self._flags[ASKED], self._yield))
        self._running = False
        return made

    def close(self) -> None:
        """End the worker (after the run going on, if any)."""
        self._flags[STOP] = 1
        self._thread.join(timeout=1.0)
