"""A thread that steps the physics while the loop's thread runs the nodes' Python.

The loop hands it a run of steps (:meth:`PhysicsThread.start`), goes on with the graph (publishing
the state, the controller and the IK answering it), and takes the run back (:meth:`PhysicsThread.join`)
before it touches the physics again. The worker is compiled (:func:`~.physics_kernel.run_steps`) and
holds no interpreter lock, so the two run on two cores.

Waking a thread asleep in the kernel takes 50-100 µs here, and a control period is 1 ms of sim time;
polling instead keeps a core busy that the recording's and an outside client's processes need (the
main job ran no faster with a polling worker). So the worker sleeps on a semaphore between runs, and
the loop wakes it early (:meth:`PhysicsThread.wake`, as soon as it knows another period follows):
by the time the loop has read the next state and starts the run, the worker is up and polling for
it, briefly. The loop's own wait for a run polls too (``sched_yield``: the core goes to anyone else
who wants it), since the run is usually done or nearly.

The counters are plain int64 stores and loads: on x86-64 (this machine, CI) stores are seen in the
order they were made, so a run's results are in memory before its ``DONE`` count. A weaker-ordered
CPU (arm64) would need a release fence before that count and an acquire fence after reading it;
numba offers neither, so there ``physics_thread:=false`` is the safe choice until one is added.
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
SEM_BYTES = 64
"""Room for a POSIX ``sem_t`` (32 bytes on Linux x86-64 and arm64)."""


class _Libc:
    """The C library's calls the two sides make without the interpreter lock."""

    def __init__(self) -> None:
        libc = ctypes.CDLL(None, use_errno=True)
        self.sched_yield = libc.sched_yield
        self.sched_yield.argtypes, self.sched_yield.restype = [], ctypes.c_int
        self.sem_init, self.sem_wait, self.sem_post = libc.sem_init, libc.sem_wait, libc.sem_post
        self.sem_init.argtypes, self.sem_init.restype = [ctypes.c_void_p, ctypes.c_int, ctypes.c_uint], ctypes.c_int
        for call in (self.sem_wait, self.sem_post):
            call.argtypes, call.restype = [ctypes.c_void_p], ctypes.c_int


@functools.cache
def _libc() -> _Libc:
    return _Libc()


@njit(cache=True, nogil=True)
def _serve(flags, semaphore, sem_wait, sched_yield, head, tail):  # pragma: no cover - runs compiled
    done = flags[DONE]
    while True:
        sem_wait(semaphore)  # woken for a run (or to stop)
        while flags[ASKED] <= done and flags[STOP] == 0:  # woken early: the run is on its way
            sched_yield()
        if flags[STOP] != 0:
            return
        flags[MADE] = run_steps(head[0], head[1], head[2], head[3], flags[STEPS], *tail)
        done += 1
        flags[DONE] = done


@njit(cache=True, nogil=True)
def _wait(flags, asked, sched_yield):  # pragma: no cover - runs compiled
    while flags[DONE] < asked:
        sched_yield()
    return flags[MADE]


class PhysicsThread:
    """Runs :func:`~.physics_kernel.run_steps` with ``head`` and ``tail`` (the Simulator's arguments
    around the step count) in a thread of its own, one run at a time."""

    def __init__(self, head: tuple, tail: tuple) -> None:
        self._flags = np.zeros(5, dtype=np.int64)
        self._semaphore = np.zeros(SEM_BYTES, dtype=np.uint8)
        self._sem = self._semaphore.ctypes.data
        self._c = _libc()
        if self._c.sem_init(self._sem, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "sem_init failed for the physics thread")
        self._running = self._woken = False
        self._thread = threading.Thread(
            target=_serve,
            args=(self._flags, self._sem, self._c.sem_wait, self._c.sched_yield, head, tail),
            name="sally_sim physics",
            daemon=True,
        )
        self._thread.start()

    @property
    def running(self) -> bool:
        """A run was started and not yet joined."""
        return self._running

    def wake(self) -> None:
        """Another run follows soon: have the worker up and waiting for it (at most once per run)."""
        if not self._woken:
            self._woken = True
            self._c.sem_post(self._sem)

    def start(self, n: int) -> None:
        """Begin ``n`` steps (the efforts, commands and forces already set)."""
        if self._running:
            raise RuntimeError("a physics run is still going: join it first")
        self._flags[STEPS] = n
        self._running = True
        self._flags[ASKED] += 1
        self.wake()
        self._woken = False

    def join(self) -> int:
        """Wait for the run; the steps it made (fewer than asked: the physics went unstable)."""
        if not self._running:
            raise RuntimeError("no physics run to join")
        made = int(_wait(self._flags, self._flags[ASKED], self._c.sched_yield))
        self._running = False
        return made

    def close(self) -> None:
        """End the worker (after the run going on, if any)."""
        self._flags[STOP] = 1
        self._c.sem_post(self._sem)
        self._thread.join(timeout=1.0)
