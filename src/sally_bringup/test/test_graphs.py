"""The graphs as data, the runner's command line and the launch files (no processes here)."""

import ast
import math
from dataclasses import replace
from pathlib import Path

import pytest

from sally_bringup.arguments import GraphError, resolve
from sally_bringup.cli import main as cli_main
from sally_bringup.graphs import graph as composed_or_not
from sally_bringup.graphs import hosted_specs
from sally_bringup.runner import readiness
from sally_node_common.time_contract import ODOM_JOINT_STATES
from sally_sequencer.descent import DURATION as DESCENT_DURATION
from sally_sequencer.wall_stand import WALK_TO_STAND, WallStand
from sally_sequencer.wall_walk import WallWalk
from sally_sequencer.way_back import duration as way_back_duration


def graph(name, arguments=None):
    """One spec per node (what each node is started with)."""
    return composed_or_not(name, {"composed": "false", **(arguments or {})})


LAUNCH = Path(__file__).resolve().parents[1] / "launch"


def test_f2w_is_five_required_nodes_and_lockstep_syncs_them():
    nodes = {n.name: n for n in graph("f2w", {"pacing": "lockstep"})}
    assert list(nodes) == ["sim", "controller", "estimator", "ik", "sequencer"]
    assert all(n.required for n in nodes.values())
    assert nodes["sim"].parameters["pacing"] == "lockstep"
    assert nodes["ik"].parameters["target_sync"] is True
    assert nodes["controller"].parameters["target_period"] == 0.005
    assert nodes["sequencer"].parameters == {  # the run's plan: f2w, nothing around it (no walk to aim)
        "sequence": "f2w",
        "duration": 30.0,
        "start_time": 0.5,
        "hold": 1.0,
        "ik_latency": 0,
        "readers": "sally_ik,sally_sim",  # its first step waits until they read its commands
    }
    realtime = {n.name: n for n in graph("f2w")}  # the same protocol, paced to the wall clock
    assert realtime["sim"].parameters["synchronous"] is True and realtime["ik"].parameters["target_sync"] is True
    assert realtime["controller"].parameters["target_period"] == 0.005
    free = {n.name: n for n in graph("f2w", {"sync": "false"})}
    assert "synchronous" not in free["sim"].parameters and free["ik"].parameters["target_sync"] is False


def test_the_ik_latency_goes_to_the_controller_and_the_sequencer_of_a_synchronous_graph_only():
    late = {n.name: n for n in graph("f2w", {"pacing": "lockstep", "ik_latency": "1"})}
    assert late["controller"].parameters["target_latency"] == 1 and late["sequencer"].parameters["ik_latency"] == 1
    free = {n.name: n for n in graph("f2w", {"sync": "false", "ik_latency": "1"})}
    assert "target_latency" not in free["controller"].parameters, "the latest targets, at once"
    assert free["sequencer"].parameters["ik_latency"] == 0, "its magnets go with targets that act at once"
    with pytest.raises(GraphError, match=r"ik_latency:=2 is not one of \['0', '1'\]"):
        graph("f2w", {"ik_latency": "2"})
    assert free["controller"].parameters == {}  # no target period: the latest targets
    brought = {n.name: n for n in graph("f2w", {"controller": "none"})}  # a hardware driver's controller
    assert "synchronous" not in brought["sim"].parameters and brought["ik"].parameters["target_sync"] is False


def test_hardware_swap_in_drops_the_sim_and_the_controller():
    # the robot's drivers publish its sensors; the estimator, the IK and the sequencer are the brain
    assert [n.name for n in graph("f2w", {"sim": "false", "controller": "none"})] == ["estimator", "ik", "sequencer"]
    assert graph("f2w", {"sim": "false"})[-1].parameters["readers"] == "sally_ik"
    assert graph("f2w", {"sequence": "f2w_all"})[-1].parameters["duration"] == 80.0  # duration:=auto
    assert graph("orient")[-1].parameters["sequence"] == "orient"
    walk = {n.name: n.parameters for n in graph("f2w", {"sequence": "wall_walk", "start": "wall", "direction": "left"})}
    assert walk["sim"]["start"] == "wall" and walk["sequencer"]["direction"] == "left"
    assert walk["sim"]["wall_pose"] == [0.0, 0.4, 0.0]
    high = {"sequence": "wall_walk", "start": "wall", "direction": "down", "wall_pose": "0.0,0.6,0.0"}
    assert graph("f2w", high)[0].parameters["wall_pose"] == [0.0, 0.6, 0.0]  # down 0.30 m from a start that has room
    assert walk["sequencer"]["duration"] == 43.0  # duration:=auto: the walk's 27.5 s, rounded up, and 15 s
    assert graph("hold", {"start": "wall"})[0].parameters["start"] == "wall"  # a sim standing on the wall


def test_w2c_runs_in_corner3_and_the_sim_and_the_controller_are_told():
    """scene:=auto (the default) is corner3 for w2c: the sim builds the room and the IK works in its
    corner's frame; the controller's gravity is the room's whatever the scene; every other graph keeps
    floor_wall."""
    for composed in ("false", "true"):
        nodes = {n.name: n.parameters for n in hosted_specs("f2w", {"sequence": "w2c", "composed": composed})}
        assert nodes["sim"]["scene"] == nodes["ik"]["scene"] == "corner3" and "scene" not in nodes["controller"]
        assert nodes["sequencer"]["sequence"] == "w2c" and nodes["sequencer"]["duration"] == 80.0
    assert graph("f2w", {"composed": "false"})[0].parameters["scene"] == "floor_wall"
    hold = {n.name: n.parameters for n in graph("hold", {"scene": "corner3", "composed": "false"})}
    assert hold["sim"]["scene"] == "corner3"  # held on the room's wall


def test_a_walk_after_the_climb_onto_the_wall_is_given_its_time_and_the_sequencer_its_length():
    nodes = {n.name: n.parameters for n in graph("f2w", {"sequence": "route", "wall_walk": "0.3", "composed": "false"})}
    assert nodes["sequencer"]["sequence"] == "f2w_all" and nodes["sequencer"]["wall_walk"] == 0.3
    walk = WallWalk("up", 0.3)
    assert nodes["sequencer"]["duration"] == 80.0 + math.ceil(walk.duration)
    climb = {n.name: n.parameters for n in graph("f2w", {"sequence": "f2w_all", "composed": "false"})}
    assert "wall_walk" not in climb["sequencer"] and "stand" not in climb["sequencer"]  # the node's defaults


def test_the_route_over_two_corners_climbs_walks_stands_then_climbs_onto_the_ceiling_with_their_time():
    nodes = {n.name: n.parameters for n in graph("f2w", {"sequence": "route", "route": "floor,wall,ceiling"})}
    sequencer = nodes["sequencer"]
    assert (sequencer["sequence"], sequencer["then"], sequencer["stand"]) == ("f2w_all", "w2c", True)
    assert sequencer["wall_walk"] == WALK_TO_STAND
    more = WallWalk("up", WALK_TO_STAND).duration + WallStand().duration
    assert sequencer["duration"] == 80.0 + math.ceil(more + 80.0)


@pytest.mark.parametrize(
    ("scene", "route", "climb"),
    [
        ("room", "floor,wall,floor", "f2w_all"),
        ("floor_wall", "floor,wall,floor", "f2w_all"),
        ("corner3", "wall,ceiling,wall", "w2c"),
    ],
)
def test_the_route_back_down_climbs_a_corner_then_down_it_again_with_its_time(scene, route, climb):
    arguments = {"sequence": "route", "route": route, "scene": scene}
    nodes = {n.name: n.parameters for n in graph("f2w", arguments)}
    sequencer = nodes["sequencer"]
    assert (sequencer["sequence"], sequencer["down"], nodes["sim"]["scene"]) == (climb, True, scene)
    assert "then" not in sequencer and "wall_walk" not in sequencer
    assert sequencer["duration"] == 80.0 + math.ceil(DESCENT_DURATION)
    climb = {n.name: n.parameters for n in graph("f2w", {"sequence": "route", "route": "floor,wall"})}
    assert "down" not in climb["sequencer"]  # the node's default: no way down


def test_the_route_to_the_ceiling_and_back_down_onto_the_wall_comes_down_after_its_second_climb():
    arguments = {"sequence": "route", "route": "floor,wall,ceiling,wall"}
    nodes = {n.name: n.parameters for n in graph("f2w", arguments)}
    sequencer = nodes["sequencer"]
    assert (sequencer["sequence"], sequencer["then"], sequencer["then_down"]) == ("f2w_all", "w2c", True)
    assert "down" not in sequencer and "then_walk" not in sequencer and nodes["sim"]["scene"] == "room"
    more = WallWalk("up", WALK_TO_STAND).duration + WallStand().duration
    assert sequencer["duration"] == 80.0 + math.ceil(DESCENT_DURATION) + math.ceil(more + 80.0)
    up = {n.name: n.parameters for n in graph("f2w", {"sequence": "route", "route": "floor,wall,ceiling"})}
    assert "then_down" not in up["sequencer"]


def test_the_round_trip_comes_back_down_the_ceiling_then_the_wall_after_its_second_climb():
    arguments = {"sequence": "route", "route": "floor,wall,ceiling,wall,floor"}
    nodes = {n.name: n.parameters for n in graph("f2w", arguments)}
    sequencer = nodes["sequencer"]
    assert (sequencer["then"], sequencer["then_down"], sequencer["then_back"]) == ("w2c", True, True)
    assert "down" not in sequencer and nodes["sim"]["scene"] == "room"
    more = WallWalk("up", WALK_TO_STAND).duration + WallStand().duration + way_back_duration() + DESCENT_DURATION
    assert sequencer["duration"] == 80.0 + math.ceil(DESCENT_DURATION) + math.ceil(more + 80.0)
    once = {n.name: n.parameters for n in graph("f2w", {"sequence": "route", "route": "floor,wall,ceiling,wall"})}
    assert "then_back" not in once["sequencer"]  # down from the ceiling only
    with pytest.raises(GraphError, match="climbs back down from where it climbed onto the ceiling: leave out"):
        graph("f2w", {**arguments, "ceiling_walk": "0.2"})


def test_a_walk_along_the_ceiling_follows_the_climb_onto_it_with_its_time():
    walk = WallWalk("up", 0.3)
    alone = {n.name: n.parameters for n in graph("f2w", {"sequence": "w2c", "ceiling_walk": "0.3"})}
    assert (alone["sequencer"]["sequence"], alone["sequencer"]["wall_walk"]) == ("w2c", 0.3)  # its own walk
    assert "then_walk" not in alone["sequencer"] and alone["sequencer"]["duration"] == 80.0 + math.ceil(walk.duration)
    arguments = {"sequence": "route", "route": "floor,wall,ceiling", "ceiling_walk": "0.3"}
    route = {n.name: n.parameters for n in graph("f2w", arguments)}["sequencer"]
    assert (route["then"], route["then_walk"], route["wall_walk"]) == ("w2c", 0.3, WALK_TO_STAND)
    more = WallWalk("up", WALK_TO_STAND).duration + WallStand().duration + 80.0 + walk.duration
    assert route["duration"] == 80.0 + math.ceil(more)


def test_a_walk_to_the_ceiling_is_the_walk_to_the_stand_then_the_stand_with_their_time():
    arguments = {"sequence": "route", "wall_walk": "ceiling", "composed": "false"}
    nodes = {n.name: n.parameters for n in graph("f2w", arguments)}
    assert nodes["sequencer"]["wall_walk"] == WALK_TO_STAND and nodes["sequencer"]["stand"] is True
    assert nodes["sim"]["scene"] == "room"
    more = WallWalk("up", WALK_TO_STAND).duration + WallStand().duration
    assert nodes["sequencer"]["duration"] == 80.0 + math.ceil(more)


@pytest.mark.parametrize(
    ("arguments", "scene", "campaign"),
    [
        ({}, "room", "f2w_all"),
        ({"route": "floor,wall"}, "room", "f2w_all"),
        ({"route": " floor , wall ", "scene": "floor_wall"}, "floor_wall", "f2w_all"),
        ({"scene": "corner3"}, "corner3", "w2c"),
        ({"route": "wall,ceiling", "scene": "corner3"}, "corner3", "w2c"),
    ],
)
def test_a_route_of_one_climb_runs_the_campaign_that_climbs_its_corner_in_its_scene(arguments, scene, campaign):
    """sequence:=route is the graph of the climb it names, node for node, in the scene that climbs it."""
    route = {n.name: n.parameters for n in graph("f2w", {"sequence": "route", "composed": "false", **arguments})}
    climb = {n.name: n.parameters for n in graph("f2w", {"sequence": campaign, "scene": scene, "composed": "false"})}
    assert route == climb
    assert route["sim"]["scene"] == route["ik"]["scene"] == scene and route["sequencer"]["sequence"] == campaign
    assert resolve(resolve({"sequence": "route", **arguments})) == resolve({"sequence": "route", **arguments})


@pytest.mark.parametrize(
    "name, arguments, match",
    [
        ("w2f", {}, "unknown graph 'w2f'"),
        ("f2w", {"pacing": "warp"}, "pacing:=warp is not one of"),
        ("f2w", {"duration": "soon"}, "duration:=soon is not a number"),
        ("f2w", {"duration": "-1"}, "positive"),
        ("f2w", {"magnets": "FL,XX"}, "must name feet"),
        ("f2w", {"speed": "1"}, "unknown argument"),
        ("f2w", {"apart": "ik"}, r"apart:=ik runs nodes beside a composed container: it needs composed:=true"),
        ("f2w", {"foxglove_port": "70000"}, r"foxglove_port:=70000 is not a port number \(0..65535"),
        ("f2w", {"foxglove_port": "-1"}, "foxglove_port:=-1 is not a port number"),
        ("f2w", {"sequence": "wall_walk"}, "sequence:=wall_walk starts with every foot on the wall: add start:=wall"),
        ("f2w", {"start": "wall"}, "start:=wall puts Sally on the wall: the f2w graph with sequence:=f2w starts"),
        ("pulloff", {"start": "wall"}, "the pulloff graph's rig pulls a foot off the floor"),
        ("f2w", {"sequence": "wall_walk", "start": "wall", "direction": "sideways"}, "direction:=sideways is not one"),
        ("f2w", {"sequence": "wall_walk", "start": "wall", "distance": "1.5"}, r"walk distance must be in \(0, 1\]"),
        ("f2w", {"sequence": "wall_walk", "start": "wall", "distance": "far"}, "distance:=far is not a number"),
        ("f2w", {"sequence": "floor_walk", "start": "wall"}, "sequence:=floor_walk starts with every foot on the"),
        ("f2w", {"floor_pose": "0,0"}, "floor_pose:=0,0 must be three numbers, x,y,yaw"),
        ("f2w", {"floor_pose": "-1.5,0,0"}, r"floor_pose:=-1.5,0,0 must keep Sally on the floor plate \(\|x\| <= 1 m"),
        ("f2w", {"sequence": "w2c", "floor_pose": "-0.2,0,0"}, "floor_pose:=-0.2,0,0 places a floor start; this run"),
        (
            "f2w",
            {"floor_walk": "0.3", "floor_pose": "-0.3,0,0"},
            r"floor_walk:=0.3 walks to the climb onto the wall \(",
        ),
        (
            "f2w",
            {"sequence": "f2w_all", "floor_walk": "0.3", "floor_pose": "-0.2,0,0"},
            r"floor_walk:=0.3 from floor_pose x -0.2 m ends \+0.100 m from the climb's start \(x = 0\): start at "
            r"floor_pose:=-0.3,0,0, or floor_walk:=0.2",
        ),
        ("f2w", {"sequence": "f2w_all", "floor_walk": "far"}, "floor_walk:=far is not a number"),
        (
            "f2w",
            {"sequence": "floor_walk", "direction": "forward", "distance": "0.10", "floor_pose": "0.05,0,0"},
            "floor_walk from the floor start: walking 0.1 m forward takes FL's magnet off the floor's steel; from "
            "here at most 0.088 m",
        ),
        (
            "f2w",
            {"sequence": "floor_walk", "direction": "up"},
            r"floor_walk: walk direction 'up' is not one of \['back'",
        ),
        (
            "f2w",
            {"sequence": "floor_walk", "direction": "forward"},
            "floor_walk from the floor start: walking 0.3 m forward takes FL's magnet off the floor's steel; from here "
            "at most 0.138 m",
        ),
        ("f2w", {"wall_pose": "0,0.45,0"}, r"wall_pose \[0.0, 0.45, 0.0\] places a wall start; this sim starts on"),
        ("hold", {"start": "wall", "wall_pose": "0,0.9"}, "wall_pose:=0,0.9 must be three numbers"),
        ("hold", {"start": "wall", "wall_pose": "0,0.9,0"}, "must keep every foot on the wall plate"),
        ("f2w", {"scene": "attic"}, "scene:=attic is not one of"),
        ("f2w", {"sequence": "w2c", "scene": "floor_wall"}, "scene:=floor_wall: sequence:=w2c runs in scene:=corner3"),
        (
            "f2w",
            {"sequence": "f2w_all", "scene": "corner3"},
            "sequence:=f2w_all runs in scene:=floor_wall or scene:=room",
        ),
        ("f2w", {"sequence": "w2c", "scene": "room"}, "scene:=room: sequence:=w2c runs in scene:=corner3"),
        ("pulloff", {"scene": "corner3"}, "the pull-off rig runs in scene:=floor_wall or scene:=room"),
        (
            "f2w",
            {"sequence": "route", "route": "floor,attic"},
            r"^route:=floor,attic: scene 'room' has no surface 'attic'; ",
        ),
        (
            "f2w",
            {"sequence": "route", "route": "floor,ceiling"},
            "^route:=floor,ceiling: floor and ceiling do not meet in a concave corner: no climb joins them$",
        ),
        ("f2w", {"sequence": "route", "route": "wall,wall"}, "^route:=wall,wall: wall twice in a row"),
        ("f2w", {"sequence": "route", "route": "floor"}, "^route:=floor: a route names at least two surfaces"),
        (
            "f2w",
            {"sequence": "route", "scene": "corner3", "route": "floor,wall"},
            "floor is not steel in scene 'corner3'",
        ),
        ("f2w", {"sequence": "route", "route": "wall,floor"}, "the wall->floor climb is not built"),
        (
            "f2w",
            {"wall_walk": "0.3"},
            r"^wall_walk:=0.3 walks up the wall after a climb onto it \(f2w_all, route:=floor,wall\), not after f2w$",
        ),
        ("f2w", {"sequence": "route", "wall_walk": "high"}, "^wall_walk:=high is not a number or ceiling$"),
        (
            "f2w",
            {"sequence": "f2w_all", "wall_walk": "ceiling"},
            r"^wall_walk:=ceiling stands 0.5 m below the ceiling: scene:=floor_wall has none \(scene:=room\)$",
        ),
        ("f2w", {"sequence": "w2c", "wall_walk": "ceiling"}, "not after w2c"),
        ("f2w", {"sequence": "route", "wall_walk": "1.5"}, r"^wall_walk:=1.5: walk distance must be in \(0, 1\]"),
        ("f2w", {"sequence": "w2c", "wall_walk": "0.2"}, r"not after w2c \(ceiling_walk:= walks along the ceiling"),
        (
            "f2w",
            {"sequence": "route", "ceiling_walk": "0.3"},
            r"^ceiling_walk:=0.3 walks along the ceiling after the climb onto it \(w2c, route:=floor,wall,ceiling\), "
            "not after f2w_all$",
        ),
        ("f2w", {"sequence": "w2c", "ceiling_walk": "far"}, "^ceiling_walk:=far is not a number$"),
        ("f2w", {"sequence": "w2c", "ceiling_walk": "2"}, r"^ceiling_walk:=2: walk distance must be in \(0, 1\]"),
        ("f2w", {"sequence": "route", "route": "wall,ceiling"}, "the wall->ceiling climb runs in scene:=corner3"),
        (
            "f2w",
            {"sequence": "route", "route": "floor,wall,ceiling,wall,floor,wall"},
            r"the climbs floor->wall, wall->ceiling, ceiling->wall, wall->floor, floor->wall are not built in one "
            "run: floor,wall,ceiling and floor,wall,floor and wall,ceiling,wall and floor,wall,ceiling,wall and "
            "floor,wall,ceiling,wall,floor are$",
        ),
        (
            "f2w",
            {"sequence": "route", "route": "floor,wall,ceiling,wall", "ceiling_walk": "0.3"},
            r"^route:=floor,wall,ceiling,wall climbs back down from where it climbed onto the ceiling: leave out "
            r"ceiling_walk:=0.3$",
        ),
        (
            "f2w",
            {"sequence": "route", "route": "wall,ceiling,wall", "scene": "corner3", "ceiling_walk": "0.3"},
            r"climbs back down from where it climbed onto the ceiling: leave out ceiling_walk:=0.3$",
        ),
        (
            "f2w",
            {"sequence": "route", "route": "floor,wall,floor", "wall_walk": "0.2"},
            r"^route:=floor,wall,floor climbs back down from where it climbed onto the wall: leave out wall_walk:=0.2$",
        ),
        (
            "f2w",
            {"sequence": "route", "route": "floor,wall,floor,wall"},
            r"not built in one run: floor,wall,ceiling and floor,wall,floor and wall,ceiling,wall and "
            "floor,wall,ceiling,wall and floor,wall,ceiling,wall,floor are$",
        ),
        (
            "f2w",
            {"sequence": "route", "route": "floor,wall,ceiling", "wall_walk": "0.3"},
            r"walks up the wall to the stand under the ceiling: leave out wall_walk:=0.3$",
        ),
        (
            "f2w",
            {"sequence": "route", "route": "floor,wall,ceiling", "scene": "floor_wall"},
            "has no surface 'ceiling'",
        ),
        (
            "f2w",
            {"sequence": "f2w", "route": "floor,wall"},
            "route:=floor,wall is for sequence:=route, not sequence:=f2w",
        ),
        ("hold", {"scene": "corner3", "start": "wall"}, "starts Sally on the room's wall already: leave out start"),
        ("f2w", {"sequence": "w2c", "start": "wall"}, r"scene:=corner3 starts Sally on the room's wall already"),
        (
            "f2w",
            {"sequence": "wall_walk", "start": "wall", "direction": "down"},
            r"wall_walk from start:=wall: walking 0.3 m down takes BL's magnet off the wall's steel; "
            r"from here at most 0.129 m",
        ),
        ("f2w", {"sensing": "perfect"}, r"sensing:=perfect is not one of \['noisy', 'ideal'\]"),
        ("f2w", {"state": "exact"}, r"state:=exact is not one of \['estimated', 'truth'\]"),
        ("f2w", {"sensor_seed": "-3"}, r"sensor_seed:=-3 must be a whole number from 0"),
        ("f2w", {"sensor_seed": "1.5"}, r"sensor_seed:=1.5 must be a whole number"),
        ("f2w", {"surface_offset": "nan"}, r"surface_offset:=nan must be a number of m from -0.02 to 0.02"),
        ("f2w", {"surface_offset": "0.05"}, r"surface_offset:=0.05 must be a number of m"),
        ("f2w", {"command_delay": "0.01"}, r"command_delay:=0.01 must be a number of s from 0 to 0.004"),
        ("f2w", {"command_delay": "-0.001"}, r"command_delay:=-0.001 must be a number of s"),
    ],
)
def test_bad_graph_arguments_are_refused_by_name(name, arguments, match):
    with pytest.raises(GraphError, match=match):
        graph(name, arguments)


def test_a_container_refuses_bad_arguments_by_name_before_setting_itself_up(capsys):
    import os
    import signal

    from sally_bringup.composed import EXIT_BAD_START, parse_arguments
    from sally_bringup.composed import main as composed_main

    # a container sets its process up (its DDS profile, its signal handlers) only for good arguments
    environment = dict(os.environ)
    handlers = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    for argv, why in (
        (["hold", "foxglove_to:=http"], "foxglove_to:=http is not a port number"),
        (["hold", "pacing=lockstep"], "argument 'pacing=lockstep' is not name:=value"),
        (["--ros-args"], "usage: sally_composed GRAPH"),
        (["hold", "--ros-args", "-p", "x:=1"], "takes only --params-file FILE after --ros-args, not '-p'"),
    ):
        assert composed_main(argv) == EXIT_BAD_START
        assert why in capsys.readouterr().err
    assert dict(os.environ) == environment
    assert {s: signal.getsignal(s) for s in handlers} == handlers
    args = parse_arguments(["f2w", "pacing:=lockstep", "record_to:=/r.mcap", "foxglove_to:=8765", "--ros-args",
                            "--params-file", "a.yaml"])  # fmt: skip
    assert (args.graph, args.values, args.params_files) == ("f2w", {"pacing": "lockstep"}, ["a.yaml"])
    assert (args.record_to, args.record_file, args.foxglove_port) == ("/r.mcap", None, 8765)


def test_the_cli_refuses_bad_arguments_before_starting_anything(capsys):
    assert cli_main(["f2w", "pacing:=warp"]) == 2
    assert "pacing:=warp is not one of" in capsys.readouterr().err
    assert cli_main(["f2w", "pacing=lockstep"]) == 2
    assert "not name:=value" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("option", "says"),
    [
        (["--wall-timeout", "-5"], "--wall-timeout (wall_timeout) must be a positive number of seconds, got -5.0"),
        (["--wall-timeout", "nan"], "--wall-timeout (wall_timeout) must be a positive number of seconds, got nan"),
        (["--wall-timeout", "inf"], "--wall-timeout (wall_timeout) must be a positive number of seconds, got inf"),
        (["--domain", "102"], "--domain 102 is outside 0..101"),
        (["--domain", "-1"], "--domain -1 is outside 0..101"),
        (["duration:=nan"], "duration:=nan"),
        (["wall_walk:=inf"], "wall_walk:=inf"),
    ],
)
def test_the_cli_refuses_a_bad_option_in_one_line_before_starting_anything(capsys, tmp_path, option, says):
    assert cli_main(["f2w", *option, "--run-dir", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("sally-launch: ") and says in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "run").exists()  # nothing was started or written


@pytest.mark.parametrize("name", ["f2w", "orient"])
def test_launch_files_describe_their_graph(name):
    """launch/launch_ros are not installed here: check what the file asks for."""
    tree = ast.parse((LAUNCH / f"{name}.launch.py").read_text())
    functions = {f.name: f for f in tree.body if isinstance(f, ast.FunctionDef)}
    assert "generate_launch_description" in functions
    call = functions["generate_launch_description"].body[-1].value
    assert call.func.id == "describe" and call.args[0].value == name
    assert (LAUNCH.parents[2] / "launch").resolve() == LAUNCH  # the top-level launch/ is this folder


def test_pulloff_graph_has_the_rig_and_no_ik(tmp_path):
    params = tmp_path / "p.json"
    params.write_text('{"Br": 1.2}')
    nodes = {n.name: n for n in graph("pulloff", {"pacing": "lockstep", "params": str(params), "pull_rate": "80"})}
    assert list(nodes) == ["sim", "controller", "pulloff"]
    assert nodes["sim"].parameters["magnets_on"] == [] and nodes["sim"].parameters["params_file"] == str(params)
    assert nodes["controller"].parameters == {}  # no IK targets to wait for: it holds the start pose
    assert nodes["pulloff"].parameters["rate"] == 80.0 and nodes["pulloff"].required


def test_scenario_arguments_are_checked():
    nodes = {n.name: n for n in graph("f2w", {"sequence": "floor_lift", "settle": "2.0", "hold": "0"})}
    assert nodes["sequencer"].parameters["start_time"] == 2.0 and nodes["sequencer"].parameters["hold"] == 0.0
    for bad in ({"settle": "-1"}, {"hold": "x"}, {"pull_rate": "0"}, {"magnets": "FL,none"}):
        with pytest.raises(GraphError):
            graph("f2w", bad)


@pytest.mark.parametrize(
    "content, match",
    [
        (None, "cannot read physics parameter file .*No such file"),
        ('{"Br": "abc"}', "Br"),
        ('{"Br": 1.2,', "is not valid"),
        ('{"warp_factor": 9}', "warp_factor"),
    ],
)
def test_a_params_file_the_sim_would_refuse_is_refused_before_anything_starts(tmp_path, capsys, content, match):
    path = tmp_path / "params.json"
    if content is not None:
        path.write_text(content)
    with pytest.raises(GraphError, match=match):
        graph("f2w", {"params": str(path)})
    assert cli_main(["f2w", f"params:={path}", "--run-dir", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("sally-launch: params: ") and str(path) in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "run").exists()  # nothing was started or written


def test_composed_is_the_default_and_hosts_the_same_nodes_with_the_same_arguments():
    (container,) = composed_or_not("f2w", {"pacing": "lockstep", "settle": "2.0"})
    assert container.executable == "sally_composed" and container.required and container.parameters == {}
    assert container.hosts == ("sim", "controller", "estimator", "ik", "sequencer")
    assert (
        container.arguments[0] == "f2w"
        and "pacing:=lockstep" in container.arguments
        and "settle:=2.0" in container.arguments
    )
    assert not any(a.startswith("composed:=") for a in container.arguments)
    # the container builds exactly what the processes would run
    values = dict(a.split(":=", 1) for a in container.arguments[1:])
    assert graph("f2w", values) == graph("f2w", {"pacing": "lockstep", "settle": "2.0"})


@pytest.mark.parametrize(
    "name, apart, match",
    [
        ("f2w", "viewer", r"apart:=viewer must name nodes of this graph \['sim', 'controller'"),
        ("f2w", "ik,ik", "each once"),
        ("f2w", "ik+ik", "each once"),
        ("f2w", "ik+viewer", "must name nodes of this graph"),
        ("f2w", "sim+controller+estimator,ik+sequencer", "names every node"),
        ("pulloff", "ik", "must name nodes of this graph"),
        (
            "f2w",
            "sim,controller,estimator,ik,sequencer",
            "names every node; for one process per node use composed:=false",
        ),
    ],
)
def test_bad_nodes_apart_are_refused_by_name(name, apart, match):
    with pytest.raises(GraphError, match=match):
        composed_or_not(name, {"apart": apart})


@pytest.mark.parametrize("apart", [("controller",), ("sim",), ("ik", "sequencer")])
def test_nodes_apart_run_beside_the_container_that_hosts_the_rest(apart):
    arguments = {"pacing": "lockstep", "apart": ",".join(apart)}
    container, *separate = composed_or_not("f2w", arguments)
    assert container.executable == "sally_composed" and container.required
    every = ("sim", "controller", "estimator", "ik", "sequencer")
    assert container.hosts == tuple(n for n in every if n not in apart)
    assert f"apart:={','.join(apart)}" in container.arguments
    alone = {n.name: n for n in graph("f2w", {"pacing": "lockstep", "composed": "false"})}
    if "ik" in apart:  # with the states it solves on their own topic (below)
        alone["ik"] = replace(alone["ik"], parameters={**alone["ik"].parameters, "state_topic": ODOM_JOINT_STATES})
    assert separate == [alone[n] for n in alone if n in apart]  # each as it runs on its own
    values = dict(a.split(":=", 1) for a in container.arguments[1:])
    assert [n.name for n in hosted_specs("f2w", values)] == list(container.hosts)  # what the container builds


@pytest.mark.parametrize(
    ("arguments", "apart"),
    [
        ({"apart": "ik"}, True),
        ({"apart": "ik+sequencer"}, True),
        ({"apart": "controller,ik+sequencer", "pacing": "lockstep"}, True),
        ({}, False),
        ({"apart": "controller"}, False),
        ({"apart": "sequencer"}, False),
        ({"composed": "false"}, False),
    ],
)
def test_an_ik_apart_from_the_sim_reads_the_states_it_solves_on_a_topic_of_their_own(arguments, apart):
    """The sim sends /joint_states every 1 ms; an IK in another process reads only the states it
    solves, which the sim then also sends on /sally/odom_joint_states (every 5 ms); the runner waits
    for that topic's reader instead."""
    processes = composed_or_not("f2w", arguments)
    specs = {}
    for process in processes:
        if process.hosts:  # a container: what it builds
            values = dict(a.split(":=", 1) for a in process.arguments[1:] if not a.startswith("group:="))
            group = "" if process.name == "graph" else process.name
            specs.update({n.name: n for n in hosted_specs("f2w", values, group)})
        else:
            specs[process.name] = process
    sim, ik = specs["sim"].parameters, specs["ik"].parameters
    assert sim.get("odom_joint_states", False) is apart
    assert ik.get("state_topic", "/joint_states") == (ODOM_JOINT_STATES if apart else "/joint_states")
    names = {"sim", "controller", "ik", "sequencer"}
    publishers, subscribers = readiness(names, ik_states=ik.get("state_topic", "/joint_states"))
    assert subscribers["/joint_states"] == (1 if apart else 2)  # the controller (and the IK)
    assert (subscribers.get(ODOM_JOINT_STATES), publishers.get(ODOM_JOINT_STATES)) == (
        (1, 1) if apart else (None, None)
    )


def test_nodes_joined_by_plus_share_a_second_container_beside_the_first():
    arguments = {"pacing": "lockstep", "apart": "ik+sequencer", "ik_latency": "1"}
    container, second = composed_or_not("f2w", arguments)
    assert container.hosts == ("sim", "controller", "estimator") and second.hosts == ("ik", "sequencer")
    assert second.name == "ik+sequencer" and second.executable == "sally_composed" and second.required
    assert second.arguments[-1] == "group:=ik+sequencer" and second.arguments[:-1] == container.arguments
    values = dict(a.split(":=", 1) for a in container.arguments[1:])
    assert [n.name for n in hosted_specs("f2w", values)] == ["sim", "controller", "estimator"]
    alone = {n.name: n for n in graph("f2w", {**arguments, "apart": "none"})}
    ik = replace(alone["ik"], parameters={**alone["ik"].parameters, "state_topic": ODOM_JOINT_STATES})
    assert hosted_specs("f2w", values, "ik+sequencer") == [ik, alone["sequencer"]]
    with pytest.raises(GraphError, match=r"group:=sim\+ik is not a container"):
        hosted_specs("f2w", values, "sim+ik")
    mixed = composed_or_not("f2w", {"apart": "controller,ik+sequencer"})
    assert [n.name for n in mixed] == ["graph", "controller", "ik+sequencer"]


@pytest.mark.parametrize(
    ("arguments", "keeper"),
    [
        ({}, "graph"),
        ({"apart": "ik+sequencer"}, "ik+sequencer"),
        ({"apart": "controller"}, "graph"),
        ({"apart": "ik"}, "graph"),
        ({"apart": "sequencer"}, None),
        ({"composed": "false"}, None),
    ],
)
def test_the_container_that_hosts_the_sequencer_keeps_the_runs_record(tmp_path, arguments, keeper):
    """Its hosted subscriptions hear every stream of the record that the other processes publish, so
    the runner takes none of them over DDS; with the sequencer in no container the runner records."""
    from sally_bringup.runner import GraphRun

    run = GraphRun("f2w", arguments, run_dir=tmp_path, out=None)
    assert (run.record_keeper.name if run.record_keeper else None) == keeper
    assert run.record_kept is (keeper is not None)
    told = [spec.name for spec in run.nodes if any(a.startswith("record_file:=") for a in run._arguments(spec))]
    assert told == ([keeper] if keeper else [])


def test_the_sensed_graph_runs_the_estimator_and_the_oracle_does_not():
    """state:=estimated (the default) adds the state estimator, told where Sally was put down, before
    the IK (a composed host hands it the states first); state:=truth leaves /sally/odom to the sim."""
    sensed = {n.name: n for n in graph("f2w", {"composed": "false", "floor_pose": "0.01,-0.02,2"})}
    names = list(sensed)
    assert names.index("estimator") < names.index("ik")
    assert sensed["estimator"].parameters["initial_pose"] == [0.01, -0.02, 2.0]
    assert sensed["sim"].parameters["truth_odom"] is False and sensed["sim"].parameters["sensing"] == "noisy"
    oracle = {n.name: n for n in graph("f2w", {"composed": "false", "state": "truth", "sensing": "ideal"})}
    assert "estimator" not in oracle and oracle["sim"].parameters["truth_odom"] is True
    assert "estimator" not in {n.name for n in graph("pulloff", {"composed": "false"})}, "a rig's graph takes the truth"
