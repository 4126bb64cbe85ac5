"""Scenes: the default is the MJCF's floor and wall; corner3 is the room with a ceiling, simulated
in the wall-ceiling corner's frame, and its room_from_world puts everything where the room has it."""

import mujoco
import numpy as np
import pytest

from sally_description import DescriptionError, build_model
from sally_description.constants import FOOT_STANDOFF, LEGS, WALL_X, ee_site
from sally_description.model import load_spec
from sally_description.scene import CEILING_HEIGHT, DEFAULT_SCENE, SCENES, plates_of, scene

ROOM_FLOOR_GEOM = "room_floor"


def _kinematics(model):
    data = mujoco.MjData(model)
    mujoco.mj_kinematics(model, data)
    return data


def test_the_default_scene_is_the_mjcf_as_it_is():
    plain, default = build_model(), build_model(scene=DEFAULT_SCENE)
    assert np.array_equal(plain.opt.gravity, [0.0, 0.0, -9.81])
    assert plain.ngeom == default.ngeom and np.array_equal(plain.geom_size, default.geom_size)
    assert mujoco.mj_name2id(plain, mujoco.mjtObj.mjOBJ_GEOM, ROOM_FLOOR_GEOM) == -1
    assert not scene(DEFAULT_SCENE).turned
    written = load_spec().compile()  # the plates built from the surfaces' data are the MJCF's, to the bit
    for name in ("floor_plate", "wall_plate"):
        assert np.array_equal(written.geom(name).pos, plain.geom(name).pos), name
        assert np.array_equal(written.geom(name).size, plain.geom(name).size), name
    assert plates_of(plain) == {"floor": "floor_plate", "wall": "wall_plate"}


def test_corner3_is_the_wall_and_ceiling_plates_it_was_written_as():
    """corner3's plates as the scene wrote them by hand before surfaces were data, to the bit."""
    model = build_model(scene="corner3")
    assert plates_of(model) == {"wall": "wall_plate", "ceiling": "ceiling_plate"}
    expected = {  # geom: (centre, half sizes) in the wall-ceiling corner's frame
        "wall_plate": ([0.0, 0.0, -0.01], [0.5, 0.5, 0.01]),
        "ceiling_plate": ([0.51, 0.0, 0.5], [0.01, 0.5, 0.5]),
        ROOM_FLOOR_GEOM: ([-0.51, 0.0, 0.5], [0.01, 0.5, 0.5]),
    }
    for name, (pos, size) in expected.items():
        assert model.geom(name).pos.tolist() == pos and model.geom(name).size.tolist() == size, name
    assert [model.geom(g).name for g in range(3)] == list(expected)  # the MJCF's two plates first


def test_the_room_is_the_floor_wall_corner_with_a_steel_ceiling_above():
    room, model = scene("room"), build_model(scene="room")
    assert not room.turned and np.array_equal(model.opt.gravity, [0.0, 0.0, -9.81])
    assert plates_of(model) == {"floor": "floor_plate", "wall": "wall_plate", "ceiling": "ceiling_plate"}
    ceiling = model.geom("ceiling_plate")
    assert ceiling.pos.tolist() == [0.0, 0.0, CEILING_HEIGHT + 0.01] and ceiling.size.tolist() == [0.5, 0.5, 0.01]
    plain = build_model()
    for name in ("floor_plate", "wall_plate"):
        assert np.array_equal(plain.geom(name).pos, model.geom(name).pos), name


@pytest.mark.parametrize("name", sorted(SCENES))
def test_no_scene_turns_gravity(name):
    """Gravity is the room's -z in every model written in the room; a model written in a turned
    corner's frame (the planners' kinematics) has none at all, so nothing can compute a force of
    gravity in a turned frame."""
    np.testing.assert_array_equal(build_model(scene=name, in_room=True).opt.gravity, [0.0, 0.0, -9.81])
    corner = build_model(scene=name).opt.gravity
    np.testing.assert_array_equal(corner, [0.0, 0.0, 0.0] if scene(name).turned else [0.0, 0.0, -9.81])


def test_corner3_in_the_room_has_gravity_down_sally_on_the_wall_and_the_ceiling_above():
    """In the room: gravity straight down; every magnet face on the wall (x = WALL_X); main_frame 0.5 m
    below the ceiling and as far from the wall as it stands above the floor in the default scene."""
    corner = scene("corner3")
    model = build_model(scene="corner3")
    data = _kinematics(model)
    assert not model.opt.gravity.any()  # the corner's frame is the planners': kinematics only
    for leg in LEGS:
        site = model.site(ee_site(leg)).id
        face = data.site_xpos[site] - FOOT_STANDOFF * data.site_xmat[site].reshape(3, 3)[:, 1]
        assert corner.to_room(face)[0] == pytest.approx(WALL_X, abs=0.0015), leg  # spawned 1 mm off
    body = corner.to_room(data.xpos[model.body("main_frame").id])
    floor_body = _kinematics(build_model()).xpos[model.body("main_frame").id]
    assert body[2] == pytest.approx(CEILING_HEIGHT - 0.5, abs=1e-9)
    assert WALL_X - body[0] == pytest.approx(floor_body[2], abs=1e-9)
    floor = model.geom(ROOM_FLOOR_GEOM).id
    top = corner.to_room(data.geom_xpos[floor] + [model.geom_size[floor][0], 0.0, 0.0])
    assert top[2] == pytest.approx(0.0, abs=1e-9)
    assert (corner.stood_on, corner.climbed_onto) == ("wall", "ceiling")


def test_a_scene_names_each_surface_once_and_climbs_steel():
    from sally_description.scene import CEILING, FLOOR, ROOM_FLOOR, WALL, Scene

    with pytest.raises(DescriptionError, match="names a surface twice"):
        Scene("twice", (FLOOR, FLOOR, WALL), ("floor", "wall"))
    with pytest.raises(DescriptionError, match="its corner's floor is not steel"):
        Scene("wood", (ROOM_FLOOR, WALL), ("floor", "wall"))
    with pytest.raises(DescriptionError, match="has no surface 'ceiling'; its surfaces: \\['floor', 'wall'\\]"):
        scene("floor_wall").surface("ceiling")
    with pytest.raises(DescriptionError, match="floor and ceiling do not meet"):
        _ = Scene("apart", (FLOOR, CEILING), ("floor", "ceiling")).room_from_world


def test_unknown_scenes_and_a_wall_start_in_corner3_are_refused():
    with pytest.raises(DescriptionError, match="scene 'attic' is not one of"):
        build_model(scene="attic")
    with pytest.raises(DescriptionError, match="starts on the room's wall already"):
        build_model(scene="corner3", start="wall")


def test_a_scene_built_in_the_room_is_its_corner_s_kinematics_turned():
    """``in_room``: gravity -z, the surfaces where the room has them, Sally placed by her corner's
    frame. At any state (joints off the start, the body turned in the corner's frame and the same
    body in the room), every foot site and every geom of the room's model is the corner-frame
    model's, turned; stepped for a second without magnets, the room's Sally falls off the wall."""
    from sally_description.pose import Pose

    corner, room = build_model(scene="corner3"), build_model(scene="corner3", in_room=True)
    frame = scene("corner3").room_from_world
    np.testing.assert_allclose(room.opt.gravity, [0.0, 0.0, -9.81])
    ceiling = room.geom("ceiling_plate")
    np.testing.assert_allclose(room.geom_pos[ceiling.id][2] - room.geom_size[ceiling.id][2], CEILING_HEIGHT, atol=1e-12)
    a, b = mujoco.MjData(corner), mujoco.MjData(room)
    rng = np.random.default_rng(5)
    a.qpos[:] = corner.qpos0
    a.qpos[7:] += rng.uniform(-0.3, 0.3, corner.nq - 7)
    a.qpos[3:7] = [0.9, 0.2, -0.1, 0.3]
    a.qpos[3:7] /= np.linalg.norm(a.qpos[3:7])
    turned = frame.after(Pose(a.qpos[:3].copy(), a.qpos[3:7].copy()))
    b.qpos[:3], b.qpos[3:7], b.qpos[7:] = turned.position, turned.quat, a.qpos[7:]
    mujoco.mj_kinematics(corner, a)
    mujoco.mj_kinematics(room, b)
    np.testing.assert_allclose(b.site_xpos, corner_to_room(frame, a.site_xpos), atol=1e-12)
    np.testing.assert_allclose(b.geom_xpos, corner_to_room(frame, a.geom_xpos), atol=1e-12)
    for _ in range(2000):
        mujoco.mj_step(room, b)
    assert b.qpos[2] < 0.45  # no magnets here: she fell off the wall
    plain = build_model(scene="floor_wall", in_room=True)
    np.testing.assert_array_equal(plain.qpos0, build_model(scene="floor_wall").qpos0)  # the room is its corner


def corner_to_room(frame, points):
    """``points`` (n, 3) in the corner's frame, in the room."""
    return points @ frame.rotation.T + frame.position


def test_a_scene_s_corners_are_named_by_their_planning_frames():
    from sally_description.scene import corners_of

    assert {frame: s.name for frame, s in corners_of("room").items()} == {"world": "room", "corner": "corner3"}
    assert {frame: s.name for frame, s in corners_of("floor_wall").items()} == {"world": "floor_wall"}
    assert {frame: s.name for frame, s in corners_of("corner3").items()} == {"corner": "corner3"}  # its floor: no steel


def test_a_planning_frame_stands_in_the_room_where_its_scene_puts_it():
    from sally_description.scene import room_from

    assert room_from("world").position == pytest.approx(np.zeros(3))
    assert room_from("") is room_from("world")
    corner = room_from("corner")
    assert corner.position == pytest.approx(scene("corner3").room_from_world.position)
    assert corner.to_world(np.array([0.0, 0.0, 0.12364756])) == pytest.approx([0.37635244, 0.0, 0.5])  # w2c's start
    with pytest.raises(DescriptionError, match="no scene is planned in frame 'attic'"):
        room_from("attic")


def test_the_turned_corner_a_scene_has_is_the_one_on_tf_static():
    from sally_description.scene import turned_corner

    assert turned_corner("floor_wall") is None
    for name in ("corner3", "room"):  # the room: its wall-ceiling corner, where a route's second climb is planned
        corner = turned_corner(name)
        assert corner is not None
        assert corner.position == pytest.approx(scene("corner3").room_from_world.position)


def test_the_map_names_the_steel_surface_a_point_is_near():
    room = scene("room")
    on_wall = np.array([WALL_X - FOOT_STANDOFF, 0.1, 0.4])  # an EE site, its face on the wall
    assert room.surface_near(on_wall, FOOT_STANDOFF + 0.001) == "wall"
    assert room.surface_near(on_wall - [0.05, 0.0, 0.0], FOOT_STANDOFF + 0.02) == "none", "5 cm off: none"
    assert room.surface_near([0.1, 0.0, FOOT_STANDOFF], 0.01) == "floor"
    assert room.surface_near([0.1, 0.0, CEILING_HEIGHT - FOOT_STANDOFF], 0.01) == "ceiling"
    # corner3 has a floor, but not steel: no magnet holds there
    assert scene("corner3").surface_near([0.1, 0.0, FOOT_STANDOFF], 0.01) == "none"
