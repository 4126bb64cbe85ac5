"""A composed graph's recording, written by the process that publishes (``sally_composed
record_to:=PATH``): the same ``run.mcap`` the runner's raw tap writes (every topic of
:data:`~sally_bringup.raw_tap.TOPICS`, ``ros2`` profile, schemas), with no DDS in between.

The host hands over each published message as the object (:meth:`sally_node_common.host.Host.tap`);
a thread of this module's own serializes it (once) and writes it, so the publishing thread (the
sim's physics loop) only appends to a queue. Messages from outside publishers come as the bytes
DDS brought. Log time is the wall clock at publication, as the raw tap's is at arrival.

The recording's state goes on ``/diagnostics`` as ``sally_recorder: recording`` (from a plain,
unhosted node, ``sally_recorder``): said once it opens, and at once when a failed write stops it
(the disk full), with the reason, which the runner puts in the report.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from .mcap_recording import McapRecorder
from .recording import RECORDING_STATUS

QUEUE_LIMIT = 20_000
"""Messages waiting to be written at most (~3 s of the f2w graph): past it, a publisher waits for the
writer (nothing is dropped)."""
IDLE = 0.005
"""Wall seconds the writer sleeps when nothing waits."""


class HostRecording:
    """Serializes and writes what the host's tap hands it, in a thread of its own."""

    def __init__(self, recorder: McapRecorder, serialize: Callable[[Any], bytes] | None = None) -> None:
        if serialize is None:
            from rclpy.serialization import serialize_message

            serialize = serialize_message
        self.recorder = recorder
        self._serialize: Callable[[Any], bytes] = serialize
        self._queue: deque = deque()
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._write, name="sally recording", daemon=True)
        self._thread.start()

    def __call__(self, topic: str, msg: Any, log_time: int) -> None:
        """The host's tap: queue ``msg`` (an object or bytes) of ``topic``."""
        while len(self._queue) >= QUEUE_LIMIT and self._thread.is_alive():
            time.sleep(IDLE)  # the writer is behind by seconds: wait for it rather than lose messages
        self._queue.append((topic, msg, log_time))

    def _write(self) -> None:
        queue, recorder = self._queue, self.recorder
        while True:
            try:
                topic, msg, log_time = queue.popleft()
            except IndexError:
                if self._done.is_set():
                    return
                time.sleep(IDLE)
                continue
            if recorder.stopped is not None:
                continue  # a write failed: the rest is dropped, the run goes on
            data = msg if isinstance(msg, (bytes, bytearray)) else self._serialize(msg)
            recorder(topic, bytes(data), log_time)

    def close(self) -> None:
        """Write what is queued, then finish the file."""
        self._done.set()
        self._thread.join()
        self.recorder.close()


def open_recording(host, node, path) -> HostRecording:
    """Record what ``host`` publishes into ``path`` (:class:`McapRecorder`); ``node`` (not hosted)
    says the recording's state on /diagnostics."""
    from diagnostic_msgs.msg import DiagnosticArray

    from sally_node_common.diagnostics import diagnostic_array, diagnostic_status

    from .raw_tap import TOPICS

    publisher = node.create_publisher(DiagnosticArray, "/diagnostics", 10)

    def say(level: str, message: str, stopped: str = "") -> None:
        values = {"path": str(path), **({"stopped": stopped} if stopped else {})}
        publisher.publish(diagnostic_array([diagnostic_status(RECORDING_STATUS, level, message, values)]))

    def on_stop(why: str) -> None:
        node.get_logger().error(f"the recording stopped: {why}; the run goes on")
        say("error", "stopped", why)

    recording = HostRecording(McapRecorder(path, on_stop=on_stop))
    host.tap(recording, TOPICS)
    say("ok", "recording")
    return recording
