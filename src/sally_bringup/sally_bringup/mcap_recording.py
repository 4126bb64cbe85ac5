"""Every topic of a graph run into ``run.mcap``, as the serialized CDR the nodes sent.

A :class:`~sally_bringup.raw_tap.RawTap` sink: messages come as bytes off the wire, never converted
in Python. Each channel carries its type's full ``ros2msg`` definition as its schema
(:mod:`.msg_definitions`) in the ``ros2`` MCAP profile, so ``ros2 bag info`` / ``ros2 bag play``,
Foxglove and PlotJuggler open the file, and the ``mcap-ros2-support`` decoder reads it back. Log
time is the wall clock at arrival (ns); the messages' own stamps are sim time. Chunks are LZ4
compressed (ZSTD made the f2w run slower here for a 20 % smaller file).
"""

from __future__ import annotations

import io
import threading
from collections import Counter
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import IO, cast

from mcap.data_stream import RecordBuilder
from mcap.records import DataEnd, Footer
from mcap.writer import MCAP0_MAGIC, CompressionType, Writer

from .msg_definitions import schema_text
from .topology import RECORDED as TOPICS


class _WholeWrites:
    """The file under the MCAP writer, unbuffered (the writer hands over whole records): every
    ``write`` goes out whole (a raw write may be short) or raises, and :attr:`position` counts only
    bytes the OS took, so a failed write can be cut off. Not an ``io.RawIOBase``: the writer would
    put a buffer in between."""

    def __init__(self, raw) -> None:
        self.raw, self.position = raw, 0

    def write(self, data) -> int:
        view = memoryview(data)
        while view:
            n = self.raw.write(view)
            if not n:
                raise OSError(f"the file took no bytes at offset {self.position}")
            self.position += n
            view = view[n:]
        return len(data)

    def tell(self) -> int:
        return self.position

    def truncate(self, size=None) -> int:
        self.raw.truncate(size)
        self.raw.seek(size)
        self.position = size
        return size

    def close(self) -> None:
        self.raw.close()


class McapRecorder:
    """Writes what it is given (``recorder(topic, data, log_time)``) into ``path``.

    A write that fails (the disk full, a storage error) stops the recording, not the run: what was
    written before it stays, cut back to the last whole record and closed with an MCAP footer when
    the disk takes those few bytes (else readable by a streaming reader, e.g. ``mcap recover``);
    :attr:`stopped` says why and ``on_stop(reason)`` is called once. ``open_file(path)`` opens the
    raw binary file (tests pass one that fails)."""

    def __init__(
        self,
        path: Path,
        topics: Mapping[str, str] = TOPICS,
        on_stop: Callable[[str], None] | None = None,
        open_file: Callable[[Path], io.RawIOBase] = lambda path: open(path, "wb", buffering=0),
    ) -> None:
        self.path = Path(path)
        self.counts: Counter[str] = Counter()
        """Messages per topic in the file: written out in a whole chunk (all of them once closed)."""
        self._pending: Counter[str] = Counter()
        """Messages in the chunk being built (lost if a write fails before it goes out)."""
        self.stopped: str | None = None
        """Why the recording stopped before the run's end (None while it records)."""
        self._on_stop = on_stop
        self._lock = threading.Lock()
        self._file = _WholeWrites(open_file(self.path))
        self._writer = Writer(cast(IO[bytes], self._file), compression=CompressionType.LZ4)  # it writes and tells
        self._writer.start(profile="ros2", library="sally_bringup.mcap_recording")
        self._sequence = 0
        self._closed = False
        schemas: dict[str, int] = {}
        self._channels: dict[str, int] = {}
        for topic, type_name in topics.items():
            if type_name not in schemas:
                schemas[type_name] = self._writer.register_schema(type_name, "ros2msg", schema_text(type_name).encode())
            self._channels[topic] = self._writer.register_channel(topic, "cdr", schemas[type_name])
        self._whole = self._file.position
        """Where the last whole record ends: what a failed write is cut back to."""

    def __call__(self, topic: str, data: bytes, log_time: int) -> None:
        """Write one serialized message of ``topic`` (log time ``log_time`` ns); ignored once closed or for an unknown
        topic."""
        with self._lock:
            if self._closed or topic not in self._channels:
                return
            try:
                self._writer.add_message(
                    self._channels[topic], log_time=log_time, data=data, publish_time=log_time, sequence=self._sequence
                )
            except OSError as exc:
                self._fail(exc)
                return
            self._sequence += 1
            self._pending[topic] += 1
            if self._file.position != self._whole:  # a chunk went out, this message in it
                self._whole = self._file.position
                self.counts.update(self._pending)
                self._pending.clear()

    def close(self) -> None:
        """Finish the file (its summary and index); later messages are dropped."""
        with self._lock:
            if self._closed:
                return
            try:
                self._writer.finish()
            except OSError as exc:
                self._fail(exc)
                return
            self._closed = True
            self._file.close()
            self.counts.update(self._pending)
            self._pending.clear()

    def _fail(self, exc: OSError) -> None:
        """Stop recording: cut the file back to its last whole record and close it with a footer
        (no summary) if the disk takes one."""
        self._closed = True
        self._pending.clear()
        held = sum(self.counts.values())
        self.stopped = f"writing {self.path.name} failed; it holds the first {held} messages: {exc}"
        try:
            self._file.truncate(self._whole)
            end = RecordBuilder()
            DataEnd(0).write(end)
            Footer(0, 0, 0).write(end)
            self._file.write(end.end() + MCAP0_MAGIC)
        except OSError:
            pass  # no room even for the footer: the records before it are whole
        finally:
            self._file.close()
        if self._on_stop is not None:
            self._on_stop(self.stopped)


def message_counts(path: Path) -> dict[str, int]:
    """Messages per topic in the MCAP file ``path``: from its summary, or, for a file cut short (a
    recording stopped by a failed write has none), by reading its records up to where it ends."""
    from mcap.exceptions import McapError
    from mcap.reader import make_reader
    from mcap.records import Channel, Message
    from mcap.stream_reader import StreamReader

    with open(path, "rb") as stream:
        summary = make_reader(stream).get_summary()
    if summary is not None and summary.statistics is not None:
        return {summary.channels[c].topic: n for c, n in summary.statistics.channel_message_counts.items() if n}
    counts: Counter[str] = Counter()
    topics: dict[int, str] = {}
    with open(path, "rb") as stream:
        try:
            for record in StreamReader(stream, skip_magic=False).records:
                if isinstance(record, Channel):
                    topics[record.id] = record.topic
                elif isinstance(record, Message):
                    counts[topics[record.channel_id]] += 1
        except (McapError, EOFError, ValueError):
            pass  # the end of what was written whole
    return dict(counts)
