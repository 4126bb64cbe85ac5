"""Baseline contact readouts: floor and wall penetration, 8 mm lost contact."""

import pytest

from sally_description import DescriptionError
from sally_description.contact import LOST_CONTACT, FootContactMonitor


def test_floor_foot_penetration_and_lift():
    m = FootContactMonitor()
    m.set_floor_baseline("FL", [0.3, 0.2, 0.009])
    sunk = m.readout("FL", [0.3, 0.2, 0.0085])
    assert (sunk.surface, sunk.in_contact) == ("floor", True)
    assert sunk.penetration == pytest.approx(0.0005) and sunk.lift == pytest.approx(-0.0005)
    lifted = m.readout("FL", [0.3, 0.2, 0.009 + LOST_CONTACT + 1e-4])
    assert not lifted.in_contact and lifted.penetration == 0.0
    assert m.readout("FL", [0.3, 0.2, 0.009 + LOST_CONTACT - 1e-4]).in_contact


def test_wall_foot_penetration_is_along_x():
    m = FootContactMonitor()
    m.set_wall_baseline("FR", [0.492, 0.0, 0.4])
    pressed = m.readout("FR", [0.4935, 0.0, 0.3])  # 1.5 mm further into the wall; z does not matter
    assert (pressed.surface, pressed.in_contact) == ("wall", True)
    assert pressed.penetration == pytest.approx(0.0015)
    assert not m.readout("FR", [0.482, 0.0, 0.4]).in_contact  # 10 mm off the wall


def test_swinging_feet_and_unknown_feet():
    m = FootContactMonitor()
    free = m.readout("BL", [0.0, 0.0, 0.1])
    assert (free.surface, free.in_contact, free.penetration) == ("free", False, 0.0)
    m.set_floor_baseline("BL", [0.0, 0.0, 0.0])
    m.clear("BL")
    assert m.surface("BL") == "free"
    with pytest.raises(DescriptionError, match=r"unknown foot 'XX'; valid: \['FL', 'FR', 'BL', 'BR'\]"):
        m.set_floor_baseline("XX", [0, 0, 0])
