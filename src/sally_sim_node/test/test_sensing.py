"""The robot's sensors as MuJoCo reads them and their parts' errors (real MuJoCo, no ROS)."""

import math

import numpy as np
import pytest

from sally_sim_node.errors import SimulationError
from sally_sim_node.sensing import Sensing, default_sensors_file
from sally_sim_node.sensor_noise import Channel, NoisySensor, load_channels, seeded
from sally_sim_node.simulator import Simulator

PERIODS = {"imu": 0.005, "encoders": 0.005, "ranges": 0.02, "contacts": 0.02}


@pytest.fixture(scope="module")
def standing():
    sim = Simulator()
    sim.step(1000)  # 0.5 s: settled on the floor, every magnet on
    return sim


def test_ideal_sensors_read_the_physics_exactly(standing):
    s = Sensing.from_file(standing, "", "ideal", PERIODS, 0)
    q, qd = s.encoders()
    assert np.array_equal(q, standing.joint_positions()) and np.array_equal(qd, standing.joint_velocities())
    accel, gyro = s.imu()
    assert abs(np.linalg.norm(accel) - 9.81) < 0.05, "a standing body's accelerometer reads gravity"
    assert np.abs(gyro).max() < 1e-3
    ranges = s.ranges()
    assert np.all(ranges < 0.002), f"a foot standing on the floor sees it at its face: {ranges}"
    force, said = s.contacts()
    assert said.all() and np.all(force > 100), "every clamped foot says contact"


def test_noisy_sensors_are_seeded_and_resolved(standing):
    a = Sensing.from_file(standing, "", "noisy", PERIODS, 7)
    b = Sensing.from_file(standing, "", "noisy", PERIODS, 7)
    c = Sensing.from_file(standing, "", "noisy", PERIODS, 8)
    qa, qb, qc = a.encoders()[0], b.encoders()[0], c.encoders()[0]
    assert np.array_equal(qa, qb), "one seed, the same readings"
    assert not np.array_equal(qa, qc)
    lsb = a.channels["encoder"].resolution
    assert np.allclose(qa / lsb, np.round(qa / lsb), atol=1e-6), "the encoders read whole LSBs"
    assert 0 < np.abs(qa - standing.joint_positions()).max() < 5 * lsb


def test_a_range_beyond_the_sensor_reads_inf():
    sim = Simulator()
    sim.step(200)
    lifted = Sensing.from_file(sim, "", "noisy", PERIODS, 0)
    lifted.channels["range"] = Channel(limit=0.0001)  # nothing is that close once the face is not on the plate
    lifted.reset()
    sim.data.qpos[2] += 0.05  # the body 5 cm up: every face 5 cm over the floor
    import mujoco

    mujoco.mj_forward(sim.model, sim.data)
    assert np.all(np.isinf(lifted.ranges()))


def test_bias_walks_and_latency_delays():
    sensor = NoisySensor(Channel(bias_walk=1.0, latency=0.01), 1, 0.005, seeded(0, 0))
    first = sensor.read(np.array([1.0]))
    second = sensor.read(np.array([2.0]))
    third = sensor.read(np.array([3.0]))
    assert first == second, "held until the latency's two samples have passed"
    assert abs(third[0] - 1.0) < 0.5, "the reading of two samples before"
    assert sensor.bias[0] != 0.0


@pytest.mark.parametrize(
    "text, says",
    [
        ("gyro: {white: -1}", "missing"),
        ("- 1", "must map"),
        ("{gyro: {}, accel: {}, encoder: {}, encoder_velocity: {}, range: {}, contact: {white: .nan}}", ">= 0"),
        ("{gyro: {}, accel: {}, encoder: {}, encoder_velocity: {}, range: {}, contact: {noise: 1}}", "unknown figures"),
        ("{gyro: {", "could not be read"),
    ],
)
def test_a_bad_sensor_file_is_refused_by_name(tmp_path, text, says):
    path = tmp_path / "sensors.yaml"
    path.write_text(text)
    with pytest.raises(SimulationError, match=says):
        load_channels(path)


def test_the_packaged_figures_are_the_parts():
    channels = load_channels(default_sensors_file())
    assert math.isclose(channels["encoder"].resolution, 2 * math.pi / 2**14, rel_tol=1e-3), "a 14-bit encoder"
    assert channels["gyro"].limit == pytest.approx(math.radians(250), rel=1e-2), "the BMI088 at +-250 deg/s"
    ideal = load_channels(default_sensors_file(), ideal=True)
    assert all(c.white == c.bias == c.latency == 0 for c in ideal.values())
