"""The sim node's parameters: names, defaults, ranges and descriptions (a
:class:`~sally_node_common.parameters.ParameterTable`, pure). Read-only parameters shape the model
and need a restart."""

from __future__ import annotations

from typing import Any

from sally_description import LEGS
from sally_description.model import STARTS
from sally_description.scene import DEFAULT_SCENE, MAX_MOVED, SCENES
from sally_description.wall_start import WALL_STANCE, wall_pose_refusal
from sally_node_common.parameters import Param, ParameterTable
from sally_node_common.pid import DEFAULT_I_CLAMP, DEFAULT_KD, DEFAULT_KI, DEFAULT_KP
from sally_node_common.time_contract import CONTROL_LATENCY, CONTROL_PERIOD, PACING_MODES

from .drive import SOURCES
from .sensing import SENSINGS

MAX_RATE = 2000.0  # the physics rate: nothing is published more often than it steps


def _feet(v: Any) -> str | None:
    if not all(isinstance(f, str) for f in v):
        return f"must be a list of feet of {list(LEGS)}"
    unknown = [f for f in v if f not in LEGS]
    if unknown:
        return f"names unknown feet {unknown}; valid: {list(LEGS)}"
    return "names a foot twice" if len(set(v)) != len(v) else None


def _pose(v: Any) -> str | None:
    if abs(v[0]) > 1.0 or abs(v[1]) > 0.4:
        return "must keep the robot on the floor plate (|x| <= 1 m, |y| <= 0.4 m)"
    return None


def _rate(name: str, what: str, default: float) -> Param:
    return Param(name, default, what, low=0.0, high=MAX_RATE, open_low=True, unit="Hz of sim time")


TABLE = ParameterTable(
    (
        Param(
            "params_file",
            "",
            "physics parameter file (JSON/YAML, the optimizer's best_params.json); '' = defaults",
            read_only=True,
        ),
        Param(
            "initial_pose",
            [0.0, 0.0, 0.0],
            "spawn pose of main_frame on the floor: [x m, y m, yaw deg]",
            lengths=(3,),
            rule=_pose,
            read_only=True,
        ),
        Param(
            "start",
            "floor",
            "where Sally starts: floor (standing at initial_pose) or wall (pitched 90 deg, every foot planted on the "
            "wall; initial_pose must stay zero)",
            choices=STARTS,
            read_only=True,
        ),
        Param(
            "scene",
            DEFAULT_SCENE,
            "floor_wall (the floor and the wall), room (a steel floor, wall and ceiling) or corner3 (a room with a "
            "steel wall and ceiling; Sally starts on the wall; the planners work in the wall-ceiling corner's frame, "
            "/tf_static world -> corner)",
            choices=tuple(SCENES),
            read_only=True,
        ),
        Param(
            "wall_pose",
            [WALL_STANCE.y, WALL_STANCE.height, WALL_STANCE.turn_deg],
            "start:=wall: main_frame on the wall, 0.35 m from it and pitched 90 deg: [y m, height m, turn about the "
            "wall's normal deg, nose toward +y]; every foot planted around it",
            lengths=(3,),
            rule=wall_pose_refusal,
            read_only=True,
        ),
        Param(
            "magnets_on",
            list(LEGS),
            "feet whose magnets are on at start (and after reset); [] for none",
            rule=_feet,
            read_only=True,
            dynamic=True,
        ),
        Param(
            "command_delay",
            0.0,
            "how long a servo command takes on the driver's bus before the motors track it (each control period's "
            "first steps keep the command before; legged_control's delay); whole physics steps",
            low=0.0,
            high=0.004,
            unit="s of sim time",
            read_only=True,
        ),
        Param(
            "surface_offset",
            0.0,
            "the climbed-onto surface stands this far behind where the scene (the robot's map) puts it, along its "
            "normal (negative: in front): the world as it is, which the robot must sense",
            low=-MAX_MOVED,
            high=MAX_MOVED,
            unit="m",
            read_only=True,
        ),
        Param("pacing", "realtime", "how sim time advances", choices=PACING_MODES),
        Param(
            "real_time_factor",
            1.0,
            "target sim seconds per wall second in realtime pacing",
            low=0.0,
            high=100.0,
            open_low=True,
        ),
        _rate("clock_rate", "/clock publish rate", 1000.0),
        _rate(
            "state_rate",
            "/joint_states rate: the control period (each state answered by one command; 1000 for the effort path)",
            1.0 / CONTROL_PERIOD,
        ),
        _rate(
            "odom_rate",
            "/sally/odom rate, published with every n-th joint state (same stamps); at most state_rate",
            200.0,
        ),
        Param(
            "odom_joint_states",
            False,
            "also publish each /joint_states message that goes out with /sally/odom on /sally/odom_joint_states "
            "(for an IK in another process: its states at the odom rate, not every one over DDS)",
            read_only=True,
        ),
        _rate(
            "telemetry_rate",
            "/sally/magnets and /sally/ground_truth/magnets rate (rounded to whole control periods)",
            50.0,
        ),
        Param(
            "sensing",
            "noisy",
            "noisy: the IMU, the encoders (/joint_states), the feet's ranges and contact readings with their parts' "
            "noise, bias, resolution and latency (sensors_file); ideal: exact, no latency",
            choices=SENSINGS,
            read_only=True,
        ),
        Param(
            "sensor_seed",
            0,
            "seed of the sensors' noise: one seed, the same readings",
            low=0,
            high=2**31 - 1,
            read_only=True,
        ),
        Param(
            "sensors_file",
            "",
            "the sensors' error figures (YAML, config/sensors.yaml's keys); '' = that file",
            read_only=True,
        ),
        _rate("range_rate", "each foot's /sally/feet/<foot>/range rate (whole control periods)", 50.0),
        Param(
            "truth_odom",
            False,
            "also publish the exact pose (/sally/ground_truth/odom) on /sally/odom, for a graph without a state "
            "estimator (state:=truth, the oracle)",
            read_only=True,
        ),
        _rate("tf_rate", "/tf rate (every body of Sally; only while someone subscribes; whole control periods)", 100.0),
        _rate(
            "visual_rate",
            "/sally/markers and the per-foot wrenches' rate (only while someone subscribes; whole control periods): "
            "the magnet and contact force arrows change slowly, and each publication costs ~1 ms of the loop",
            10.0,
        ),
        Param(
            "camera_rate",
            0.0,
            "/sally/camera/image_raw rate from the MJCF camera, rendered offscreen with EGL "
            "(~30 ms a frame in software); 0: off",
            low=0.0,
            high=60.0,
            unit="Hz of sim time",
            read_only=True,
        ),
        Param("camera_width", 320, "camera image width", low=16, high=640, unit="px", read_only=True),
        Param("camera_height", 240, "camera image height", low=16, high=480, unit="px", read_only=True),
        Param("diagnostics_period", 0.5, "/diagnostics period", low=0.0, high=60.0, open_low=True, unit="wall s"),
        Param(
            "command_timeout",
            0.05,
            "sim time without a command before the watchdog holds the pose",
            low=0.0,
            high=60.0,
            open_low=True,
            unit="s",
        ),
        Param(
            "command_max_age",
            CONTROL_PERIOD,
            "realtime/fast: the sim steps at most this far past the state the latest command answers, "
            "waiting up to command_wait for the controller (0: never waits)",
            low=0.0,
            high=1.0,
            unit="s of sim time",
        ),
        Param(
            "command_wait",
            0.02,
            "realtime/fast: how long to wait for a fresh command before stepping on with the old one",
            low=0.0,
            high=1.0,
            open_low=True,
            unit="wall s",
        ),
        Param(
            "synchronous",
            False,
            "realtime: every state is answered by the controller before the sim steps on (the lockstep protocol, with "
            "lockstep_timeout and the hold), paced so that sim time never leads the wall clock: a run gives the "
            "lockstep figures however busy the machine is; false: the sim steps on with commands up to "
            "command_max_age old",
        ),
        Param(
            "control_latency",
            CONTROL_LATENCY,
            "lockstep and synchronous: control periods from a state to the period its answer applies from; 0: "
            "each period waits for the answer to its own state, 1: a period steps with the answer to the state "
            "before, in a physics thread of its own, while the graph answers its state on the other core",
            choices=(0, 1),
            read_only=True,
        ),
        Param(
            "physics_thread",
            True,
            "with control_latency 1: step each period in a physics thread of its own while the graph answers its "
            "state (false: in the loop's thread first; the same run on one core, for runs side by side on a busy "
            "machine)",
            read_only=True,
        ),
        Param(
            "lockstep_timeout",
            1.0,
            "how long lockstep waits for an answer before holding and going on (not before the first answer; "
            "while a controller is still on the ROS graph, up to 10 s: a slow controller is waited for)",
            low=0.0,
            high=600.0,
            open_low=True,
            unit="wall s",
        ),
        Param(
            "hold_kp",
            200.0,
            "watchdog hold: stiffness toward the latched pose",
            low=0.0,
            high=10000.0,
            open_low=True,
            unit="N m/rad",
        ),
        Param("hold_kd", 10.0, "watchdog hold: damping", low=0.0, high=1000.0, open_low=True, unit="N m s/rad"),
        Param(
            "start_paused",
            False,
            "start paused (play with ~/set_simulation_state), e.g. to let clients discover first",
            read_only=True,
        ),
        Param(
            "command_source",
            "servo",
            "what the motors' servos track: servo (/sally/servo_commands: position, velocity, feed-forward effort and "
            "gains, our controller's), efforts (/sally/joint_efforts: a torque controller's efforts, the servos as "
            "plain motors) or joint_commands (/sally/joint_commands: ros2_control's position, velocity or effort "
            "commands)",
            choices=SOURCES,
            read_only=True,
        ),
        Param(
            "servo_kp",
            DEFAULT_KP,
            "the servos' own stiffness (a servo command may set its own)",
            low=0.0,
            high=10000.0,
            unit="N m/rad",
        ),
        Param(
            "servo_kd",
            DEFAULT_KD,
            "the servos' own damping (a servo command may set its own)",
            low=0.0,
            high=1000.0,
            unit="N m s/rad",
        ),
        Param(
            "servo_ki",
            DEFAULT_KI,
            "the servos' integral gain (acting where a command's kp is above 0)",
            low=0.0,
            high=10000.0,
            unit="N m/(rad s)",
        ),
        Param("servo_i_clamp", DEFAULT_I_CLAMP, "bound of the servos' integral term", low=0.0, high=1000.0, unit="N m"),
        Param("drive_kp", 500.0, "ros2_control: position stiffness", low=0.0, high=10000.0, unit="N m/rad"),
        Param(
            "drive_kd",
            30.0,
            "ros2_control: damping toward the commanded velocity",
            low=0.0,
            high=1000.0,
            unit="N m s/rad",
        ),
        Param("drive_kv", 30.0, "ros2_control: velocity-command gain", low=0.0, high=1000.0, unit="N m s/rad"),
        Param("exit_on_divergence", False, "exit with status 3 when the physics diverges (batch runs)"),
        Param("headless", True, "no viewer; false opens a MuJoCo viewer when a display exists", read_only=True),
    )
)


def steps_per(rate_hz: float, timestep: float) -> int:
    """Physics steps between publications at ``rate_hz`` (at least 1)."""
    return max(1, round(1.0 / (rate_hz * timestep)))
