"""The state estimator's core against the real physics: Sally standing, then a foot lifted, then a
surface off the map (real MuJoCo, the sim's sensors with their noise, no ROS)."""

import numpy as np
import pytest

from sally_description import LEGS, build_model
from sally_description.pose import Pose
from sally_description.scene import scene
from sally_sim_node.sensing import Sensing
from sally_sim_node.simulator import Simulator
from sally_state_estimator.estimator import BodyEstimator, ImuRefusedError

PERIODS = {"imu": 0.005, "encoders": 0.005, "ranges": 0.005, "contacts": 0.005}


def run(sim, sensing, estimator, seconds, holding=None, imu=True):
    """Step ``seconds`` in 5 ms periods; the worst position error (mm) and tilt error (deg)."""
    worst_mm = worst_deg = 0.0
    for _ in range(round(seconds / 0.005)):
        sim.step(10)
        accel, gyro = sensing.imu()
        q, _ = sensing.encoders()
        _, said = sensing.contacts()
        held = {leg: bool(said[i]) and (holding is None or leg in holding) for i, leg in enumerate(LEGS)}
        e = estimator.update(sim.data.time, q, held, (accel, gyro) if imu else None)
        truth = sim.body_pose()
        worst_mm = max(worst_mm, float(np.linalg.norm(e.pose.position - truth.position)) * 1e3)
        turn = truth.rotation.T @ e.pose.rotation
        worst_deg = max(worst_deg, float(np.degrees(np.arccos(np.clip(turn[2, 2], -1, 1)))))
    return worst_mm, worst_deg, e


@pytest.fixture
def standing():
    sim = Simulator(build_model(spawn=(0.005, -0.004, 2.0), in_room=True))
    sim.reset()
    sensing = Sensing.from_file(sim, "", "noisy", PERIODS, 3)
    return sim, sensing, BodyEstimator(sim.body_pose(), [s for s in scene("floor_wall").surfaces if s.steel])


def test_four_clamped_feet_hold_the_estimate_to_a_fraction_of_a_millimetre(standing):
    worst_mm, worst_deg, e = run(*standing, 2.0)
    assert worst_mm < 0.5 and worst_deg < 0.1, (worst_mm, worst_deg)
    assert e.holding == LEGS and e.covariance[0, 0] < (0.5e-3) ** 2


def test_a_floor_beyond_the_gate_is_reported_found_off_the_map(standing):
    sim, sensing, _ = standing
    truth = sim.body_pose()
    told = Pose(truth.position + np.array([0.0, 0.0, 0.004]), truth.quat)  # 4 mm too high: past the gate
    estimator = BodyEstimator(told, [s for s in scene("floor_wall").surfaces if s.steel])
    run(sim, sensing, estimator, 0.1)
    assert estimator.found.get("floor", 0.0) != 0.0, "a floor 4 mm from where the anchors say is reported"


def test_a_start_placed_within_the_gate_is_put_back_on_the_map(standing):
    sim, sensing, _ = standing
    truth = sim.body_pose()
    near = BodyEstimator(Pose(truth.position + np.array([0.0, 0.0, 0.002]), truth.quat), _.surfaces)
    _, _, e = run(sim, sensing, near, 0.5)
    assert abs(e.pose.position[2] - sim.body_pose().position[2]) < 0.5e-3, "2 mm off: put back on the map's floor"


def test_without_an_imu_the_legs_carry_the_estimate_and_its_covariance_grows_without_them(standing):
    sim, sensing, estimator = standing
    worst_mm, worst_deg, e = run(sim, sensing, estimator, 0.5, imu=False)
    assert worst_mm < 0.5 and worst_deg < 0.1 and not e.imu
    before = e.covariance[0, 0]
    _, _, later = run(sim, sensing, estimator, 0.5, holding=(), imu=False)
    assert later.covariance[0, 0] > 100 * before, "no foot, no IMU: the position's variance grows"


@pytest.mark.parametrize(
    "accel, gyro", [((np.nan, 0, 9.8), (0, 0, 0)), ((0, 0, 9.8), (0, np.inf, 0)), ((0, 0, 9.8), (0, 0, 40.0))]
)
def test_an_imu_reading_not_finite_or_beyond_its_range_is_refused(standing, accel, gyro):
    _, _, estimator = standing
    with pytest.raises(ImuRefusedError):
        estimator.check_imu(np.array(accel, float), np.array(gyro, float))


def test_a_saved_state_taken_up_gives_the_next_update_to_the_bit(standing):
    """What an estimator killed and started again from its checkpoint does: its state as bytes, taken
    up by a new estimator, gives the very update the old one would have given."""
    sim, sensing, estimator = standing
    run(sim, sensing, estimator, 0.5)
    again = BodyEstimator(Pose(np.zeros(3), np.array([1.0, 0.0, 0.0, 0.0])), estimator.surfaces)  # put down elsewhere
    assert again.restore(estimator.state()) == pytest.approx(sim.data.time - 0.0, abs=0.01)
    sim.step(10)
    accel, gyro = sensing.imu()
    q, _ = sensing.encoders()
    held = dict.fromkeys(LEGS, True)
    a = estimator.update(sim.data.time, q, held, (accel, gyro))
    b = again.update(sim.data.time, q, held, (accel, gyro))
    assert a.pose.position.tobytes() == b.pose.position.tobytes() and a.pose.quat.tobytes() == b.pose.quat.tobytes()
    assert again.anchors.keys() == estimator.anchors.keys()
    with pytest.raises(ValueError, match="not an estimator's state"):
        again.restore(b"\0" * 10)


def test_a_gap_in_the_updates_integrates_nothing_and_the_held_feet_fix_the_pose(standing):
    """An estimator started again from a state saved 3 s earlier: the velocity and a gyro reading are
    not carried over the gap (a rate of 0.3 rad/s over it would turn the body 50 deg); the four held
    feet fix the pose at once."""
    sim, sensing, estimator = standing
    run(sim, sensing, estimator, 0.3)
    sim.step(6000)  # 3 s later
    q, _ = sensing.encoders()
    e = estimator.update(
        sim.data.time, q, dict.fromkeys(LEGS, True), (np.array([0.0, 0.0, 9.81]), np.array([0.3, 0, 0]))
    )
    truth = sim.body_pose()
    assert np.linalg.norm(e.pose.position - truth.position) < 1e-3
    assert np.degrees(np.arccos(np.clip((truth.rotation.T @ e.pose.rotation)[2, 2], -1, 1))) < 0.5


def test_a_foot_no_reading_tells_of_stays_as_it_stood(standing):
    """A restarted estimator's first states can come before any telemetry that old (the replay came
    after newer readings): a foot no reading tells of (None) keeps its anchor, and one not anchored
    gets none; a reading that says it lets go drops it as before."""
    sim, sensing, estimator = standing
    run(sim, sensing, estimator, 0.3)
    anchors = estimator.anchors
    assert sorted(anchors) == sorted(LEGS)
    sim.step(10)
    q, _ = sensing.encoders()
    e = estimator.update(sim.data.time, q, dict.fromkeys(LEGS, None), sensing.imu())
    assert e.holding == tuple(LEGS) and all((estimator.anchors[leg] == anchors[leg]).all() for leg in LEGS)
    fresh = BodyEstimator(sim.body_pose(), estimator.surfaces)
    assert fresh.update(sim.data.time, q, dict.fromkeys(LEGS, None), sensing.imu()).holding == ()
    e = estimator.update(sim.data.time + 0.005, q, {**dict.fromkeys(LEGS, None), "FL": False}, sensing.imu())
    assert "FL" not in e.holding and sorted(estimator.anchors) == ["BL", "BR", "FR"]
