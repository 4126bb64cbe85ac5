"""``python -m sally_bringup.outlet [--mcap PATH] [--foxglove-port N]``: where a composed run's
messages leave it: ``run.mcap`` and the Foxglove live server, fed framed bytes.

The composed container (:mod:`.host_recording`) serializes each message once and streams it here on
this process's standard input; this process does the rest on a core and an interpreter lock of
its own, so none of it holds up the physics loop: the MCAP records, the chunk index, LZ4 and the
file's writes (:class:`~.mcap_recording.McapRecorder`), and the WebSocket server with its channels
(:class:`~.foxglove_live.FoxgloveLive`).

On standard input, one frame per message: :data:`FRAME` (the topic's index in
:data:`~sally_bringup.topology.RECORDED`, the data's length, the log time in ns), then the serialized
CDR. End of input (the container closed it, or died) finishes the file, summary and index
included, and stops the server. On standard output, one line for each of these:
``stopped<TAB>reason`` when the recording stops early (the disk full, the file cannot be opened;
later frames are read and dropped for it, so the container is never held up), and
``foxglove<TAB>ws://HOST:PORT`` once the server listens (a server that cannot start is said on
standard error; the recording goes on).

SIGINT and SIGTERM are ignored: a Ctrl-C reaches the whole process group, and this process must
outlive its container long enough to write what it was sent.
"""

from __future__ import annotations

import argparse
import signal
import struct
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import BinaryIO, TextIO

FRAME = struct.Struct("<HIq")
"""A message's frame header: topic index (u16), data length (u32), log time (ns, i64)."""
STOPPED = "stopped"
"""The first word of the line that says the recording stopped early."""
FOXGLOVE = "foxglove"
"""The first word of the line that gives the live server's address."""
READ = 1 << 20
"""Bytes read from standard input at a time, at most."""

Sink = Callable[[str, bytes, int], None]


def frames(stream: BinaryIO) -> Iterator[tuple[int, int, bytes]]:
    """``(topic index, log time, data)`` for every whole frame on ``stream``, until its end (a
    frame cut short by the writer's death is dropped)."""
    # read1: what the pipe holds now (read() would wait for READ bytes, holding a live view back)
    read = getattr(stream, "read1", stream.read)
    buffer = bytearray()
    start = 0
    while True:
        chunk = read(READ)
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


def serve(stream: BinaryIO, topics: Sequence[str], sinks: Sequence[Sink]) -> int:
    """Hand every frame on ``stream`` to each of ``sinks`` as ``(topic, data, log_time)``; the
    number of messages."""
    count = 0
    for index, log_time, data in frames(stream):
        topic = topics[index]
        for sink in sinks:
            sink(topic, data, log_time)
        count += 1
    return count


def say(out: TextIO, word: str, text: str) -> None:
    """One line to the container: ``word<TAB>text`` (newlines in ``text`` folded)."""
    out.write(f"{word}\t{' '.join(text.split())}\n")
    out.flush()


def parse(argv: Sequence[str]) -> argparse.Namespace:
    """The outlet's command line; at least one of ``--mcap`` and ``--foxglove-port``."""
    parser = argparse.ArgumentParser(prog="python -m sally_bringup.outlet", description=__doc__.splitlines()[0])
    parser.add_argument("--mcap", help="write the run's MCAP file here")
    parser.add_argument("--foxglove-port", type=int, help="serve the Foxglove WebSocket protocol on 127.0.0.1:N")
    args = parser.parse_args(argv)
    if args.mcap is None and args.foxglove_port is None:
        parser.error("nothing to do: give --mcap PATH, --foxglove-port N or both")
    return args


def main(argv: list[str] | None = None) -> int:
    """Hand the frames on standard input to the MCAP file and the live server asked for."""
    from pathlib import Path

    from .topology import RECORDED as TOPICS

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    args = parse(sys.argv[1:] if argv is None else argv)
    sinks: list[Sink] = []
    closers: list[Callable[[], None]] = []
    if args.mcap is not None:
        from .mcap_recording import McapRecorder

        path = Path(args.mcap)
        try:
            recorder = McapRecorder(path, on_stop=lambda why: say(sys.stdout, STOPPED, why))
            sinks.append(recorder)
            closers.append(recorder.close)
        except OSError as exc:
            say(sys.stdout, STOPPED, f"cannot write {path.name}: {exc}")
    if args.foxglove_port is not None:
        from .foxglove_live import FoxgloveLive

        try:
            live = FoxgloveLive(port=args.foxglove_port)
            sinks.append(live)
            closers.append(live.close)
            say(sys.stdout, FOXGLOVE, live.url)
        except Exception as exc:  # noqa: BLE001 - the server's own error (a port in use): said, the recording goes on
            print(f"outlet: the Foxglove server did not start on port {args.foxglove_port}: {exc}", file=sys.stderr)
    serve(sys.stdin.buffer, list(TOPICS), sinks)  # without a sink: read on, so the container never waits
    for close in closers:
        close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
