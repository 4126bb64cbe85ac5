"""Contact readouts against the surface a foot holds: penetration and lift along its normal, 8 mm
lost contact, the nearest surface held."""

import numpy as np
import pytest

from sally_description import DescriptionError
from sally_description.contact import FREE, LOST_CONTACT, FootContactMonitor, faces, nearest
from sally_description.pose import Pose
from sally_description.scene import ROOM, scene

ROOM_FACES = faces(scene("room").surfaces, ROOM)
"""The room's floor, wall and ceiling, in the room."""


def test_a_foot_on_the_floor_reads_penetration_and_lift_along_z():
    m = FootContactMonitor(ROOM_FACES)
    assert m.hold("FL", [0.3, 0.2, 0.009]) == "floor"
    sunk = m.readout("FL", [0.3, 0.2, 0.0085])
    assert (sunk.surface, sunk.in_contact) == ("floor", True)
    assert sunk.penetration == pytest.approx(0.0005) and sunk.lift == pytest.approx(-0.0005)
    lifted = m.readout("FL", [0.3, 0.2, 0.009 + LOST_CONTACT + 1e-4])
    assert not lifted.in_contact and lifted.penetration == 0.0
    assert m.readout("FL", [0.3, 0.2, 0.009 + LOST_CONTACT - 1e-4]).in_contact


def test_a_foot_on_the_wall_reads_along_x_and_on_the_ceiling_along_minus_z():
    m = FootContactMonitor(ROOM_FACES)
    assert m.hold("FR", [0.492, 0.0, 0.4]) == "wall"
    pressed = m.readout("FR", [0.4935, 0.0, 0.3])  # 1.5 mm further into the wall; z does not matter
    assert (pressed.surface, pressed.in_contact) == ("wall", True)
    assert pressed.penetration == pytest.approx(0.0015)
    assert not m.readout("FR", [0.482, 0.0, 0.4]).in_contact  # 10 mm off the wall
    assert m.hold("BL", [0.3, 0.1, 0.992]) == "ceiling"
    hanging = m.readout("BL", [0.2, 0.1, 0.990])
    assert (hanging.surface, hanging.lift) == ("ceiling", pytest.approx(0.002))


def test_the_readout_is_the_axis_difference_bit_for_bit():
    """Along a frame's axis the lift is the plain coordinate difference, not a rounded plane height
    (lockstep runs keep their figures digit for digit)."""
    m = FootContactMonitor(ROOM_FACES)
    start, now = np.array([0.4921234567, 0.1, 0.4]), np.array([0.4900000123, 0.3, 0.2])
    m.hold("BR", start)
    assert m.readout("BR", now).lift == start[0] - now[0]
    m.hold("FL", [0.1, 0.0, 0.0087654321])
    assert m.readout("FL", [0.2, 0.0, 0.0123456789]).lift == 0.0123456789 - 0.0087654321


def test_faces_in_a_turned_frame_keep_their_names_and_planes():
    corner = scene("corner3")
    turned = faces([s for s in corner.surfaces if s.steel], corner.room_from_world)
    by_name = {face.name: face for face in turned}
    # corner3's frame stands on the room's wall (z up from it) and climbs the ceiling (at x = 0.5)
    assert by_name["wall"].normal == pytest.approx((0.0, 0.0, 1.0)) and by_name["wall"].offset == pytest.approx(0.0)
    assert by_name["ceiling"].normal == pytest.approx((-1.0, 0.0, 0.0))
    assert by_name["ceiling"].height([0.492, 0.0, 0.3]) == pytest.approx(0.008)
    assert nearest(turned, [0.492, 0.0, 0.3]).name == "ceiling"
    assert nearest(turned, [0.1, 0.0, 0.008]).name == "wall"
    shifted = faces(scene("room").surfaces, Pose(np.array([0.0, 0.0, 0.5]), np.array([1.0, 0.0, 0.0, 0.0])))
    assert {f.name: f.height([0.0, 0.0, 0.0]) for f in shifted}["floor"] == pytest.approx(0.5)


def test_swinging_feet_unknown_feet_and_no_surfaces():
    m = FootContactMonitor(ROOM_FACES)
    free = m.readout("BL", [0.0, 0.0, 0.1])
    assert (free.surface, free.in_contact, free.penetration) == (FREE, False, 0.0)
    m.hold("BL", [0.0, 0.0, 0.0])
    m.clear("BL")
    assert m.surface("BL") == FREE
    with pytest.raises(DescriptionError, match=r"unknown foot 'XX'; valid: \['FL', 'FR', 'BL', 'BR'\]"):
        m.hold("XX", [0, 0, 0])
    with pytest.raises(DescriptionError, match="no surface to stand on"):
        FootContactMonitor(()).hold("FL", [0, 0, 0])
