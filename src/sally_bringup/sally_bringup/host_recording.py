"""A composed graph's recording and live view, made by the process that publishes (``sally_composed
record_to:=PATH foxglove_to:=PORT``): the same ``run.mcap`` the runner's raw tap writes (every
topic of :data:`~sally_bringup.raw_tap.TOPICS`, ``ros2`` profile, schemas) and the same Foxglove
server, with no DDS in between.

The host hands over each published message serialized, once for the recording and DDS
(:meth:`sally_node_common.host.Host.tap`), in the publishing thread or, with the sim in the
container, while its loop waits for the physics (:mod:`sally_node_common.deferred`); its bytes
are queued; a thread sends the queue in large writes (the interpreter lock released) to an outlet
process of its own (:mod:`.outlet`), which builds the MCAP records, compresses the chunks and
writes the file, and serves the Foxglove WebSocket protocol.
(A writer thread in the container lost to the physics loop for the interpreter lock: why, in
``docs/design-notes.md``.)
Messages from outside publishers come as the bytes DDS brought. Log time is the wall clock at
publication, as the raw tap's is at arrival.

The recording's state goes on ``/diagnostics`` as ``sally_recorder: recording`` (from a plain,
unhosted node, ``sally_recorder``): said once it opens, and at once when the writer says it
stopped (the disk full, the file not writable) or is gone, with the reason, which the runner puts
in the report. The run goes on either way.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .outlet import FOXGLOVE, FRAME, STOPPED
from .raw_tap import TOPICS
from .recording import RECORDING_STATUS

SEND_EVERY = 0.005
"""Wall seconds between two sends to the writer when little is queued."""
SEND_AT = 1 << 18
"""Queued bytes that wake the sender at once."""
QUEUE_LIMIT = 64 << 20
"""Queued bytes at most (seconds of the f2w graph): past it, a publisher waits for the writer
(nothing is dropped)."""
WRITER_EXIT = 60.0
"""Wall seconds the writer has to finish the file once everything is sent."""


class HostRecording:
    """The host's tap into an :mod:`.outlet` process writing ``path`` and/or serving Foxglove on
    ``foxglove_port`` (0: a free port).

    ``on_stop(reason)`` is called once if the recording stops before :meth:`close` (the outlet's
    own reason, or that it is gone); :attr:`stopped` holds the reason. ``on_foxglove(url)`` is
    called once the live server listens; :attr:`foxglove_url` holds its address."""

    def __init__(
        self,
        path: Path | str | None,
        on_stop: Callable[[str], None] | None = None,
        serialize: Callable[[Any], bytes] | None = None,
        foxglove_port: int | None = None,
        on_foxglove: Callable[[str], None] | None = None,
    ) -> None:
        if serialize is None:
            from rclpy.serialization import serialize_message

            serialize = serialize_message
        if path is None and foxglove_port is None:
            raise ValueError("nothing to do: give a path to record to, a Foxglove port or both")
        self.path = Path(path) if path is not None else None
        self.stopped: str | None = None
        """Why the recording stopped before the end (None while it records)."""
        self.foxglove_url: str | None = None
        """The live server's address once it listens."""
        self._serving = foxglove_port is not None
        """The outlet serves Foxglove: it wants the frames even after the recording stopped."""
        self._gone = False
        """The outlet process is gone (nothing more can be sent)."""
        self._on_foxglove = on_foxglove
        self._serialize = serialize
        self._on_stop = on_stop
        self._index = {topic: i for i, topic in enumerate(TOPICS)}  # the outlet's order
        self._queue: list[bytes] = []
        self._queued = 0
        self._in_flight = 0
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._done = False
        self._stop_lock = threading.Lock()
        command = [sys.executable, "-m", "sally_bringup.outlet"]
        command += ["--mcap", str(self.path)] if self.path is not None else []
        command += ["--foxglove-port", str(foxglove_port)] if foxglove_port is not None else []
        self._writer = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=False,
        )
        self._fd = self._writer.stdin.fileno()  # type: ignore[union-attr]
        self._sender = threading.Thread(target=self._send, name="sally recording", daemon=True)
        self._listener = threading.Thread(target=self._listen, name="sally recording status", daemon=True)
        self._sender.start()
        self._listener.start()

    def __call__(self, topic: str, msg: Any, log_time: int) -> None:
        """The host's tap: queue ``msg``'s bytes (a message is serialized here)."""
        index = self._index.get(topic)
        if index is None or not self._wanted:
            return
        data = msg if isinstance(msg, (bytes, bytearray)) else self._serialize(msg)
        frame = FRAME.pack(index, len(data), log_time)
        while self._queued > QUEUE_LIMIT and self._sender.is_alive():
            time.sleep(SEND_EVERY)  # the writer is behind by seconds: wait for it rather than lose messages
        with self._lock:
            self._queue.append(frame)
            self._queue.append(bytes(data))
            self._queued += len(frame) + len(data)
        if self._queued >= SEND_AT:
            self._wake.set()

    def _send(self) -> None:
        """Send what is queued, in one write each time (the lock released while the pipe takes it)."""
        while True:
            self._wake.wait(SEND_EVERY)
            self._wake.clear()
            with self._lock:
                batch, self._queue, self._in_flight, self._queued = self._queue, [], self._queued, 0
                done = self._done
            if batch and self._wanted:
                try:
                    view = memoryview(b"".join(batch))
                    while view:
                        view = view[os.write(self._fd, view) :]
                except OSError as exc:  # the writer is gone (killed, crashed)
                    self._gone = True
                    self._stop(f"the outlet process ended ({exc}); the file holds what it wrote")
            self._in_flight = 0
            if done:
                return

    @property
    def _wanted(self) -> bool:
        """Whether the outlet still takes frames: it is there, and records or serves."""
        return not self._gone and (self.stopped is None or self._serving)

    @property
    def pending(self) -> int:
        """Bytes queued or being sent, not yet taken by the writer process."""
        return self._queued + self._in_flight

    def _listen(self) -> None:
        """The outlet's lines: ``stopped<TAB>reason`` when the recording stopped early,
        ``foxglove<TAB>url`` once the live server listens."""
        for line in self._writer.stdout:  # type: ignore[union-attr]
            word, _, text = line.decode(errors="replace").rstrip("\n").partition("\t")
            if word == STOPPED:
                self._stop(text)
            elif word == FOXGLOVE:
                self.foxglove_url = text
                if self._on_foxglove is not None:
                    self._on_foxglove(text)

    def _stop(self, why: str) -> None:
        with self._stop_lock:
            if self.stopped is not None:
                return
            self.stopped = why
        if self._on_stop is not None:
            self._on_stop(why)

    def close(self) -> None:
        """Send what is queued, then let the writer finish the file (its summary and index)."""
        with self._lock:
            self._done = True
        self._wake.set()
        self._sender.join()
        self._writer.stdin.close()  # type: ignore[union-attr]
        try:
            self._writer.wait(WRITER_EXIT)
        except subprocess.TimeoutExpired:
            self._writer.kill()
            self._writer.wait()
            self._stop(f"the outlet did not finish within {WRITER_EXIT:g} s")
        self._listener.join()
        if self._writer.returncode and self.stopped is None:
            self._stop(f"the outlet process ended with status {self._writer.returncode}")


def open_recording(host, node, path, foxglove_port: int | None = None, deferred: bool = False) -> HostRecording:
    """Record what ``host`` publishes into ``path`` (None: no file) and serve it live on
    ``foxglove_port`` (None: no server); ``node`` (not hosted) says the recording's state on
    /diagnostics and the server's address in its log. ``deferred``: the messages are taken when
    the host has a moment to spare (:attr:`~sally_node_common.host.Host.later`), serialized then."""
    from diagnostic_msgs.msg import DiagnosticArray

    from sally_node_common.diagnostics import diagnostic_array, diagnostic_status

    publisher = node.create_publisher(DiagnosticArray, "/diagnostics", 10)

    def say(level: str, message: str, stopped: str = "") -> None:
        values = {"path": str(path), **({"stopped": stopped} if stopped else {})}
        publisher.publish(diagnostic_array([diagnostic_status(RECORDING_STATUS, level, message, values)]))

    def on_stop(why: str) -> None:
        node.get_logger().error(f"the recording stopped: {why}; the run goes on")
        say("error", "stopped", why)

    def on_foxglove(url: str) -> None:
        node.get_logger().info(f"Foxglove: open a WebSocket connection to {url} in the Foxglove app")

    recording = HostRecording(path, on_stop=on_stop, foxglove_port=foxglove_port, on_foxglove=on_foxglove)
    host.tap(recording, TOPICS, serialized=True, deferred=deferred)  # the bytes, made once for it and DDS
    if path is not None:
        say("ok", "recording")
    return recording
