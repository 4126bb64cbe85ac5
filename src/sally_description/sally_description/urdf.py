"""A URDF of Sally generated from the compiled MuJoCo model: one description, two formats.

rviz, Foxglove and robot_state_publisher read URDF; the MJCF (built with ``MjSpec``) stays the one
hand-kept description. :func:`urdf_from_model` walks the compiled model's bodies below the
floating base:

* each body is a link named like the body, with its mass and inertia (``body_ipos`` /
  ``body_iquat`` give the inertial frame, ``body_inertia`` the principal moments);
* each hinge is a revolute joint (continuous when unlimited) named like the MuJoCo joint, at the
  body's pose in its parent (``body_pos`` / ``body_quat``), axis ``jnt_axis``, limits ``jnt_range``
  and the effort limit of the motor that drives it (its servo's symmetric forcerange; 0 for a
  passive joint); the MJCF has no velocity limits, so ``velocity`` is 0 (unspecified);
* a body without joints is attached by a fixed joint;
* geoms become visuals (every geom) and collisions (geoms that collide) with their colour:
  spheres, boxes and cylinders as they are, a capsule as a cylinder and two spheres.

The world body (the steel plates) is not part of the robot: its frames are published as
``/tf_static`` and the plates drawn as markers. Only hinge joints (and one free joint at the root)
occur in Sally; a model with others is refused with the joint named.
"""

from __future__ import annotations

import math
from xml.etree import ElementTree as ET

import mujoco
import numpy as np

from .constants import ROOT_BODY
from .errors import DescriptionError
from .limits import actuated_limits
from .model import subtree


def rpy(quat_wxyz) -> tuple[float, float, float]:
    """URDF's fixed-axis roll, pitch, yaw (R = Rz(yaw) Ry(pitch) Rx(roll)) of a unit quaternion."""
    m = np.empty(9)
    mujoco.mju_quat2Mat(m, np.asarray(quat_wxyz, dtype=float))
    r = m.reshape(3, 3)
    pitch = math.asin(max(-1.0, min(1.0, -r[2, 0])))
    if abs(r[2, 0]) < 1.0 - 1e-12:
        return math.atan2(r[2, 1], r[2, 2]), pitch, math.atan2(r[1, 0], r[0, 0])
    return math.atan2(-r[1, 2], r[1, 1]), pitch, 0.0  # gimbal lock: yaw folded into roll


def _numbers(values) -> str:
    return " ".join(f"{float(v):.12g}" for v in values)


def _origin(parent: ET.Element, pos, quat) -> None:
    ET.SubElement(parent, "origin", xyz=_numbers(pos), rpy=_numbers(rpy(quat)))


def _geometry(parent: ET.Element, kind: int, size) -> None:
    geometry = ET.SubElement(parent, "geometry")
    if kind == mujoco.mjtGeom.mjGEOM_SPHERE:
        ET.SubElement(geometry, "sphere", radius=_numbers(size[:1]))
    elif kind == mujoco.mjtGeom.mjGEOM_BOX:
        ET.SubElement(geometry, "box", size=_numbers(2 * np.asarray(size[:3])))
    elif kind in (mujoco.mjtGeom.mjGEOM_CYLINDER, mujoco.mjtGeom.mjGEOM_CAPSULE):
        ET.SubElement(geometry, "cylinder", radius=_numbers(size[:1]), length=_numbers([2 * size[1]]))
    else:
        raise DescriptionError(f"geom type {mujoco.mjtGeom(kind).name} has no URDF primitive")


def _shapes(model: mujoco.MjModel, geom: int) -> list[tuple[int, np.ndarray, np.ndarray, np.ndarray]]:
    """(type, size, pos, quat) of the URDF primitives that make up ``geom`` in its body's frame."""
    kind, size = int(model.geom_type[geom]), model.geom_size[geom]
    pos, quat = model.geom_pos[geom], model.geom_quat[geom]
    if kind != mujoco.mjtGeom.mjGEOM_CAPSULE:
        return [(kind, size, pos, quat)]
    axis = np.empty(9)
    mujoco.mju_quat2Mat(axis, quat)
    z = axis.reshape(3, 3)[:, 2] * size[1]
    ball = np.array([size[0], 0.0, 0.0])
    return [
        (kind, size, pos, quat),
        (int(mujoco.mjtGeom.mjGEOM_SPHERE), ball, pos + z, quat),
        (int(mujoco.mjtGeom.mjGEOM_SPHERE), ball, pos - z, quat),
    ]


def _link(robot: ET.Element, model: mujoco.MjModel, body: int) -> None:
    link = ET.SubElement(robot, "link", name=model.body(body).name)
    inertial = ET.SubElement(link, "inertial")
    _origin(inertial, model.body_ipos[body], model.body_iquat[body])
    ET.SubElement(inertial, "mass", value=_numbers([model.body_mass[body]]))
    ixx, iyy, izz = model.body_inertia[body]
    ET.SubElement(
        inertial, "inertia", ixx=_numbers([ixx]), ixy="0", ixz="0", iyy=_numbers([iyy]), iyz="0", izz=_numbers([izz])
    )
    for geom in (int(g) for g in np.flatnonzero(model.geom_bodyid == body)):
        collides = bool(model.geom_contype[geom] or model.geom_conaffinity[geom])
        for k, (kind, size, pos, quat) in enumerate(_shapes(model, geom)):
            name = model.geom(geom).name or f"geom{geom}"
            suffix = f"_{k}" if k else ""
            visual = ET.SubElement(link, "visual", name=f"{name}{suffix}")
            _origin(visual, pos, quat)
            _geometry(visual, kind, size)
            material = ET.SubElement(visual, "material", name=f"{name}{suffix}_color")
            ET.SubElement(material, "color", rgba=_numbers(model.geom_rgba[geom]))
            if collides:
                collision = ET.SubElement(link, "collision", name=f"{name}{suffix}")
                _origin(collision, pos, quat)
                _geometry(collision, kind, size)


def _joint(robot: ET.Element, model: mujoco.MjModel, body: int, efforts: dict[int, float]) -> None:
    parent, child = model.body(int(model.body_parentid[body])).name, model.body(body).name
    count = int(model.body_jntnum[body])
    if count == 0:
        joint = ET.SubElement(robot, "joint", name=f"{parent}_to_{child}", type="fixed")
    else:
        j = int(model.body_jntadr[body])
        if count > 1 or model.jnt_type[j] != mujoco.mjtJoint.mjJNT_HINGE:
            raise DescriptionError(
                f"body {child}: only one hinge per body converts to URDF (joint {model.joint(j).name})"
            )
        if np.any(model.jnt_pos[j] != 0):
            raise DescriptionError(f"joint {model.joint(j).name}: a hinge off its body's origin does not convert")
        limited = bool(model.jnt_limited[j])
        joint = ET.SubElement(robot, "joint", name=model.joint(j).name, type="revolute" if limited else "continuous")
        ET.SubElement(joint, "axis", xyz=_numbers(model.jnt_axis[j]))
        if limited:
            low, high = model.jnt_range[j]
            ET.SubElement(
                joint,
                "limit",
                lower=_numbers([low]),
                upper=_numbers([high]),
                effort=_numbers([efforts.get(j, 0.0)]),
                velocity="0",
            )
    ET.SubElement(joint, "parent", link=parent)
    ET.SubElement(joint, "child", link=child)
    _origin(joint, model.body_pos[body], model.body_quat[body])


def urdf_from_model(model: mujoco.MjModel, name: str = "sally") -> str:
    """The URDF (text) of the robot rooted at the model's floating base ``main_frame``."""
    root = model.body(ROOT_BODY).id
    limits = actuated_limits(model)
    efforts = {model.joint(n).id: float(e) for n, e in zip(limits.names, limits.effort)}
    robot = ET.Element("robot", name=name)
    robot.append(ET.Comment(" generated from the compiled MuJoCo model (sally_description.urdf); do not edit "))
    below = subtree(model, root)
    for body in below:
        _link(robot, model, body)
    for body in below:
        if body != root:
            _joint(robot, model, body, efforts)
    ET.indent(robot)
    return '<?xml version="1.0"?>\n' + ET.tostring(robot, encoding="unicode") + "\n"


def main(argv: list[str] | None = None) -> int:
    """``sally-urdf [--params FILE] > sally.urdf``: the URDF of the model the sim builds."""
    import argparse
    import sys

    from .model import build_model
    from .params import PhysicsParams

    parser = argparse.ArgumentParser(prog="sally-urdf", description=main.__doc__)
    parser.add_argument(
        "--params", help="physics parameter file (as the sim's params_file); masses do not depend on it"
    )
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    try:
        params = PhysicsParams.from_file(args.params) if args.params else PhysicsParams()
        sys.stdout.write(urdf_from_model(build_model(params=params)))
    except DescriptionError as exc:
        print(f"sally-urdf: {exc}", file=sys.stderr)
        return 2
    return 0
