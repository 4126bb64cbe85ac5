"""CPU of a running graph, part by part, from a sampling profile (``py-spy record --format raw``,
without ``--idle``: a sample is a thread on the CPU).

Each sample's stack (outermost first, ``;``-separated frames, then its count) is given to one part,
by its innermost frame that names one:

* ``dds``: rclpy's publish, serialization and executor (taking messages off DDS), outside the
  recording's own writer;
* ``recording``: the run's MCAP writer (serializing and compressing included);
* ``magnets``, ``physics``: the electromagnet model, the rest of the sim's steps (the physics
  thread's whole stack, and the loop polling for its runs, included: ``sched_yield`` gives the core
  away, but py-spy sees the thread running);
* ``controller``, ``estimator``, ``ik`` (mink and its QP solvers included), ``sequencer``: the nodes;
* ``sim``: the sim node's publishing (state, TF, markers, diagnostics);
* ``delivery``: the host handing messages between nodes;
* ``other``: the rest (start-up, waiting threads' wake-ups).

A sample whose innermost frame is a wait in ``threading`` (``Event.wait``, ``Condition.wait``: a
thread blocked on a lock) is no CPU at all: py-spy's ``--nonblocking`` sampling cannot always tell
a blocked thread from a running one. Such samples are ``idle`` and count in no part.

:func:`cpu_ms_per_sim_ms` turns the counts into CPU milliseconds per millisecond of sim time.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

PARTS = (
    "physics",
    "magnets",
    "controller",
    "estimator",
    "ik",
    "sequencer",
    "sim",
    "delivery",
    "recording",
    "dds",
    "other",
)
_RULES: tuple[tuple[str, str], ...] = (
    ("host_recording", "recording"),
    ("mcap", "recording"),
    ("lz4", "recording"),
    ("sally_sim_node/magnet", "magnets"),
    ("sally_sim_node/simulator", "physics"),
    ("sally_sim_node/physics_", "physics"),
    ("sally_controller/", "controller"),
    ("sally_node_common/pid", "controller"),
    ("sally_state_estimator/", "estimator"),
    ("sally_ik_node/", "ik"),
    ("mink/", "ik"),
    ("qpsolvers/", "ik"),
    ("sally_sequencer/", "sequencer"),
    ("sally_sim_node/", "sim"),
    ("sally_node_common/host", "delivery"),
)
_DDS = ("rclpy/publisher", "rclpy/serialization", "spin_until_shutdown", "rclpy/executors", "rclpy/experimental")


PHYSICS_THREAD = "sally_sim physics"
"""The name of the sim's physics thread (:mod:`sally_sim_node.physics_thread`; py-spy ``--threads``)."""
IDLE = "idle"
"""A sample of a thread blocked in ``threading``'s waits (in no part)."""


def part_of(stack: str) -> str:
    """The part one sample's stack (``frame;frame;...``, outermost first) belongs to."""
    frames = stack.split(";")
    if "wait (" in frames[-1] and "threading.py" in frames[-1]:
        return IDLE
    if frames[0].endswith(PHYSICS_THREAD):  # compiled from its first frame on: no Python frame of its own
        return "physics"
    recording = any("host_recording" in f or "mcap_recording" in f for f in frames)
    if not recording and any(key in frames[-1] for key in _DDS):
        return "dds"
    for frame in reversed(frames):
        for key, part in _RULES:
            if key in frame:
                return part
    return "other"


def samples_by_part(lines: Iterable[str]) -> Counter[str]:
    """Samples per part from py-spy's raw output lines (``stack count``)."""
    counts: Counter[str] = Counter()
    for line in lines:
        stack, _, count = line.rstrip("\n").rpartition(" ")
        if stack and count.isdigit():
            counts[part_of(stack)] += int(count)
    return counts


def cpu_ms_per_sim_ms(samples: Counter[str], rate_hz: float, sim_seconds: float) -> dict[str, float]:
    """CPU ms per ms of sim time, per part (every part of :data:`PARTS`, 0 where none), from
    ``samples`` taken at ``rate_hz`` over a run of ``sim_seconds``."""
    if rate_hz <= 0 or sim_seconds <= 0:
        raise ValueError(f"rate_hz and sim_seconds must be > 0, got {rate_hz} and {sim_seconds}")
    return {part: samples.get(part, 0) / rate_hz / sim_seconds for part in PARTS}
