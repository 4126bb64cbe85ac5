"""The sequencer's journal: every step it took on this time line, so that a restarted sequencer takes
them again and stands where the one before it stood (pure: no ROS).

A sequencer's state (the stage and phase it is in, since when, each foot's home and foothold, the
seat's trim, the route's climbs done) follows from what it stepped on: the campaign is a pure
function of each step's campaign time, the feet as the IK put them, the feet's range and contact
readings the step took and the magnets the interlock counted. The journal keeps exactly those, one
fixed-size record per step, appended as the step is taken (one ``write`` each, straight to the
file: nothing is buffered in the process, so a ``kill -9`` loses at most the step under way, whose
partial record is dropped on reading). A restarted sequencer reads it, steps a fresh campaign
through the same records (publishing nothing) and goes on from the last one: the same plan, the
same phase and its start, the same footholds. A time line that starts over (a sim reset, a new sim)
starts a new journal.

Records (little-endian, :data:`RECORD_BYTES` each):

* a time line's start (:data:`START`): the sim time it starts at (0, or a reset's stamp);
* a step (:data:`STEP`): its stamp and campaign time (ns), the foot states' frame, each foot's EE
  site and hip pivot (m), mode and contact, each foot's range (m; nan: none) and contact readings
  and each magnet's telemetry as the step took them (:class:`Step`);
* a step in another climb's frame (:data:`PASS`): only the campaign time went on (the IK still plans in
  the climb before).
"""

from __future__ import annotations

import math
import os
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sally_description.constants import LEGS

START, STEP, PASS = 0, 1, 2
FRAMES = ("", "world", "corner")
"""The foot states' frames a record names (by index)."""
_RECORD = struct.Struct("<BBqq24d4B4B4d4B4B4B")
RECORD_BYTES = _RECORD.size
NO_MAGNET = 2
"""A magnet of which no telemetry was heard (its record byte)."""


class JournalError(ValueError):
    """A journal that is not a sequencer's (its size or contents are not of whole records)."""


@dataclass(frozen=True)
class Step:
    """One step as the sequencer took it."""

    stamp: int
    """The foot states' stamp (ns of sim time)."""
    campaign_ns: int
    """Campaign time at the step (ns)."""
    frame: str
    positions: dict[str, np.ndarray]
    """Each foot's EE site (m, in ``frame``)."""
    hips: dict[str, np.ndarray]
    modes: dict[str, int]
    in_contact: dict[str, bool]
    ranges: dict[str, float]
    """Each foot's range reading the step took (m; nan: none)."""
    contacts: dict[str, bool]
    """Whether each foot's contact reading the step took said contact."""
    magnets: dict[str, tuple[bool, bool]]
    """Each magnet's telemetry the interlock counted: (enabled, contact sensed); absent: none heard."""
    passing: bool = False
    """A :data:`PASS` record: a step in another climb's frame, campaign time alone went on."""


def encode_start(start_ns: int) -> bytes:
    """A time line's start record."""
    return _RECORD.pack(START, 0, start_ns, 0, *([0.0] * 24), *([0] * 8), *([math.nan] * 4), *([0] * 12))


def encode_step(step: Step) -> bytes:
    """A step's record."""
    if step.frame not in FRAMES:
        raise JournalError(f"a journal names the frames {FRAMES}, not {step.frame!r}")
    numbers = [float(v) for leg in LEGS for v in (*step.positions[leg], *step.hips[leg])]
    magnets = [step.magnets.get(leg) for leg in LEGS]
    return _RECORD.pack(
        PASS if step.passing else STEP,
        FRAMES.index(step.frame),
        step.stamp,
        step.campaign_ns,
        *numbers,
        *(int(step.modes[leg]) for leg in LEGS),
        *(int(step.in_contact[leg]) for leg in LEGS),
        *(float(step.ranges[leg]) for leg in LEGS),
        *(int(step.contacts[leg]) for leg in LEGS),
        *(NO_MAGNET if m is None else int(m[0]) for m in magnets),
        *(0 if m is None else int(m[1]) for m in magnets),
    )


def decode(record: bytes) -> tuple[int, int] | Step:
    """A record: (:data:`START`, its stamp) or the :class:`Step` it holds."""
    fields = _RECORD.unpack(record)
    kind, frame, stamp, campaign_ns = fields[:4]
    if kind == START:
        return START, stamp
    if kind not in (STEP, PASS) or frame >= len(FRAMES):
        raise JournalError(f"a journal record of kind {kind}, frame {frame}")
    numbers = np.array(fields[4:28], dtype=float).reshape(len(LEGS), 6)
    modes, contact, ranges, contacts, enabled, sensed = (fields[28 + 4 * i : 32 + 4 * i] for i in range(6))
    return Step(
        stamp,
        campaign_ns,
        FRAMES[frame],
        {leg: numbers[i, :3].copy() for i, leg in enumerate(LEGS)},
        {leg: numbers[i, 3:].copy() for i, leg in enumerate(LEGS)},
        dict(zip(LEGS, modes)),
        {leg: bool(c) for leg, c in zip(LEGS, contact)},
        dict(zip(LEGS, ranges)),
        {leg: bool(c) for leg, c in zip(LEGS, contacts)},
        {leg: (bool(e), bool(s)) for leg, e, s in zip(LEGS, enabled, sensed) if e != NO_MAGNET},
        kind == PASS,
    )


def read(path: Path) -> tuple[int | None, list[Step]]:
    """The latest time line of the journal at ``path``: (its start, its steps in order); (None, [])
    when there is none. A partial last record (the writer killed mid-write) is dropped; anything
    else that is not whole records raises :class:`JournalError` naming the file."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None, []
    start: int | None = None
    steps: list[Step] = []
    whole = len(data) - len(data) % RECORD_BYTES
    try:
        for at in range(0, whole, RECORD_BYTES):
            record = decode(data[at : at + RECORD_BYTES])
            if isinstance(record, Step):
                if start is None:
                    raise JournalError("a step before the time line's start")
                steps.append(record)
            else:
                start, steps = record[1], []
    except (JournalError, struct.error) as exc:
        raise JournalError(f"{path} is not a sequencer's journal: {exc}") from None
    return start, steps


class Journal:
    """The journal at ``path``, appended to one record at a time (``path`` None: none is kept)."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._fd: int | None = None

    def start(self, start_ns: int) -> None:
        """A time line starts at ``start_ns``: the journal starts over with it."""
        if self.path is None:
            return
        self.close()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.write(self._fd, encode_start(start_ns))

    def resume(self) -> None:
        """Go on appending to the journal as it is (a partial last record dropped)."""
        if self.path is None:
            return
        self.close()
        self._fd = os.open(self.path, os.O_WRONLY)
        size = os.fstat(self._fd).st_size
        os.ftruncate(self._fd, size - size % RECORD_BYTES)
        os.lseek(self._fd, 0, os.SEEK_END)

    def step(self, step: Step) -> None:
        """Append ``step`` (after :meth:`start` or :meth:`resume`)."""
        if self._fd is not None:
            os.write(self._fd, encode_step(step))

    def close(self) -> None:
        """Stop appending."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
