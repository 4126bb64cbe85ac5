"""Surfaces as data: which faces meet in a concave corner, and the frame a climb over one is planned in."""

import numpy as np
import pytest

from sally_description.constants import WALL_X
from sally_description.pose import Pose
from sally_description.scene import CEILING, CEILING_HEIGHT, FLOOR, WALL
from sally_description.surfaces import Surface, SurfaceError, corner_frame, face, meets


def test_floor_meets_wall_and_wall_meets_ceiling_but_floor_never_meets_ceiling():
    assert meets(FLOOR, WALL) and meets(WALL, FLOOR)
    assert meets(WALL, CEILING) and meets(CEILING, WALL)
    assert not meets(FLOOR, CEILING)


def test_faces_that_do_not_touch_or_face_away_do_not_meet():
    x, y, z = np.eye(3)
    high_wall = Surface("wall", face([0.5, 0.0, 1.5], z, y), (0.4, 0.5))  # starts 1.1 m up: a gap
    assert not meets(FLOOR, high_wall)
    outside = Surface("wall", face([0.5, 0.0, 0.5], y, z), (0.5, 0.5))  # normal +x: faces out of the room
    assert not meets(FLOOR, outside)
    aside = Surface("wall", face([0.5, 3.0, 0.5], z, y), (0.5, 0.5))  # beside the floor, not along it
    assert not meets(FLOOR, aside)


def test_the_floor_wall_corner_frame_is_the_room_and_the_wall_ceiling_one_is_turned():
    floor_wall = corner_frame(FLOOR, WALL)
    np.testing.assert_array_equal(floor_wall.position, [0.0, 0.0, 0.0])
    np.testing.assert_allclose(floor_wall.rotation, np.eye(3), atol=1e-15)
    wall_ceiling = corner_frame(WALL, CEILING)
    np.testing.assert_allclose(wall_ceiling.position, [WALL_X, 0.0, CEILING_HEIGHT - WALL_X], atol=1e-15)
    # its x is the room's up (toward the ceiling), its z out of the wall (the room's -x)
    np.testing.assert_allclose(wall_ceiling.rotation[:, 0], [0.0, 0.0, 1.0], atol=1e-15)
    np.testing.assert_allclose(wall_ceiling.rotation[:, 2], [-1.0, 0.0, 0.0], atol=1e-15)
    with pytest.raises(SurfaceError, match="floor and ceiling do not meet in a concave corner"):
        corner_frame(FLOOR, CEILING)


def test_a_surface_knows_how_high_a_point_stands_off_it_and_its_plate_in_any_aligned_frame():
    assert WALL.height([0.3, 0.0, 0.2]) == pytest.approx(0.2)
    assert CEILING.height([0.0, 0.0, 0.9]) == pytest.approx(0.1)
    centre, half = WALL.box(corner_frame(FLOOR, WALL))
    assert centre.tolist() == [0.51, 0.0, 0.5] and half.tolist() == [0.01, 0.5, 0.5]
    tilted = Pose(np.zeros(3), np.array([np.cos(0.1), 0.0, np.sin(0.1), 0.0]))
    with pytest.raises(SurfaceError, match="not aligned with the simulated frame's axes"):
        WALL.box(tilted)


@pytest.mark.parametrize(
    ("name", "size", "message"),
    [("", (0.5, 0.5), "plain word"), ("the wall", (0.5, 0.5), "plain word"), ("wall", (0.5, 0.0), "two positive")],
)
def test_a_surface_with_a_bad_name_or_size_is_refused(name, size, message):
    x, y, _ = np.eye(3)
    with pytest.raises(SurfaceError, match=message):
        Surface(name, face([0.0, 0.0, 0.0], x, y), size)
