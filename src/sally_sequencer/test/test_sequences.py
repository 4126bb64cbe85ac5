"""Each phase and the runner on a plain fake context: no MuJoCo, no ROS."""

import math

import numpy as np
import pytest

from sally_description.constants import CLAMP_SINK
from sally_sequencer import PhaseContext, SequenceError, SequenceRunner, make_sequence
from sally_sequencer.sequences import (
    FOOT_STANDOFF,
    REACH_CLEARANCE,
    REACH_TIME,
    SEAT_SETTLE,
    SEAT_TIME,
    WALL_X,
    wall_distance,
)
from sally_sequencer.trajectory import quintic

HOME = np.array([0.33, 0.28, 0.009])
HIP = np.array([0.13, 0.08, 0.12])


class Fake:
    """A context whose EE is wherever the test puts it; magnet switches are recorded."""

    def __init__(self, foot="FL"):
        self.ee = HOME.copy()
        self.magnet = []
        self.ctx = PhaseContext(
            foot=foot,
            ee_home=HOME.copy(),
            ee_pos_fn=lambda: self.ee.copy(),
            hip_pivot_fn=lambda: HIP.copy(),
            enable_magnet=lambda: self.magnet.append("on"),
            disable_magnet=lambda: self.magnet.append("off"),
        )


def run(name, times, fake=None, follow=True):
    fake = fake or Fake()
    runner = SequenceRunner(make_sequence(name), fake.ctx, 0.0)
    out = []
    for t in times:
        t = round(float(t), 9)  # sample the phase boundaries exactly, not 1e-15 short of them
        target = runner.step(t)
        if follow:
            fake.ee = target.position.copy()  # a perfect IK and controller
        out.append((t, runner.phase.name, target))
    return runner, fake, out


def at(out, t):
    return next(target for time, _, target in out if abs(time - t) < 1e-9)


def test_quintic():
    assert (quintic(0.0), quintic(0.5), quintic(1.0), quintic(2.0)) == (0.0, 0.5, 1.0, 1.0)


def test_lift_raises_10_cm_and_switches_the_swing_magnet_off():
    _, fake, out = run("f2w", [0.0, 1.5, 3.0])
    assert fake.magnet[0] == "off"
    assert at(out, 0.0).position == pytest.approx(HOME)
    assert at(out, 1.5).position == pytest.approx(HOME + [0, 0, 0.05])
    assert at(out, 1.5).face_axis is None


@pytest.mark.parametrize("name, angle", [("f2w", -45.0), ("f2w_fr", 45.0)])
def test_swing_arcs_about_the_hip_pivot(name, angle):
    times = np.arange(0.0, 4.5 + 1e-9, 0.05)
    _, _, out = run(name, times)
    swing = [(t, target.position) for t, phase, target in out if phase == "SWING"]
    start = HOME + [0, 0, 0.10]
    radius = np.hypot(*(start - HIP)[:2])
    for _, p in swing:
        assert np.hypot(*(p - HIP)[:2]) == pytest.approx(radius)
        assert p[2] == pytest.approx(start[2])
    end = at(out, 4.5).position
    turned = math.degrees(
        math.atan2(end[1] - HIP[1], end[0] - HIP[0]) - math.atan2(start[1] - HIP[1], start[0] - HIP[0])
    )
    assert turned == pytest.approx(angle)


def test_orient_rises_40_cm_above_home_and_faces_the_wall():
    _, fake, out = run("f2w", np.arange(0.0, 7.5 + 1e-9, 0.05))
    start, waypoint = fake.ctx.state.orient.start, fake.ctx.state.orient.end
    assert waypoint == pytest.approx([start[0], start[1], HOME[2] + 0.40])
    orienting = [target for _, phase, target in out if phase == "F2W_ORIENT"]
    assert all(t.face_axis is not None and t.orientation_cost > 0 for t in orienting)
    # the face turns from the floor (down) to the wall (+x) on the phase's quintic, in the x-z plane
    assert orienting[0].face_axis == pytest.approx([0, 0, -1], abs=1e-3)
    assert orienting[-1].face_axis == pytest.approx([1, 0, 0], abs=1e-3)
    toward_wall = [t.face_axis[0] for t in orienting]
    assert all(b >= a for a, b in zip(toward_wall, toward_wall[1:]))
    assert all(abs(t.face_axis[1]) < 1e-12 and np.linalg.norm(t.face_axis) == pytest.approx(1) for t in orienting)
    assert np.linalg.norm(orienting[-1].position - waypoint) < 1e-3  # the last sample, 50 ms before the end
    assert {phase for _, phase, _ in out} >= {"LIFT", "SWING", "F2W_ORIENT"}


def test_measure_reach_and_seat_then_the_magnet_on():
    fake = Fake()
    runner = SequenceRunner(make_sequence("f2w"), fake.ctx, 0.0)
    out, on_at = [], None
    for t in np.arange(0.0, 12.0 + 1e-9, 0.05):
        t = round(float(t), 9)
        target = runner.step(t)
        fake.ee = target.position.copy()
        if on_at is None and "on" in fake.magnet:
            on_at = t
        out.append((t, runner.phase.name, target))
    reach, plant = fake.ctx.state.reach.approach, fake.ctx.state.reach.plant
    assert reach[0] == pytest.approx(WALL_X - FOOT_STANDOFF - REACH_CLEARANCE)
    assert wall_distance(reach) == pytest.approx(FOOT_STANDOFF + REACH_CLEARANCE)
    assert wall_distance(plant) == pytest.approx(FOOT_STANDOFF)  # the face on the wall
    assert plant[1:] == pytest.approx(reach[1:])  # straight ahead along the wall normal
    assert at(out, 7.5 + REACH_TIME).position == pytest.approx(reach)  # the staging stop, magnet off
    assert at(out, 12.0).position == pytest.approx(plant)
    assert fake.magnet == ["off", "on"]  # on exactly once, after the seat
    assert on_at == pytest.approx(7.5 + REACH_TIME + SEAT_TIME + SEAT_SETTLE)
    assert runner.phase.name == "F2W_REACH" and not runner.done  # unbounded: holds until handed off


def test_measure_refuses_an_ee_behind_the_wall():
    fake = Fake()
    runner = SequenceRunner(make_sequence("f2w"), fake.ctx, 0.0)
    runner.step(7.4)
    fake.ee = np.array([0.6, 0.0, 0.4])  # past the wall's inner face
    with pytest.raises(SequenceError, match="not in front of the wall"):
        runner.step(7.6)


def test_runner_status_force_complete_and_unbounded_orient():
    runner, fake, out = run("orient", np.arange(0.0, 20.0, 0.1))
    assert runner.phase.name == "ORIENT_HOLD" and not runner.done
    status = runner.status(20.0)
    assert (status.phase_index, status.phase_count) == (2, 3) and status.elapsed == 20.0
    last = runner.step(20.0)
    runner.force_complete()
    assert runner.done and runner.step(25.0) is last


def test_on_enter_runs_once_per_phase_even_when_a_step_skips_phases():
    fake = Fake()
    runner = SequenceRunner(make_sequence("f2w"), fake.ctx, 0.0)
    runner.step(0.0)
    runner.step(10.3)  # from LIFT straight past F2W_REACH's magnet-on time
    assert runner.phase.name == "F2W_REACH" and fake.magnet == ["off", "on"]


def test_unknown_sequence():
    valid = r"\['b2w_bl', 'b2w_br', 'body_climb', 'body_square', 'f2w', 'f2w_fr', 'lift', 'orient', "
    valid += r"'step_bl', 'step_br'\]"
    with pytest.raises(SequenceError, match=r"unknown sequence 'w2f'; valid: " + valid):
        make_sequence("w2f")


class Sensing(Fake):
    """A fake whose foot has a range sensor (the wall ``wall_x`` where it really is) and a contact
    sensor that speaks once the face reaches it (the EE at ``wall_x - FOOT_STANDOFF``)."""

    def __init__(self, wall_x=WALL_X, contact=True):
        super().__init__()
        self.wall_x, self.contact = wall_x, contact
        self.ctx.range_fn = lambda: self.wall_x - (self.ee[0] + FOOT_STANDOFF)
        self.ctx.contact_fn = lambda: self.contact and self.ee[0] >= self.wall_x - FOOT_STANDOFF - 1e-9


def f2w_times(until):
    return np.arange(0.0, until, 0.005)


def test_the_measure_takes_the_wall_from_the_foot_s_range_sensor():
    """A wall 5 mm behind the map's: the plant is on the wall the sensor sees, not the map's."""
    fake = Sensing(wall_x=WALL_X + 0.005)
    runner, fake, _ = run("f2w", f2w_times(9.0), fake)
    plant = fake.ctx.state.reach.plant
    assert plant[0] == pytest.approx(WALL_X + 0.005 - FOOT_STANDOFF, abs=1e-9)
    fake.ctx.range_fn = lambda: math.nan  # no reading: the map's wall
    fresh = Fake()
    run("f2w", f2w_times(9.0), fresh)
    assert fresh.ctx.state.reach.plant[0] == pytest.approx(WALL_X - FOOT_STANDOFF, abs=1e-9)


def test_a_seat_ends_on_sensed_contact_and_the_magnet_follows_it():
    """The wall 3 mm behind the measured one (a range's error): the seat goes on past the plant until
    the contact sensor speaks, holds there, and the magnet comes on a settle later, not before."""

    def short():
        fake = Sensing()
        fake.ctx.range_fn = lambda: fake.wall_x - 0.003 - (fake.ee[0] + FOOT_STANDOFF)  # reads 3 mm short
        return fake

    runner, fake, out = run("f2w", f2w_times(12.0), short())
    touched, depth = fake.ctx.state.seating.touched  # (phase time)
    assert touched > REACH_TIME + SEAT_TIME, "past the measured plant, pressing on"
    assert depth == pytest.approx(WALL_X - FOOT_STANDOFF + CLAMP_SINK, abs=1e-3), "held where the clamp seats it"
    assert fake.magnet.count("on") == 1
    assert out[-1][2].position[0] == pytest.approx(WALL_X - FOOT_STANDOFF + CLAMP_SINK, abs=1e-3)
    reach_start = next(t for t, name, _ in out if name == "F2W_REACH")
    _, early, _ = run("f2w", f2w_times(reach_start + touched + SEAT_SETTLE - 0.02), short())
    assert "on" not in early.magnet, "the magnet waits a settle after the touch"


def test_a_seat_without_contact_fails_by_name():
    fake = Sensing(contact=False)
    with pytest.raises(SequenceError, match="no contact sensed"):
        run("f2w", f2w_times(16.0), fake)
    assert "on" not in fake.magnet, "no magnet on a contact never sensed"
