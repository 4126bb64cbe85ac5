"""A node's checkpoint: the latest whole record is read back, a torn write spoils only its own slot,
a new time line clears it, and a file that is not one is refused by name."""

import pytest

from sally_node_common.checkpoint import SLOT_HEADER, Checkpoint, CheckpointError


def test_the_latest_record_is_read_back_and_a_torn_write_leaves_the_one_before(tmp_path):
    path = tmp_path / "state"
    keep = Checkpoint(path, 16)
    assert keep.read() is None
    for k in range(5):
        keep.write(bytes([k]) * 16)
    keep.close()
    assert Checkpoint(path, 16).read() == bytes([4]) * 16
    data = bytearray(path.read_bytes())  # the write of 4 torn: its slot's bytes half overwritten
    slot = SLOT_HEADER.size + 16
    at = slot * (5 % 2) + SLOT_HEADER.size + 8
    data[at : at + 4] = b"\xff" * 4
    path.write_bytes(bytes(data))
    again = Checkpoint(path, 16)
    assert again.read() == bytes([3]) * 16  # the slot before
    again.write(b"x" * 16)  # goes on after it, into the torn slot
    assert Checkpoint(path, 16).read() == b"x" * 16


def test_a_new_time_line_clears_it_and_none_is_kept_without_a_path(tmp_path):
    keep = Checkpoint(tmp_path / "state", 8)
    keep.write(b"12345678")
    keep.clear()
    assert not (tmp_path / "state").exists() and Checkpoint(tmp_path / "state", 8).read() is None
    nothing = Checkpoint(None, 8)
    nothing.write(b"12345678")
    assert nothing.read() is None


def test_a_file_that_is_not_a_checkpoint_and_a_record_too_big(tmp_path):
    foreign = tmp_path / "foreign"
    foreign.write_bytes(b"a" * 1000)
    with pytest.raises(CheckpointError, match="foreign is not a checkpoint"):
        Checkpoint(foreign, 8).read()
    with pytest.raises(CheckpointError, match="a record of 9 bytes"):
        Checkpoint(tmp_path / "x", 8).write(b"123456789")
