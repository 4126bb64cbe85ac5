"""PID core: terms, derivative on measurement, integral clamp, anti-windup, limits, validation."""

import numpy as np
import pytest

from sally_node_common.pid import JointPID, PIDError, PIDGains


def pid(**kw):
    return JointPID(PIDGains.uniform(2, **kw))


def test_defaults_are_seed_000s():
    g = PIDGains.uniform(1)
    assert (g.kp[0], g.ki[0], g.kd[0], g.i_clamp[0]) == (500.0, 200.0, 30.0, 100.0)


def test_proportional_and_derivative_on_measurement():
    c = pid(kp=10.0, ki=0.0, kd=2.0)
    u = c.update(np.array([1.0, -1.0]), np.zeros(2), np.array([0.5, 0.0]), 0.001)
    assert u == pytest.approx([10.0 - 1.0, -10.0])
    # a target step does not kick the derivative term: only the measured velocity enters it
    u2 = c.update(np.array([5.0, -1.0]), np.zeros(2), np.array([0.5, 0.0]), 0.001)
    assert u2 == pytest.approx([50.0 - 1.0, -10.0])


def test_velocity_reference():
    c = pid(kp=0.0, ki=0.0, kd=3.0)
    assert c.update(
        np.zeros(2), np.zeros(2), np.array([1.0, 0.0]), 0.001, qdot_ref=np.array([1.0, 2.0])
    ) == pytest.approx([0.0, 6.0])


def simulate_joint(c, seconds, load=5.0, target=0.3, inertia=0.05, dt=0.0005):
    """One joint of inertia 0.05 (motor armature class) against a constant load torque."""
    q, qd, trace = np.zeros(1), np.zeros(1), []
    for _ in range(int(seconds / dt)):
        u = c.update(np.array([target]), q, qd, dt)
        qd = qd + dt * (u - load) / inertia
        q = q + dt * qd
        trace.append(q[0])
    return np.array(trace)


def test_step_response_and_disturbance_rejection():
    dt = 0.0005
    p_only = simulate_joint(JointPID(PIDGains.uniform(1, ki=0.0, effort_limit=40.0)), 3.0)
    assert p_only[-1] == pytest.approx(0.3 - 5.0 / 500.0, abs=1e-6)  # P+D leaves load / Kp

    trace = simulate_joint(JointPID(PIDGains.uniform(1, effort_limit=40.0)), 15.0)
    assert trace.max() < 0.3 * 1.2  # overshoot under 20 %
    assert abs(trace[int(0.5 / dt)] - 0.3) < 0.01  # near the target within half a second
    # the integral removes the load offset with time constant Kp / Ki = 2.5 s
    assert abs(trace[int(2.5 / dt)] - 0.3) < 0.01 * np.exp(-1) * 1.1
    assert abs(trace[-1] - 0.3) < 1e-4


def test_integral_term_is_clamped():
    c = pid(kp=0.0, ki=200.0, kd=0.0, i_clamp=100.0)
    for _ in range(10000):
        u = c.update(np.ones(2), np.zeros(2), np.zeros(2), 0.001)
    assert u == pytest.approx([100.0, 100.0])
    c.reset()
    assert c.update(np.zeros(2), np.zeros(2), np.zeros(2), 0.001) == pytest.approx([0.0, 0.0])


def test_anti_windup_and_effort_limit():
    c = pid(kp=500.0, ki=200.0, kd=0.0, effort_limit=40.0)
    for _ in range(5000):  # 5 s saturated: a naive integral would reach the clamp
        u = c.update(np.array([1.0, 0.01]), np.zeros(2), np.zeros(2), 0.001)
    assert u[0] == 40.0
    assert c.integral[0] == 0.0
    assert c.integral[1] > 0.0  # the unsaturated joint integrates
    # when the error reverses, the output leaves saturation at once
    assert c.update(np.array([-0.01, 0.0]), np.zeros(2), np.zeros(2), 0.001)[0] < 0.0


@pytest.mark.parametrize(
    "kw, pattern",
    [
        (dict(kp=-1.0), "kp must be non-negative"),
        (dict(kd=np.nan), "kd must be non-negative and finite"),
        (dict(ki=np.inf), "ki must be non-negative and finite"),
    ],
)
def test_bad_gains_are_rejected(kw, pattern):
    with pytest.raises(PIDError, match=pattern):
        PIDGains.uniform(3, **kw)


def test_gain_vectors_must_agree():
    with pytest.raises(PIDError, match="one value per joint"):
        PIDGains(np.ones(3), np.ones(2), np.ones(3), np.ones(3), np.ones(3))
