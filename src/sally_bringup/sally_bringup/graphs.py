"""Sally's node graphs, defined once, as data.

The launch files (``launch/*.launch.py``, for ``ros2 launch`` on a full ROS 2 install) and the
embedded runner (:mod:`sally_bringup.runner`, where ``launch_ros`` is absent) both build their
processes from :func:`graph`, so the two cannot drift apart. Their arguments: :mod:`.arguments`;
their topics: :mod:`.topology`.

Graphs: ``f2w`` and ``orient`` (sim, controller, IK, sequencer), ``pulloff`` (sim, controller and the
pull-off rig node: the magnet pull-off test, no IK), ``hold`` (sim and controller holding the start
pose, no IK and no sequencer: a sim to drive through simulation_interfaces; it runs until stopped).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from sally_node_common.time_contract import EFFORT_PERIOD, IK_PERIOD, ODOM_JOINT_STATES, gated
from sally_sequencer.route_run import route_parameters

from .arguments import (
    GraphError,
    apart_groups,
    apart_nodes,
    floor_pose,
    magnet_list,
    resolve,
    run_plan,
    scene_refusal,
    wall_pose,
)
from .topology import command_topic, graph_topics, readers_of


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


KEPT_STATE = {
    "sequencer": ("journal", "sequencer.journal"),
    "estimator": ("checkpoint", "estimator.state"),
    "ik": ("checkpoint", "ik.state"),
}
"""The nodes that keep their state on disk when they run in a process of their own (a restarted
one goes on where the one before it stood): node -> (its parameter, the file's name)."""


def journal_parameters(spec: NodeSpec, folder: Path) -> dict[str, object]:
    """The parameter naming where a process ``spec`` that keeps its state (:data:`KEPT_STATE`) keeps
    it, in ``folder`` (a run's); empty for the others (a container restarts with the whole graph)."""
    kept = KEPT_STATE.get(spec.name)
    return {kept[0]: str(folder / kept[1])} if kept and not spec.hosts else {}


def ik_state_topic(values: Mapping[str, str]) -> str:
    """The joint-state topic the IK reads with graph arguments ``values``: /joint_states, or, when
    the IK runs in another process than the sim (composed, and ``apart:=`` names it), the states it
    solves on a topic of their own (:data:`~sally_node_common.time_contract.ODOM_JOINT_STATES`,
    which the sim then also publishes, every IK period), not every /joint_states over DDS."""
    named = {n for group in apart_groups(values["apart"]) for n in group}
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
    if estimated(name, values):
        nodes.append(_estimator(values))
    ik: dict[str, object] = {
        "target_sync": synchronous,
        "scene": values["scene"],  # its gravity: the body's weight on the stance feet
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
    return gated(values["pacing"], values["controller"] == "pid" and values["sync"] == "true")


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
        "sensing": values["sensing"],
        "sensor_seed": int(values["sensor_seed"]),
        "surface_offset": float(values["surface_offset"]),
        "command_delay": float(values["command_delay"]),
        # the exact pose on /sally/odom where no estimator publishes it (state:=truth, or a rig's graph)
        "truth_odom": not estimated(name, values),
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
    pose = floor_pose(values)
    if any(pose):  # (the default start: the sim's own default, as before floor_pose)
        sim["initial_pose"] = list(pose)
    if name == "pulloff":
        sim["telemetry_rate"] = PULLOFF_TELEMETRY_RATE
    return NodeSpec("sim", "sally_sim_node", "sally_sim_node", sim, required=True, config="sim.yaml")


def estimated(name: str, values: Mapping[str, str]) -> bool:
    """Whether graph ``name`` with ``values`` runs the state estimator (``state:=estimated`` in a
    graph with the IK: the rigs' graphs and a ros2_control graph take the sim's exact pose)."""
    return values["state"] == "estimated" and name not in ("pulloff", "hold") and values["controller"] != "ros2_control"


def _estimator(values: Mapping[str, str]) -> NodeSpec:
    """The state estimator, told where Sally was put down (the sim's start) and the scene's map."""
    stance = wall_pose(values)
    estimator: dict[str, object] = {
        "start": values["start"],
        "scene": values["scene"],
        "wall_pose": [stance.y, stance.height, stance.turn_deg],
        "initial_pose": list(floor_pose(values)),
    }
    return NodeSpec(
        "estimator", "sally_state_estimator", "sally_state_estimator", estimator, required=True, config="estimator.yaml"
    )


def _controller(name: str, values: Mapping[str, str], synchronous: bool) -> NodeSpec:
    # in lockstep the controller holds the IK's states back until their targets come, so the run
    # does not depend on which message wins a race (the pull-off and hold graphs have no IK: the
    # controller holds the pose the run starts in)
    controller: dict[str, object] = {}
    if synchronous and name not in ("pulloff", "hold"):
        controller = {"target_period": IK_PERIOD, "target_latency": int(values["ik_latency"])}
    if values["command"] != "servo":
        controller["output"] = "effort"
    return NodeSpec(
        "controller", "sally_controller", "sally_controller", controller, required=True, config="controller.yaml"
    )


def _sequencer(values: Mapping[str, str], synchronous: bool, others: list[str]) -> NodeSpec:
    sequencer: dict[str, object] = {
        **route_parameters(run_plan(values)),  # the run's plan, as the sequencer's parameters
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
"""Hz of the magnets' telemetry and truth in the pull-off graph: the rig detects the drop from its
magnet's force (0.2 N of ramp)."""


GRAPHS: dict[str, dict[str, str]] = {
    "f2w": {"sequence": "f2w"},
    "orient": {"sequence": "orient", "duration": "12.0"},
    "pulloff": {"magnets": "none", "duration": "90.0"},
    "hold": {},
}
"""Each graph's own argument defaults (over :data:`ARGUMENTS`)."""
