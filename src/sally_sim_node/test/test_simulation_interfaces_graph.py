"""Clients we did not shape the server for, on real DDS (loopback), as processes and composed:

* one that drives the sim only through the ``simulation_interfaces`` standard (features, pause,
  100 steps by the SimulateSteps action, the entity state, Sally's base set 1 cm up, reset, play),
  and the standard's refusals for bad requests, the graph running on;
* one that behaves as ros2_control's ``JointStateTopicSystem`` does: position commands for all 24
  joints at 100 Hz (reliable, depth 1; NaN for the joints it does not claim), bringing one leg
  through a trajectory against ``controller:=ros2_control``.
"""

from __future__ import annotations

import math
import threading
import time

import numpy as np
import pytest
from action_msgs.msg import GoalStatus
from diagnostic_msgs.msg import DiagnosticArray
from rclpy.qos import QoSProfile, ReliabilityPolicy
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import JointState

from sally_bringup.processes import wait_until
from sally_description import JOINT_NAMES
from sally_node_common.stamps import stamp_ns
from simulation_interfaces.action import SimulateSteps
from simulation_interfaces.msg import Result, SimulationState, SimulatorFeatures
from simulation_interfaces.srv import (
    GetEntities,
    GetEntityState,
    GetSimulationState,
    GetSimulatorFeatures,
    ResetSimulation,
    SetEntityState,
    SetSimulationState,
    SpawnEntity,
    StepSimulation,
)

pytestmark = [pytest.mark.graph, pytest.mark.timeout(240)]
SIM = "/sally_sim"
OK, UNSUPPORTED, NOT_FOUND = Result.RESULT_OK, Result.RESULT_FEATURE_UNSUPPORTED, Result.RESULT_NOT_FOUND
FAILED = Result.RESULT_OPERATION_FAILED
FREE_FL = "FR,BL,BR"
"""The magnets on in the ros2_control test: FL's off, so that its leg can swing."""
TRACKING = 0.01
"""rad: how close the drive (kp 500, kd 30, no integral) holds a commanded leg joint against gravity
(measured 0.005 rad on the knee)."""


class StandardClient:
    """A simulation_interfaces client as any user of the standard writes one: persistent clients,
    each first answered once by a request that changes nothing (a lost first answer is resent)."""

    def __init__(self, probe) -> None:
        self.probe, self.node = probe, probe.node
        self.clients: dict[str, object] = {}
        self.steps = probe.action_client(SimulateSteps, f"{SIM}/simulate_steps")

    def call(self, srv_type, name: str, request, timeout: float = 30.0):
        client = self.clients.get(name)
        if client is None:
            client = self.clients[name] = self.node.create_client(srv_type, f"{SIM}/{name}")
            assert client.wait_for_service(timeout_sec=timeout), f"{name} not available"
        future = client.call_async(request)
        assert wait_until(future.done, timeout), f"no answer from {name} within {timeout} s"
        return future.result()

    def warm(self, srv_type, name: str, request) -> None:
        """Answered once (resending what changes nothing) before requests that must not be sent twice."""
        client = self.clients[name] = self.node.create_client(srv_type, f"{SIM}/{name}")
        assert client.wait_for_service(timeout_sec=30.0), f"{name} not available"
        futures = []
        deadline = time.monotonic() + 30.0
        while not any(f.done() for f in futures) and time.monotonic() < deadline:
            futures.append(client.call_async(request))
            wait_until(lambda: any(f.done() for f in futures), 2.0)
        assert any(f.done() for f in futures), f"{name} never answered"

    def state(self) -> int:
        return self.call(GetSimulationState, "get_simulation_state", GetSimulationState.Request()).state.state

    def set_state(self, state: int) -> Result:
        request = SetSimulationState.Request(state=SimulationState(state=state))
        return self.call(SetSimulationState, "set_simulation_state", request).result

    def entity(self, name: str):
        return self.call(GetEntityState, "get_entity_state", GetEntityState.Request(entity=name))

    def cancel_after(self, steps: int, feedback_before_cancel: int = 20):
        """SimulateSteps for ``steps``, cancelled after some feedback: (status, result, last feedback)."""
        assert self.steps.wait_for_server(timeout_sec=30.0), "simulate_steps not available"
        feedback: list = []
        sent = self.steps.send_goal_async(SimulateSteps.Goal(steps=steps), feedback_callback=feedback.append)
        assert wait_until(sent.done, 30.0), "the goal was not answered"
        handle = sent.result()
        assert wait_until(lambda: len(feedback) >= feedback_before_cancel, 60.0), "no feedback"
        canceling = handle.cancel_goal_async()
        assert wait_until(canceling.done, 30.0), "the cancel was not answered"
        done = handle.get_result_async()
        assert wait_until(done.done, 60.0), "the cancelled goal did not end"
        return done.result().status, done.result().result.result, feedback[-1].feedback

    def simulate(self, steps: int, timeout: float = 120.0):
        """SimulateSteps: (result message, feedback messages)."""
        assert self.steps.wait_for_server(timeout_sec=30.0), "simulate_steps not available"
        feedback: list = []
        sent = self.steps.send_goal_async(SimulateSteps.Goal(steps=steps), feedback_callback=feedback.append)
        assert wait_until(sent.done, 30.0), "the goal was not answered"
        handle = sent.result()
        assert handle.accepted
        done = handle.get_result_async()
        assert wait_until(done.done, timeout), f"{steps} steps not done within {timeout} s"
        return done.result().result.result, [f.feedback for f in feedback]


def position(state) -> np.ndarray:
    p = state.pose.position
    return np.array([p.x, p.y, p.z])


def start_sim_and_controller(graph, mode: str) -> None:
    if mode == "processes":
        graph.start("sim", "sally_sim_node", {"pacing": "lockstep", "start_paused": True})
        graph.start("controller", "sally_controller")
    else:
        graph.start("graph", "sally_composed", argv=["hold", "pacing:=lockstep", "start_paused:=true"])


def test_a_sim_started_on_the_wall_hangs_there_under_the_controller(graph, probe):
    """``sally_composed hold start:=wall``: the controller holds the pose the run starts in (not the
    baked pose, which would fling the legs off the wall), every magnet holding."""
    from sally_description.wall_start import WALL_STANCE

    graph.start("graph", "sally_composed", argv=["hold", "start:=wall", "pacing:=lockstep", "start_paused:=true"])
    client = StandardClient(probe)
    client.warm(GetSimulationState, "get_simulation_state", GetSimulationState.Request())
    start = position(client.entity("sally").state)
    assert start == pytest.approx(WALL_STANCE.body.position, abs=1e-6)
    result, _ = client.simulate(2000)  # 1 s of sim time
    assert result.result == OK, result.error_message
    moved = np.linalg.norm(position(client.entity("sally").state) - start)
    assert moved < 0.002, f"the body moved {moved * 1e3:.1f} mm on the wall"


@pytest.mark.parametrize("mode", ["processes", "composed"])
def test_a_standard_client_pauses_steps_moves_resets_and_plays_the_sim(graph, probe, mode):
    start_sim_and_controller(graph, mode)
    client = StandardClient(probe)
    clock = probe.record(Clock, "/clock")
    client.warm(GetSimulationState, "get_simulation_state", GetSimulationState.Request())

    features = client.call(GetSimulatorFeatures, "get_simulator_features", GetSimulatorFeatures.Request()).features
    assert {SimulatorFeatures.STEP_SIMULATION_ACTION, SimulatorFeatures.ENTITY_STATE_SETTING} <= set(features.features)
    assert SimulatorFeatures.SPAWNING not in features.features
    spawn = client.call(SpawnEntity, "spawn_entity", SpawnEntity.Request(name="box"))
    assert spawn.result.result == UNSUPPORTED and "not supported" in spawn.result.error_message
    names = client.call(GetEntities, "get_entities", GetEntities.Request()).entities
    assert list(names) == ["sally", "floor_plate", "wall_plate"]

    assert client.state() == SimulationState.STATE_PAUSED  # started paused
    client.warm(StepSimulation, "step_simulation", StepSimulation.Request(steps=0))  # refused: changes nothing
    start = client.entity("sally")
    assert start.result.result == OK and start.state.header.frame_id == "world"

    result, feedback = client.simulate(100)
    assert result.result == OK, result.error_message
    # feedback after each step (its topic keeps the latest 10: a busy client may miss some)
    completed = [f.completed_steps for f in feedback]
    assert completed == sorted(set(completed)) and completed[-1] == 100 and len(completed) >= 10, completed
    assert all(f.completed_steps + f.remaining_steps == 100 for f in feedback)
    moved = client.entity("sally")
    # a step is one control period (5 ms): 100 of them are 0.5 s of sim time, exactly
    assert stamp_ns(moved.state.header.stamp) - stamp_ns(start.state.header.stamp) == 500_000_000
    assert wait_until(lambda: len(clock) and stamp_ns(clock.last.clock) == stamp_ns(moved.state.header.stamp), 5.0)

    height = position(moved.state)[2]
    up = moved.state
    up.pose.position.z = height + 0.01
    up.twist.linear.x = up.twist.linear.y = up.twist.linear.z = 0.0
    done = client.call(SetEntityState, "set_entity_state", SetEntityState.Request(entity="sally", state=up))
    assert done.result.result == OK, done.result.error_message
    there = client.entity("sally").state
    assert position(there) == pytest.approx(position(up), abs=1e-12), "paused: the base is where it was set"
    result, _ = client.simulate(1)  # 5 ms: the magnets pull the feet, 1 cm off the floor, back down
    assert result.result == OK
    assert position(client.entity("sally").state)[2] > height + 0.005, "the robot steps on from 1 cm up"

    # bad requests: the standard's error results, and the sim runs on
    bad = client.call(GetEntityState, "get_entity_state", GetEntityState.Request(entity="nobody"))
    assert bad.result.result == NOT_FOUND and "sally" in bad.result.error_message
    nan = client.entity("sally").state
    nan.pose.position.x = math.nan
    refused = client.call(SetEntityState, "set_entity_state", SetEntityState.Request(entity="sally", state=nan))
    assert refused.result.result == SetEntityState.Response.INVALID_POSE
    plate = client.call(SetEntityState, "set_entity_state", SetEntityState.Request(entity="wall_plate", state=up))
    assert plate.result.result == FAILED and "static" in plate.result.error_message
    zero = client.call(StepSimulation, "step_simulation", StepSimulation.Request(steps=0))
    assert zero.result.result == FAILED
    before = stamp_ns(client.entity("sally").state.header.stamp)
    status, result, last = client.cancel_after(100_000)
    assert status == GoalStatus.STATUS_CANCELED and result.result == FAILED and "cancelled" in result.error_message
    stepped = stamp_ns(client.entity("sally").state.header.stamp) - before
    assert last.completed_steps * 5_000_000 <= stepped < 100_000 * 5_000_000, "stopped where it was cancelled"

    reset = client.call(ResetSimulation, "reset_simulation", ResetSimulation.Request())
    assert reset.result.result == OK, reset.result.error_message
    back = client.entity("sally").state
    assert position(back) == pytest.approx(position(start.state), abs=1e-9), "reset: back at the start pose"
    assert stamp_ns(back.header.stamp) >= stamp_ns(moved.state.header.stamp), "sim time never runs back"

    assert client.set_state(SimulationState.STATE_PLAYING).result == OK
    assert client.state() == SimulationState.STATE_PLAYING
    assert client.set_state(SimulationState.STATE_PLAYING).result == SetSimulationState.Response.ALREADY_IN_TARGET_STATE
    playing_at = stamp_ns(clock.last.clock)
    probe.wait_for(lambda: stamp_ns(clock.last.clock) > playing_at + 200_000_000, 30.0, "the clock to run")
    while_playing = client.call(StepSimulation, "step_simulation", StepSimulation.Request(steps=10))
    assert while_playing.result.result == FAILED and "pause" in while_playing.result.error_message
    assert client.set_state(SimulationState.STATE_STOPPED).result == OK
    assert client.state() == SimulationState.STATE_STOPPED
    assert position(client.entity("sally").state) == pytest.approx(position(start.state), abs=1e-9)
    for process in graph.processes.values():
        assert process.running, f"{process.name} ended"


class JointStateTopicSystemClient:
    """What ros2_control's JointStateTopicSystem publishes: every joint named, position commands
    for the joints its controllers claim, NaN for the rest, at 100 Hz (reliable, depth 1)."""

    def __init__(self, probe, claimed: dict[str, float]) -> None:
        qos = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE)
        self.publisher = probe.publisher(JointState, "/sally/joint_commands", qos)
        self.claimed = dict(claimed)
        self.sent = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(0.01):
            msg = JointState(name=list(JOINT_NAMES))
            msg.position = [self.claimed.get(n, math.nan) for n in JOINT_NAMES]
            self.publisher.publish(msg)
            self.sent += 1

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2.0)


@pytest.mark.parametrize("mode", ["processes", "composed"])
def test_a_joint_state_topic_system_client_brings_a_leg_through_a_trajectory(graph, probe, mode):
    from sally_bringup.graphs import graph as graph_nodes

    if mode == "processes":
        (sim,) = graph_nodes("f2w", {"controller": "ros2_control", "composed": "false", "magnets": FREE_FL})
        graph.start("sim", sim.executable, sim.parameters)
    else:
        graph.start("graph", "sally_composed", argv=["f2w", "controller:=ros2_control", f"magnets:={FREE_FL}"])
    states = probe.record(JointState, "/joint_states")
    diagnostics = probe.record(DiagnosticArray, "/diagnostics")
    probe.wait_for_messages(states, 10, 60.0)
    leg = ["hip_pitch_FL", "knee_FL", "wrist_FL", "ee_FL"]
    start = dict(zip(states.last.name, states.last.position))
    client = JointStateTopicSystemClient(probe, {n: start[n] for n in leg})
    probe.wait_for_subscribers(client.publisher, timeout=30.0)
    client.start()
    try:
        # the knee and the hip through a 0.3 rad move, one waypoint after the other
        for fraction in (0.25, 0.5, 0.75, 1.0):
            client.claimed = {**client.claimed, "hip_pitch_FL": start["hip_pitch_FL"] + 0.3 * fraction}
            client.claimed["knee_FL"] = start["knee_FL"] - 0.3 * fraction
            want = dict(client.claimed)

            def reached(want=want) -> bool:
                now = dict(zip(states.last.name, states.last.position))
                return all(abs(now[n] - want[n]) < 0.02 for n in leg)

            probe.wait_for(reached, 30.0, f"the leg at waypoint {fraction}")

        def errors() -> dict[str, float]:
            now = dict(zip(states.last.name, states.last.position))
            return {n: abs(now[n] - client.claimed[n]) for n in leg}

        settling = wait_until(lambda: max(errors().values()) < TRACKING, 10.0)
        assert settling, f"the leg did not settle within {TRACKING} rad of the trajectory's end: {errors()}"
        settled = dict(zip(states.last.name, states.last.position))
        # the joints nobody claimed held where they started (NaN: not commanded)
        others = [n for n in JOINT_NAMES if n.endswith("_BR") and not n.startswith(("ee2", "em_z"))]
        assert all(abs(settled[n] - start[n]) < 0.05 for n in others), {n: settled[n] - start[n] for n in others}
    finally:
        client.stop()
    # bad commands are refused and counted; the sim runs on
    bad = probe.publisher(JointState, "/sally/joint_commands")
    probe.wait_for_subscribers(bad, timeout=30.0)
    bad.publish(JointState(name=["knee_FL", "knee_FL"], position=[0.0, 0.0]))
    bad.publish(JointState(name=["no_such_joint"], position=[0.0]))
    bad.publish(JointState(name=["knee_FL", "hip_pitch_FL"], position=[0.0]))

    def rejected() -> dict[str, str]:
        for msg in reversed(diagnostics.messages):
            for status in msg.status:
                if status.name == "sally_sim: commands":
                    return {
                        kv.key: kv.value for kv in status.values if kv.key.startswith("rejected /sally/joint_commands")
                    }
        return {}

    want = {f"rejected /sally/joint_commands {reason}": "1" for reason in ("duplicate", "unknown", "length")}
    probe.wait_for(lambda: rejected() == want, 30.0, f"the three rejections counted ({rejected()})")
    n = len(states)
    probe.wait_for_messages(states, n + 100, 30.0)
    for process in graph.processes.values():
        assert process.running, f"{process.name} ended"
