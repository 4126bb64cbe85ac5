"""The graphs' arguments (``name:=value`` on either command line): each one's default, help and
choices, and the checks that refuse a bad one in one line before anything starts (:func:`resolve`).
The graphs themselves: :mod:`.graphs`.

Each argument's default, help text and choices are declared once, in :data:`ARGUMENTS`;
``sally-launch --help`` prints them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from sally_description.constants import LEGS
from sally_description.errors import DescriptionError
from sally_description.model import standing_feet
from sally_description.scene import DEFAULT_SCENE, MAX_MOVED, SCENES, climbing, scene
from sally_description.wall_start import WallStance, wall_pose_refusal, wall_stance
from sally_node_common.time_contract import CONTROL_LATENCY, IK_LATENCY, PACING_MODES
from sally_sequencer.descent import DURATION as DESCENT_DURATION
from sally_sequencer.errors import SequenceError
from sally_sequencer.plan import CampaignPlan
from sally_sequencer.plan_catalogue import DEFAULT_DURATION, SEQUENCES, climb_of, scene_of, spec
from sally_sequencer.route import campaigns_of, descends, plan, returns
from sally_sequencer.route_run import RoutePlan
from sally_sequencer.wall_stand import WALK_TO_STAND, WallStand
from sally_sequencer.wall_walk import DIRECTIONS, WallWalk
from sally_sequencer.way_back import duration as way_back_duration

STAND_WALK = "ceiling"
"""``wall_walk:=ceiling``: the walk up to the ceiling's corner, then the stand there."""
WALL_CLIMB, CEILING_CLIMB = climb_of(("floor", "wall")), climb_of(("wall", "ceiling"))
"""The climbs onto the wall and onto the ceiling: ``wall_walk:=`` walks after the one,
``ceiling_walk:=`` after the other."""
ROUTE_SCENE = "room"
"""scene:=auto for sequence:=route: the room, whose floor, wall and ceiling are all steel."""


@dataclass(frozen=True)
class Argument:
    """One graph argument: its default, its help text and, when it has a fixed set, its choices."""

    default: str
    description: str
    choices: tuple[str, ...] = ()


ARGUMENTS: dict[str, Argument] = {
    "sequence": Argument(
        "f2w",
        "sequence to run: "
        + ", ".join(f"{name} ({entry.summary})" for name, entry in SEQUENCES.items())
        + ", route (the surfaces route:= names)",
        (*SEQUENCES, "route"),
    ),
    "scene": Argument(
        "auto",
        "floor_wall (the floor and the wall), corner3 (a room with a steel wall and a steel ceiling 1.0 m up; Sally "
        "starts on the wall), room (a steel floor, wall and ceiling) or auto (corner3 for w2c, room for route, else "
        "floor_wall)",
        ("auto", *SCENES),
    ),
    "route": Argument(
        "auto",
        "sequence:=route: the surfaces Sally goes over, comma-separated, from the one she starts on (auto: the "
        "scene's climbed corner, floor,wall in room and floor_wall, wall,ceiling in corner3); the last surface "
        "may be the one before it again: the way back down (floor,wall,floor; floor,wall,ceiling,wall in room), or "
        "all the way back (floor,wall,ceiling,wall,floor in room)",
    ),
    "start": Argument(
        "floor",
        "where Sally starts: floor, or wall (pitched 90 deg, every foot planted on the wall; wall_walk starts there)",
        ("floor", "wall"),
    ),
    "wall_pose": Argument(
        "0.0,0.40,0.0",
        "start:=wall: main_frame on the wall, 'y,height,turn' (m, m, deg about the wall's normal, nose toward +y)",
    ),
    "floor_pose": Argument(
        "0.0,0.0,0.0",
        "start:=floor: main_frame on the floor, 'x,y,yaw' (m, m, deg; the default start stands 0.5 m from the "
        "wall, the climb's start; floor_walk:= walks there from farther back)",
    ),
    "floor_walk": Argument(
        "0",
        "before the climb onto the wall (sequence:=f2w_all, route:=floor,...): how far the body first walks "
        "forward over the floor, toward the wall (m, at most 1; 0: no walk), from a start that far back "
        "(floor_pose:=-D,0,0): the walk must end within 1 cm of the climb's start",
    ),
    "direction": Argument(
        "auto",
        "wall_walk: which way the body walks over the wall (up, down, left, right); floor_walk: over the floor "
        "(forward: toward the wall, back, left, right); auto: up on the wall, back on the floor",
        ("auto", *DIRECTIONS),
    ),
    "distance": Argument("0.30", "wall_walk, floor_walk: how far the body walks (m, at most 1)"),
    "wall_walk": Argument(
        "0",
        "after the climb onto the wall (route:=floor,wall or sequence:=f2w_all): how far the body then walks up the "
        "wall, toward the ceiling, in the same run (m, at most 1; 0: no walk), or ceiling: up to 0.5 m below the "
        "ceiling, then stand there as on the floor, where the climb onto the ceiling starts (a scene with a ceiling)",
    ),
    "ceiling_walk": Argument(
        "0",
        "after the climb onto the ceiling (route:=...,wall,ceiling or sequence:=w2c): how far the body then walks "
        "along the ceiling, away from the wall, in the same run (m, at most 1; 0: no walk)",
    ),
    "headless": Argument("true", "run without the MuJoCo viewer", ("true", "false")),
    "duration": Argument(
        "auto",
        "sim seconds after which an unfinished sequence fails (auto: 80 for f2w_all and w2c, the walk's own time and "
        "15 s for wall_walk, else 25)",
    ),
    "pacing": Argument(
        "realtime",
        "sim pacing: realtime (in step with the wall clock), fast (as fast as the machine steps), lockstep (every node "
        "answers every step: runs repeat)",
        PACING_MODES,
    ),
    "sync": Argument(
        "true",
        "realtime with our controller: every state is answered before the sim steps on, so a run gives the lockstep "
        "figures however busy the machine is (false: the sim steps on with commands up to a control period old)",
        ("true", "false"),
    ),
    "control_latency": Argument(
        str(CONTROL_LATENCY),
        "lockstep and sync:=true: control periods from a state to the period its answer applies from (0: each "
        "period waits for the answer to its own state; 1: the sim steps a period with the answer to the state before, "
        "on a core of its own, while the graph answers this one)",
        ("0", "1"),
    ),
    "ik_latency": Argument(
        str(IK_LATENCY),
        "lockstep and sync:=true: IK periods from the state the IK solves to the first state its targets answer (0: "
        "the controller answers each IK state with its own solve; 1: with the solve one IK period before, so an IK "
        "and a sequencer apart from the sim compute while it steps); a magnet switch goes with its targets",
        ("0", "1"),
    ),
    "sensing": Argument(
        "noisy",
        "the robot's sensors: noisy (the IMU, encoders, ranges and contact readings with their parts' noise, bias, "
        "resolution and latency, the sim's config/sensors.yaml) or ideal (exact, no latency)",
        ("noisy", "ideal"),
    ),
    "command_delay": Argument(
        "0",
        "how long (s, below one control period) a servo command takes on the driver's bus before the motors track "
        "it: the sim keeps the command before for that long",
    ),
    "surface_offset": Argument(
        "0",
        "the climbed-onto surface stands this far (m, at most 0.02 either way) behind where the map puts it: "
        "the sim's world moves, the robot's map does not",
    ),
    "sensor_seed": Argument("0", "seed of the sensors' noise (a whole number >= 0): one seed, the same readings"),
    "state": Argument(
        "estimated",
        "what the controller and the IK take as the body's state: estimated (the state estimator's, from the IMU, "
        "the legs that hold and the map) or truth (the sim's exact pose on /sally/odom: the oracle)",
        ("estimated", "truth"),
    ),
    "composed": Argument(
        "true",
        "run every node of the graph in one process (sally_composed), handing messages between them as Python "
        "objects; every topic stays on DDS for others",
        ("true", "false"),
    ),
    "ik_process": Argument(
        "false",
        "the IK's solve in a process of its own (the IK node stays where it is): the graph's other Python goes on "
        "while it runs, on the other core; the same run",
        ("true", "false"),
    ),
    "apart": Argument(
        "none",
        "with composed:=true, these nodes (comma-separated: sim, controller, estimator, ik, sequencer, pulloff) run "
        "as processes of their own beside the container, over DDS (none: every node in the container)",
    ),
    "magnets": Argument("FL,FR,BL,BR", "feet whose magnets start on (comma-separated)"),
    "controller": Argument(
        "pid",
        "joint controller: pid (our controller node, driven by the IK and the sequencer), none (bring your own: a "
        "hardware driver's, answering each state), ros2_control (the sim alone, taking ros2_control's joint commands "
        "on /sally/joint_commands)",
        ("pid", "none", "ros2_control"),
    ),
    "command": Argument(
        "servo",
        "what the controller sends the motors: servo (position, velocity, feed-forward effort and gains every 5 ms; "
        "the servos close their loops at every physics step) or effort (efforts every 1 ms: the effort path, for "
        "torque controllers and hardware that takes efforts)",
        ("servo", "effort"),
    ),
    "sim": Argument("true", "start the MuJoCo sim node (false: real hardware publishes the states)", ("true", "false")),
    "start_paused": Argument(
        "false", "start the sim paused (play with /sally_sim/set_simulation_state)", ("true", "false")
    ),
    "params": Argument("", "physics parameter file for the sim (JSON/YAML; '' = defaults)"),
    "settle": Argument("0.5", "sim seconds of settling before the sequence starts"),
    "hold": Argument("1.0", "sim seconds the end pose is held before the sequence is done"),
    "pull_rate": Argument("40.0", "pull-off graph: force ramp (N/s)"),
    "record": Argument(
        "true", "sally-launch: write every topic of the run into run.mcap in its run folder", ("true", "false")
    ),
    "foxglove": Argument(
        "false",
        "sally-launch: serve every topic over the Foxglove WebSocket protocol while the run lasts",
        ("true", "false"),
    ),
    "foxglove_port": Argument("8765", "sally-launch: the Foxglove server's port on 127.0.0.1"),
}
NUMBER_ARGUMENTS = ("duration", "settle", "hold", "pull_rate", "distance")
ZERO_ALLOWED = ("settle", "hold")


MAX_COMMAND_DELAY = 0.004
"""s: the longest bus delay of a servo command (the sim's ``command_delay``: inside one 5 ms period)."""


class GraphError(ValueError):
    """A bad graph name or argument: the message says which and what is valid."""


def resolve(arguments: Mapping[str, str]) -> dict[str, str]:
    """The defaults overridden by ``arguments``, validated."""
    unknown = sorted(set(arguments) - set(ARGUMENTS))
    if unknown:
        raise GraphError(f"unknown argument(s) {unknown}; valid: {sorted(ARGUMENTS)}")
    values = {name: str(arguments.get(name, arg.default)) for name, arg in ARGUMENTS.items()}
    for name, arg in ARGUMENTS.items():
        if arg.choices and values[name] not in arg.choices:
            raise GraphError(f"{name}:={values[name]} is not one of {list(arg.choices)}")
    if values["scene"] == "auto":
        values["scene"] = ROUTE_SCENE if values["sequence"] == "route" else scene_of(values["sequence"])
    route_campaign(values)
    if values["direction"] == "auto":
        values["direction"] = auto_direction(values["sequence"])
    stance = wall_pose(values)  # refused here, before anything starts
    (walk, then_walk), stand = campaign_walks(values), wall_stand(values)
    before = floor_walk(values)
    on_floor = spec(values["sequence"]).walks_over == "floor"
    feet = standing_at(floor_pose(values)) if on_floor else {leg: stance.foot(leg) for leg in LEGS}
    off = walk.off_plate(feet) if walk is not None else ""
    if off:
        raise GraphError(
            f"floor_walk from the floor start: {off}" if on_floor else f"wall_walk from start:=wall: {off}"
        )
    if values["duration"] == "auto":
        values["duration"] = f"{resolved_duration(values, walk, then_walk, stand, before):.1f}"
    check_numbers(values)
    magnets = magnet_list(values["magnets"])
    values["magnets"] = ",".join(magnets) or "none"
    if values["params"]:
        check_params_file(values["params"])
    run_plan(values)  # the plan the run runs, refused here when it cannot
    return values


def run_plan(values: Mapping[str, str]) -> RoutePlan:
    """The plan resolved ``values`` run (:class:`sally_sequencer.route_run.RoutePlan`): the first
    campaign with its walk, stand, walk before and way down, the route's next climb with its walk
    or way down, and the way back; what the graph hands the sequencer, and what the report judges
    the run through. GraphError says what cannot run."""
    walk, then_walk = campaign_walks(values)
    then, down = then_climb(values), comes_down(values)
    try:
        first = CampaignPlan(values["sequence"], walk, wall_stand(values), floor_walk(values), down and not then)
        second = CampaignPlan(then, then_walk, down=down) if then else None
    except SequenceError as exc:
        raise GraphError(f"sequence:={values['sequence']}: {exc}") from None
    return RoutePlan(first, second, goes_back(values))


def resolved_duration(
    values: Mapping[str, str],
    walk: WallWalk | None,
    then_walk: WallWalk | None,
    stand: WallStand | None,
    before: WallWalk | None,
) -> float:
    """duration:=auto for resolved ``values`` (s of sim time): the first campaign's
    (:func:`auto_duration`), and each part the run adds whole seconds of (the walk before the climb,
    the way down, the walk and the stand after it, the next climb and its walk, the way back)."""
    duration = auto_duration(values["sequence"], walk)
    if before is not None:  # the walk to the climb's start first
        duration += math.ceil(before.duration)
    if comes_down(values):  # and the way back down after the climb
        duration += math.ceil(DESCENT_DURATION)
    if walk is not None and spec(values["sequence"]).climbs:  # the climb's time, then the walk's
        more = walk.duration + (stand.duration if stand is not None else 0.0)
        then = then_climb(values)
        if then:  # and the climb onto the ceiling, and the walk along it
            more += auto_duration(then, None) + (then_walk.duration if then_walk is not None else 0.0)
        if goes_back(values):  # and the way back: down the wall, then down onto the floor
            more += way_back_duration() + DESCENT_DURATION
        duration += math.ceil(more)
    return duration


def check_numbers(values: Mapping[str, str]) -> None:
    """Refuse a number argument out of its range, in one line naming it and the range."""
    for name in NUMBER_ARGUMENTS:
        try:
            value = float(values[name])
        except ValueError:
            raise GraphError(f"{name}:={values[name]} is not a number") from None
        zero = name in ZERO_ALLOWED
        if not (0 < value < 1e6 or (zero and value == 0)):
            raise GraphError(f"{name}:={values[name]} must be a positive number" + (" or 0" if zero else ""))
    port_number("foxglove_port", values["foxglove_port"])
    try:
        offset = float(values["surface_offset"])
    except ValueError:
        offset = math.nan
    if not abs(offset) <= MAX_MOVED:
        raise GraphError(
            f"surface_offset:={values['surface_offset']} must be a number of m from -{MAX_MOVED} to {MAX_MOVED}"
        )
    try:
        delay = float(values["command_delay"])
    except ValueError:
        delay = math.nan
    if not 0 <= delay <= MAX_COMMAND_DELAY:
        raise GraphError(
            f"command_delay:={values['command_delay']} must be a number of s from 0 to {MAX_COMMAND_DELAY}"
        )
    if not values["sensor_seed"].isdigit() or int(values["sensor_seed"]) > 2**31 - 1:
        raise GraphError(f"sensor_seed:={values['sensor_seed']} must be a whole number from 0 to {2**31 - 1}")


def route_campaign(values: dict[str, str]) -> None:
    """``sequence:=route``: the route checked against the scene (refused in one line naming the
    surface or the pair that cannot be part of it) and the sequence made the campaign that runs it.
    A ``route:=`` given with another sequence must be the route that sequence runs (as the values this
    resolves to say: they resolve again to themselves)."""
    chosen = scene(values["scene"])
    if values["sequence"] != "route" and values["route"] == "auto":
        return
    if values["route"] == "auto":
        values["route"] = ",".join(chosen.corner)
    campaigns = route_campaigns(values)
    if values["sequence"] not in ("route", campaigns[0]):
        raise GraphError(f"route:={values['route']} is for sequence:=route, not sequence:={values['sequence']}")
    if comes_down(values):  # the way down starts where the last climb ended: no walk after that climb
        after = "ceiling_walk" if len(campaigns) > 1 or campaigns[0] == CEILING_CLIMB else "wall_walk"
        if values[after] != "0":
            onto = "ceiling" if after == "ceiling_walk" else "wall"
            raise GraphError(
                f"route:={values['route']} climbs back down from where it climbed onto the {onto}: leave out "
                f"{after}:={values[after]}"
            )
    if len(campaigns) > 1:  # the walk between the climbs goes to the stand under the ceiling
        if values["wall_walk"] not in ("0", STAND_WALK):
            raise GraphError(
                f"route:={values['route']} walks up the wall to the stand under the ceiling: leave out "
                f"wall_walk:={values['wall_walk']}"
            )
        values["wall_walk"] = STAND_WALK
    values["sequence"] = campaigns[0]


def route_campaigns(values: Mapping[str, str]) -> tuple[str, ...]:
    """The campaigns ``route:=`` runs in ``scene:=`` (:func:`sally_sequencer.route.campaigns_of`),
    refused in one line; () without a route."""
    if values["route"] == "auto":
        return ()
    chosen = scene(values["scene"])
    try:
        return campaigns_of(plan(values["route"], chosen), chosen)
    except SequenceError as exc:
        raise GraphError(f"route:={values['route']}: {exc}") from None


def comes_down(values: Mapping[str, str]) -> bool:
    """Whether a resolved route ends by coming back down the corner it climbed last
    (``route:=floor,wall,floor``, ``wall,ceiling,wall``, ``floor,wall,ceiling,wall``)."""
    return values["route"] != "auto" and descends(plan(values["route"], scene(values["scene"])))


def goes_back(values: Mapping[str, str]) -> bool:
    """Whether a resolved route comes all the way back the way it went (``floor,wall,ceiling,wall,floor``:
    after the way down from the ceiling, down the wall and onto the floor, :mod:`sally_sequencer.way_back`)."""
    return values["route"] != "auto" and returns(plan(values["route"], scene(values["scene"])))


def then_climb(values: Mapping[str, str]) -> str:
    """The climb a resolved route runs after its first campaign ('' for none: one climb)."""
    campaigns = route_campaigns(values)
    return campaigns[1] if len(campaigns) > 1 else ""


WALK_MARGIN = 15
"""duration:=auto for wall_walk: the walk's phases and this many sim seconds (settling, the hold)."""


def auto_duration(sequence: str, walk: WallWalk | None) -> float:
    """duration:=auto for ``sequence`` (s of sim time) with its walk ``walk`` (a walk sequence's, or
    the walk after the climb): its entry's (f2w_all's climb takes about 64 s of sim time; f2w on what
    Sally senses 22.7-24.8 s, its seats ending on sensed contact), else a walk sequence's walk and
    :data:`WALK_MARGIN`, else :data:`~sally_sequencer.plan_catalogue.DEFAULT_DURATION`."""
    entry = spec(sequence)
    if entry.duration is not None:
        return entry.duration
    if walk is not None:
        return float(math.ceil(walk.duration) + WALK_MARGIN)
    return DEFAULT_DURATION


def auto_direction(sequence: str) -> str:
    """direction:=auto for ``sequence``: its walk's direction where it walks one, else the wall walk's
    (up: the argument means nothing then)."""
    return (spec(sequence).default_walk or WallWalk()).direction


def wall_stand(values: Mapping[str, str]) -> WallStand | None:
    """The stand ``wall_walk:=ceiling`` asks for after its walk (:mod:`sally_sequencer.wall_stand`),
    refused in a scene without a ceiling; None for any other walk or none."""
    if values["wall_walk"] != STAND_WALK:
        return None
    names = {surface.name for surface in scene(values["scene"]).surfaces if surface.steel}
    if "ceiling" not in names:
        raise GraphError(
            f"wall_walk:={STAND_WALK} stands 0.5 m below the ceiling: scene:={values['scene']} has none (scene:=room)"
        )
    return WallStand()


def wall_walk(values: Mapping[str, str]) -> WallWalk | None:
    """The walk ``values`` ask for: wall_walk's (refused without ``start:=wall``: the walk starts with
    every foot on the wall), or the walk up the wall after a climb onto it (``wall_walk:=``, a
    distance, or ``ceiling``: :data:`~sally_sequencer.wall_stand.WALK_TO_STAND`); None without one."""
    text = values["wall_walk"]
    try:
        after = WALK_TO_STAND if text == STAND_WALK else float(text)
    except ValueError:
        raise GraphError(f"wall_walk:={text} is not a number or {STAND_WALK}") from None
    if after != 0 and values["sequence"] != WALL_CLIMB:
        hint = " (ceiling_walk:= walks along the ceiling after w2c)" if values["sequence"] == CEILING_CLIMB else ""
        raise GraphError(
            f"wall_walk:={values['wall_walk']} walks up the wall after a climb onto it ({WALL_CLIMB}, "
            f"route:=floor,wall), not after {values['sequence']}{hint}"
        )
    if after != 0:
        try:
            return WallWalk("up", after)
        except SequenceError as exc:
            raise GraphError(f"wall_walk:={values['wall_walk']}: {exc}") from None
    sequence = values["sequence"]
    surface = spec(sequence).walks_over
    if surface is None:
        return None
    if values["start"] != surface:
        add = "add start:=wall" if surface == "wall" else "leave out start:=wall"
        raise GraphError(f"sequence:={sequence} starts with every foot on the {surface}: {add}")
    try:
        distance = float(values["distance"])
    except ValueError:
        raise GraphError(f"distance:={values['distance']} is not a number") from None
    try:
        return WallWalk(values["direction"], distance, surface)
    except SequenceError as exc:
        raise GraphError(f"{sequence}: {exc}") from None


def ceiling_walk(values: Mapping[str, str]) -> WallWalk | None:
    """The walk along the ceiling ``ceiling_walk:=`` asks for after the climb onto it (the route's last
    climb, or sequence:=w2c), refused after any other; None without one."""
    text = values["ceiling_walk"]
    try:
        after = float(text)
    except ValueError:
        raise GraphError(f"ceiling_walk:={text} is not a number") from None
    if after == 0:
        return None
    if CEILING_CLIMB not in (values["sequence"], then_climb(values)):
        raise GraphError(
            f"ceiling_walk:={text} walks along the ceiling after the climb onto it ({CEILING_CLIMB}, "
            f"route:=floor,wall,ceiling), not after {values['sequence']}"
        )
    try:
        return WallWalk("up", after)
    except SequenceError as exc:
        raise GraphError(f"ceiling_walk:={text}: {exc}") from None


def campaign_walks(values: Mapping[str, str]) -> tuple[WallWalk | None, WallWalk | None]:
    """The walk after the first climb of resolved ``values`` (wall_walk's, or the ceiling walk after
    w2c alone), and the walk after the climb the route runs next (the ceiling walk), each None
    without one."""
    walk, ceiling = wall_walk(values), ceiling_walk(values)
    if then_climb(values):
        return walk, ceiling
    return (ceiling if values["sequence"] == CEILING_CLIMB else walk), None


CLIMB_START_TOLERANCE = 0.01
"""m: a walk over the floor before the climb must end with main_frame this near the climb's start
(x = 0, the default floor start; the climb's draws in ``benchmarks/climb.py`` are +-1 cm)."""


def floor_pose(values: Mapping[str, str]) -> tuple[float, float, float]:
    """The floor start ``floor_pose:=x,y,yaw`` gives (m, m, deg), refused in one line when it is not
    three numbers, leaves the floor plate (|x| <= 1 m, |y| <= 0.4 m) or moves a start that is not on
    the floor of the floor-wall corner."""
    text = values["floor_pose"]
    try:
        numbers = [float(v) for v in text.split(",")]
    except ValueError:
        numbers = []
    if len(numbers) != 3 or not all(math.isfinite(v) for v in numbers):
        raise GraphError(f"floor_pose:={text} must be three numbers, x,y,yaw (m, m, deg)")
    x, y, yaw = numbers
    if abs(x) > 1.0 or abs(y) > 0.4:
        raise GraphError(f"floor_pose:={text} must keep Sally on the floor plate (|x| <= 1 m, |y| <= 0.4 m)")
    moved = any(v != 0.0 for v in numbers)
    if moved and (values["start"] != "floor" or scene(values["scene"]).turned):
        raise GraphError(f"floor_pose:={text} places a floor start; this run starts on the room's wall")
    return x, y, yaw


def standing_at(pose: tuple[float, float, float]) -> dict[str, np.ndarray]:
    """Each foot's EE site (world, m) with Sally standing on the floor at ``pose`` (x m, y m, yaw
    deg: the floor start moved and turned as the sim places it)."""
    x, y, yaw = pose
    c, s = math.cos(math.radians(yaw)), math.sin(math.radians(yaw))
    return {
        leg: np.array([x + c * fx - s * fy, y + s * fx + c * fy, fz]) for leg, (fx, fy, fz) in standing_feet().items()
    }


def floor_walk(values: Mapping[str, str]) -> WallWalk | None:
    """The walk over the floor before the climb ``floor_walk:=`` asks for (None without one):
    refused in one line after any campaign but f2w_all, when it does not bring main_frame from
    ``floor_pose`` to within :data:`CLIMB_START_TOLERANCE` of the climb's start, or when it takes a
    magnet off the floor's steel."""
    text = values["floor_walk"]
    x, y, yaw = floor_pose(values)
    try:
        distance = float(text)
    except ValueError:
        raise GraphError(f"floor_walk:={text} is not a number") from None
    if distance == 0:
        return None
    if values["sequence"] != WALL_CLIMB:
        raise GraphError(
            f"floor_walk:={text} walks to the climb onto the wall ({WALL_CLIMB}, route:=floor,...), not to "
            f"{values['sequence']}"
        )
    try:
        walk = WallWalk("forward", distance, "floor")
    except SequenceError as exc:
        raise GraphError(f"floor_walk:={text}: {exc}") from None
    if abs(x + distance) > CLIMB_START_TOLERANCE:
        raise GraphError(
            f"floor_walk:={text} from floor_pose x {x:g} m ends {x + distance:+.3f} m from the climb's start "
            f"(x = 0): start at floor_pose:={-distance:g},{y:g},{yaw:g}" + (f", or floor_walk:={-x:g}" if x < 0 else "")
        )
    off = walk.off_plate(standing_at((x, y, yaw)))
    if off:
        raise GraphError(f"floor_walk:={text}: {off}")
    return walk


def wall_pose(values: Mapping[str, str]) -> WallStance:
    """The wall start's stance ``wall_pose:=y,height,turn`` gives (refused, naming the argument, when
    it is not three numbers or the sim would refuse it, or when it moves a floor start)."""
    text = values["wall_pose"]
    try:
        numbers = [float(v) for v in text.split(",")]
    except ValueError:
        numbers = []
    if len(numbers) != 3:
        raise GraphError(f"wall_pose:={text} must be three numbers, y,height,turn (m, m, deg)")
    refused = wall_pose_refusal(numbers)
    if refused:
        raise GraphError(f"wall_pose:={text} {refused}")
    try:
        return wall_stance(values["start"], numbers)
    except DescriptionError as exc:
        raise GraphError(f"wall_pose:={text}: {exc}") from None


def scene_refusal(name: str, values: Mapping[str, str]) -> None:
    """Refuse a scene the graph cannot run in: a sequence runs in a scene that climbs its campaign's
    corner (``plan_catalogue.scene_of``: w2c the wall-ceiling corner, corner3; every other the floor-wall
    corner, floor_wall or room), the pull-off rig on the floor-wall corner, the hold graph in any (in
    corner3 from its own start: on the room's wall)."""
    chosen = scene(values["scene"])
    if chosen.turned and values["start"] != "floor":
        raise GraphError(
            f"scene:={chosen.name} starts Sally on the room's {chosen.stood_on} already: "
            f"leave out start:={values['start']}"
        )
    if name == "hold":
        return
    wanted = scene(DEFAULT_SCENE if name == "pulloff" else scene_of(values["sequence"]))
    if chosen.corner != wanted.corner:
        what = "the pull-off rig" if name == "pulloff" else f"sequence:={values['sequence']}"
        raise GraphError(f"scene:={chosen.name}: {what} runs in {climbing(wanted.corner)}")


def check_params_file(path: str) -> None:
    """Refuse a physics parameter file the sim would refuse (missing, unreadable, invalid), before
    any node starts."""
    from sally_description import DescriptionError, PhysicsParams

    try:
        PhysicsParams.from_file(path)
    except DescriptionError as exc:
        raise GraphError(f"params: {exc}") from None


def magnet_list(text: str) -> list[str]:
    """Feet named in ``text`` (comma-separated, each once); ``none`` is no foot."""
    if text.strip() == "none":
        return []
    feet = [f.strip() for f in text.split(",") if f.strip()]
    bad = [f for f in feet if f not in LEGS]
    if bad or not feet or len(set(feet)) != len(feet):
        raise GraphError(f"magnets:={text} must name feet of {list(LEGS)}, comma-separated, each once, or be none")
    return feet


def apart_groups(text: str) -> list[tuple[str, ...]]:
    """``apart:=text`` read as written, not checked: each process's nodes (``none``: none)."""
    if text.strip() == "none":
        return []
    return [tuple(n.strip() for n in item.split("+")) for item in text.split(",") if item.strip()]


def apart_nodes(text: str, nodes: Sequence[str]) -> list[tuple[str, ...]]:
    """The processes ``apart:=text`` asks for beside the container: comma-separated, each a node of
    ``nodes`` or nodes joined by ``+`` (hosted together in a second container), every node once
    (``none``: none); refused when it names no node of the graph or every one (that is
    ``composed:=false``)."""
    groups = apart_groups(text)
    if not groups:
        return []
    named = [n for group in groups for n in group]
    bad = [n for n in named if n not in nodes]
    if bad or not named or len(set(named)) != len(named):
        raise GraphError(
            f"apart:={text} must name nodes of this graph {list(nodes)}, comma-separated (nodes joined by + share a "
            "container), each once, or be none"
        )
    if set(named) == set(nodes):
        raise GraphError(f"apart:={text} names every node; for one process per node use composed:=false")
    return groups


def port_number(name: str, value: str) -> int:
    """Argument ``name:=value`` as a TCP port on 127.0.0.1 (0: any free one); GraphError if it is not one."""
    if not (value.isdigit() and 0 <= int(value) <= 65535):
        raise GraphError(f"{name}:={value} is not a port number (0..65535; 0: any free one)")
    return int(value)
