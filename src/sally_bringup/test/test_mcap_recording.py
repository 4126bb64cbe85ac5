"""run.mcap when the disk fills: the recording stops, the run does not, and the file so far reads
back (a file object that fails after a byte budget stands in for a full disk)."""

import errno
import io

import pytest
from mcap.reader import make_reader
from mcap_ros2.decoder import DecoderFactory
from rclpy.serialization import serialize_message
from rosgraph_msgs.msg import Clock

from sally_bringup.mcap_recording import McapRecorder

TOPICS = {"/clock": "rosgraph_msgs/msg/Clock"}


class FillsUp(io.FileIO):
    """A file on a disk with ``room`` bytes: the write that reaches it is cut short, and every write
    after fails as ENOSPC until (``frees``) cutting the file back frees room again."""

    def __init__(self, path, room: int, frees: bool) -> None:
        super().__init__(path, "wb")
        self.room, self.frees, self.full = room, frees, False

    def write(self, data) -> int:
        left = self.room - self.tell()
        if self.full or left <= 0:
            self.full = True
            raise OSError(errno.ENOSPC, "No space left on device")
        return super().write(bytes(data)[:left])

    def truncate(self, size=None):
        self.full = self.full and not self.frees
        return super().truncate(size)


def clock(ns: int) -> bytes:
    msg = Clock()
    msg.clock.sec, msg.clock.nanosec = divmod(ns, 1_000_000_000)
    return serialize_message(msg)


def read_back(path):
    with open(path, "rb") as stream:
        return [m.clock.sec * 1_000_000_000 + m.clock.nanosec for *_, m in
                make_reader(stream, decoder_factories=[DecoderFactory()]).iter_decoded_messages()]  # fmt: skip


def test_a_whole_recording_holds_every_message(tmp_path):
    recorder = McapRecorder(tmp_path / "run.mcap", TOPICS)
    for i in range(3000):
        recorder("/clock", clock(i * 1_000_000), i)
    recorder.close()
    assert recorder.stopped is None and recorder.counts["/clock"] == 3000
    assert read_back(tmp_path / "run.mcap") == [i * 1_000_000 for i in range(3000)]


@pytest.mark.parametrize("footer_fits", [True, False])
def test_a_full_disk_stops_the_recording_and_keeps_what_was_written(tmp_path, footer_fits):
    stops = []
    recorder = McapRecorder(
        tmp_path / "run.mcap",
        TOPICS,
        on_stop=stops.append,
        open_file=lambda path: FillsUp(path, 2_500_000, frees=footer_fits),
    )
    sent = 0
    while recorder.stopped is None and sent < 1_000_000:
        recorder("/clock", clock(sent * 1_000_000), sent)
        sent += 1
    assert recorder.stopped is not None, "the disk never filled"
    assert "No space left on device" in recorder.stopped and stops == [recorder.stopped]
    recorder("/clock", clock(sent * 1_000_000), sent)  # later messages are dropped, nothing raises
    recorder.close()  # and closing a stopped recording is quiet
    held = recorder.counts["/clock"]
    assert 0 < held < sent and f"holds the first {held} messages" in recorder.stopped
    if footer_fits:  # closed with a footer: any reader opens it
        assert read_back(tmp_path / "run.mcap") == [i * 1_000_000 for i in range(held)]
    else:  # whole records, no footer: a streaming reader reads every one
        from mcap.exceptions import EndOfFile
        from mcap.reader import NonSeekingReader

        seen = []
        with open(tmp_path / "run.mcap", "rb") as stream:
            with pytest.raises(EndOfFile):
                for message in NonSeekingReader(stream).iter_messages(log_time_order=False):
                    seen.append(message[2].log_time)
        assert seen == list(range(held))
