"""The feet's sensor readings a sequencer tick uses: chosen by stamp, not by arrival (no ROS)."""

import math

from sally_sequencer.foot_sensors import READING_AGE_NS, FootSensors

MS = 1_000_000


def test_a_tick_takes_the_newest_reading_old_enough():
    sensors = FootSensors()
    for stamp, value in ((0, 0.10), (20 * MS, 0.09), (40 * MS, 0.08)):
        sensors.add("range", "FL", stamp, value)
    assert sensors.range("FL", 40 * MS) == 0.09, "the reading of 40 ms is too new for the tick at 40 ms"
    assert sensors.range("FL", 40 * MS + READING_AGE_NS) == 0.08
    assert math.isnan(sensors.range("FL", 10 * MS)) and math.isnan(sensors.range("FR", 100 * MS))


def test_contact_and_a_new_time_line():
    sensors = FootSensors()
    sensors.add("contact", "FR", 100 * MS, 1.0)
    assert sensors.contact("FR", 120 * MS) and not sensors.contact("FL", 120 * MS)
    sensors.add("contact", "FR", 0, 0.0)  # stamps start over: a reset
    assert not sensors.contact("FR", 120 * MS)
