"""The graph's topology, declared once: every topic a Sally graph has (its type, whether its
publishers keep their history, whether the recording takes it) and which node publishes and reads
which, for a graph's arguments. No ROS.

What derives from it: the runner's readiness (what must be matched before sim time starts,
:func:`readiness`), the sequencer's ``readers`` (:func:`readers_of`), the topics the recording
and Foxglove take (:data:`RECORDED`, :mod:`.raw_tap`), the NaN watch's topics. A test runs a graph
one process per node and fails on any topic a node publishes or reads that this module does not
declare for it, or one it declares that the node lacks (``test_topology.py``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from sally_node_common.sim_resets import RESET_TOPIC
from sally_node_common.time_contract import JOINT_COMMANDS, JOINT_EFFORTS, ODOM_JOINT_STATES, SERVO_COMMANDS

STATES = "/joint_states"
GROUND_TRUTH_ODOM = "/sally/ground_truth/odom"
"""The sim's exact pose of main_frame: the world's truth, for judging (the report, the recording,
benchmarks, tests). No control node reads it (:data:`CONTROL_NODES`, ``test_topology.py``)."""
GROUND_TRUTH_FEET = "/sally/ground_truth/feet"
"""The sim's exact EE sites and hip pivots (geometry_msgs/PoseArray): what plants and drift are judged by."""
GROUND_TRUTH_MAGNETS = "/sally/ground_truth/magnets"
"""Every magnet as the world has it (its force, gap, nearest plate, the plates' push on it): what the
report counts holding magnets by; the pull-off rig's load cell. The driver's side is /sally/magnets."""
GROUND_TRUTH = frozenset({GROUND_TRUTH_ODOM, GROUND_TRUTH_FEET, GROUND_TRUTH_MAGNETS})
"""Every topic that carries the world's truth."""
IMU = "/sally/imu"
RANGES = tuple(f"/sally/feet/{foot}/range" for foot in ("FL", "FR", "BL", "BR"))
WRENCHES = tuple(
    f"/sally/feet/{foot}/{kind}_wrench" for foot in ("FL", "FR", "BL", "BR") for kind in ("magnet", "contact")
)
CAMERA = ("/sally/camera/image_raw", "/sally/camera/camera_info")


@dataclass(frozen=True)
class Topic:
    """One topic of a graph."""

    type: str
    """``pkg/msg/Type``."""
    kept: bool = False
    """Its publishers keep their history (transient local): a late reader gets it."""
    recorded: bool = True
    """The run's recording and Foxglove take it (the camera and the IK's own states are left out)."""


TOPICS: dict[str, Topic] = {
    "/clock": Topic("rosgraph_msgs/msg/Clock"),
    STATES: Topic("sensor_msgs/msg/JointState"),
    "/sally/odom": Topic("nav_msgs/msg/Odometry"),
    GROUND_TRUTH_ODOM: Topic("nav_msgs/msg/Odometry"),
    GROUND_TRUTH_FEET: Topic("geometry_msgs/msg/PoseArray"),
    IMU: Topic("sensor_msgs/msg/Imu"),
    **{name: Topic("sensor_msgs/msg/Range") for name in RANGES},
    ODOM_JOINT_STATES: Topic("sensor_msgs/msg/JointState", recorded=False),
    SERVO_COMMANDS: Topic("sally_interfaces/msg/ServoCommand"),
    JOINT_EFFORTS: Topic("sensor_msgs/msg/JointState"),
    JOINT_COMMANDS: Topic("sensor_msgs/msg/JointState"),
    "/sally/joint_targets": Topic("sensor_msgs/msg/JointState", kept=True),
    "/sally/magnets": Topic("sally_interfaces/msg/MagnetArray", kept=True),
    GROUND_TRUTH_MAGNETS: Topic("sally_interfaces/msg/MagnetTruthArray", kept=True),
    "/sally/magnet_cmd": Topic("sally_interfaces/msg/MagnetCommand"),
    "/sally/ik_target": Topic("sally_interfaces/msg/IKTarget", kept=True),
    "/sally/foot_states": Topic("sally_interfaces/msg/FootStates", kept=True),
    "/sally/ik_status": Topic("sally_interfaces/msg/IKStatus"),
    "/sally/sequence_status": Topic("sally_interfaces/msg/SequenceStatus", kept=True),
    "/sally/sequence_result": Topic("sally_interfaces/msg/SequenceStatus", kept=True),
    "/sally/pulloff_result": Topic("sally_interfaces/msg/PullOffResult", kept=True),
    "/sally_sim/external_force": Topic("sally_interfaces/msg/ExternalForce"),
    "/sally_sim/holding": Topic("std_msgs/msg/Bool", kept=True),
    RESET_TOPIC: Topic("std_msgs/msg/Header", kept=True),
    "/diagnostics": Topic("diagnostic_msgs/msg/DiagnosticArray"),
    "/tf": Topic("tf2_msgs/msg/TFMessage"),
    "/tf_static": Topic("tf2_msgs/msg/TFMessage", kept=True),
    "/robot_description": Topic("std_msgs/msg/String", kept=True),
    "/sally/markers": Topic("visualization_msgs/msg/MarkerArray"),
    **{name: Topic("geometry_msgs/msg/WrenchStamped") for name in WRENCHES},
    CAMERA[0]: Topic("sensor_msgs/msg/Image", recorded=False),
    CAMERA[1]: Topic("sensor_msgs/msg/CameraInfo", recorded=False),
}
"""Every topic a Sally graph's nodes publish or read (ROS's own /rosout and /parameter_events aside)."""
RECORDED: dict[str, str] = {name: topic.type for name, topic in TOPICS.items() if topic.recorded}
"""The topics a run's recording and Foxglove take, with their types."""


@dataclass(frozen=True)
class NodeTopics:
    """What one node publishes and reads."""

    ros_name: str
    publishes: frozenset[str]
    reads: frozenset[str]


KINDS = ("sim", "controller", "estimator", "ik", "sequencer", "pulloff")
"""The graph nodes that have topics (by their names in a graph)."""
CONTROL_NODES = ("controller", "estimator", "ik", "sequencer")
"""The nodes that stand for a robot's own software: they read only what its drivers publish, never
:data:`GROUND_TRUTH`."""


def node_topics(
    kind: str,
    commands: str = SERVO_COMMANDS,
    ik_states: str = STATES,
    camera: bool = False,
    estimated: bool = False,
) -> NodeTopics:
    """The topics of graph node ``kind`` (:data:`KINDS`): ``commands`` the controller's answers
    (:data:`SERVO_COMMANDS`, :data:`JOINT_EFFORTS`, or :data:`JOINT_COMMANDS` from ros2_control),
    ``ik_states`` the joint states the IK reads (:data:`ODOM_JOINT_STATES` for an IK apart from the
    sim: the sim then publishes them), ``camera`` the sim's camera on."""
    reset = RESET_TOPIC
    if kind == "sim":
        published = {"/clock", STATES, "/sally/magnets", "/diagnostics", "/sally_sim/holding", reset, IMU, *RANGES}
        published |= GROUND_TRUTH | (set() if estimated else {"/sally/odom"})
        published |= {"/tf", "/tf_static", "/robot_description", "/sally/markers", *WRENCHES}
        published |= {ODOM_JOINT_STATES} if ik_states == ODOM_JOINT_STATES else set()
        published |= set(CAMERA) if camera else set()
        return NodeTopics(
            "sally_sim", frozenset(published), frozenset({commands, "/sally/magnet_cmd", "/sally_sim/external_force"})
        )
    if kind == "controller":
        reads = {STATES, "/sally/odom", "/sally/joint_targets", reset}
        return NodeTopics("sally_controller", frozenset({commands, "/diagnostics"}), frozenset(reads))
    if kind == "estimator":
        return NodeTopics(
            "sally_state_estimator",
            frozenset({"/sally/odom", "/tf", "/diagnostics"}),
            frozenset({STATES, IMU, "/sally/magnets", reset}),
        )
    if kind == "ik":
        published = {"/sally/joint_targets", "/sally/ik_status", "/sally/foot_states", "/diagnostics"}
        return NodeTopics(
            "sally_ik", frozenset(published), frozenset({ik_states, "/sally/odom", "/sally/ik_target", reset})
        )
    if kind == "sequencer":
        published = {
            "/sally/ik_target",
            "/sally/magnet_cmd",
            "/sally/sequence_status",
            "/sally/sequence_result",
            "/diagnostics",
        }
        reads = {"/sally/foot_states", "/sally/magnets", "/sally/ik_status", "/sally_sim/holding", reset, *RANGES}
        return NodeTopics("sally_sequencer", frozenset(published), frozenset(reads))
    if kind == "pulloff":
        published = {"/sally/magnet_cmd", "/sally_sim/external_force", "/sally/pulloff_result", "/diagnostics"}
        return NodeTopics("sally_pulloff", frozenset(published), frozenset({GROUND_TRUTH_MAGNETS}))  # its load cell
    raise ValueError(f"no topics are declared for node {kind!r}; declared: {list(KINDS)}")


def command_topic(values: Mapping[str, str]) -> str:
    """The topic the sim takes its commands on, with graph arguments ``values``: the controller's
    servo commands or efforts, or ros2_control's joint commands."""
    if values.get("controller") == "ros2_control":
        return JOINT_COMMANDS
    return SERVO_COMMANDS if values["command"] == "servo" else JOINT_EFFORTS


def graph_topics(
    names: Iterable[str], commands: str = SERVO_COMMANDS, ik_states: str = STATES
) -> dict[str, NodeTopics]:
    """The topics of each node of a graph that runs ``names`` (names without topics are left out)."""
    names = list(names)
    estimated = "estimator" in names
    return {name: node_topics(name, commands, ik_states, estimated=estimated) for name in names if name in KINDS}


def readiness(nodes: Mapping[str, NodeTopics]) -> tuple[dict[str, int], dict[str, int]]:
    """Publisher and subscriber counts per topic that show a graph of ``nodes`` is up and matched:
    each topic a node reads has as many publishers as the graph's nodes that publish it, and each
    topic a node publishes as many readers as the graph's nodes that read it. The robot's loop is
    there either way: /joint_states has a publisher (the sim, or a robot outside the graph) and a
    reader (a node of the graph, or a controller outside it, e.g. ros2_control's)."""
    publishes = Counter(t for n in nodes.values() for t in n.publishes)
    reads = Counter(t for n in nodes.values() for t in n.reads)
    publishers = {t: publishes[t] for t in reads if publishes[t]}
    subscribers = {t: reads[t] for t in publishes if reads[t]}
    publishers[STATES] = max(publishers.get(STATES, 0), 1)
    subscribers[STATES] = max(subscribers.get(STATES, 0), 1)
    return dict(sorted(publishers.items())), dict(sorted(subscribers.items()))


def readers_of(kind: str, nodes: Mapping[str, NodeTopics]) -> list[str]:
    """The ROS names of the nodes of a graph that read what node ``kind`` publishes (the nodes
    its first commands must reach)."""
    published = nodes[kind].publishes
    return sorted(n.ros_name for name, n in nodes.items() if name != kind and n.reads & published)
