"""The composed graph's own recording: what the host hands over is serialized once, sent to a writer
process of its own, written in order, and the file reads back as the raw tap's does; a writer that
cannot write, or dies, stops the recording (said once, with the reason), never the publisher."""

from __future__ import annotations

import io
import os
import signal
import time

import pytest
from mcap.reader import make_reader
from mcap_ros2.decoder import DecoderFactory
from rclpy.serialization import serialize_message
from std_msgs.msg import Bool, String

from sally_bringup.host_recording import HostRecording
from sally_bringup.mcap_recording import McapRecorder, message_counts
from sally_bringup.outlet import FRAME, STOPPED, frames, say, serve
from sally_bringup.processes import wait_until

pytestmark = pytest.mark.timeout(60)


def test_queued_messages_are_written_in_order_and_read_back(tmp_path):
    path = tmp_path / "run.mcap"
    serialized: list[object] = []

    def serialize(msg):
        serialized.append(msg)
        return serialize_message(msg)

    stops: list[str] = []
    recording = HostRecording(path, on_stop=stops.append, serialize=serialize)
    for i in range(5000):
        recording("/robot_description", String(data=f"m{i}"), 1_000 + i)
    recording("/sally_sim/holding", serialize_message(Bool(data=True)), 9_000)  # an outside message: bytes
    recording("/not/recorded", String(data="x"), 9_001)  # not a topic of the run: left out
    recording.close()
    assert stops == [] and recording.stopped is None
    assert len(serialized) == 5000  # bytes are written as they came, once each
    with open(path, "rb") as stream:
        reader = make_reader(stream, decoder_factories=[DecoderFactory()])
        decoded = [
            (channel.topic, message.log_time, msg) for _, channel, message, msg in reader.iter_decoded_messages()
        ]
    assert [msg.data for topic, _, msg in decoded if topic == "/robot_description"] == [f"m{i}" for i in range(5000)]
    assert decoded[-1][0] == "/sally_sim/holding" and decoded[-1][2].data is True and decoded[-1][1] == 9_000
    assert message_counts(path) == {"/robot_description": 5000, "/sally_sim/holding": 1}


def test_a_file_that_cannot_be_written_stops_the_recording_not_the_publisher(tmp_path):
    stops: list[str] = []
    recording = HostRecording("/dev/full", on_stop=stops.append)  # every write: no space left on device
    assert wait_until(lambda: stops, 30.0), "the writer never said it stopped"
    start = time.monotonic()
    for i in range(2000):
        recording("/robot_description", String(data=f"m{i}"), i)
    assert time.monotonic() - start < 5.0, "the publisher was held up"
    recording.close()
    assert len(stops) == 1 and "No space left on device" in stops[0] and recording.stopped == stops[0]


def test_a_full_disk_stops_the_recording_but_not_the_live_server_beside_it():
    import json
    import struct

    from websockets.sync.client import connect

    stops: list[str] = []
    recording = HostRecording("/dev/full", on_stop=stops.append, foxglove_port=0)
    assert wait_until(lambda: stops and recording.foxglove_url, 30.0), (stops, recording.foxglove_url)
    try:
        with connect(recording.foxglove_url, subprotocols=["foxglove.sdk.v1"], open_timeout=10) as ws:
            channel = None
            while channel is None:
                frame = json.loads(ws.recv(timeout=5.0))
                if frame.get("op") == "advertise":
                    channel = next((c["id"] for c in frame["channels"] if c["topic"] == "/robot_description"), None)
            ws.send(json.dumps({"op": "subscribe", "subscriptions": [{"id": 1, "channelId": channel}]}))
            heard: list[str] = []
            deadline = time.monotonic() + 15.0
            i = 0
            while not heard and time.monotonic() < deadline:  # sent after the recording stopped
                recording("/robot_description", String(data=f"live {i}"), i)
                i += 1
                try:
                    data = ws.recv(timeout=0.2)
                except TimeoutError:
                    continue
                if isinstance(data, bytes) and data[0] == 0x01 and struct.unpack_from("<I", data, 1)[0] == 1:
                    heard.append(data[13:].decode(errors="replace"))
            assert heard and "live" in heard[0], "the live view went dark with the disk"
    finally:
        recording.close()
    assert len(stops) == 1 and "No space left on device" in stops[0]


def test_a_writer_killed_mid_run_stops_the_recording_and_keeps_what_it_wrote(tmp_path):
    path = tmp_path / "run.mcap"
    stops: list[str] = []
    recording = HostRecording(path, on_stop=stops.append)
    for i in range(100):
        recording("/robot_description", String(data=f"m{i}"), i)
    assert wait_until(lambda: path.exists() and path.stat().st_size > 0, 30.0), "the writer never opened the file"
    os.kill(recording._writer.pid, signal.SIGKILL)
    i = 100
    while not stops and i < 1_000_000:  # published on until the pipe says the writer is gone
        recording("/robot_description", String(data=os.urandom(100).hex()), i)
        i += 1
        if i % 1000 == 0:
            time.sleep(0.01)
    recording.close()
    assert len(stops) == 1 and "outlet process ended" in stops[0], stops
    assert path.exists()  # what it wrote stays (a streaming reader gets the whole chunks)


def frame(index: int, data: bytes, log_time: int) -> bytes:
    return FRAME.pack(index, len(data), log_time) + data


def test_frames_are_read_whole_across_reads_and_a_cut_one_is_dropped():
    stream = b"".join(frame(i % 3, bytes([i % 256]) * i, 10 * i) for i in range(300))
    cut = stream + FRAME.pack(1, 50, 7) + b"x" * 10  # a writer that died mid-frame

    class Trickle(io.RawIOBase):
        """Gives at most 7 bytes a read: frames split anywhere."""

        def __init__(self, data: bytes) -> None:
            self.data = data

        def read(self, n: int = -1) -> bytes:
            out, self.data = self.data[:7], self.data[7:]
            return out

    got = list(frames(Trickle(cut)))  # type: ignore[arg-type]
    assert got == [(i % 3, 10 * i, bytes([i % 256]) * i) for i in range(300)]


def test_a_full_disk_in_the_writer_says_stopped_once_and_keeps_what_was_written(tmp_path):
    class Full:
        def __init__(self, path):
            self.raw = open(path, "wb", buffering=0)  # noqa: SIM115 - closed by the recorder
            self.room = 2_500_000  # about two chunks

        def write(self, data):
            if len(data) > self.room:
                raise OSError(28, "No space left on device")
            self.room -= len(data)
            return self.raw.write(data)

        def truncate(self, size=None):
            return self.raw.truncate(size)

        def seek(self, *args):
            return self.raw.seek(*args)

        def close(self):
            self.raw.close()

    path = tmp_path / "run.mcap"
    out = io.StringIO()
    recorder = McapRecorder(path, on_stop=lambda why: say(out, STOPPED, why), open_file=Full)
    topics = ["/robot_description"]
    data = [serialize_message(String(data=os.urandom(200).hex())) for _ in range(20_000)]  # 8 MB, hardly compressible
    assert serve(io.BytesIO(b"".join(frame(0, d, i) for i, d in enumerate(data))), topics, [recorder]) == 20_000
    recorder.close()
    lines = out.getvalue().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"{STOPPED}\t") and "No space left on device" in lines[0]
    held = message_counts(path)["/robot_description"]
    assert 0 < held < 20_000 and f"holds the first {held} messages" in lines[0]


def test_a_container_killed_with_9_leaves_a_whole_file(tmp_path):
    """The writer finishes the file when its input ends, however the container ended."""
    import subprocess
    import sys

    path = tmp_path / "run.mcap"
    script = (
        "import os, signal, time\n"
        "from std_msgs.msg import String\n"
        "from sally_bringup.host_recording import HostRecording\n"
        f"recording = HostRecording({str(path)!r})\n"
        "for i in range(3000):\n"
        "    recording('/robot_description', String(data=f'm{i}'), i)\n"
        "deadline = time.monotonic() + 30\n"
        "while recording.pending and time.monotonic() < deadline:  # all sent to the writer\n"
        "    time.sleep(0.01)\n"
        "os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    container = subprocess.run([sys.executable, "-c", script], timeout=60)
    assert container.returncode == -signal.SIGKILL

    def summary_written() -> bool:
        from mcap.exceptions import McapError

        try:
            with open(path, "rb") as stream:
                summary = make_reader(stream).get_summary()
        except (McapError, EOFError, ValueError):
            return False  # still being written
        return summary is not None and summary.statistics is not None

    assert wait_until(summary_written, 30.0), "the writer did not finish the file"
    assert message_counts(path) == {"/robot_description": 3000}


def test_the_outlet_starts_without_rclpy():
    """The outlet process writes bytes it is handed: what it imports to write the MCAP and serve
    Foxglove is topic names and schema texts, not rclpy (0.3-0.5 s of its start-up, beside the
    container's own on two cores)."""
    import subprocess
    import sys

    probe = (
        "import sys\n"
        "import sally_bringup.outlet, sally_bringup.mcap_recording, sally_bringup.foxglove_live\n"
        "from sally_bringup.topology import RECORDED\n"
        "assert RECORDED, 'no topics'\n"
        "print(sorted(m for m in sys.modules if m == 'rclpy' or m.startswith('rclpy.')))\n"
    )
    found = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True)
    assert found.stdout.strip() == "[]", found.stdout
