"""Readings a tick uses: chosen by stamp, not by arrival (no ROS)."""

import math

from sally_node_common.stamped_readings import READING_AGE_NS, StampedReadings

MS = 1_000_000


def test_a_tick_takes_the_newest_reading_old_enough():
    readings = StampedReadings()
    for stamp, value in ((0, 0.10), (20 * MS, 0.09), (40 * MS, 0.08)):
        readings.add(("range", "FL"), stamp, value)
    assert readings.at(("range", "FL"), 40 * MS) == 0.09, "the reading of 40 ms is too new for the tick at 40 ms"
    assert readings.at(("range", "FL"), 40 * MS + READING_AGE_NS) == 0.08
    assert math.isnan(readings.at(("range", "FL"), 10 * MS)) and math.isnan(readings.at("FR", 100 * MS))


def test_a_new_time_line_drops_what_came_before():
    readings = StampedReadings()
    readings.add("FR", 100 * MS, 1.0)
    readings.add("FR", 100 * MS, 1.0)  # the same reading sent twice: kept once, nothing dropped
    assert readings.at("FR", 120 * MS) == 1.0 and len(readings._readings["FR"]) == 1
    readings.add("FR", 0, 0.0)  # stamps start over: a reset
    assert readings.at("FR", 120 * MS) == 0.0 and len(readings._readings["FR"]) == 1
    readings.clear()
    assert math.isnan(readings.at("FR", 120 * MS))


def test_a_reset_drops_the_readings_of_the_time_line_it_ended():
    readings = StampedReadings()
    for stamp in (1960 * MS, 1980 * MS, 2000 * MS, 3000 * MS):  # the reset at 2 s; its line from 3 s
        readings.add("FL", stamp, stamp / (1000 * MS))
    readings.drop_before(3000 * MS)  # its notice came after the new line's first reading: that one kept
    assert math.isnan(readings.at("FL", 3010 * MS)), "no reading of the old line is taken after the reset"
    assert readings.at("FL", 3020 * MS) == 3.0
    assert readings.caught_up("FL", 3010 * MS, start_ns=3000 * MS), "the new line's first ticks wait for nothing"


def test_a_tick_waits_until_the_reading_it_takes_is_final():
    """50 Hz readings (stamps every 20 ms): the tick at 75 ms takes the one of 40 ms, final once that
    one (or a later one) is in; before 40 ms no reading can be old enough, so nothing is awaited."""
    readings = StampedReadings()
    assert readings.caught_up("FL", 30 * MS), "the first reading (20 ms) is too new for any tick before 40 ms"
    assert not readings.caught_up("FL", 75 * MS)
    readings.add("FL", 20 * MS, 1.0)
    assert not readings.caught_up("FL", 75 * MS), "the reading of 40 ms may still come"
    readings.add("FL", 40 * MS, 0.0)
    assert readings.caught_up("FL", 75 * MS) and readings.at("FL", 75 * MS) == 0.0
