"""A node's latest state on disk, where a node started again after a crash reads it (pure, no ROS).

A checkpoint holds one small record (bytes), rewritten as often as the node's state changes (the
state estimator: every update). A node may be killed in the middle of a write, so the file has two
slots, written in turn, each with the record's length, a sequence number and a CRC-32: a torn
write spoils at most the slot being written, and the reader takes the valid slot with the higher
sequence number. Each write is one ``pwrite`` straight to the file (nothing buffered in the process,
which a ``kill -9`` would lose); what the OS holds survives the process, which is the crash that
matters here (a power cut is the robot's, and its state is then no longer the world's anyway).
"""

from __future__ import annotations

import os
import struct
import zlib
from pathlib import Path

SLOT_HEADER = struct.Struct("<IQI")
"""A slot's header: the record's length, its sequence number, the CRC-32 of both and the record."""


class CheckpointError(ValueError):
    """A checkpoint file that is not one (its slots' sizes do not fit a record)."""


class Checkpoint:
    """Records of at most ``size`` bytes at ``path`` (None: nothing is kept)."""

    def __init__(self, path: Path | None, size: int) -> None:
        self.path, self.size = path, size
        self._slot_bytes = SLOT_HEADER.size + size
        self._fd: int | None = None
        self._sequence = 0

    def read(self) -> bytes | None:
        """The latest whole record (None: none, or no file); also where the next write goes on."""
        if self.path is None:
            return None
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return None
        if len(data) > 2 * self._slot_bytes:
            raise CheckpointError(f"{self.path} is not a checkpoint of records of {self.size} bytes")
        best: tuple[int, bytes] | None = None
        for slot in range(2):
            record = self._slot(data[slot * self._slot_bytes : (slot + 1) * self._slot_bytes])
            if record is not None and (best is None or record[0] > best[0]):
                best = record
        if best is None:
            return None
        self._sequence = best[0]
        return best[1]

    def _slot(self, data: bytes) -> tuple[int, bytes] | None:
        if len(data) < SLOT_HEADER.size:
            return None
        length, sequence, crc = SLOT_HEADER.unpack_from(data)
        record = data[SLOT_HEADER.size : SLOT_HEADER.size + length]
        if length > self.size or len(record) != length or zlib.crc32(data[:12] + record) != crc:
            return None
        return sequence, record

    def write(self, record: bytes) -> None:
        """``record`` as the latest (into the slot the one before it is not in)."""
        if self.path is None:
            return
        if len(record) > self.size:
            raise CheckpointError(f"a record of {len(record)} bytes in a checkpoint of {self.size}")
        if self._fd is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        self._sequence += 1
        head = struct.pack("<IQ", len(record), self._sequence)
        data = head + struct.pack("<I", zlib.crc32(head + record)) + record
        os.pwrite(self._fd, data, (self._sequence % 2) * self._slot_bytes)

    def clear(self) -> None:
        """No record any more (a new time line: the old state is no one's)."""
        if self.path is None:
            return
        self.close()
        self.path.unlink(missing_ok=True)
        self._sequence = 0

    def close(self) -> None:
        """Stop writing (the file stays)."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
