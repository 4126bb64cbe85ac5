"""Our own interfaces to and from their domain types: each pair round-trips, and bad messages are
refused by name (the pattern of pyrobosim's ros_conversions and its test)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sally_node_common.body_target import BodyTarget
from sally_node_common.foot_states_msg import FootStateData, foot_states_from_msg, foot_states_to_msg
from sally_node_common.ik_target import IKTarget
from sally_node_common.ik_target_msg import TargetTick, ik_target_from_msg, ik_target_to_msg
from sally_node_common.inputs import InputError
from sally_node_common.stance import StanceMode

HALF = math.sqrt(0.5)


def ticks():
    yield TargetTick(5_000_000)  # a bare tick: the sequencer stepped
    yield TargetTick(0)  # the ready tick
    yield TargetTick(
        10_000_000,
        stance_stamp=9_000_000,
        foot="FL",
        target=IKTarget.with_orientation([0.45, 0.1, 0.3], [1.0, 0.0, 0.0], 2.0, 30.0),
        phase="F2W_REACH",
    )
    yield TargetTick(15_000_000, foot="BR", target=IKTarget.position_only([0.1, -0.2, 0.05], 3.5), phase="LIFT")
    yield TargetTick(20_000_000, body=BodyTarget([0.1, 0.0, 0.25], [HALF, 0.0, -HALF, 0.0]), phase="BODY_SQUARE")


@pytest.mark.parametrize("tick", list(ticks()), ids=lambda t: f"{t.foot or 'none'}@{t.stamp}")
def test_an_ik_target_round_trips(tick):
    back = ik_target_from_msg(ik_target_to_msg(tick))
    assert (back.stamp, back.stance_stamp, back.foot, back.phase) == (
        tick.stamp,
        tick.stance_stamp,
        tick.foot,
        tick.phase,
    )
    if tick.target is None:
        assert back.target is None
    else:
        assert np.array_equal(back.target.position, tick.target.position)
        assert (back.target.face_axis is None) == (tick.target.face_axis is None)
        if tick.target.face_axis is not None:
            assert np.allclose(back.target.face_axis, tick.target.face_axis)
        assert (back.target.position_cost, back.target.orientation_cost) == (
            tick.target.position_cost,
            tick.target.orientation_cost,
        )
    if tick.body is None:
        assert back.body is None
    else:
        assert np.array_equal(back.body.position, tick.body.position) and np.allclose(back.body.quat, tick.body.quat)


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (lambda m: setattr(m, "foot", "XX"), "unknown"),
        (lambda m: setattr(m.position, "x", math.nan), "non-finite"),
        (lambda m: setattr(m.position, "z", 1e9), "beyond the plausible"),
        (lambda m: setattr(m, "position_cost", -1.0), "non-negative"),
        (lambda m: (setattr(m, "has_body_pose", True), setattr(m.body_pose.orientation, "w", 2.0)), "unit quaternion"),
    ],
)
def test_a_bad_ik_target_is_refused_by_name(change, says):
    msg = ik_target_to_msg(TargetTick(1, foot="FL", target=IKTarget.position_only([0.4, 0.1, 0.3])))
    change(msg)
    with pytest.raises(InputError, match=says):
        ik_target_from_msg(msg)


def test_a_tick_needs_a_foot_for_its_target_and_a_target_for_its_foot():
    with pytest.raises(ValueError, match="needs its foot"):
        TargetTick(1, foot="FL")
    with pytest.raises(ValueError, match="needs its foot"):
        TargetTick(1, target=IKTarget.position_only([0.0, 0.0, 0.0]))


def feet() -> dict[str, FootStateData]:
    rng = np.random.default_rng(3)
    out = {}
    for i, foot in enumerate(("FL", "FR", "BL", "BR")):
        quat = rng.normal(size=4)
        out[foot] = FootStateData(
            rng.uniform(-1, 1, 3), quat / np.linalg.norm(quat), rng.uniform(-1, 1, 3), StanceMode(i % 3), i % 2 == 0,
            0.001 * i, -0.002 * i,
        )  # fmt: skip
    return out


def test_foot_states_round_trip():
    sent = feet()
    stamp, back = foot_states_from_msg(foot_states_to_msg(123_456_789, sent))
    assert stamp == 123_456_789 and list(back) == list(sent)
    for foot, f in sent.items():
        b = back[foot]
        assert np.array_equal(b.position, f.position) and np.array_equal(b.hip_pivot, f.hip_pivot)
        assert np.array_equal(b.quat, f.quat)
        assert (b.mode, b.in_contact, b.penetration, b.lift) == (f.mode, f.in_contact, f.penetration, f.lift)
        assert isinstance(b.mode, StanceMode)


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (lambda m: m.feet.pop(), "each of"),
        (lambda m: setattr(m.feet[0], "foot", "XX"), "unknown"),
        (lambda m: setattr(m.feet[1], "mode", 7), "unknown mode 7"),
        (lambda m: setattr(m.feet[2].pose.position, "y", math.inf), "non-finite"),
        (lambda m: setattr(m.feet[3].pose.orientation, "w", 5.0), "unit quaternion"),
    ],
)
def test_bad_foot_states_are_refused_by_name(change, says):
    msg = foot_states_to_msg(1, feet())
    change(msg)
    with pytest.raises(InputError, match=says):
        foot_states_from_msg(msg)
