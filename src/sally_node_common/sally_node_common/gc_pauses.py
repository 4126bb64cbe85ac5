"""Python's cyclic garbage collector kept from pausing a running graph.

A full collection walks every object the collector tracks, with the interpreter lock held: in a
composed f2w graph (mink, MuJoCo, rclpy and the nodes loaded, ~125,000 objects) each took 70-105 ms
and came every ~2 s of the run, so a realtime run fell 0.1 s behind the wall clock each time, and
a lockstep run lost ~1 s of its ~15. Almost all of those objects are made at start-up and live as
long as the process (modules, models, the nodes themselves); what a running graph makes and drops
(messages, arrays) is freed by reference counting, and its cycles are rare.

:func:`settle` (after start-up): a collection, then :func:`gc.freeze` of what start-up made (never
walked again), and the oldest generation collected a tenth as often. The full collections that
remain walk what the run made since: ~30 ms instead of 100, ten times rarer. :func:`unsettle` undoes
it (a process that builds another graph after this one, whose frozen objects would never be
collected otherwise).
"""

from __future__ import annotations

import gc

OLDEST_EVERY = 100
"""Collections of the middle generation between two of the oldest (Python's default: 10)."""
_DEFAULT = gc.get_threshold()


def settle() -> None:
    """Start-up is done: what it made is frozen out of the collector's walks, and the oldest
    generation is collected :data:`OLDEST_EVERY` times less often than the middle one."""
    gc.collect()
    gc.freeze()
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, OLDEST_EVERY)


def unsettle() -> None:
    """As before :func:`settle`: nothing frozen, the default thresholds."""
    gc.unfreeze()
    gc.set_threshold(*_DEFAULT)
