"""The sim node's parameters: names, defaults, descriptions and validation (pure, no rclpy).

``validate(name, value)`` returns None or the reason a value is refused; the node runs it for
values given at start (the process exits with that reason) and for every set request at run time
(the request is refused with it). Read-only parameters shape the model and need a restart.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

from sally_description import LEGS

PACING_MODES = ("realtime", "fast", "lockstep")
MAX_RATE = 2000.0  # the physics rate: nothing is published more often than it steps


@dataclass(frozen=True)
class ParamSpec:
    name: str
    default: Any
    description: str
    check: Callable[[Any], str | None]
    read_only: bool = False


def _positive(limit: float | None = None, unit: str = "") -> Callable[[Any], str | None]:
    def check(v: Any) -> str | None:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v <= 0:
            return f"must be a positive finite number{unit}"
        if limit is not None and v > limit:
            return f"must be at most {limit:g}{unit}"
        return None

    return check


def _non_negative(limit: float, unit: str = "") -> Callable[[Any], str | None]:
    def check(v: Any) -> str | None:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0 or v > limit:
            return f"must be a finite number in [0, {limit:g}]{unit}"
        return None

    return check


def _pacing(v: Any) -> str | None:
    return None if v in PACING_MODES else f"must be one of {list(PACING_MODES)}"


def _feet(v: Any) -> str | None:
    if v is None:  # an empty list on the command line ([]) arrives as "not set": no feet
        return None
    if isinstance(v, str) or not all(isinstance(f, str) for f in v):
        return f"must be a list of feet of {list(LEGS)}, got {v!r}"
    unknown = [f for f in v if f not in LEGS]
    if unknown:
        return f"names unknown feet {unknown}; valid: {list(LEGS)}"
    return "names a foot twice" if len(set(v)) != len(v) else None


def _pose(v: Any) -> str | None:
    if len(v) != 3 or not all(math.isfinite(x) for x in v):
        return "must be three finite numbers [x m, y m, yaw deg]"
    if abs(v[0]) > 1.0 or abs(v[1]) > 0.4:
        return "must keep the robot on the floor plate (|x| <= 1 m, |y| <= 0.4 m)"
    return None


def _any(v: Any) -> str | None:
    return None


def _bool(v: Any) -> str | None:
    return None if isinstance(v, bool) else "must be true or false"


SPECS: tuple[ParamSpec, ...] = (
    ParamSpec("params_file", "", "physics parameter file (JSON/YAML, the optimizer's best_params.json); '' = defaults", _any, True),
    ParamSpec("initial_pose", [0.0, 0.0, 0.0], "spawn pose of main_frame on the floor: [x m, y m, yaw deg]", _pose, True),
    ParamSpec("magnets_on", list(LEGS), "feet whose magnets are on at start (and after reset)", _feet, True),
    ParamSpec("pacing", "realtime", "realtime | fast | lockstep", _pacing),
    ParamSpec("real_time_factor", 1.0, "target sim seconds per wall second in realtime pacing", _positive(100.0)),
    ParamSpec("clock_rate", 1000.0, "/clock publish rate (Hz of sim time)", _positive(MAX_RATE, " Hz")),
    ParamSpec("state_rate", 1000.0, "/joint_states and /sally/odom rate (Hz of sim time); the control period in lockstep", _positive(MAX_RATE, " Hz")),
    ParamSpec(
        "odom_rate",
        200.0,
        "/sally/odom rate (Hz of sim time), published with every n-th joint state (same stamps); at most state_rate",
        _positive(MAX_RATE, " Hz"),
    ),
    ParamSpec("telemetry_rate", 50.0, "/sally/magnets rate (Hz of sim time)", _positive(MAX_RATE, " Hz")),
    ParamSpec("diagnostics_period", 0.5, "/diagnostics period (wall seconds)", _positive(60.0, " s")),
    ParamSpec("effort_timeout", 0.05, "sim seconds without an effort command before the watchdog holds", _positive(60.0, " s")),
    ParamSpec(
        "effort_max_age",
        0.001,
        "realtime/fast: the sim steps at most this far (sim s) past the state the latest effort answers, "
        "waiting up to effort_wait for the controller (0: never waits)",
        _non_negative(1.0, " s"),
    ),
    ParamSpec("effort_wait", 0.02, "realtime/fast: wall seconds to wait for a fresh effort before stepping on with the old one", _positive(1.0, " s")),
    ParamSpec(
        "synchronous",
        False,
        "realtime: every state is answered by the controller before the sim steps on (the lockstep protocol, with "
        "lockstep_timeout and the hold), paced so that sim time never leads the wall clock: a run gives the lockstep "
        "figures however busy the machine is; false: the sim steps on with efforts up to effort_max_age old",
        _bool,
    ),
    ParamSpec(
        "lockstep_timeout",
        1.0,
        "wall seconds lockstep waits for an effort answer before holding and going on (not before the first answer)",
        _positive(600.0, " s"),
    ),
    ParamSpec("hold_kp", 200.0, "watchdog hold: stiffness toward the latched pose (N m/rad)", _positive(10000.0)),
    ParamSpec("hold_kd", 10.0, "watchdog hold: damping (N m s/rad)", _positive(1000.0)),
    ParamSpec("start_paused", False, "start paused (resume with ~/pause false), e.g. to let clients discover first", _any, True),
    ParamSpec("exit_on_divergence", False, "exit with status 3 when the physics diverges (batch runs)", _any),
    ParamSpec("headless", True, "no viewer; false opens a MuJoCo viewer when a display exists", _any, True),
)
BY_NAME = {s.name: s for s in SPECS}


def validate(name: str, value: Any) -> str | None:
    spec = BY_NAME.get(name)
    if spec is None:
        return f"unknown parameter {name!r}"
    reason = spec.check(value)
    return None if reason is None else f"{name} = {value!r} {reason}"


def steps_per(rate_hz: float, timestep: float) -> int:
    """Physics steps between publications at ``rate_hz`` (at least 1)."""
    return max(1, round(1.0 / (rate_hz * timestep)))
