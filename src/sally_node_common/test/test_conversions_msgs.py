"""Our own interfaces to and from their domain types: each pair round-trips, and bad messages are
refused by name (the pattern of pyrobosim's ros_conversions and its test)."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from sally_description.pose import Pose
from sally_interfaces.msg import IKStatus, MagnetState
from sally_node_common.external_force_msg import ExternalLoad, external_force_from_msg, external_force_to_msg
from sally_node_common.foot_states_msg import FootStateData, foot_states_from_msg, foot_states_to_msg
from sally_node_common.ik_status_msg import IKCode, IKStatusData, ik_status_from_msg, ik_status_to_msg
from sally_node_common.ik_target import IKTarget
from sally_node_common.ik_target_msg import TargetTick, ik_target_from_msg, ik_target_to_msg
from sally_node_common.inputs import InputError
from sally_node_common.magnet_array_msg import MagnetReadingData, magnet_array_from_msg, magnet_array_to_msg
from sally_node_common.magnet_command_msg import magnet_command_from_msg, magnet_command_to_msg
from sally_node_common.magnet_truth_msg import FAR, MagnetTruthData, magnet_truth_from_msg, magnet_truth_to_msg
from sally_node_common.pulloff_result_msg import PullOffOutcome, pulloff_result_from_msg, pulloff_result_to_msg
from sally_node_common.sequence_status_msg import SequenceStatusData, sequence_status_from_msg, sequence_status_to_msg
from sally_node_common.servo_command_msg import ServoCommandData, servo_command_from_msg, servo_command_to_msg
from sally_node_common.stance import StanceMode

HALF = math.sqrt(0.5)


def ticks():
    yield TargetTick(5_000_000)  # a bare tick: the sequencer stepped
    yield TargetTick(
        10_000_000,
        stance={"FL": StanceMode.SWING, "FR": StanceMode.POSITION, "BL": StanceMode.POSITION, "BR": StanceMode.POSE},
        foot="FL",
        target=IKTarget.with_orientation([0.45, 0.1, 0.3], [1.0, 0.0, 0.0], 2.0, 30.0),
        phase="F2W_REACH",
    )
    yield TargetTick(
        15_000_000,
        stance={"BR": StanceMode.POSE},
        foot="BR",
        target=IKTarget.position_only([0.1, -0.2, 0.05], 3.5),
        phase="LIFT",
    )
    yield TargetTick(20_000_000, body=Pose([0.1, 0.0, 0.25], [HALF, 0.0, -HALF, 0.0]), phase="BODY_SQUARE")


@pytest.mark.parametrize("tick", list(ticks()), ids=lambda t: f"{t.foot or 'none'}@{t.stamp}")
def test_an_ik_target_round_trips(tick):
    back = ik_target_from_msg(ik_target_to_msg(tick))
    assert (back.stamp, back.stance, back.foot, back.phase) == (tick.stamp, tick.stance, tick.foot, tick.phase)
    assert list(back.stance) == list(tick.stance) and all(isinstance(m, StanceMode) for m in back.stance.values())
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
        (lambda m: setattr(m.feet[0].pose.orientation, "z", math.nan), "foot orientation of .* non-finite"),
        (lambda m: setattr(m.feet[1].hip_pivot, "x", 150.0), "hip pivot of .* beyond"),
        (lambda m: setattr(m.feet[2], "lift", math.nan), "contact readout of .* non-finite"),
    ],
)
def test_bad_foot_states_are_refused_by_name(change, says):
    msg = foot_states_to_msg(1, feet())
    change(msg)
    with pytest.raises(InputError, match=says):
        foot_states_from_msg(msg)


# --- IKTarget's stance -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("change", "reason", "says"),
    [
        (lambda m: m.stance_modes.pop(), "length", "1 feet and 0 modes"),
        (lambda m: setattr(m, "stance_feet", ["XX"]), "unknown", "unknown"),
        (lambda m: setattr(m, "stance_modes", [9]), "unknown", "unknown modes [9]; valid: SWING 0, POSITION 1, POSE 2"),
        (
            lambda m: (setattr(m, "stance_feet", ["FL", "FR"]), setattr(m, "stance_modes", [0, 0])),
            "invalid",
            "more than one",
        ),
        (
            lambda m: (setattr(m, "stance_feet", ["FL", "FL"]), setattr(m, "stance_modes", [1, 2])),
            "invalid",
            "['FL'] more than once",
        ),
    ],
)
def test_a_bad_stance_is_refused_by_name(change, reason, says):
    msg = ik_target_to_msg(TargetTick(1, stance={"FL": StanceMode.POSITION}))
    change(msg)
    with pytest.raises(InputError, match=re.escape(says)) as err:
        ik_target_from_msg(msg)
    assert err.value.reason == reason


# --- MagnetCommand ---------------------------------------------------------------------------------
def test_a_magnet_command_round_trips():
    switches = {"FL": False, "BR": True}
    stamp, back = magnet_command_from_msg(magnet_command_to_msg(7_500_000, switches))
    assert stamp == 7_500_000 and back == switches and list(back) == list(switches)


@pytest.mark.parametrize(
    ("feet", "enable", "reason"),
    [
        ([], [], "empty"),
        (["FL"], [True, False], "length"),
        (["XL"], [True], "unknown"),
        (["FL", "FL"], [True, True], "duplicate"),
    ],
)
def test_a_bad_magnet_command_is_refused_by_name(feet, enable, reason):
    msg = magnet_command_to_msg(0, {})
    msg.feet, msg.enable = feet, enable
    with pytest.raises(InputError) as err:
        magnet_command_from_msg(msg)
    assert err.value.reason == reason


# --- ExternalForce ---------------------------------------------------------------------------------
def test_an_external_force_round_trips_and_grows_from_its_stamp():
    load = ExternalLoad("FR", 2_000_000_000, np.array([0.0, 1.5, 12.0]), np.array([0.0, 0.0, 250.0]))
    back = external_force_from_msg(external_force_to_msg(load))
    assert (back.foot, back.stamp) == (load.foot, load.stamp)
    assert np.array_equal(back.force, load.force) and np.array_equal(back.rate, load.rate)
    assert np.array_equal(back.at(0), load.force)  # before its stamp: the stamp's value
    assert np.allclose(back.at(3_000_000_000), [0.0, 1.5, 262.0])


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (lambda m: setattr(m, "foot", "XX"), "unknown"),
        (lambda m: setattr(m.force, "x", math.nan), "non_finite"),
        (lambda m: setattr(m.force_rate, "z", math.inf), "non_finite"),
        (lambda m: setattr(m.force, "y", 2e5), "out_of_range"),
    ],
)
def test_a_bad_external_force_is_refused_by_name(change, reason):
    msg = external_force_to_msg(ExternalLoad("FL", 0, np.zeros(3), np.zeros(3)))
    change(msg)
    with pytest.raises(InputError) as err:
        external_force_from_msg(msg)
    assert err.value.reason == reason


# --- IKStatus --------------------------------------------------------------------------------------
def test_the_ik_codes_are_the_message_constants():
    assert {code.name: int(code) for code in IKCode} == {
        name: getattr(IKStatus, name) for name in ("SUCCESS", "INFEASIBLE", "STALLED", "RECOVERING", "REJECTED")
    }


@pytest.mark.parametrize(
    "status",
    [
        IKStatusData(IKCode.SUCCESS, "FL", 0.0004, 0.01, 0.0021),
        IKStatusData(IKCode.STALLED, "BR", 0.003, 0.2, 0.004, "BR 3.0 mm from its target without progress"),
        IKStatusData(IKCode.REJECTED, message="rejected /sally/ik_target (unknown): ..."),
    ],
    ids=lambda s: s.code.name,
)
def test_an_ik_status_round_trips(status):
    stamp, back = ik_status_from_msg(ik_status_to_msg(5_000_000, status))
    assert stamp == 5_000_000 and back == status and isinstance(back.code, IKCode)


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (lambda m: setattr(m, "foot", "XX"), "unknown"),
        (lambda m: setattr(m, "status", 9), "unknown code 9"),
        (lambda m: setattr(m, "position_error", math.nan), "non-finite"),
        (lambda m: setattr(m, "solve_time", 1e9), "beyond the plausible"),
    ],
)
def test_a_bad_ik_status_is_refused_by_name(change, says):
    msg = ik_status_to_msg(1, IKStatusData(IKCode.SUCCESS, "FL"))
    change(msg)
    with pytest.raises(InputError, match=says):
        ik_status_from_msg(msg)


# --- SequenceStatus --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "status",
    [
        SequenceStatusData("f2w"),
        SequenceStatusData("f2w_all", "FR", "F2W_REACH", 3, 7, 0.25, 12.5, 11.75),
        SequenceStatusData("f2w", "FR", "HOLD", 6, 7, 1.0, 22.0, 21.0, True, False, "f2w done: FL, FR planted"),
    ],
    ids=["settle", "running", "done"],
)
def test_a_sequence_status_round_trips(status):
    stamp, back = sequence_status_from_msg(sequence_status_to_msg(22_500_000_000, status))
    assert stamp == 22_500_000_000 and back == status


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (lambda m: setattr(m, "phase_progress", 1.5), "outside 0..1"),
        (lambda m: setattr(m, "elapsed", math.nan), "non-finite"),
        (lambda m: setattr(m, "phase_start", 1e12), "beyond the plausible"),
    ],
)
def test_a_bad_sequence_status_is_refused_by_name(change, says):
    msg = sequence_status_to_msg(1, SequenceStatusData("f2w"))
    change(msg)
    with pytest.raises(InputError, match=says):
        sequence_status_from_msg(msg)


# --- PullOffResult ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "outcome",
    [
        PullOffOutcome("FL", True, True, 812.5, 1.625, 800.0, 40.0, 830.0, "detached at 812.5 N"),
        PullOffOutcome("BR", clip=800.0, detach_threshold=40.0, max_applied=12.0, message="no verdict"),
    ],
    ids=["detached", "no verdict"],
)
def test_a_pulloff_result_round_trips(outcome):
    stamp, back = pulloff_result_from_msg(pulloff_result_to_msg(3_000_000_000, outcome))
    assert stamp == 3_000_000_000 and back == outcome


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (lambda m: setattr(m, "foot", ""), "unknown"),
        (lambda m: setattr(m, "pulloff_force", math.inf), "non-finite"),
        (lambda m: setattr(m, "detach_time", -1e9), "beyond the plausible"),
    ],
)
def test_a_bad_pulloff_result_is_refused_by_name(change, says):
    msg = pulloff_result_to_msg(1, PullOffOutcome("FL"))
    change(msg)
    with pytest.raises(InputError, match=says):
        pulloff_result_from_msg(msg)


# --- MagnetArray (the driver's telemetry) -----------------------------------------------------------
def readings() -> list[MagnetReadingData]:
    return [
        MagnetReadingData("FL", True, 61.25, True),
        MagnetReadingData("FR", True, 0.0, False),
        MagnetReadingData("BL", False, 3.5, False),
        MagnetReadingData("BR", False),
    ]


def test_a_magnet_array_round_trips():
    sent = readings()
    stamp, back = magnet_array_from_msg(magnet_array_to_msg(9_000_000, sent))
    assert stamp == 9_000_000 and list(back) == [m.foot for m in sent]
    assert list(back.values()) == sent


def test_the_magnet_array_carries_no_truth_of_the_world():
    """What a driver knows (the switch, the contact sensor) and nothing else: the force, the gap and
    the nearest plate travel on the ground truth."""
    assert set(MagnetState.get_fields_and_field_types()) == {"foot", "enabled", "contact_reading", "contact_sensed"}


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (lambda m: setattr(m.magnets[0], "foot", "XL"), "unknown"),
        (lambda m: setattr(m.magnets[1], "foot", "FL"), "duplicate"),
        (lambda m: setattr(m.magnets[0], "contact_reading", math.nan), "non_finite"),
        (lambda m: setattr(m.magnets[3], "contact_reading", 1e9), "out_of_range"),
    ],
)
def test_a_bad_magnet_array_is_refused_by_name(change, reason):
    msg = magnet_array_to_msg(1, readings())
    change(msg)
    with pytest.raises(InputError) as err:
        magnet_array_from_msg(msg)
    assert err.value.reason == reason


# --- MagnetTruthArray (the world's) ----------------------------------------------------------------
def truths() -> list[MagnetTruthData]:
    return [
        MagnetTruthData("FL", True, np.array([0.0, 0.0, -812.5]), 812.5, -0.0004, "floor", True, 830.0),
        MagnetTruthData("FR", True, np.array([-790.0, 1.0, 0.5]), 790.0, 0.002, "wall", False, 0.0),
        MagnetTruthData("BL", False, np.zeros(3), 0.0, FAR, "none", False, 0.0),
        MagnetTruthData("BR", False, np.zeros(3), 0.0, 0.05, "floor", False, 0.0),
    ]


def test_a_magnet_truth_array_round_trips():
    sent = truths()
    stamp, back = magnet_truth_from_msg(magnet_truth_to_msg(9_000_000, sent))
    assert stamp == 9_000_000 and list(back) == [m.foot for m in sent]
    for m in sent:
        b = back[m.foot]
        assert np.array_equal(b.force, m.force)
        assert (b.enabled, b.magnitude, b.min_distance, b.surface, b.in_contact, b.contact_force) == (
            m.enabled, m.magnitude, m.min_distance, m.surface, m.in_contact, m.contact_force,
        )  # fmt: skip
    assert back["FL"].penetration == pytest.approx(0.0004) and back["FR"].penetration == 0.0


def test_a_magnet_with_no_plate_in_reach_is_sent_far_not_inf():
    far = MagnetTruthData("BL", False, np.zeros(3), 0.0, math.inf, "none", False, 0.0)
    msg = magnet_truth_to_msg(1, [far])
    assert msg.magnets[0].min_distance == FAR and msg.magnets[0].penetration == 0.0
    assert magnet_truth_from_msg(msg)[1]["BL"].min_distance == FAR


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (lambda m: setattr(m.magnets[0], "foot", "XL"), "unknown"),
        (lambda m: setattr(m.magnets[1], "foot", "FL"), "duplicate"),
        (lambda m: setattr(m.magnets[2], "surface", "attic"), "unknown"),
        (lambda m: setattr(m.magnets[0], "magnitude", math.nan), "non_finite"),
        (lambda m: setattr(m.magnets[3].force, "z", 1e9), "out_of_range"),
        (lambda m: setattr(m.magnets[3], "min_distance", -math.inf), "non_finite"),
    ],
)
def test_a_bad_magnet_truth_array_is_refused_by_name(change, reason):
    msg = magnet_truth_to_msg(1, truths())
    change(msg)
    with pytest.raises(InputError) as err:
        magnet_truth_from_msg(msg)
    assert err.value.reason == reason


MOTORS = ("hip_pitch_FL", "knee_FL", "wrist_FL", "ee_FL")


def servo_commands():
    three = np.array([0.1, -0.2, 0.3, 0.0])
    yield ServoCommandData(5_000_000, MOTORS, three, 2 * three, np.array([1.0, -2.0, 0.5, 0.0]))  # the servo's gains
    yield ServoCommandData(
        10_000_000, MOTORS[::-1], three, np.zeros(4), np.zeros(4), np.full(4, 500.0), np.array([30.0, 0.0, 5.0, 1.0])
    )


@pytest.mark.parametrize("command", list(servo_commands()), ids=["own_gains", "given_gains"])
def test_a_servo_command_round_trips(command):
    back = servo_command_from_msg(servo_command_to_msg(command), MOTORS)
    assert (back.stamp, back.names) == (command.stamp, command.names)
    for field in ("position", "velocity", "effort", "kp", "kd"):
        mine, theirs = getattr(command, field), getattr(back, field)
        assert (mine is None and theirs is None) or np.array_equal(mine, theirs), field


def test_a_servo_command_without_velocity_or_effort_rests_with_none():
    msg = servo_command_to_msg(ServoCommandData(1, MOTORS[:2], np.ones(2), np.zeros(2), np.zeros(2)))
    msg.velocity, msg.effort = [], []
    back = servo_command_from_msg(msg, MOTORS)
    assert not back.velocity.any() and not back.effort.any() and back.kp is None and back.kd is None


@pytest.mark.parametrize(
    ("change", "reason", "says"),
    [
        (lambda m: setattr(m, "name", []), "empty", "names no joints"),
        (lambda m: setattr(m, "name", ["knee_FL", "knee_FL"]), "duplicate", "more than once"),
        (lambda m: setattr(m, "name", ["knee_FL", "ee2_FL"]), "passive", "passive"),
        (lambda m: setattr(m, "name", ["knee_FL", "tail"]), "unknown", "unknown joints ['tail']"),
        (lambda m: setattr(m, "position", [0.1]), "length", "2 names but 1 position values"),
        (lambda m: setattr(m, "velocity", [0.1]), "length", "2 names but 1 velocity values"),
        (lambda m: setattr(m, "kd", [1.0, 2.0, 3.0]), "length", "2 names but 3 kd values"),
        (lambda m: setattr(m, "position", [math.nan, 0.0]), "non_finite", "non-finite"),
        (lambda m: setattr(m, "effort", [math.inf, 0.0]), "non_finite", "non-finite"),
        (lambda m: setattr(m, "velocity", [1e9, 0.0]), "out_of_range", "beyond the plausible"),
        (lambda m: setattr(m, "kp", [-1.0, 500.0]), "gain", "kp has [-1.0]"),
        (lambda m: setattr(m, "kd", [30.0, 1e6]), "gain", "kd has [1000000.0]"),
        (lambda m: setattr(m, "kp", [math.inf, 500.0]), "non_finite", "kp has non-finite"),
    ],
)
def test_a_bad_servo_command_is_refused_whole_by_name(change, reason, says):
    msg = servo_command_to_msg(ServoCommandData(1, ("knee_FL", "wrist_FL"), np.zeros(2), np.zeros(2), np.zeros(2)))
    change(msg)
    with pytest.raises(InputError, match=re.escape(says)) as err:
        servo_command_from_msg(msg, MOTORS, passive=("ee2_FL",))
    assert err.value.reason == reason
