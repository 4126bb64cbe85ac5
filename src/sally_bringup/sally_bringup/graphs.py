"""Sally's node graphs, defined once, as data.

The launch files (``launch/*.launch.py``, for ``ros2 launch`` on a full ROS 2 install) and the
embedded runner (:mod:`sally_bringup.runner`, where ``launch_ros`` is absent) both build their
processes from :func:`graph`, so the two cannot drift apart.

Arguments (``name:=value`` on either command line):

* ``sequence``: f2w (FL then FR), orient, f2w_fr, f2w_all (all four feet onto the wall), w2c (all four
  feet from the wall onto the ceiling, ``scene:=corner3``), wall_walk (over the wall from
  ``start:=wall``); wall_hold (FL only), floor_lift (FL lifted off the floor): the optimizer's scenarios
* ``scene``: floor_wall / corner3 (a room with a steel wall and ceiling; ``w2c`` climbs its wall-ceiling
  corner) / auto (corner3 for ``w2c``, else floor_wall)
* ``start``: floor / wall (pitched 90 deg, every foot planted on the wall; the start ``wall_walk`` needs)
* ``wall_pose``: where the wall start stands, ``y,height,turn`` (m, m, deg about the wall's normal)
* ``direction``, ``distance``: wall_walk's way (up, down, left, right) and length (m)
* ``headless``: true / false (the sim's MuJoCo viewer)
* ``duration``: sim seconds after which an unfinished sequence fails
* ``pacing``: realtime / fast / lockstep (lockstep: every node answers every step, runs repeat)
* ``sync``: true / false: realtime with our controller runs the lockstep protocol paced to the wall
  clock (the lockstep figures at any load); false lets the sim step on with commands up to a
  control period old
* ``composed``: true / false: every node in one process (``sally_composed``, the ROS 2 component
  idiom), messages between them handed over as Python objects (:mod:`sally_node_common.host`)
* ``magnets``: feet whose magnets start on, comma-separated (all four by default)
* ``controller``: pid (our joint controller) / none (bring your own, e.g. a hardware driver's) /
  ros2_control (the sim alone: a controller_manager drives the joints over /sally/joint_commands
  with JointStateTopicSystem; no controller, IK or sequencer; realtime or fast pacing)
* ``command``: servo / effort: what the controller sends the motors, and how often: servo commands
  (position, velocity, feed-forward effort, gains) every 5 ms, the servos closing their loops at
  every physics step; or efforts every 1 ms (the effort path, for torque controllers)
* ``sim``: true / false (false: no sim node; the real robot publishes the states)
* ``start_paused``: true / false (the runner starts paused and unpauses once everything is heard)
* ``params``: physics parameter file for the sim (the optimizer's ``best_params.json``); '' = defaults
* ``settle``: sim seconds of settling before the sequence starts
* ``hold``: sim seconds the sequence holds its end pose before it is done
* ``pull_rate``: the pull-off graph's force ramp (N/s)

Graphs: ``f2w`` and ``orient`` (sim, controller, IK, sequencer), ``pulloff`` (sim, controller and the
pull-off rig node: the magnet pull-off test, no IK), ``hold`` (sim and controller holding the start
pose, no IK and no sequencer: a sim to drive through simulation_interfaces; it runs until stopped).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from sally_description.constants import LEGS
from sally_description.errors import DescriptionError
from sally_description.scene import DEFAULT_SCENE, SCENES
from sally_description.wall_start import WallStance, wall_pose_refusal, wall_stance
from sally_node_common.time_contract import (
    CONTROL_LATENCY,
    EFFORT_PERIOD,
    IK_LATENCY,
    IK_PERIOD,
    ODOM_JOINT_STATES,
)
from sally_sequencer.campaign import CAMPAIGNS, scene_of
from sally_sequencer.errors import SequenceError
from sally_sequencer.wall_walk import DIRECTIONS, WallWalk

from .topology import command_topic, graph_topics, readers_of

SEQUENCES = tuple(CAMPAIGNS)
"""The sequences the sequencer runs (its campaigns, in its order)."""
DURATIONS = {"f2w_all": "80.0", "w2c": "80.0"}
"""duration:=auto per sequence (25 s for the others): f2w_all's climb (and w2c, the same) takes about
64 s of sim time."""
PACINGS = ("realtime", "fast", "lockstep")


@dataclass(frozen=True)
class Argument:
    """One graph argument: its default, its help text and, when it has a fixed set, its choices."""

    default: str
    description: str
    choices: tuple[str, ...] = ()


ARGUMENTS: dict[str, Argument] = {
    "sequence": Argument("f2w", "sequence to run", SEQUENCES),
    "scene": Argument(
        "auto",
        "floor_wall (the floor and the wall), corner3 (a room with a steel wall and a steel ceiling 1.0 m up; Sally "
        "starts on the wall) or auto (corner3 for w2c, else floor_wall)",
        ("auto", *SCENES),
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
    "direction": Argument("up", "wall_walk: which way the body walks over the wall", tuple(DIRECTIONS)),
    "distance": Argument("0.30", "wall_walk: how far the body walks (m, at most 1)"),
    "headless": Argument("true", "run without the MuJoCo viewer", ("true", "false")),
    "duration": Argument(
        "auto",
        "sim seconds after which an unfinished sequence fails (auto: 80 for f2w_all and w2c, the walk's own time and "
        "15 s for wall_walk, else 25)",
    ),
    "pacing": Argument("realtime", "sim pacing", PACINGS),
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
        "with composed:=true, these nodes (comma-separated: sim, controller, ik, sequencer, pulloff) run as processes "
        "of their own beside the container, over DDS (none: every node in the container)",
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


class GraphError(ValueError):
    """A bad graph name or argument: the message says which and what is valid."""


@dataclass(frozen=True)
class NodeSpec:
    """One node of a graph: how to start it alone and how a container hosts it."""

    name: str
    """Process name (output prefix)."""
    package: str
    executable: str
    parameters: dict[str, object] = field(default_factory=dict)
    required: bool = False
    """The graph ends when a required node exits."""
    arguments: tuple[str, ...] = ()
    """Command-line arguments before the ROS arguments (the composed container's graph)."""
    hosts: tuple[str, ...] = ()
    """The nodes this process hosts (the composed container); empty: the process is one node."""
    config: str = ""
    """The node's defaults file in its package's ``config/`` (loaded before ``parameters``)."""

    @property
    def node_names(self) -> tuple[str, ...]:
        """The graph nodes this process runs."""
        return self.hosts or (self.name,)


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
        values["scene"] = scene_of(values["sequence"])
    stance = wall_pose(values)  # refused here, before anything starts
    walk = wall_walk(values)
    off = walk.off_plate({leg: stance.foot(leg) for leg in LEGS}) if walk is not None else ""
    if off:
        raise GraphError(f"wall_walk from start:=wall: {off}")
    if values["duration"] == "auto":
        default = f"{math.ceil(walk.duration) + WALK_MARGIN:.1f}" if walk is not None else "25.0"
        values["duration"] = DURATIONS.get(values["sequence"], default)
    for name in NUMBER_ARGUMENTS:
        try:
            value = float(values[name])
        except ValueError:
            raise GraphError(f"{name}:={values[name]} is not a number") from None
        zero = name in ZERO_ALLOWED
        if not (0 < value < 1e6 or (zero and value == 0)):
            raise GraphError(f"{name}:={values[name]} must be a positive number" + (" or 0" if zero else ""))
    port_number("foxglove_port", values["foxglove_port"])
    magnets = magnet_list(values["magnets"])
    values["magnets"] = ",".join(magnets) or "none"
    if values["params"]:
        check_params_file(values["params"])
    return values


WALK_MARGIN = 15
"""duration:=auto for wall_walk: the walk's phases and this many sim seconds (settling, the hold)."""


def wall_walk(values: Mapping[str, str]) -> WallWalk | None:
    """The walk ``values`` ask for (None unless the sequence is wall_walk; refused without
    ``start:=wall``: the walk starts with every foot on the wall)."""
    if values["sequence"] != "wall_walk":
        return None
    if values["start"] != "wall":
        raise GraphError("sequence:=wall_walk starts with every foot on the wall: add start:=wall")
    try:
        distance = float(values["distance"])
    except ValueError:
        raise GraphError(f"distance:={values['distance']} is not a number") from None
    try:
        return WallWalk(values["direction"], distance)
    except SequenceError as exc:
        raise GraphError(f"wall_walk: {exc}") from None


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
    """Refuse a scene the graph cannot run in: a sequence runs in its campaign's scene
    (``campaign.scene_of``: w2c in corner3, every other in floor_wall), the pull-off rig in floor_wall, the hold
    graph in either (in corner3 from its own start: on the room's wall)."""
    chosen = values["scene"]
    if chosen == "corner3" and values["start"] != "floor":
        raise GraphError(f"scene:=corner3 starts Sally on the room's wall already: leave out start:={values['start']}")
    if name == "hold":
        return
    wanted = DEFAULT_SCENE if name == "pulloff" else scene_of(values["sequence"])
    if chosen != wanted:
        what = "the pull-off rig" if name == "pulloff" else f"sequence:={values['sequence']}"
        raise GraphError(f"scene:={chosen}: {what} runs in scene:={wanted}")


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


def _apart_groups(text: str) -> list[tuple[str, ...]]:
    """``apart:=text`` read as written, not checked: each process's nodes (``none``: none)."""
    if text.strip() == "none":
        return []
    return [tuple(n.strip() for n in item.split("+")) for item in text.split(",") if item.strip()]


def apart_nodes(text: str, nodes: Sequence[str]) -> list[tuple[str, ...]]:
    """The processes ``apart:=text`` asks for beside the container: comma-separated, each a node of
    ``nodes`` or nodes joined by ``+`` (hosted together in a second container), every node once
    (``none``: none); refused when it names no node of the graph or every one (that is
    ``composed:=false``)."""
    groups = _apart_groups(text)
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


def ik_state_topic(values: Mapping[str, str]) -> str:
    """The joint-state topic the IK reads with graph arguments ``values``: /joint_states, or, when
    the IK runs in another process than the sim (composed, and ``apart:=`` names it), the states it
    solves on a topic of their own (:data:`~sally_node_common.time_contract.ODOM_JOINT_STATES`,
    which the sim then also publishes, every IK period), not every /joint_states over DDS."""
    named = {n for group in _apart_groups(values["apart"]) for n in group}
    apart = values["composed"] == "true" and values["sim"] == "true" and "ik" in named
    return ODOM_JOINT_STATES if apart else "/joint_states"


def _one_process_each(name: str, values: Mapping[str, str]) -> list[NodeSpec]:
    """The nodes of a composed graph with (resolved) ``values``, each as a process of its own would
    run it: with the sim and the IK wired for an IK apart (:func:`ik_state_topic`)."""
    nodes = graph(name, {**values, "composed": "false", "apart": "none"})
    if ik_state_topic(values) == "/joint_states":
        return nodes
    wiring = {"sim": {"odom_joint_states": True}, "ik": {"state_topic": ODOM_JOINT_STATES}}
    return [replace(n, parameters={**n.parameters, **wiring.get(n.name, {})}) for n in nodes]


def hosted_specs(name: str, arguments: Mapping[str, str], group: str = "") -> list[NodeSpec]:
    """The nodes a composed container of graph ``name`` hosts: every node but those ``apart``, or
    the ``group`` of them (``ik+sequencer``) that shares a second container."""
    containers = [n for n in graph(name, {**arguments, "composed": "true"}) if n.hosts]
    wanted = next((c.hosts for c in containers if c.name == group), None) if group else containers[0].hosts
    if wanted is None:
        raise GraphError(f"group:={group} is not a container of this graph's apart:= ({[c.name for c in containers]})")
    nodes = _one_process_each(name, resolve({**GRAPHS[name], **arguments, "composed": "true"}))
    return [n for n in nodes if n.name in wanted]


def graph(name: str, arguments: Mapping[str, str] | None = None) -> list[NodeSpec]:
    """The processes of graph ``name`` with ``arguments``; the sequencer (or the pull-off rig) is
    required, and so is every node it needs."""
    if name not in GRAPHS:
        raise GraphError(f"unknown graph {name!r}; valid: {sorted(GRAPHS)}")
    values = resolve({**GRAPHS[name], **(arguments or {})})
    if values["composed"] == "true":
        return _composed(name, values)
    if values["apart"] != "none":
        raise GraphError(f"apart:={values['apart']} runs nodes beside a composed container: it needs composed:=true")
    _refuse_combinations(name, values)
    synchronous = is_synchronous(values)
    nodes = []
    if values["sim"] == "true":
        nodes.append(_sim(name, values, synchronous))
    if values["controller"] == "pid":
        nodes.append(_controller(name, values, synchronous))
    if values["controller"] == "ros2_control" or name == "hold":
        return nodes  # ros2_control: the user's controller_manager is the rest of the graph
    if name == "pulloff":
        rig = {
            "rate": float(values["pull_rate"]),
            "duration": float(values["duration"]),
            "params_file": values["params"],
        }
        return [
            *nodes,
            NodeSpec("pulloff", "sally_sim_node", "sally_pulloff", rig, required=True, config="pulloff.yaml"),
        ]
    ik: dict[str, object] = {
        "target_sync": synchronous,
        **({"solve_process": True} if values["ik_process"] == "true" else {}),
    }
    nodes.append(NodeSpec("ik", "sally_ik_node", "sally_ik_node", ik, required=True, config="ik.yaml"))
    return [*nodes, _sequencer(values, synchronous, [n.name for n in nodes])]


def _composed(name: str, values: Mapping[str, str]) -> list[NodeSpec]:
    """Graph ``name`` composed: one container hosting every node but those ``apart``, and beside it
    each node apart as a process of its own, or a second container for a group of them."""
    nodes = _one_process_each(name, values)
    groups = apart_nodes(values["apart"], [n.name for n in nodes])
    apart = {n for group in groups for n in group}
    given = tuple(f"{key}:={value}" for key, value in values.items() if key != "composed")
    hosted = tuple(n.name for n in nodes if n.name not in apart)
    container = NodeSpec("graph", "sally_bringup", "sally_composed", {}, True, (name, *given), hosted)
    beside = []
    for n in nodes:  # in the graph's order; a group where its first node is
        group = next(g for g in groups if n.name in g) if n.name in apart else ()
        if len(group) == 1:
            beside.append(n)
        elif group and group[0] == n.name:
            together = "+".join(group)
            members = tuple(m.name for m in nodes if m.name in group)
            args = (name, *given, f"group:={together}")
            beside.append(NodeSpec(together, "sally_bringup", "sally_composed", {}, True, args, members))
    return [container, *beside]


def _refuse_combinations(name: str, values: Mapping[str, str]) -> None:
    """GraphError for arguments that do not go together in graph ``name``."""
    pulloff, hold = name == "pulloff", name == "hold"
    scene_refusal(name, values)
    if values["start"] == "wall" and (pulloff or (not hold and values["sequence"] != "wall_walk")):
        why = (
            "'s rig pulls a foot off the floor"
            if pulloff
            else f" with sequence:={values['sequence']} starts on the floor"
        )
        raise GraphError(f"start:=wall puts Sally on the wall: the {name} graph{why}")
    if values["controller"] != "ros2_control":
        return
    if values["pacing"] == "lockstep" or values["sim"] != "true" or pulloff:
        raise GraphError(
            "controller:=ros2_control runs the sim alone, paced realtime or fast (ros2_control does not answer each "
            "state by its stamp, so no lockstep), and not in the pull-off graph"
        )
    if values["command"] != "servo":
        raise GraphError("controller:=ros2_control sends its own joint commands: leave out command:=effort")


def is_synchronous(values: Mapping[str, str]) -> bool:
    """Whether our own nodes answer every state in order, by stamp (lockstep, or realtime paced to
    the wall clock with ``sync``): a run then does not depend on how the machine shares its time. A
    brought controller (controller:=none, a hardware driver's) is not assumed to answer states by
    stamp; fast pacing steps on with the latest commands."""
    realtime_sync = values["pacing"] == "realtime" and values["controller"] == "pid" and values["sync"] == "true"
    return values["pacing"] == "lockstep" or realtime_sync


def _sim(name: str, values: Mapping[str, str], synchronous: bool) -> NodeSpec:
    stance = wall_pose(values)
    sim = {
        "pacing": values["pacing"],
        "headless": values["headless"] == "true",
        "magnets_on": magnet_list(values["magnets"]),
        "start": values["start"],
        "scene": values["scene"],
        "wall_pose": [stance.y, stance.height, stance.turn_deg],
        "start_paused": values["start_paused"] == "true",
        "control_latency": int(values["control_latency"]),
    }
    if synchronous and values["pacing"] == "realtime":
        sim["synchronous"] = True
    if values["controller"] == "ros2_control":
        sim["command_source"] = "joint_commands"
    elif values["command"] != "servo":
        sim["command_source"] = "efforts"
        sim["state_rate"] = 1.0 / EFFORT_PERIOD
    if values["params"]:
        sim["params_file"] = values["params"]
    if name == "pulloff":
        sim["telemetry_rate"] = PULLOFF_TELEMETRY_RATE
    return NodeSpec("sim", "sally_sim_node", "sally_sim_node", sim, required=True, config="sim.yaml")


def _controller(name: str, values: Mapping[str, str], synchronous: bool) -> NodeSpec:
    # in lockstep the controller holds the IK's states back until their targets come, so the run
    # does not depend on which message wins a race (the pull-off and hold graphs have no IK: the
    # controller holds the pose the run starts in)
    controller: dict[str, object] = {}
    if synchronous and name not in ("pulloff", "hold"):
        controller = {"target_period": IK_PERIOD, "target_latency": int(values["ik_latency"])}
    controller["scene"] = values["scene"]  # its gravity feed-forward
    if values["command"] != "servo":
        controller["output"] = "effort"
    return NodeSpec(
        "controller", "sally_controller", "sally_controller", controller, required=True, config="controller.yaml"
    )


def _sequencer(values: Mapping[str, str], synchronous: bool, others: list[str]) -> NodeSpec:
    sequencer: dict[str, object] = {
        "sequence": values["sequence"],
        "direction": values["direction"],
        "distance": float(values["distance"]),
        "duration": float(values["duration"]),
        "start_time": float(values["settle"]),
        "hold": float(values["hold"]),
        "ik_latency": int(values["ik_latency"]) if synchronous else 0,
    }
    # its first step waits until its commands reach the graph's nodes that read them (the sim, the IK)
    topics = graph_topics([*others, "sequencer"], command_topic(values))
    sequencer["readers"] = ",".join(readers_of("sequencer", topics))
    return NodeSpec(
        "sequencer", "sally_sequencer", "sally_sequencer", sequencer, required=True, config="sequencer.yaml"
    )


PULLOFF_TELEMETRY_RATE = 200.0
"""Hz of /sally/magnets in the pull-off graph: the rig detects the drop from it (0.2 N of ramp)."""


GRAPHS: dict[str, dict[str, str]] = {
    "f2w": {"sequence": "f2w"},
    "orient": {"sequence": "orient", "duration": "12.0"},
    "pulloff": {"magnets": "none", "duration": "90.0"},
    "hold": {},
}
"""Each graph's own argument defaults (over :data:`ARGUMENTS`)."""
