"""The controller core: targets (clamp + report, reject non-finite), one answer per state stamp."""

import re

import numpy as np
import pytest

from sally_controller import ControllerError, PIDGains
from sally_controller.joint_controller import JointController

NAMES = ("a", "b", "c")


@pytest.fixture
def ctl():
    return JointController(
        NAMES, np.full(3, -1.0), np.full(3, 1.0), PIDGains.uniform(3, kp=10.0, ki=0.0, kd=1.0, effort_limit=40.0)
    )


def test_targets_are_clamped_and_reported(ctl):
    report = ctl.set_targets(["c", "a"], [2.0, -0.5])
    assert report.clamped == ("c",)
    assert ctl.target.tolist() == [-0.5, 0.0, 1.0]
    assert ctl.clamped_total == 1


@pytest.mark.parametrize(
    "names, positions, velocities, text, efforts",
    [
        (["a"], [np.nan], [], "finite", []),
        (["a"], [0.1], [np.inf], "finite", []),
        (["z"], [0.1], [], "unknown joints ['z']", []),
        (["a", "a"], [0.1, 0.2], [], "twice", []),
        (["a", "b"], [0.1], [], "one position per name", []),
        (["a"], [0.1], [1.0, 2.0], "velocities", []),
        (["a"], [0.1], [0.0], "efforts must be empty or one per name", [1.0, 2.0]),
        (["a"], [0.1], [], "finite", [np.nan]),
        (["a"], [0.1], [], "efforts beyond", [1e7]),
    ],
)
def test_bad_targets_are_rejected_and_change_nothing(ctl, names, positions, velocities, text, efforts):
    before = ctl.target.copy()
    with pytest.raises(ControllerError, match=re.escape(text)):
        ctl.set_targets(names, positions, velocities, efforts)
    assert np.array_equal(ctl.target, before) and not ctl.target_effort.any()


def test_state_order_does_not_matter(ctl):
    ctl.set_targets(NAMES, [0.5, 0.0, -0.5])
    u = ctl.update(1, ["c", "b", "a", "extra"], [0.0, 0.0, 0.0, 9.0], [0.0, 0.0, 0.0, 9.0])
    assert u.tolist() == pytest.approx([5.0, 0.0, -5.0])


def test_one_answer_per_stamp(ctl):
    ctl.set_targets(NAMES, [0.5, 0.5, 0.5])
    first = ctl.update(1_000_000, NAMES, [0.0] * 3, [0.0] * 3)
    again = ctl.update(1_000_000, NAMES, [0.4] * 3, [0.0] * 3)  # a re-sent state: same answer, no second PID step
    assert np.array_equal(first, again)
    with pytest.raises(ControllerError, match="arrived after"):
        ctl.update(500_000, NAMES, [0.0] * 3, [0.0] * 3)


def test_period_comes_from_the_stamps():
    ctl = JointController(NAMES, np.full(3, -1.0), np.full(3, 1.0), PIDGains.uniform(3, kp=0.0, ki=10.0, kd=0.0))
    ctl.set_targets(NAMES, [1.0, 1.0, 1.0])
    ctl.update(0, NAMES, [0.0] * 3, [0.0] * 3)  # first state: no period yet
    u = ctl.update(2_000_000, NAMES, [0.0] * 3, [0.0] * 3)  # 2 ms later: integral = 1 rad x 2 ms
    assert u.tolist() == pytest.approx([0.02] * 3)


def test_states_missing_joints_or_not_finite(ctl):
    with pytest.raises(ControllerError, match="lacks joints"):
        ctl.update(1, ["a", "b"], [0.0, 0.0], [0.0, 0.0])
    with pytest.raises(ControllerError, match="non-finite"):
        ctl.update(2, NAMES, [0.0, np.nan, 0.0], [0.0] * 3)


def test_until_a_target_comes_the_first_state_of_a_run_is_held(ctl):
    ctl.update(0, NAMES, [0.3, -0.2, 2.0], [0.0] * 3)  # where the run starts (c beyond its limit: clamped)
    assert ctl.target.tolist() == [0.3, -0.2, 1.0]
    u = ctl.update(1_000_000, NAMES, [0.2, -0.2, 1.0], [0.0] * 3)  # it sagged: pushed back to the start
    assert u.tolist() == pytest.approx([1.0, 0.0, 0.0])
    ctl.set_targets(["a"], [0.5])  # a target: followed from now on, the others kept
    assert ctl.target.tolist() == [0.5, -0.2, 1.0]
    ctl.reset()  # a new run: its own first state is held again
    ctl.update(0, NAMES, [0.1, 0.1, 0.1], [0.0] * 3)
    assert ctl.target.tolist() == [0.1, 0.1, 0.1]
    ctl.reset()
    ctl.set_targets(NAMES, [0.0, 0.0, 0.0])  # a target before the first state: it is kept
    ctl.update(0, NAMES, [0.1, 0.1, 0.1], [0.0] * 3)
    assert ctl.target.tolist() == [0.0, 0.0, 0.0]


def test_servo_setpoints_are_the_targets_their_velocities_and_the_feed_forward_within_the_limits(ctl):
    q = np.zeros(3)
    first = ctl.setpoints(0, np.array([0.3, -0.2, 2.0]))  # before a target: the run's first pose, held
    assert first.position.tolist() == [0.3, -0.2, 1.0] and not first.velocity.any() and not first.effort.any()
    ctl.set_targets(NAMES, [0.5, 0.0, -0.5], [0.1, 0.2, 0.3])
    answer = ctl.setpoints(5_000_000, q, lambda: np.array([12.0, -50.0, 0.0]))
    assert answer.position.tolist() == [0.5, 0.0, -0.5] and answer.velocity.tolist() == [0.1, 0.2, 0.3]
    assert answer.effort.tolist() == [12.0, -40.0, 0.0]  # the feed-forward within the motors' limits
    again = ctl.setpoints(5_000_000, q + 0.1, lambda: np.zeros(3))  # a re-sent state: the same answer
    assert again is answer
    with pytest.raises(ControllerError, match="arrived after"):
        ctl.setpoints(0, q)


def test_a_targets_effort_is_fed_forward_on_top_of_the_controllers_own(ctl):
    """The IK sends the body's weight on the stance feet with its targets: servo setpoints and the
    effort path both add it to their own feed-forward, within the limits; targets without efforts
    keep the last ones, a reset forgets them."""
    ctl.set_targets(NAMES, [0.0, 0.0, 0.0], efforts=[1.5, -2.0, 39.0])
    answer = ctl.setpoints(1_000_000, np.zeros(3), lambda: np.array([0.5, 0.5, 5.0]))
    assert answer.effort.tolist() == [2.0, -1.5, 40.0]
    ctl.set_targets(["a"], [0.0])
    assert ctl.setpoints(2_000_000, np.zeros(3)).effort.tolist() == [1.5, -2.0, 39.0]  # no gravity of its own
    ctl.reset()
    assert not ctl.target_effort.any()
    pid = JointController(NAMES, np.full(3, -1.0), np.full(3, 1.0), PIDGains.uniform(3, kp=10.0, ki=0.0, kd=0.0))
    pid.set_targets(NAMES, [0.1, 0.0, 0.0], efforts=[1.0, 2.0, 3.0])
    assert pid.step(1, np.zeros(3), np.zeros(3)).tolist() == pytest.approx([2.0, 2.0, 3.0])
