"""The URDF generated from the compiled model, read by an independent parser (yourdfpy): its
forward kinematics are MuJoCo's for random joint configurations, its masses and limits the model's."""

import mujoco
import numpy as np
import pytest
import yourdfpy

from sally_description import build_model
from sally_description.urdf import rpy, urdf_from_model


@pytest.fixture(scope="module")
def loaded(tmp_path_factory):
    model = build_model()
    path = tmp_path_factory.mktemp("urdf") / "sally.urdf"
    path.write_text(urdf_from_model(model))
    return model, yourdfpy.URDF.load(str(path), build_scene_graph=True, load_meshes=False)


def test_every_body_below_the_base_is_a_link_and_every_hinge_a_joint(loaded):
    model, urdf = loaded
    assert urdf.base_link == "main_frame"
    assert sorted(urdf.link_map) == sorted(model.body(b).name for b in range(1, model.nbody))
    hinges = [model.joint(j).name for j in range(model.njnt) if model.jnt_type[j] == mujoco.mjtJoint.mjJNT_HINGE]
    assert sorted(urdf.actuated_joint_names) == sorted(hinges)
    knee = urdf.joint_map["knee_FL"]
    j = model.joint("knee_FL").id
    assert (knee.limit.lower, knee.limit.upper) == pytest.approx(tuple(model.jnt_range[j]))
    assert knee.limit.effort > 0, "a motor joint carries its motor's effort limit"
    assert urdf.link_map["em_FL"].inertial.mass == pytest.approx(model.body("em_FL").mass[0])
    total = sum(link.inertial.mass for link in urdf.robot.links)
    assert total == pytest.approx(mujoco.mj_getTotalmass(model))


def test_forward_kinematics_match_mujoco_for_random_configurations(loaded):
    model, urdf = loaded
    data = mujoco.MjData(model)
    rng = np.random.default_rng(7)
    for _ in range(25):
        data.qpos[:] = model.qpos0
        data.qpos[:7] = [0, 0, 0, 1, 0, 0, 0]  # the base at the origin: world poses are poses in main_frame
        cfg = {}
        for name in urdf.actuated_joint_names:
            j = model.joint(name).id
            cfg[name] = data.qpos[model.jnt_qposadr[j]] = rng.uniform(*model.jnt_range[j])
        urdf.update_cfg(cfg)
        mujoco.mj_kinematics(model, data)
        for body in range(2, model.nbody):
            pose = urdf.get_transform(frame_to=model.body(body).name, frame_from="main_frame")
            np.testing.assert_allclose(pose[:3, 3], data.xpos[body], atol=1e-6)
            np.testing.assert_allclose(pose[:3, :3], data.xmat[body].reshape(3, 3), atol=1e-6)


@pytest.mark.parametrize("angles", [(0.3, -0.4, 1.2), (0.0, np.pi / 2, 0.5), (2.0, -np.pi / 2, -1.0)])
def test_rpy_rebuilds_the_rotation(angles):
    quat = np.empty(4)
    r, p, y = angles
    mat = (
        np.array([[np.cos(y), -np.sin(y), 0], [np.sin(y), np.cos(y), 0], [0, 0, 1]])
        @ np.array([[np.cos(p), 0, np.sin(p)], [0, 1, 0], [-np.sin(p), 0, np.cos(p)]])
        @ np.array([[1, 0, 0], [0, np.cos(r), -np.sin(r)], [0, np.sin(r), np.cos(r)]])
    )
    mujoco.mju_mat2Quat(quat, mat.flatten())
    r2, p2, y2 = rpy(quat)
    rebuilt = (
        np.array([[np.cos(y2), -np.sin(y2), 0], [np.sin(y2), np.cos(y2), 0], [0, 0, 1]])
        @ np.array([[np.cos(p2), 0, np.sin(p2)], [0, 1, 0], [-np.sin(p2), 0, np.cos(p2)]])
        @ np.array([[1, 0, 0], [0, np.cos(r2), -np.sin(r2)], [0, np.sin(r2), np.cos(r2)]])
    )
    np.testing.assert_allclose(rebuilt, mat, atol=1e-9)


def test_the_cli_prints_the_urdf(capsys):
    from sally_description.urdf import main

    assert main([]) == 0
    out = capsys.readouterr().out
    assert out.startswith('<?xml version="1.0"?>') and '<robot name="sally">' in out
