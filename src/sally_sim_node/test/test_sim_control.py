"""The sim's answers to simulation_interfaces (states, steps, resets), the joint drive, the entity
states and their messages: pure, held against the standard's generated constants."""

import math

import numpy as np
import pytest

from sally_description import JOINT_NAMES, build_model
from sally_description.constants import ACTUATED_JOINT_NAMES
from sally_description.scene import scene as scene_named
from sally_sim_node import entities, sim_control
from sally_sim_node.entity_state_msg import EntityStateError, entity_state_from_msg, entity_state_to_msg
from sally_sim_node.joint_drive import EFFORT, POSITION, VELOCITY, JointCommandError, JointDrive, parse_joint_command
from sally_sim_node.sim_control import Code, State, reset_plan, step_refusal, transition
from sally_sim_node.simulator import Simulator
from simulation_interfaces.msg import EntityCategory, Result, SimulationState, SimulatorFeatures
from simulation_interfaces.srv import ResetSimulation, SetEntityState, SetSimulationState

pytestmark = pytest.mark.unit
PASSIVE = [n for n in JOINT_NAMES if n not in ACTUATED_JOINT_NAMES]


def test_codes_states_and_features_are_the_standards():
    for state in State:
        assert getattr(SimulationState, f"STATE_{state.name}") == state
    for code in Code:
        assert getattr(Result, f"RESULT_{code.name}") == code
    assert SetSimulationState.Response.ALREADY_IN_TARGET_STATE == sim_control.ALREADY_IN_TARGET_STATE
    assert SetEntityState.Response.INVALID_POSE == sim_control.INVALID_POSE
    scopes = (sim_control.SCOPE_TIME, sim_control.SCOPE_STATE, sim_control.SCOPE_SPAWNED, sim_control.SCOPE_ALL)
    assert scopes == (
        ResetSimulation.Request.SCOPE_TIME,
        ResetSimulation.Request.SCOPE_STATE,
        ResetSimulation.Request.SCOPE_SPAWNED,
        ResetSimulation.Request.SCOPE_ALL,
    )
    named = {v: k for k, v in vars(SimulatorFeatures).items() if k.isupper() and isinstance(v, int)}
    assert {named[f] for f in sim_control.FEATURES} == {
        "ENTITY_CATEGORIES",
        "ENTITY_STATE_GETTING",
        "ENTITY_STATE_SETTING",
        "ENTITY_INFO_GETTING",
        "SIMULATION_RESET",
        "SIMULATION_RESET_STATE",
        "SIMULATION_STATE_GETTING",
        "SIMULATION_STATE_SETTING",
        "SIMULATION_STATE_PAUSE",
        "STEP_SIMULATION_SINGLE",
        "STEP_SIMULATION_MULTIPLE",
        "STEP_SIMULATION_ACTION",
    }
    for category in entities.Category:
        assert getattr(EntityCategory, f"CATEGORY_{category.name}") == category


@pytest.mark.parametrize(
    "current, target, code, after, reset",
    [
        (State.PLAYING, State.PAUSED, Code.OK, State.PAUSED, False),
        (State.PAUSED, State.PLAYING, Code.OK, State.PLAYING, False),
        (State.PLAYING, State.STOPPED, Code.OK, State.STOPPED, True),
        (State.STOPPED, State.PAUSED, Code.OK, State.PAUSED, False),
        (State.STOPPED, State.PLAYING, Code.OK, State.PLAYING, False),
        (State.PAUSED, State.PAUSED, sim_control.ALREADY_IN_TARGET_STATE, State.PAUSED, False),
        (State.PLAYING, State.QUITTING, Code.FEATURE_UNSUPPORTED, State.PLAYING, False),
        (State.PLAYING, State.NO_WORLD, Code.FEATURE_UNSUPPORTED, State.PLAYING, False),
        (State.PLAYING, 9, Code.OPERATION_FAILED, State.PLAYING, False),
    ],
)
def test_transitions(current, target, code, after, reset):
    change = transition(current, target)
    assert (change.outcome.code, change.state, change.reset) == (code, after, reset)
    assert change.outcome.message


def test_step_requests_are_refused_while_playing_busy_diverged_or_out_of_range():
    assert step_refusal(State.PAUSED, 1, False, None) is None
    assert step_refusal(State.STOPPED, sim_control.MAX_STEPS, False, None) is None
    for args, words in [
        ((State.PLAYING, 1, False, None), "pause it first"),
        ((State.PAUSED, 0, False, None), "steps must be in"),
        ((State.PAUSED, sim_control.MAX_STEPS + 1, False, None), "steps must be in"),
        ((State.PAUSED, 5, True, None), "another step request"),
        ((State.PAUSED, 5, False, "diverged at 1 s"), "diverged at 1 s; reset"),
    ]:
        refusal = step_refusal(*args)
        assert refusal.code == Code.OPERATION_FAILED and words in refusal.message


def test_reset_scopes():
    for scope in (0, 255, sim_control.SCOPE_STATE, sim_control.SCOPE_STATE | sim_control.SCOPE_SPAWNED):
        plan = reset_plan(scope)
        assert plan.outcome.ok and plan.reset_state
    assert "time runs on" in reset_plan(0).outcome.message
    spawned = reset_plan(sim_control.SCOPE_SPAWNED)
    assert spawned.outcome.ok and not spawned.reset_state
    for scope in (sim_control.SCOPE_TIME, sim_control.SCOPE_TIME | sim_control.SCOPE_STATE, 8):
        plan = reset_plan(scope)
        assert plan.outcome.code == Code.FEATURE_UNSUPPORTED and not plan.reset_state


def test_a_step_run_reports_each_step_and_ends_once():
    seen, ends = [], []
    run = sim_control.StepRun(3, lambda d, r: seen.append((d, r)), ends.append)
    assert [run.stepped() for _ in range(3)] == [False, False, True]
    assert seen == [(1, 2), (2, 1), (3, 0)] and [e.code for e in ends] == [Code.OK]
    stopped = sim_control.StepRun(5, lambda d, r: None, ends.append)
    stopped.stepped()
    stopped.stop("cancelled")
    assert ends[-1].code == Code.OPERATION_FAILED and ends[-1].message == "stopped after 1 of 5 steps: cancelled"


def test_entities_filter_by_regex_and_category():
    known = entities.listing(Simulator())
    assert entities.matching(known, "", []) == ["sally", "floor_plate", "wall_plate"]
    assert entities.matching(known, "plate$", []) == ["floor_plate", "wall_plate"]
    assert entities.matching(known, "", [int(entities.Category.ROBOT)]) == ["sally"]
    with pytest.raises(entities.FilterError, match="not a regular expression"):
        entities.matching(known, "([", [])


@pytest.mark.parametrize(
    ("scene", "names"),
    [
        ("room", ["sally", "floor_plate", "wall_plate", "ceiling_plate"]),
        ("corner3", ["sally", "wall_plate", "ceiling_plate", "room_floor"]),
    ],
)
def test_every_surface_of_the_scene_is_an_entity_at_its_place(scene, names):
    sim = Simulator(build_model(scene=scene, in_room=True))  # as the sim node builds it: world is the room
    known = entities.listing(sim)
    assert list(known) == names
    room = scene_named(scene)
    for name in names[1:]:
        surface = room.surface(name.removesuffix("_plate").removeprefix("room_"))
        centre = entities.kinematics(sim, name).pose.position  # the plate's centre, in the room
        assert surface.height(centre) == pytest.approx(-0.01, abs=1e-9), name  # 1 cm behind the face
        assert (
            "not steel" in known[name].description if name.startswith("room_") else "steel" in known[name].description
        )


def test_the_base_state_goes_in_and_comes_back_in_the_world_frame():
    sim = Simulator()
    sim.step(20)
    state = entities.kinematics(sim, "sally")
    msg = entity_state_to_msg(state, 12_345)
    assert msg.header.frame_id == "world" and msg.header.stamp.nanosec == 12_345
    back = entity_state_from_msg(msg)
    assert np.array_equal(back.pose.position, state.pose.position) and np.array_equal(back.pose.quat, state.pose.quat)
    assert np.array_equal(back.angular, state.angular)
    # set 1 cm up, turning about the world z at 0.5 rad/s: read back as set (the angular velocity in world)
    turned = entities.Kinematics(
        type(state.pose)(state.pose.position + [0, 0, 0.01], [math.cos(0.3), 0, 0, math.sin(0.3)]),
        np.array([0.1, 0, 0]),
        np.array([0, 0, 0.5]),
        np.zeros(3),
        np.zeros(3),
    )
    sim.set_base(turned.pose, turned.linear, turned.angular)
    now = entities.kinematics(sim, "sally")
    assert now.pose.position == pytest.approx(turned.pose.position, abs=1e-12)
    assert now.linear == pytest.approx([0.1, 0, 0]) and now.angular == pytest.approx([0, 0, 0.5], abs=1e-12)
    plate = entities.kinematics(sim, "wall_plate")
    assert not plate.linear.any() and not plate.angular.any()


@pytest.mark.parametrize(
    "change, invalid_pose, words",
    [
        (lambda m: setattr(m.pose.position, "x", math.nan), True, "finite 3-vector"),
        (lambda m: setattr(m.pose.orientation, "w", 0.0), True, "unit quaternion"),
        (lambda m: setattr(m.twist.angular, "z", math.inf), False, "twist must be finite"),
        (lambda m: setattr(m.header, "frame_id", "odom"), False, "frame 'odom' is not known"),
    ],
)
def test_a_bad_entity_state_is_refused_saying_why(change, invalid_pose, words):
    msg = entity_state_to_msg(entities.kinematics(Simulator(), "sally"), 0)
    change(msg)
    with pytest.raises(EntityStateError, match=words) as caught:
        entity_state_from_msg(msg)
    assert caught.value.invalid_pose is invalid_pose


def test_joint_commands_as_ros2_control_sends_them():
    names = list(JOINT_NAMES)
    position = [0.1 if n == "knee_FL" else math.nan for n in names]
    cmd = parse_joint_command(names, position, [], [], ACTUATED_JOINT_NAMES, PASSIVE)
    assert cmd.indices.tolist() == list(range(len(ACTUATED_JOINT_NAMES)))  # passive joints with NaN are left out
    drive = JointDrive(500.0, 30.0, 20.0, np.zeros(16))
    drive.command(cmd)
    knee = ACTUATED_JOINT_NAMES.index("knee_FL")
    assert drive.mode[knee] == POSITION and drive.position[knee] == 0.1
    held = drive.setting()  # position mode: stiffness and damping, no integral (ros2_control closes the loop)
    assert held.position[knee] == 0.1 and not np.delete(held.position, knee).any()  # the rest where they started
    assert (held.kp == 500.0).all() and (held.kd == 30.0).all() and not held.ki.any() and not held.effort.any()
    drive.command(parse_joint_command(["knee_FL"], [], [0.2], [], ACTUATED_JOINT_NAMES))
    moving = drive.setting()  # velocity mode: damping toward the velocity, no stiffness
    assert drive.mode[knee] == VELOCITY and moving.velocity[knee] == 0.2
    assert moving.kp[knee] == 0.0 and moving.kd[knee] == 20.0 and moving.kp[knee - 1] == 500.0
    drive.command(parse_joint_command(["knee_FL"], [], [], [-3.0], ACTUATED_JOINT_NAMES))
    pushed = drive.setting()  # effort mode: a plain motor
    assert drive.mode[knee] == EFFORT and pushed.effort[knee] == -3.0
    assert pushed.kp[knee] == pushed.kd[knee] == pushed.velocity[knee] == 0.0
    drive.command(parse_joint_command(["knee_FL"], [math.nan], [math.nan], [math.nan], ACTUATED_JOINT_NAMES))
    assert drive.mode[knee] == EFFORT, "NaN: not commanded, the last command stays"


@pytest.mark.parametrize(
    "names, position, velocity, reason",
    [
        ([], [], [], "empty"),
        (["knee_FL", "knee_FL"], [0.0, 0.0], [], "duplicate"),
        (["no_joint"], [0.0], [], "unknown"),
        (["knee_FL", "wrist_FL"], [0.0], [], "length"),
        (["knee_FL"], [math.inf], [], "out_of_range"),
        (["knee_FL"], [], [1e9], "out_of_range"),
        (["ee2_FL"], [0.1], [], "passive"),
    ],
)
def test_bad_joint_commands_are_refused_by_reason(names, position, velocity, reason):
    with pytest.raises(JointCommandError) as caught:
        parse_joint_command(names, position, velocity, [], ACTUATED_JOINT_NAMES, PASSIVE)
    assert caught.value.reason == reason
