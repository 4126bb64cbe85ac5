"""The sequencer's journal: records round-trip, a torn last record is dropped, a time line that
starts over starts the journal over, and a file that is not a journal is refused by name."""

import math

import numpy as np
import pytest

from sally_sequencer.journal import RECORD_BYTES, Journal, JournalError, Step, decode, encode_step, read

LEGS = ("FL", "FR", "BL", "BR")


def step(stamp, frame="world", passing=False):
    rng = np.random.default_rng(stamp)
    return Step(
        stamp,
        stamp - 5_000_000,
        frame,
        {leg: rng.standard_normal(3) for leg in LEGS},
        {leg: rng.standard_normal(3) for leg in LEGS},
        {leg: i % 3 for i, leg in enumerate(LEGS)},
        {leg: leg != "FR" for leg in LEGS},
        {"FL": 0.0123, "FR": math.inf, "BL": math.nan, "BR": 0.2},
        {leg: leg == "FL" for leg in LEGS},
        {"FL": (True, True), "BR": (False, True)},  # FR and BL: no telemetry heard
        passing,
    )


def same(a, b):
    assert (a.stamp, a.campaign_ns, a.frame, a.modes, a.in_contact, a.contacts, a.magnets, a.passing) == (
        b.stamp, b.campaign_ns, b.frame, b.modes, b.in_contact, b.contacts, b.magnets, b.passing,
    )  # fmt: skip
    for leg in LEGS:
        assert (
            a.positions[leg].tobytes() == b.positions[leg].tobytes() and a.hips[leg].tobytes() == b.hips[leg].tobytes()
        )
        assert (a.ranges[leg] == b.ranges[leg]) or (math.isnan(a.ranges[leg]) and math.isnan(b.ranges[leg]))


def test_a_step_round_trips_to_the_bit():
    for original in (step(11_005_000_000), step(3, "corner", passing=True)):
        record = encode_step(original)
        assert len(record) == RECORD_BYTES
        same(decode(record), original)


def test_the_latest_time_line_is_read_and_a_torn_last_record_dropped(tmp_path):
    path = tmp_path / "sequencer.journal"
    journal = Journal(path)
    journal.start(0)
    journal.step(step(5_000_000))
    journal.start(7_000_000_000)  # a reset: the journal starts over
    for k in range(3):
        journal.step(step(7_005_000_000 + k * 5_000_000))
    journal.close()
    with open(path, "ab") as tail:
        tail.write(encode_step(step(9))[:100])  # killed mid-write
    start, steps = read(path)
    assert start == 7_000_000_000 and [s.stamp for s in steps] == [7_005_000_000, 7_010_000_000, 7_015_000_000]
    same(steps[1], step(7_010_000_000))
    resumed = Journal(path)
    resumed.resume()  # appends after the last whole record
    resumed.step(step(7_020_000_000))
    resumed.close()
    assert [s.stamp for s in read(path)[1]][-2:] == [7_015_000_000, 7_020_000_000]
    assert path.stat().st_size % RECORD_BYTES == 0


def test_no_journal_and_a_foreign_file(tmp_path):
    assert read(tmp_path / "none") == (None, [])
    foreign = tmp_path / "foreign"
    foreign.write_bytes(b"\x07" * RECORD_BYTES)
    with pytest.raises(JournalError, match="foreign is not a sequencer's journal"):
        read(foreign)
    headless = tmp_path / "headless"
    headless.write_bytes(encode_step(step(5)))
    with pytest.raises(JournalError, match="before the time line's start"):
        read(headless)
    with pytest.raises(JournalError, match="frames"):
        encode_step(step(5, frame="elsewhere"))
