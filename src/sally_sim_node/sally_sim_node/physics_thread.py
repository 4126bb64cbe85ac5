"""A thread that steps the physics while the loop's thread runs the nodes' Python.

The loop hands it a run of steps (:meth:`PhysicsThread.start`), goes on with the graph (publishing
the state, the controller and the IK answering it), and takes the run back (:meth:`PhysicsThread.join`)
before it touches the physics again. The worker is compiled (:func:`~.physics_kernel.run_steps`) and
holds no interpreter lock, so the two run on two cores.

Each side waits for the other in two stages: it polls the shared counters for a while
(:data:`SPIN` ``sched_yield`` calls, ~0.15 ms here when the core is free; the core goes to anyone
else who wants it), then sleeps on a POSIX semaphore. Waking a thread asleep in the kernel takes
50-100 µs here, and the two usually meet inside the poll: the loop's Python between two runs is
shorter than the poll, and so is the rest of a run once the loop has published and been answered.
A side that waits longer (the loop waiting for an IK in another process, the worker for a loop busy
with an IK solve) sleeps, so it does not hold a core that another thread or process needs. Each run
posts each semaphore exactly once (:meth:`PhysicsThread.start` the worker's, the worker the loop's),
and each side takes exactly one post per run, so neither count grows.

Every hand-over ends in a ``sem_wait`` on a post the other side made after its writes (POSIX
semaphores order memory), so each side reads the other's results only then, on any CPU (arm64
too); the polls only decide when to wait.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
from numba import njit, types

from .physics_kernel import run_steps

ASKED, DONE, STEPS, MADE, STOP = range(5)
"""Slots of the shared counter array."""
SPIN = 200
"""How many times a side polls the counters (one ``sched_yield`` each, ~0.7 µs on a free core)
before it sleeps on its semaphore."""
SEM_BYTES = 64
"""Room for a POSIX ``sem_t`` (32 bytes on Linux x86-64 and arm64)."""


_sched_yield: Any = types.ExternalFunction("sched_yield", types.int32())
_sem_init: Any = types.ExternalFunction("sem_init", types.int32(types.intp, types.int32, types.uint32))
_sem_wait: Any = types.ExternalFunction("sem_wait", types.int32(types.intp))
_sem_post: Any = types.ExternalFunction("sem_post", types.int32(types.intp))
"""The C library's calls, named (not passed in as ctypes functions: numba types a ctypes argument
anew on every call, ~25 % of the loop's thread when ``_wait`` took them). A semaphore is passed as
its address (``intp``, a pointer's size)."""


@njit(cache=True, nogil=True)
def _init(semaphore):  # pragma: no cover - compiled
    return _sem_init(semaphore, 0, 0)


@njit(cache=True, nogil=True)
def _post(semaphore):  # pragma: no cover - compiled
    return _sem_post(semaphore)


@njit(cache=True, nogil=True)
def _serve(flags, asked, finished, head, tail):  # pragma: no cover - compiled
    done = flags[DONE]
    while True:
        polls = 0
        while flags[ASKED] <= done and flags[STOP] == 0 and polls < SPIN:  # the next run is usually near
            _sched_yield()
            polls += 1
        while _sem_wait(asked) != 0:  # this run's post (at once when it came during the polls);
            pass  # -1 is EINTR: a signal came (the semaphore's count is untouched)
        if flags[STOP] != 0:
            return
        flags[MADE] = run_steps(head[0], head[1], head[2], head[3], flags[STEPS], *tail)
        done += 1
        flags[DONE] = done
        _sem_post(finished)


@njit(cache=True, nogil=True)
def _wait(flags, asked, finished):  # pragma: no cover - compiled
    polls = 0
    while flags[DONE] < asked and polls < SPIN:
        _sched_yield()
        polls += 1
    while _sem_wait(finished) != 0:  # the run's post (at once when it is done); -1: EINTR, again
        pass
    return flags[MADE]


class PhysicsThread:
    """Runs :func:`~.physics_kernel.run_steps` with ``head`` and ``tail`` (the Simulator's arguments
    around the step count) in a thread of its own, one run at a time."""

    def __init__(self, head: tuple, tail: tuple) -> None:
        self._flags = np.zeros(5, dtype=np.int64)
        self._semaphores = np.zeros(2 * SEM_BYTES, dtype=np.uint8)
        base = self._semaphores.ctypes.data
        self._asked, self._finished = base, base + SEM_BYTES
        """The worker's semaphore (posted once per run asked) and the loop's (once per run done)."""
        for sem in (self._asked, self._finished):
            if _init(sem) != 0:
                raise OSError("sem_init failed for the physics thread")
        self._running = False
        self._thread = threading.Thread(
            target=_serve,
            args=(self._flags, self._asked, self._finished, head, tail),
            name="sally_sim physics",
            daemon=True,
        )
        self._thread.start()

    @property
    def running(self) -> bool:
        """A run was started and not yet joined."""
        return self._running

    @property
    def finished(self) -> bool:
        """The run started is done: :meth:`join` would not wait (it must still be called)."""
        return bool(self._flags[DONE] >= self._flags[ASKED])

    def start(self, n: int) -> None:
        """Begin ``n`` steps (the efforts, commands and forces already set)."""
        if self._running:
            raise RuntimeError("a physics run is still going: join it first")
        self._flags[STEPS] = n
        self._running = True
        self._flags[ASKED] += 1
        _post(self._asked)

    def join(self) -> int:
        """Wait for the run; the steps it made (fewer than asked: the physics went unstable)."""
        if not self._running:
            raise RuntimeError("no physics run to join")
        made = int(_wait(self._flags, self._flags[ASKED], self._finished))
        self._running = False
        return made

    def close(self) -> None:
        """End the worker (after the run going on, if any)."""
        self._flags[STOP] = 1
        _post(self._asked)
        self._thread.join(timeout=1.0)
