"""Sally's sensors, added to the spec in memory and read by MuJoCo at every physics step.

What a real Sally carries, as MuJoCo sensors (``mj_step`` fills ``data.sensordata`` each step):

* an IMU at ``imu_site`` on main_frame: an ``accelerometer`` (specific force, m/s^2, in the site's
  frame) and a ``gyro`` (rad/s, in the site's frame);
* a range sensor per foot, ``range_site_<leg>`` :data:`RANGE_RECESS` behind the centre of the magnet's
  face, its +z along the face normal (``FACE_AXIS_LOCAL``): a ``rangefinder`` (m to the first geom along +z, -1 when
  nothing is within reach; the foot's own body is excluded);
* a contact sensor per foot, ``contact_site_<leg>``: a ``touch`` sensor over the magnet's face
  (the normal force, N, of the contacts inside the site's box), what a switch in the foot or the
  coil current's change on contact tells the driver.

The joint encoders are the joints' positions (the sim node quantises them to the encoder's
resolution). :class:`SensorLayout` finds each reading's address in ``sensordata``.
"""

from __future__ import annotations

from dataclasses import dataclass

import mujoco
import numpy as np

from .constants import FOOT_STANDOFF, LEGS, ROOT_BODY, magnet_body
from .errors import DescriptionError

IMU_SITE = "imu_site"
ACCELEROMETER, GYRO = "imu_accel", "imu_gyro"
_FACE_QUAT = (np.sqrt(0.5), np.sqrt(0.5), 0.0, 0.0)
"""90 deg about x: a site's +z along the magnet body's -y (the face normal)."""
RANGE_RECESS = 0.005
"""How far behind the magnet's face the range sensor sits, inside the housing (m): a ray that starts
on the face would start inside a plate the face has sunk into. A reading less this is the face's gap."""
CONTACT_DEPTH = 0.004
"""Half-depth of the contact sensor's box about the face (m): contacts within 4 mm of the face count."""
CONTACT_RADIUS = 0.034
"""Half-width of the contact sensor's box (m): the 63 mm face and a little more."""


def range_site(leg: str) -> str:
    """The site of ``leg``'s range sensor (the magnet's face centre, +z along its normal)."""
    return f"range_site_{leg}"


def range_sensor(leg: str) -> str:
    """The name of ``leg``'s rangefinder."""
    return f"range_{leg}"


def contact_site(leg: str) -> str:
    """The site of ``leg``'s contact sensor (a box over the magnet's face)."""
    return f"contact_site_{leg}"


def contact_sensor(leg: str) -> str:
    """The name of ``leg``'s touch sensor."""
    return f"contact_{leg}"


def add_sensors(spec: mujoco.MjSpec) -> None:
    """Add the IMU, the range sensors and the contact sensors to ``spec`` (once)."""
    if any(s.name == ACCELEROMETER for s in spec.sensors):
        raise DescriptionError("the spec has Sally's sensors already")
    root = spec.body(ROOT_BODY)
    root.add_site(name=IMU_SITE, pos=[0.0, 0.0, 0.0], size=[0.005, 0.005, 0.005], group=5)
    spec.add_sensor(
        name=ACCELEROMETER,
        type=mujoco.mjtSensor.mjSENS_ACCELEROMETER,
        objtype=mujoco.mjtObj.mjOBJ_SITE,
        objname=IMU_SITE,
    )
    spec.add_sensor(name=GYRO, type=mujoco.mjtSensor.mjSENS_GYRO, objtype=mujoco.mjtObj.mjOBJ_SITE, objname=IMU_SITE)
    face = [0.0, -FOOT_STANDOFF, 0.0]
    behind_face = [0.0, RANGE_RECESS - FOOT_STANDOFF, 0.0]
    for leg in LEGS:
        body = spec.body(magnet_body(leg))
        body.add_site(name=range_site(leg), pos=behind_face, quat=list(_FACE_QUAT), size=[0.003, 0.003, 0.003], group=5)
        body.add_site(
            name=contact_site(leg),
            type=mujoco.mjtGeom.mjGEOM_BOX,
            pos=face,
            quat=list(_FACE_QUAT),
            size=[CONTACT_RADIUS, CONTACT_RADIUS, CONTACT_DEPTH],
            group=5,
        )
        ranger = spec.add_sensor(
            name=range_sensor(leg),
            type=mujoco.mjtSensor.mjSENS_RANGEFINDER,
            objtype=mujoco.mjtObj.mjOBJ_SITE,
            objname=range_site(leg),
        )
        ranger.intprm[0] = 1 << int(mujoco.mjtRayDataField.mjRAYDATA_DIST)  # the distance only
        spec.add_sensor(
            name=contact_sensor(leg),
            type=mujoco.mjtSensor.mjSENS_TOUCH,
            objtype=mujoco.mjtObj.mjOBJ_SITE,
            objname=contact_site(leg),
        )


@dataclass(frozen=True)
class SensorLayout:
    """Where each reading lies in ``data.sensordata`` (looked up once)."""

    accel: slice
    gyro: slice
    ranges: tuple[int, ...]
    """Per leg (:data:`LEGS` order): the rangefinder's address."""
    contacts: tuple[int, ...]
    """Per leg: the touch sensor's address."""
    imu_site: int

    @staticmethod
    def of(model: mujoco.MjModel) -> SensorLayout:
        """The addresses in ``model``; DescriptionError when a sensor is missing."""

        def adr(name: str) -> int:
            sid = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_SENSOR, name)
            if sid < 0:
                raise DescriptionError(f"model has no sensor {name!r}: build it with sally_description.build_model")
            return int(model.sensor_adr[sid])

        site = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_SITE, IMU_SITE)
        return SensorLayout(
            slice(adr(ACCELEROMETER), adr(ACCELEROMETER) + 3),
            slice(adr(GYRO), adr(GYRO) + 3),
            tuple(adr(range_sensor(leg)) for leg in LEGS),
            tuple(adr(contact_sensor(leg)) for leg in LEGS),
            int(site),
        )
