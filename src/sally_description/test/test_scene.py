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
def test_no_scene_turns_gravity_away_from_the_rooms_down(name):
    chosen = scene(name)
    down = chosen.to_room(np.array(chosen.gravity)) - chosen.to_room(np.zeros(3))
    np.testing.assert_allclose(down, [0.0, 0.0, -9.81], atol=1e-12)


def test_corner3_in_the_room_has_gravity_down_sally_on_the_wall_and_the_ceiling_above():
    """In the room: gravity straight down; every magnet face on the wall (x = WALL_X); main_frame 0.5 m
    below the ceiling and as far from the wall as it stands above the floor in the default scene."""
    corner = scene("corner3")
    model = build_model(scene="corner3")
    data = _kinematics(model)
    np.testing.assert_allclose(
        corner.to_room(model.opt.gravity) - corner.to_room(np.zeros(3)), [0, 0, -9.81], atol=1e-12
    )
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
    assert corner.room_surface("floor") == "wall" and corner.room_surface("wall") == "ceiling"


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


def test_a_scene_built_in_the_room_is_its_corner_s_physics_turned():
    """``in_room``: gravity -z, the surfaces where the room has them, Sally placed by her corner's
    frame; stepped for a second (no magnets: falling off the wall), her motion is the corner-frame
    model's, turned (MuJoCo's dynamics do not depend on the frame: the joints agree to 1e-6 rad, the
    base to 1e-6 m)."""
    from sally_description.pose import Pose

    corner, room = build_model(scene="corner3"), build_model(scene="corner3", in_room=True)
    frame = scene("corner3").room_from_world
    np.testing.assert_allclose(room.opt.gravity, [0.0, 0.0, -9.81])
    ceiling = room.geom("ceiling_plate")
    np.testing.assert_allclose(room.geom_pos[ceiling.id][2] - room.geom_size[ceiling.id][2], CEILING_HEIGHT, atol=1e-12)
    data = {m: mujoco.MjData(m) for m in (corner, room)}
    for _ in range(2000):
        for m, d in data.items():
            mujoco.mj_step(m, d)
    a, b = data[corner], data[room]
    turned = frame.after(Pose(a.qpos[:3].copy(), a.qpos[3:7].copy()))
    np.testing.assert_allclose(b.qpos[:3], turned.position, atol=1e-6)
    np.testing.assert_allclose(b.qpos[7:], a.qpos[7:], atol=1e-6)
    assert b.qpos[2] < 0.45  # no magnets here: she fell off the wall, the same way in both frames
    plain = build_model(scene="floor_wall", in_room=True)
    np.testing.assert_array_equal(plain.qpos0, build_model(scene="floor_wall").qpos0)  # the room is its corner


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
