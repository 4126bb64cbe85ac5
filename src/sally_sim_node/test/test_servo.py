"""The motors' servos on real MuJoCo: what a setting makes each apply, inside the physics step."""

import mujoco
import numpy as np
import pytest

from sally_node_common.pid import DEFAULT_I_CLAMP, DEFAULT_KD, DEFAULT_KI, DEFAULT_KP
from sally_sim_node import SimulationError, Simulator
from sally_sim_node.servo import ServoGains, Servos, ServoSetting, torque


def applied(sim):
    """Each motor's torque as the last step applied it (N m, actuated-joint order)."""
    return sim.data.actuator_force[sim.servos.ids].copy()


def expected(sim, setting, act):
    """The seed's servo law for the state now: kp e + kd (v* - qdot) + ki act + ff, within the limit."""
    q = sim.data.qpos[sim.actuators.joints.qpos_adr]
    qdot = sim.data.qvel[sim.actuators.joints.dof_adr]
    law = setting.kp * (setting.position - q) + setting.kd * (setting.velocity - qdot) + setting.ki * act
    limit = sim.actuators.effort_limit
    return np.clip(law + setting.effort, -limit, limit)


def test_the_model_s_servos_are_the_seed_s_pid_with_the_motors_limits():
    sim = Simulator()
    g = sim.servos.defaults
    n = len(sim.actuated_joint_names)
    assert np.array_equal(g.kp, np.full(n, DEFAULT_KP)) and np.array_equal(g.kd, np.full(n, DEFAULT_KD))
    assert np.array_equal(g.ki, np.full(n, DEFAULT_KI))
    assert g.i_clamp == pytest.approx(np.full(n, DEFAULT_I_CLAMP))
    assert np.array_equal(sim.actuators.effort_limit, np.full(n, 40.0))


def test_a_setting_is_applied_as_the_servo_law_at_every_step():
    """Setpoints, feed-forward and each motor's own gains, the integral of the position error and
    the effort limit: MuJoCo's force is the seed's PID, step after step."""
    sim = Simulator(magnets_on=False)
    rng = np.random.default_rng(3)
    n = len(sim.actuated_joint_names)
    setting = ServoSetting(
        sim.actuated_positions() + rng.uniform(-0.05, 0.05, n),
        rng.uniform(-0.2, 0.2, n),
        rng.uniform(-2.0, 2.0, n),
        rng.uniform(100.0, 600.0, n),
        rng.uniform(5.0, 40.0, n),
        np.where(rng.random(n) < 0.5, 200.0, 0.0),
    )
    sim.set_servo(setting)
    for _ in range(40):
        before = sim.servos.integral()
        mujoco.mj_forward(sim.model, sim.data)  # the force for the state now, as the next step makes it
        np.testing.assert_allclose(applied(sim), expected(sim, setting, before), rtol=1e-9, atol=1e-9)
        sim.step(1)
    assert (np.abs(applied(sim)) <= sim.actuators.effort_limit + 1e-9).all()


def test_the_integral_is_clamped_and_starts_over_when_it_is_switched_on():
    sim = Simulator(magnets_on=False)
    far = sim.servos.setting(sim.actuators.joints.upper + 0.5)  # every joint against its stop, short of its target
    sim.set_servo(far)
    sim.step(4000)
    imax = DEFAULT_I_CLAMP / DEFAULT_KI
    # accumulation stops once beyond the clamp: at most one step's error past it
    assert np.abs(sim.servos.integral()) == pytest.approx(np.full(len(sim.servos), imax), abs=1e-3)
    hold = ServoSetting.hold(sim.actuated_positions(), 200.0, 10.0)
    sim.set_servo(hold)
    assert np.array_equal(sim.model.actuator_gainprm[sim.servos.ids, 0], np.zeros(len(sim.servos)))
    sim.step(10)
    sim.set_servo(far)  # back on: from 0, not from what it held before
    assert not sim.servos.integral().any()


def test_torque_makes_the_servos_plain_motors():
    sim = Simulator(magnets_on=False)
    efforts = np.linspace(-3.0, 3.0, len(sim.servos))
    sim.set_servo(torque(efforts, sim.actuated_positions() + 1.0))  # setpoints far away: no gain to act
    mujoco.mj_forward(sim.model, sim.data)
    np.testing.assert_allclose(applied(sim), efforts, atol=1e-12)


def test_new_defaults_set_the_integral_clamp_and_refuse_nonsense():
    sim = Simulator(magnets_on=False)
    n = len(sim.servos)
    sim.servos.set_defaults(ServoGains(np.full(n, 300.0), np.full(n, 20.0), np.full(n, 50.0), np.full(n, 10.0)))
    assert sim.model.actuator_dynprm[sim.servos.ids, 0] == pytest.approx(np.full(n, 0.2))
    assert np.array_equal(sim.servos.setting(np.zeros(n)).kp, np.full(n, 300.0))
    with pytest.raises(SimulationError, match="servo kd must be finite and >= 0"):
        ServoGains(np.ones(n), -np.ones(n), np.ones(n), np.ones(n))
    with pytest.raises(SimulationError, match="16 values each"):
        sim.servos.set_defaults(ServoGains(np.ones(3), np.ones(3), np.ones(3), np.ones(3)))


def test_a_model_whose_motors_are_not_servos_is_refused():
    model = mujoco.MjModel.from_xml_string(
        '<mujoco><worldbody><body><joint name="j"/><geom size=".1"/></body></worldbody>'
        '<actuator><motor joint="j"/></actuator></mujoco>'
    )
    with pytest.raises(SimulationError, match="not a servo with inputs pos vel ff"):
        Servos(model, mujoco.MjData(model), np.array([0]))
