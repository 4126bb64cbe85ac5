"""Every topic of a graph run into ``run.mcap``, as the serialized CDR the nodes sent.

A :class:`~sally_bringup.raw_tap.RawTap` sink: messages come as bytes off the wire, never converted
in Python. Each channel carries its type's full ``ros2msg`` definition as its schema
(:mod:`.msg_definitions`) in the ``ros2`` MCAP profile, so ``ros2 bag info`` / ``ros2 bag play``,
Foxglove and PlotJuggler open the file, and the ``mcap-ros2-support`` decoder reads it back. Log
time is the wall clock at arrival (ns); the messages' own stamps are sim time. Chunks are LZ4
compressed (ZSTD made the f2w run slower here for a 20 % smaller file).
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Mapping
from pathlib import Path

from mcap.writer import CompressionType, Writer

from .msg_definitions import schema_text
from .raw_tap import TOPICS


class McapRecorder:
    """Writes what it is given (``recorder(topic, data, log_time)``) into ``path``."""

    def __init__(self, path: Path, topics: Mapping[str, str] = TOPICS) -> None:
        self.path = Path(path)
        self.counts: Counter[str] = Counter()
        self._lock = threading.Lock()
        self._file = open(self.path, "wb")
        self._writer = Writer(self._file, compression=CompressionType.LZ4)
        self._writer.start(profile="ros2", library="sally_bringup.mcap_recording")
        self._sequence = 0
        self._closed = False
        schemas: dict[str, int] = {}
        self._channels: dict[str, int] = {}
        for topic, type_name in topics.items():
            if type_name not in schemas:
                schemas[type_name] = self._writer.register_schema(type_name, "ros2msg", schema_text(type_name).encode())
            self._channels[topic] = self._writer.register_channel(topic, "cdr", schemas[type_name])

    def __call__(self, topic: str, data: bytes, log_time: int) -> None:
        with self._lock:
            if self._closed or topic not in self._channels:
                return
            self._writer.add_message(
                self._channels[topic], log_time=log_time, data=data, publish_time=log_time, sequence=self._sequence
            )
            self._sequence += 1
            self.counts[topic] += 1

    def close(self) -> None:
        """Finish the file (its summary and index); later messages are dropped."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._writer.finish()
            self._file.close()
