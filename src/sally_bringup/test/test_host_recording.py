"""The composed graph's own recording: what the host hands over is written, serialized once, in
order, and the file reads back as the raw tap's does."""

from __future__ import annotations

import os

from mcap.reader import make_reader
from mcap_ros2.decoder import DecoderFactory
from rclpy.serialization import serialize_message
from std_msgs.msg import Bool, String

from sally_bringup.host_recording import HostRecording
from sally_bringup.mcap_recording import McapRecorder, message_counts


def test_queued_messages_are_written_in_order_and_read_back(tmp_path):
    path = tmp_path / "run.mcap"
    serialized: list[object] = []

    def serialize(msg):
        serialized.append(msg)
        return serialize_message(msg)

    recording = HostRecording(McapRecorder(path), serialize)
    for i in range(500):
        recording("/robot_description", String(data=f"m{i}"), 1_000 + i)
    recording("/sally_sim/holding", serialize_message(Bool(data=True)), 5_000)  # an outside message: bytes
    recording.close()
    assert len(serialized) == 500  # bytes are written as they came
    with open(path, "rb") as stream:
        reader = make_reader(stream, decoder_factories=[DecoderFactory()])
        decoded = [
            (channel.topic, message.log_time, msg) for _, channel, message, msg in reader.iter_decoded_messages()
        ]
    assert [msg.data for topic, _, msg in decoded if topic == "/robot_description"] == [f"m{i}" for i in range(500)]
    assert decoded[-1][0] == "/sally_sim/holding" and decoded[-1][2].data is True and decoded[-1][1] == 5_000
    assert message_counts(path) == {"/robot_description": 500, "/sally_sim/holding": 1}


def test_a_failed_write_stops_the_recording_and_the_rest_is_dropped(tmp_path):
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

    stops: list[str] = []
    path = tmp_path / "run.mcap"
    recording = HostRecording(McapRecorder(path, on_stop=stops.append, open_file=Full))
    for i in range(20_000):
        recording("/robot_description", String(data=os.urandom(200).hex()), i)  # 8 MB, hardly compressible
    recording.close()
    assert len(stops) == 1 and "No space left on device" in stops[0]
    held = message_counts(path)["/robot_description"]
    assert 0 < held < 20_000 and f"holds the first {held} messages" in stops[0]
