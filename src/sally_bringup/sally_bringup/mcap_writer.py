"""``python -m sally_bringup.mcap_writer PATH``: a process that writes ``run.mcap`` from framed bytes.

The composed container's recording (:mod:`.host_recording`) serializes each message once and
streams it here on this process's standard input; this process does the rest (MCAP records, the
chunk index, LZ4, the file's writes) on a core and an interpreter lock of its own, so none of it
holds up the physics loop.

On standard input, one frame per message: :data:`FRAME` (the topic's index in
:data:`~sally_bringup.raw_tap.TOPICS`, the data's length, the log time in ns), then the serialized
CDR. End of input (the container closed it, or died) finishes the file, summary and index
included. On standard output, one line when the recording stops early (the disk full, the file
cannot be opened): ``stopped<TAB>reason``; later frames are read and dropped, so the container
is never held up.

SIGINT and SIGTERM are ignored: a Ctrl-C reaches the whole process group, and this process must
outlive its container long enough to write what it was sent.
"""

from __future__ import annotations

import signal
import struct
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import BinaryIO, TextIO

FRAME = struct.Struct("<HIq")
"""A message's frame header: topic index (u16), data length (u32), log time (ns, i64)."""
STOPPED = "stopped"
"""The first word of the line that says the recording stopped early."""
READ = 1 << 20
"""Bytes read from standard input at a time."""


def frames(stream: BinaryIO) -> Iterator[tuple[int, int, bytes]]:
    """``(topic index, log time, data)`` for every whole frame on ``stream``, until its end (a
    frame cut short by the writer's death is dropped)."""
    buffer = bytearray()
    start = 0
    while True:
        chunk = stream.read(READ)
        if not chunk:
            return
        buffer += chunk
        end = len(buffer)
        while end - start >= FRAME.size:
            index, length, log_time = FRAME.unpack_from(buffer, start)
            stop = start + FRAME.size + length
            if stop > end:
                break
            yield index, log_time, bytes(buffer[start + FRAME.size : stop])
            start = stop
        del buffer[:start]
        start = 0


def serve(stream: BinaryIO, topics: Sequence[str], recorder: Callable[[str, bytes, int], None]) -> int:
    """Hand every frame on ``stream`` to ``recorder(topic, data, log_time)``; messages written."""
    count = 0
    for index, log_time, data in frames(stream):
        recorder(topics[index], data, log_time)
        count += 1
    return count


def say_stopped(out: TextIO, why: str) -> None:
    """The line that tells the container the recording stopped (one line: newlines folded)."""
    out.write(f"{STOPPED}\t{' '.join(why.split())}\n")
    out.flush()


def main(argv: list[str] | None = None) -> int:
    """Write the frames on standard input into the MCAP file named by the one argument."""
    from .mcap_recording import McapRecorder
    from .raw_tap import TOPICS

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m sally_bringup.mcap_writer PATH  (frames on standard input)", file=sys.stderr)
        return 2
    path = Path(args[0])
    topics = list(TOPICS)
    try:
        recorder = McapRecorder(path, on_stop=lambda why: say_stopped(sys.stdout, why))
    except OSError as exc:
        say_stopped(sys.stdout, f"cannot write {path.name}: {exc}")
        serve(sys.stdin.buffer, topics, lambda *_: None)  # read on, so the container never waits
        return 0
    serve(sys.stdin.buffer, topics, recorder)
    recorder.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
