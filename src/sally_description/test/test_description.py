"""The MJCF agrees with the constants and the spec; the builder bakes, parameterises, writes nothing."""

import math
import os
from pathlib import Path

import mujoco
import numpy as np
import pytest

from sally_description import (
    ACTUATED_JOINT_NAMES,
    DEFAULT_PARAMS,
    FLOOR_Z,
    JOINT_NAMES,
    LEGS,
    WALL_X,
    Bake,
    DescriptionError,
    build_model,
    build_spec,
    model_path,
)
from sally_description.constants import (
    FOOT_STANDOFF,
    MAGNET_DIAMETER,
    SAMPLING_RING_RADIUS,
    ee_site,
    magnet_body,
    magnet_geom,
    sampler_geoms,
)


@pytest.fixture(scope="module")
def model():
    return build_model()


@pytest.fixture(scope="module")
def data(model):
    d = mujoco.MjData(model)
    mujoco.mj_kinematics(model, d)
    return d


def test_scene_plates_form_the_corner(model):
    floor, wall = model.geom("floor_plate"), model.geom("wall_plate")
    assert floor.pos[2] + floor.size[2] == pytest.approx(FLOOR_Z)
    assert 2 * floor.size[0] == pytest.approx(3.0) and 2 * floor.size[1] == pytest.approx(1.0)
    assert wall.pos[0] - wall.size[0] == pytest.approx(WALL_X)
    assert 2 * wall.size[1] == pytest.approx(1.0) and 2 * wall.size[2] == pytest.approx(1.0)
    # the wall stands on the floor plate's far edge: a clean 90 degree corner
    assert wall.pos[2] - wall.size[2] == pytest.approx(FLOOR_Z)
    assert floor.pos[0] + floor.size[0] == pytest.approx(WALL_X)


def test_joints_ranges_and_actuators(model):
    expected = {"hip_pitch": 45, "knee": 90, "wrist": 90, "ee": 90, "ee2": 90, "em_z": 180}
    for name in JOINT_NAMES:
        kind = name.rsplit("_", 1)[0]
        lo, hi = np.degrees(model.joint(name).range)
        assert (lo, hi) == pytest.approx((-expected[kind], expected[kind])), name
    assert [model.joint(model.actuator(i).trnid[0]).name for i in range(model.nactuator)] == list(ACTUATED_JOINT_NAMES)
    # each motor a servo: position setpoint, velocity setpoint and feed-forward, the seed's gains
    assert model.nu == 3 * model.nactuator and (model.actuator_ctrlnum == 3).all()
    assert (model.actuator_gaintype == mujoco.mjtGain.mjGAIN_PID).all()
    assert (model.actuator_biasprm[:, 1:3] == [-500.0, -30.0]).all() and (model.actuator_gainprm[:, 0] == 200.0).all()
    assert (model.actuator_dynprm[:, 0] == 0.5).all(), "the integral term within +-100 N m (Ki 200)"
    passive = [n for n in JOINT_NAMES if n.startswith("ee2_")]
    assert all(model.joint(n).stiffness[0] > 0 and model.joint(n).damping[0] > 0 for n in passive)
    assert model.nv == 6 + len(JOINT_NAMES)


def test_magnet_geometry(model, data):
    for leg in LEGS:
        housing = model.geom(magnet_geom(leg))
        assert 2 * housing.size[0] == pytest.approx(MAGNET_DIAMETER)
        body = model.body(magnet_body(leg)).id
        centre = data.xpos[body]
        rot = data.xmat[body].reshape(3, 3)
        spheres = np.array([data.geom_xpos[model.geom(g).id] for g in sampler_geoms(leg)])
        assert len(spheres) == 8
        local = (spheres - centre) @ rot
        ring = np.hypot(local[:, 0], local[:, 2])
        assert ring == pytest.approx(np.full(8, SAMPLING_RING_RADIUS))
        # every sphere's outer surface is flush with the magnet face, FOOT_STANDOFF ahead of the EE site
        radius = model.geom(sampler_geoms(leg)[0]).size[0]
        assert -local[:, 1] + radius == pytest.approx(np.full(8, FOOT_STANDOFF))
        angles = np.sort(np.round(np.degrees(np.arctan2(local[:, 2], local[:, 0])), 6) % 360)
        assert angles == pytest.approx(np.arange(0, 360, 45), abs=1e-9)


def test_baked_pose_stands_on_the_floor_symmetrically(model, data):
    faces = []
    for leg in LEGS:
        site = model.site(ee_site(leg)).id
        normal = -data.site_xmat[site].reshape(3, 3)[:, 1]
        assert normal == pytest.approx([0, 0, -1], abs=1e-9), leg
        faces.append(data.site_xpos[site] + FOOT_STANDOFF * normal)
    faces = np.array(faces)
    assert faces[:, 2] == pytest.approx(np.full(4, FLOOR_Z + 0.001))
    assert np.abs(faces[:, :2]) == pytest.approx(np.tile(np.abs(faces[0, :2]), (4, 1)))
    # every joint is at zero in the baked pose, which is therefore qpos0
    assert model.qpos0[7:] == pytest.approx(np.zeros(len(JOINT_NAMES)))


def test_bake_changes_geometry_not_joint_zero():
    base = build_model()
    bent = build_model(bake=Bake(knee_deg={leg: -50.0 for leg in LEGS}))
    assert bent.body_quat[bent.body("thigh_FL").id] != pytest.approx(base.body_quat[base.body("thigh_FL").id])
    assert bent.qpos0 == pytest.approx(np.concatenate([bent.qpos0[:7], np.zeros(len(JOINT_NAMES))]))


@pytest.mark.parametrize(
    "bake, message",
    [
        (dict(knee_deg={"FL": -40.0}), "exactly the legs"),
        (dict(wrist_deg={leg: math.nan for leg in LEGS}), "finite"),
        (dict(ee_deg={leg: 400.0 for leg in LEGS}), "outside"),
    ],
)
def test_bad_bake_is_rejected(bake, message):
    with pytest.raises(DescriptionError, match=message):
        Bake(**bake)


def test_params_reach_the_compiled_model():
    params = DEFAULT_PARAMS.__class__(sliding_friction=1.3, solref_timeconst=0.004, noslip_iterations=7, margin=0.002)
    m = build_model(params=params)
    g = m.geom(magnet_geom("BR"))
    assert g.friction[0] == pytest.approx(1.3)
    assert g.solref == pytest.approx([0.004, 10.0])
    assert g.solimp[1] == pytest.approx(0.9999)
    assert g.margin[0] == pytest.approx(0.002)
    assert m.opt.noslip_iterations == 7


def test_missing_model_file_is_a_clear_error(tmp_path):
    with pytest.raises(DescriptionError, match="does not exist"):
        build_model(path=tmp_path / "nope.xml")


def test_broken_model_file_is_a_clear_error(tmp_path):
    broken = tmp_path / "broken.xml"
    broken.write_text("<mujoco><worldbody><body></mujoco>")
    with pytest.raises(DescriptionError, match="could not be parsed"):
        build_model(path=broken)


def _tree_state(root: Path) -> dict[str, float]:
    return {str(p): p.stat().st_mtime_ns for p in root.rglob("*") if "__pycache__" not in p.parts}


def test_building_writes_nothing_to_disk(tmp_path, monkeypatch):
    package_dir = model_path().parent.parent
    before = _tree_state(package_dir)
    source = model_path().read_bytes()
    monkeypatch.chdir(tmp_path)
    spec = build_spec(bake=Bake(knee_deg={leg: -35.0 for leg in LEGS}))
    spec.compile()
    assert _tree_state(package_dir) == before
    assert model_path().read_bytes() == source
    assert os.listdir(tmp_path) == []


def test_spawn_pose_moves_and_turns_the_robot():
    m = build_model(spawn=(0.2, -0.1, 90.0))
    d = mujoco.MjData(m)
    mujoco.mj_kinematics(m, d)
    assert d.qpos[:3] == pytest.approx([0.2, -0.1, build_model().qpos0[2]])
    fl = d.site_xpos[m.site(ee_site("FL")).id]
    # FL sits at (+x, +y) of the body; turned 90 deg it lies at (-y, +x) from the spawn point
    assert fl[0] < 0.2 and fl[1] > -0.1
    with pytest.raises(DescriptionError, match="finite"):
        build_model(spawn=(math.nan, 0.0, 0.0))


def test_actuated_limits():
    from sally_description.limits import actuated_limits

    limits = actuated_limits(build_model())
    assert limits.names == ACTUATED_JOINT_NAMES
    assert limits.effort == pytest.approx(np.full(16, 40.0))
    assert np.degrees(limits.upper[0]) == pytest.approx(45.0) and np.degrees(limits.lower[1]) == pytest.approx(-90.0)
    assert sorted(limits.actuator_ids.tolist()) == list(range(16))
    spec = build_spec()
    spec.actuator("knee_FL").forcerange = [0.0, 40.0]
    with pytest.raises(DescriptionError, match="motor of joint 'knee_FL' needs a forcerange around 0"):
        actuated_limits(spec.compile())


def test_a_released_magnet_spins_back_to_the_middle_of_its_range(model):
    """em_z has a centring spring: a magnet let go with its spin wound (as a climb winds it, up to
    150 deg) turns back to within a few degrees in 0.3 s, in the air, critically damped."""
    data = mujoco.MjData(model)
    data.qpos[2] += 0.5  # in the air: no surface holds a magnet
    spins = [model.joint(f"em_z_{leg}").qposadr[0] for leg in LEGS]
    data.qpos[spins] = np.radians([150.0, -150.0, 120.0, -90.0])
    for _ in range(600):  # 0.3 s
        mujoco.mj_step(model, data)
    assert np.abs(np.degrees(data.qpos[spins])).max() < 5.0
