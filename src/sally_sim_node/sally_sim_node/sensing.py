"""What Sally's drivers read off her sensors: MuJoCo's sensor values (filled every physics step)
and the joints' positions, through each part's error model (:mod:`.sensor_noise`). Pure: no ROS.

* :meth:`Sensing.imu`: the IMU's specific force (m/s^2) and angular rate (rad/s) in ``imu_site``'s
  frame (main_frame's);
* :meth:`Sensing.encoders`: the joints' positions and velocities as their encoders give them;
* :meth:`Sensing.ranges`: each foot's range from its magnet's face along the face normal (m;
  ``inf`` when nothing is within the sensor's reach);
* :meth:`Sensing.contacts`: each foot's contact reading (N) and whether it says contact.

Each sensor keeps its own random stream (:func:`.sensor_noise.seeded`), so a lockstep run with one
``seed`` reads the same values every time. :meth:`reset` starts every stream and bias again.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from sally_description import LEGS
from sally_description.sensors import RANGE_RECESS, SensorLayout

from .sensor_noise import SENSORS, Channel, NoisySensor, load_channels, seeded
from .simulator import Simulator

SENSINGS = ("noisy", "ideal")
"""``noisy``: every sensor with its part's errors and latency; ``ideal``: exact, no latency."""
CONTACT_THRESHOLD = 5.0
"""N: a foot's contact reading above this says contact (the weight a standing foot carries is ~20 N,
a seated magnet's clamp hundreds; the reading's noise is 0.5 N)."""


def default_sensors_file() -> Path:
    """The packaged ``config/sensors.yaml`` (installed share first, then the source tree)."""
    import sys

    installed = Path(sys.prefix) / "share" / "sally_sim_node" / "config" / "sensors.yaml"
    return installed if installed.is_file() else Path(__file__).resolve().parents[1] / "config" / "sensors.yaml"


class Sensing:
    """The sensors of ``sim``'s model, their errors from ``channels`` (:data:`.sensor_noise.SENSORS`),
    sampled at ``periods`` (s: ``imu``, ``encoders``, ``ranges``, ``contacts``), seeded by ``seed``."""

    def __init__(self, sim: Simulator, channels: dict[str, Channel], periods: dict[str, float], seed: int) -> None:
        self.sim, self.channels, self.periods, self.seed = sim, channels, dict(periods), int(seed)
        self.layout = SensorLayout.of(sim.model)
        self.reset()

    @staticmethod
    def from_file(sim: Simulator, path: str | Path, sensing: str, periods: dict[str, float], seed: int) -> Sensing:
        """:class:`Sensing` with the channels of ``path`` ('' for the packaged file), ``sensing`` one of
        :data:`SENSINGS`."""
        if sensing not in SENSINGS:
            raise ValueError(f"sensing {sensing!r} is not one of {list(SENSINGS)}")
        return Sensing(sim, load_channels(path or default_sensors_file(), ideal=sensing == "ideal"), periods, seed)

    def reset(self) -> None:
        """Every sensor's stream and bias drawn again from the seed (a reset run reads as a fresh one)."""
        c, p, n = self.channels, self.periods, len(self.sim.joint_names)
        streams = {name: seeded(self.seed, i) for i, name in enumerate(SENSORS)}
        self._gyro = NoisySensor(c["gyro"], 3, p["imu"], streams["gyro"])
        self._accel = NoisySensor(c["accel"], 3, p["imu"], streams["accel"])
        self._position = NoisySensor(c["encoder"], n, p["encoders"], streams["encoder"])
        self._velocity = NoisySensor(c["encoder_velocity"], n, p["encoders"], streams["encoder_velocity"])
        self._range = NoisySensor(c["range"], len(LEGS), p["ranges"], streams["range"])
        self._contact = NoisySensor(c["contact"], len(LEGS), p["contacts"], streams["contact"])

    def imu(self) -> tuple[np.ndarray, np.ndarray]:
        """(specific force m/s^2, angular rate rad/s), each in the IMU's frame."""
        data = self.sim.data.sensordata
        return self._accel.read(data[self.layout.accel]), self._gyro.read(data[self.layout.gyro])

    def encoders(self) -> tuple[np.ndarray, np.ndarray]:
        """(positions rad, velocities rad/s) of every joint, as their encoders give them."""
        return self._position.read(self.sim.joint_positions()), self._velocity.read(self.sim.joint_velocities())

    def ranges(self) -> np.ndarray:
        """Each foot's range (m) from its magnet's face along the face normal; ``inf`` out of reach."""
        data = self.sim.data.sensordata
        raw = np.array([data[a] for a in self.layout.ranges])
        gap = np.where(raw < 0, math.inf, raw - RANGE_RECESS)
        limit = self.channels["range"].limit
        seen = np.where(np.isfinite(gap) & (gap <= limit), gap, 0.0)
        read = self._range.read(seen)
        return np.where(np.isfinite(gap) & (gap <= limit), np.maximum(read, 0.0), math.inf)

    def contacts(self) -> tuple[np.ndarray, np.ndarray]:
        """(each foot's contact reading N, whether it says contact)."""
        data = self.sim.data.sensordata
        force = np.maximum(self._contact.read(np.array([data[a] for a in self.layout.contacts])), 0.0)
        return force, force > CONTACT_THRESHOLD
