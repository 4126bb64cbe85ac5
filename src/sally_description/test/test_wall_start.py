"""The wall start: the model's start keyframe puts the body and every foot where the stance says."""

import mujoco
import numpy as np
import pytest

from sally_description import DescriptionError, build_model, build_spec
from sally_description.constants import LEGS, ee_site
from sally_description.contact import faces, nearest
from sally_description.scene import ROOM, scene
from sally_description.wall_start import START_KEY, WALL_STANCE, WallStance, add_wall_start, standing

FACES = faces(scene("floor_wall").surfaces, ROOM)
"""The default scene's floor and wall, in the room."""


def standing_surface(ee_pos) -> str:
    return nearest(FACES, ee_pos).name


def started(model):
    data = mujoco.MjData(model)
    mujoco.mj_resetDataKeyframe(model, data, model.key(START_KEY).id)
    mujoco.mj_forward(model, data)
    return data


def test_the_wall_start_stands_every_foot_flat_on_the_wall_where_the_stance_says():
    model = build_model(start="wall")
    data = started(model)
    body = model.body("main_frame").id
    assert data.xpos[body] == pytest.approx(WALL_STANCE.body.position, abs=1e-9)
    assert data.xquat[body] == pytest.approx(WALL_STANCE.body.quat, abs=1e-9)
    for leg in LEGS:
        site = model.site(ee_site(leg)).id
        assert data.site_xpos[site] == pytest.approx(WALL_STANCE.foot(leg), abs=1e-3), leg  # the leg IK's tolerance
        face = data.site_xmat[site].reshape(3, 3) @ np.array([0.0, -1.0, 0.0])
        assert face @ np.array([1.0, 0.0, 0.0]) > np.cos(np.radians(2.0)), leg  # the face flat against the wall
        assert standing_surface(data.site_xpos[site]) == "wall"
    assert build_model().nkey == 0  # the floor start has no keyframe: the sim starts it at qpos0


def test_a_turned_and_moved_stance_turns_the_feet_with_the_body():
    stance = WallStance(y=0.01, height=0.39, turn_deg=3.0)
    model = build_model(start="wall", wall=stance)
    data = started(model)
    for leg in LEGS:  # each foot where the stance says, and where the body's own frame puts it
        assert data.site_xpos[model.site(ee_site(leg)).id] == pytest.approx(stance.foot(leg), abs=1e-3), leg
    nose = stance.body.rotation[:, 0]  # main_frame's x axis: up the wall, turned toward +y
    assert nose == pytest.approx([0.0, np.sin(np.radians(3.0)), np.cos(np.radians(3.0))], abs=1e-9)
    fl, bl = stance.foot("FL"), stance.foot("BL")
    assert (fl - bl) / np.linalg.norm(fl - bl) == pytest.approx(nose, abs=1e-9)  # a front foot ahead of its back foot


def test_the_floor_feet_stand_on_the_floor():
    model = build_model()
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    assert {standing_surface(data.site_xpos[model.site(ee_site(leg)).id]) for leg in LEGS} == {"floor"}


def test_a_stance_a_leg_cannot_plant_is_refused_naming_the_leg():
    with pytest.raises(DescriptionError, match="FL cannot be planted at"):
        add_wall_start(build_spec(), WallStance(reach=0.60))  # 0.60 m above main_frame: out of reach


@pytest.mark.parametrize(
    "make, match",
    [
        (lambda: build_spec(start="ceiling"), "start 'ceiling' is not one of"),
        (lambda: build_spec(start="wall", spawn=(0.1, 0.0, 0.0)), "spawn"),
        (lambda: WallStance(height=float("nan")), "finite"),
        (lambda: WallStance(reach=-0.1), "positive"),
        (lambda: WallStance(turn_deg=15.0), "turn must be within"),
    ],
)
def test_bad_starts_are_refused(make, match):
    with pytest.raises(DescriptionError, match=match):
        make()


def test_standing_is_the_floor_start_turned_onto_the_wall():
    model = build_model()
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)  # the model's start: standing on the floor
    position = data.body("main_frame").xpos
    feet = {leg: data.site(ee_site(leg)).xpos for leg in LEGS}
    stance = standing(0.5)
    assert stance.distance == pytest.approx(position[2], abs=1e-8)
    for leg in LEGS:
        ahead, beside = feet[leg][0] - position[0], feet[leg][1] - position[1]
        along = stance.foot(leg)[1:] - stance.body.position[1:]
        assert (along[1], along[0]) == pytest.approx((ahead, beside), abs=1e-8)
