"""Sally's physics core end to end on real MuJoCo: settle, lift, pull-off, divergence, bad input.
The servos hold the start pose unless a test sets them otherwise (:meth:`Simulator.set_servo`)."""

import mujoco
import numpy as np
import pytest

from sally_description import LEGS, PhysicsParams
from sally_description.constants import PLATE_GEOMS, magnet_geom
from sally_ik_node import NumericalFootIK
from sally_sim_node import DivergenceError, SimulationError, Simulator
from sally_sim_node.pulloff import PullOffConfig, run_pulloff
from sally_sim_node.servo import torque


def seconds(sim, t):
    return round(t / sim.timestep)


def test_settles_on_the_floor_with_magnets_on():
    sim = Simulator()
    sim.step(seconds(sim, 1.0))
    z1 = sim.body_pose().position[2]
    sim.step(seconds(sim, 2.0))
    z3 = sim.body_pose().position[2]
    assert abs(z3 - z1) < 1e-3
    for leg, r in sim.magnet_readouts().items():
        assert r.enabled and r.in_contact and r.surface == "floor", leg
        assert r.magnitude == pytest.approx(sim.params.max_force_per_wheel), leg
        assert r.min_distance > -0.002, f"{leg} sank {-r.min_distance * 1e3:.2f} mm into the floor"


def test_foot_forces_sum_every_contact_between_the_foot_and_a_plate():
    sim = Simulator()
    sim.step(seconds(sim, 0.3))
    plates = {mujoco.mj_name2id(sim.model, mujoco.mjtObj.mjOBJ_GEOM, g) for g in PLATE_GEOMS.values()}
    pairs = [(int(c.geom1), int(c.geom2)) for c in (sim.data.contact[i] for i in range(sim.data.ncon))]
    touching = [i for i, pair in enumerate(pairs) if (pair[0] in plates) != (pair[1] in plates)]
    assert len(touching) >= 4 and np.array_equal(sim.contact_points(), sim.data.contact.pos[touching])
    wrench = np.zeros(6)
    for leg in LEGS:
        foot = mujoco.mj_name2id(sim.model, mujoco.mjtObj.mjOBJ_GEOM, magnet_geom(leg))
        mine = [i for i in touching if foot in pairs[i]]
        assert mine, leg
        expected = 0.0
        for i in mine:
            mujoco.mj_contactForce(sim.model, sim.data, i, wrench)
            expected += wrench[0]
        assert sim.foot_contact_force(leg) == expected  # the same contacts, summed in the same order
        force, torque = sim.foot_contact_wrench(leg)
        assert force[2] == pytest.approx(expected, rel=1e-9)  # on the floor: the normal is +z
        # the wrench contact by contact: each force turned to the world, on the foot, about its body
        origin = sim.data.xpos[sim.model.geom_bodyid[foot]]
        want_force, want_torque = np.zeros(3), np.zeros(3)
        for i in mine:
            c = sim.data.contact[i]
            mujoco.mj_contactForce(sim.model, sim.data, i, wrench)
            f = c.frame.reshape(3, 3).T @ wrench[:3] * (-1.0 if c.geom1 == foot else 1.0)
            want_force += f
            want_torque += np.cross(c.pos - origin, f)
        np.testing.assert_allclose(force, want_force, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(torque, want_torque, rtol=1e-12, atol=1e-12)
        pull, about_origin = sim.magnet_wrench(leg)  # the kernel's torque is about the centre of mass
        body = sim.model.geom_bodyid[foot]
        lever = sim.data.xipos[body] - sim.data.xpos[body]
        i = LEGS.index(leg)
        np.testing.assert_array_equal(pull, sim.magnets.force[i])
        np.testing.assert_allclose(about_origin, sim.magnets.torque[i] + np.cross(lever, pull), rtol=1e-12, atol=1e-15)


def lift_targets(sim, leg, height):
    """Actuated-joint targets that put ``leg``'s foot ``height`` straight above where it is."""
    qpos, _ = sim.get_state()
    result = NumericalFootIK(sim.model).solve(qpos, leg, sim.ee_position(leg) + [0, 0, height], face_axis=[0, 0, -1])
    assert result.success
    return result.qpos[sim.actuators.joints.qpos_adr]


PERIOD = 10
"""Physics steps between two setpoints: a controller's 5 ms."""


def ramp_to(sim, start, goal, duration):
    """The servos' setpoints along a quintic from ``start`` to ``goal``, a new one every 5 ms."""
    n = seconds(sim, duration) // PERIOD
    for k in range(1, n + 1):
        s = k / n
        sim.set_servo(sim.servos.setting(start + (10 * s**3 - 15 * s**4 + 6 * s**5) * (goal - start)))
        sim.step(PERIOD)


def test_the_servos_cannot_lift_a_foot_its_magnet_holds():
    """800 N at the foot against 40 N m motors: the face only peels a little and stays held. (The
    servos' integrals wind up meanwhile, clamped only, as the seed's PID's: a lift commanded while
    the magnet holds overshoots once it lets go, so the sequences switch a magnet off first.)"""
    sim = Simulator()
    start = sim.actuated_positions()
    sim.step(seconds(sim, 1.0))
    home = sim.ee_position("FL")
    ramp_to(sim, start, lift_targets(sim, "FL", 0.10), 1.0)
    sim.step(seconds(sim, 0.5))
    held = sim.magnet_readouts()["FL"]
    assert held.in_contact and held.magnitude == pytest.approx(sim.params.max_force_per_wheel)
    assert sim.ee_position("FL")[2] - home[2] < 0.01


def test_the_servos_lift_a_foot_10_cm_once_its_magnet_is_off():
    sim = Simulator()
    start = sim.actuated_positions()
    sim.step(seconds(sim, 1.0))
    home = sim.ee_position("FL")
    sim.set_magnet("FL", False)
    ramp_to(sim, start, lift_targets(sim, "FL", 0.10), 1.0)
    sim.step(seconds(sim, 0.5))
    rise = sim.ee_position("FL") - home
    assert rise[2] == pytest.approx(0.10, abs=0.005)
    assert np.hypot(rise[0], rise[1]) < 0.005
    for leg in ("FR", "BL", "BR"):
        assert sim.magnet_readouts()[leg].in_contact, leg


def test_pull_off_detaches_at_the_clip_plus_the_carried_weight():
    """Only FL's magnet is on, so a vertical pull at FL's magnet first has to unload FL's share of the
    robot's weight (the floor's reaction beyond the magnet force, measured before the ramp) and then
    overcome the magnet, which is clipped at max_force_per_wheel while the face touches. Expected
    pull-off = clip + carried weight; the 40 N/s ramp adds little while the foot travels the ~20 mm
    at which the magnet force falls below half the clip."""
    sim = Simulator()
    result = run_pulloff(sim, PullOffConfig(foot="FL"))
    weight = mujoco.mj_getTotalmass(sim.model) * 9.81
    assert result.static_load == pytest.approx(weight / 4, rel=0.25)  # four feet share the weight
    expected = result.clip + result.static_load
    assert result.detached
    assert result.pulloff_force == pytest.approx(expected, rel=0.05)
    assert result.magnet_force[-1] < 0.5 * result.clip


def test_pull_off_with_no_adhesion_reports_zero():
    # a 20 mm contact margin keeps the face beyond the magnet's 5 mm reach: it never holds
    sim = Simulator(params=PhysicsParams(margin=0.02, max_magnetic_distance=0.005))
    result = run_pulloff(sim, PullOffConfig(max_ramp_time=0.5))
    assert result.magnet_force.max() == 0.0
    assert result.pulloff_force == 0.0 and not result.detached


def test_an_effort_alone_moves_its_joint():
    """One servo with every gain 0 is a plain motor: its feed-forward is the torque on the joint."""
    sim = Simulator(magnets_on={"FR": False})
    sim.step(seconds(sim, 0.5))
    fr_hip = sim.actuated_joint_names.index("hip_pitch_FR")
    held = sim.servos.setting(sim.actuated_positions())
    pushed = torque(np.array([15.0]), held.position[[fr_hip]])
    sim.set_servo(held.with_joints([fr_hip], **{k: getattr(pushed, k) for k in ("effort", "kp", "kd", "ki")}))
    sim.step(seconds(sim, 0.3))
    q = dict(zip(sim.joint_names, sim.joint_positions()))
    assert q["hip_pitch_FR"] > 0.1
    assert abs(q["hip_pitch_FL"]) < 0.01
    assert sim.joint_efforts()[sim.joint_names.index("hip_pitch_FR")] == pytest.approx(15.0)


def test_divergence_is_raised_not_silently_reset(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    sim = Simulator()
    sim.apply_external_force("main_frame", [0, 0, 1e30])
    with pytest.raises(DivergenceError, match="diverged at t ="):
        sim.step(50)
    with pytest.raises(SimulationError, match="call reset"):
        sim.step(1)
    sim.reset()
    assert sim.time == 0.0 and sim.diverged is None
    sim.step(10)
    assert np.isfinite(sim.get_state()[0]).all()
    assert list(tmp_path.iterdir()) == []  # MuJoCo's warning went to logging, not MUJOCO_LOG.TXT


def test_a_state_no_reader_would_take_is_a_divergence():
    """Before MuJoCo flags anything, a velocity beyond what every node refuses as implausible
    (inputs.MAX_RATE) already means the physics blew up: the sim stops there, it does not publish it."""
    from sally_node_common.inputs import MAX_RATE

    sim = Simulator()
    qpos, qvel = sim.get_state()
    qvel = qvel.copy()
    qvel[0] = 2 * MAX_RATE
    sim.set_state(qpos, qvel)
    with pytest.raises(DivergenceError, match="beyond the plausible"):
        sim.step(1)


def test_reset_restores_the_initial_state():
    sim = Simulator(magnets_on={"BR": False})
    q0, v0 = sim.get_state()
    sim.set_magnet("BR", True)
    sim.step(200)
    assert sim.servos.integral().any()
    sim.reset()
    q, v = sim.get_state()
    assert sim.time == 0.0 and np.array_equal(q, q0) and np.array_equal(v, v0)
    assert not sim.servos.integral().any(), "the servos' integrals start over"
    assert not sim.magnet_enabled("BR") and sim.magnet_enabled("FL")


def test_a_wall_start_stands_on_the_wall_and_a_reset_goes_back_there():
    from sally_description import build_model
    from sally_description.wall_start import WALL_STANCE

    sim = Simulator(build_model(start="wall"))
    q0, _ = sim.get_state()
    assert q0[:3] == pytest.approx(WALL_STANCE.body.position)  # the start keyframe, not qpos0
    sim.step(2000)  # 1 s, the servos holding the start
    body = sim.data.xpos[sim.model.body("main_frame").id]
    assert np.linalg.norm(body - WALL_STANCE.body.position) < 0.002
    readouts = sim.magnet_readouts()
    assert all(readouts[leg].in_contact and readouts[leg].surface == "wall" for leg in LEGS)
    sim.reset()
    assert sim.time == 0.0 and np.array_equal(sim.get_state()[0], q0)


def test_set_state_rejects_non_finite():
    sim = Simulator()
    qpos, qvel = sim.get_state()
    qpos[5] = np.nan
    with pytest.raises(SimulationError, match="finite"):
        sim.set_state(qpos, qvel)


def test_frames_and_com():
    sim = Simulator()
    assert sim.frame_pose("main_frame").quat == pytest.approx([1, 0, 0, 0])
    assert sim.center_of_mass()[:2] == pytest.approx([0, 0], abs=1e-9)
    for leg in LEGS:
        assert np.linalg.norm(sim.frame_pose(f"ee_site_{leg}").position - sim.ee_position(leg)) < 1e-12
    with pytest.raises(SimulationError, match="no body or site named 'nose'"):
        sim.frame_pose("nose")


def python_steps(sim, n):
    """``n`` physics steps made one call at a time in Python: MuJoCo's halves and the magnets."""
    for _ in range(n):
        mujoco.mj_step1(sim.model, sim.data)
        sim.magnets.apply(sim.data, sim._external)
        mujoco.mj_step2(sim.model, sim.data)


def test_steps_in_one_compiled_call_or_the_physics_thread_give_the_bits_of_one_step_at_a_time():
    """The steps run in the compiled kernel (no interpreter lock), in this thread or the physics
    thread; either way MuJoCo, its servos and the magnets do exactly what the step-by-step Python
    loop does."""
    sims = [Simulator(magnets_on=True) for _ in range(3)]
    efforts = np.linspace(-0.4, 0.4, len(sims[0].actuators.effort_limit))
    for sim in sims:
        sim.apply_external_force("main_frame", [0.0, 0.0, -20.0])
        setting = sim.servos.setting(sim.actuated_positions() + 0.01)
        sim.set_servo(setting.with_joints(np.arange(len(efforts)), effort=efforts))
    for _ in range(150):
        python_steps(sims[0], 2)
        sims[1].step(2)
        sims[2].start_steps(2)
        assert sims[2].stepping
        sims[2].finish_steps()
    sims[2].close()
    for sim in sims[1:]:
        assert np.array_equal(sim.data.qpos, sims[0].data.qpos) and np.array_equal(sim.data.qvel, sims[0].data.qvel)
        assert np.array_equal(sim.magnets.force, sims[0].magnets.force) and sim.time == sims[0].time


def test_the_physics_thread_and_the_loop_sleep_when_the_other_is_late_and_signals_end_no_wait_early():
    """Runs asked at once, after the worker has given up polling and sleeps, and taken back after
    the loop sleeps, while a timer's signal interrupts the waits (EINTR) every 0.2 ms: every run is
    the sequential one's, bit for bit, and no wait ends before its run."""
    import signal
    import time

    sims = [Simulator(magnets_on=True) for _ in range(2)]
    efforts = np.linspace(-0.4, 0.4, len(sims[0].actuators.effort_limit))
    for sim in sims:
        sim.apply_external_force("main_frame", [0.0, 0.0, -20.0])
        sim.set_servo(torque(efforts, sim.actuated_positions()))
    signals = []
    previous = signal.signal(signal.SIGALRM, lambda *_: signals.append(1))
    signal.setitimer(signal.ITIMER_REAL, 0.0002, 0.0002)
    try:
        for i in range(90):
            sims[0].step(4)
            sims[1].start_steps(4)
            if i % 3 == 1:
                time.sleep(0.003)  # the gap is the case: the loop late, the worker done and asleep
            sims[1].finish_steps()
            assert sims[1].time == sims[0].time
            if i % 3 == 2:
                time.sleep(0.003)  # the worker waits longer than it polls and sleeps before this run
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0.0)
        signal.signal(signal.SIGALRM, previous)
        sims[1].close()
    assert signals, "the timer interrupted nothing"
    assert np.array_equal(sims[1].data.qpos, sims[0].data.qpos) and np.array_equal(sims[1].data.qvel, sims[0].data.qvel)


def test_a_divergence_in_the_physics_thread_is_raised_when_the_run_is_taken_back():
    sim = Simulator()
    sim.apply_external_force("main_frame", [0, 0, 1e30])
    sim.start_steps(50)
    with pytest.raises(DivergenceError, match="diverged at t ="):
        sim.finish_steps()
    with pytest.raises(SimulationError, match="call reset"):
        sim.start_steps(1)
    sim.close()
