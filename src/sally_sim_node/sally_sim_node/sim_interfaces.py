"""The sim node's ``simulation_interfaces`` services and its ``SimulateSteps`` action, under the
node's namespace (``/sally_sim/get_simulator_features``, ...).

A thin ROS shell: what is answered is decided by :mod:`.sim_control` (states, steps, reset scopes)
and :mod:`.entities`; the sim node carries it out through the :class:`Controls` it passes in.
Step requests are awaited, not waited on: the executor keeps delivering the controller's answers
while the sim's loop takes the steps. They are awaited without spinning (:func:`awaited`): rclpy's
EventsExecutor iterates a task that awaits a Future again at once, so awaiting the loop's outcome on
a Future spun the executor's thread for as long as the steps took (about 200,000 iterations a second,
measured): a core and much of the interpreter lock taken from the loop (40 % of a stepped
container's samples); the fault cases, which step a graph 10 s of sim time at once, took 1140 s
where they now take 820.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Protocol

from rclpy.action import ActionServer, CancelResponse, GoalResponse
from rclpy.node import Node

from simulation_interfaces.action import SimulateSteps
from simulation_interfaces.msg import Result, SimulationState
from simulation_interfaces.srv import (
    DeleteEntity,
    GetEntities,
    GetEntitiesStates,
    GetEntityInfo,
    GetEntityState,
    GetSimulationState,
    GetSimulatorFeatures,
    ResetSimulation,
    SetEntityState,
    SetSimulationState,
    SpawnEntity,
    StepSimulation,
)

from . import entities
from .entity_state_msg import EntityStateError, entity_state_from_msg, entity_state_to_msg
from .sim_control import FEATURES, INVALID_POSE, Code, Outcome, State, StepRun

CUSTOM_INFO = (
    "Sally sim (MuJoCo). A step is one control period (1/state_rate, 5 ms by default) in every pacing mode; "
    "in lockstep it waits for the controller's answer as a lockstep tick does. Reset keeps sim time running "
    "(no SCOPE_TIME). Entities: sally (main_frame) and each surface of the scene (floor_plate, wall_plate, "
    "ceiling_plate: steel; room_floor: not); states in the world frame."
)


AWAIT_POLL_S = 0.001
"""Wall seconds an awaited outcome is waited on, the interpreter lock released, before the executor
is handed back for what came meanwhile (an outside controller's answer waits at most this long)."""


class _Yield:
    """Awaited: hands the executor back once (the awaiting task stays pending and is iterated again)."""

    def __await__(self):
        yield


async def awaited(ask: Callable[[Callable[[Outcome | None], None]], None], poll_s: float = AWAIT_POLL_S) -> Outcome:
    """What ``ask(done)`` reports through ``done`` (at once, or later from another thread), awaited in
    an executor's task without spinning it: each iteration of the task blocks up to ``poll_s`` s on
    the outcome, then yields to the executor."""
    answered = threading.Event()
    box: list[Outcome | None] = []

    def done(outcome: Outcome | None) -> None:
        box.append(outcome)
        answered.set()

    ask(done)
    while not answered.wait(poll_s):
        await _Yield()
    outcome = box[0]
    return outcome if outcome is not None else Outcome(Code.OPERATION_FAILED, "the request was dropped")


class Controls(Protocol):
    """What the sim node offers these services."""

    @property
    def sim_state(self) -> State:
        """The simulation's state now."""

    def set_sim_state(self, target: int, done: Callable[[Outcome], None]) -> None:
        """Go to ``target`` (a SimulationState value); ``done`` gets the outcome (a stop: once reset)."""

    def reset_sim(self, scope: int, done: Callable[[Outcome], None]) -> None:
        """Reset ``scope`` (ResetSimulation bits); ``done`` gets the outcome once the loop has reset."""

    def begin_steps(self, run: StepRun) -> Outcome | None:
        """Hand ``run`` to the loop; its refusal, or None when taken."""

    def entity_kinematics(self, name: str) -> entities.Kinematics:
        """An entity's state now (``name`` known)."""

    def set_base(self, state: entities.Kinematics) -> None:
        """Put Sally's base in ``state`` (pose and twist)."""

    @property
    def now_ns(self) -> int:
        """Sim time now (ns)."""


def _result(target: Result, outcome: Outcome) -> None:
    target.result, target.error_message = int(outcome.code), outcome.message


UNKNOWN = "entity {!r} is not known; GetEntities lists them: {}"


class SimulationInterfaces:
    """Creates the services and the action on ``node`` and answers them through ``controls``."""

    def __init__(self, node: Node, controls: Controls, known: dict[str, entities.Entity]) -> None:
        """``known``: the scene's entities by name (:func:`.entities.listing`)."""
        self._node, self._controls, self._known_entities = node, controls, known
        srv = node.create_service
        srv(GetSimulatorFeatures, "~/get_simulator_features", self._features)
        srv(GetSimulationState, "~/get_simulation_state", self._get_state)
        srv(SetSimulationState, "~/set_simulation_state", self._set_state)
        srv(ResetSimulation, "~/reset_simulation", self._reset)
        srv(StepSimulation, "~/step_simulation", self._step)
        srv(GetEntities, "~/get_entities", self._entities)
        srv(GetEntitiesStates, "~/get_entities_states", self._entities_states)
        srv(GetEntityInfo, "~/get_entity_info", self._entity_info)
        srv(GetEntityState, "~/get_entity_state", self._entity_state)
        srv(SetEntityState, "~/set_entity_state", self._set_entity_state)
        srv(SpawnEntity, "~/spawn_entity", self._unsupported("spawning (SpawnEntity)"))
        srv(DeleteEntity, "~/delete_entity", self._unsupported("deleting entities (DeleteEntity)"))
        self._action = ActionServer(
            node,
            SimulateSteps,
            "~/simulate_steps",
            execute_callback=self._simulate_steps,
            goal_callback=lambda goal: GoalResponse.ACCEPT,
            cancel_callback=lambda goal: CancelResponse.ACCEPT,
        )

    def destroy(self) -> None:
        """Take the action server down (the services go with the node)."""
        self._action.destroy()

    # --- simulation ----------------------------------------------------------------------------
    def _features(self, request, response):
        response.features.features = list(FEATURES)
        response.features.spawn_formats = []
        response.features.custom_info = CUSTOM_INFO
        return response

    def _get_state(self, request, response):
        response.state = SimulationState(state=int(self._controls.sim_state))
        _result(response.result, Outcome(Code.OK))
        return response

    async def _set_state(self, request, response):
        _result(response.result, await awaited(lambda done: self._controls.set_sim_state(request.state.state, done)))
        return response

    async def _reset(self, request, response):
        _result(response.result, await awaited(lambda done: self._controls.reset_sim(request.scope, done)))
        return response

    async def _run(self, steps: int, feedback=None, cancelled=None) -> Outcome:
        """Hand ``steps`` to the loop and await their end (or the refusal)."""

        def ask(done: Callable[[Outcome], None]) -> None:
            run = StepRun(steps, feedback or (lambda d, r: None), done, cancelled or (lambda: False))
            refused = self._controls.begin_steps(run)
            if refused is not None:
                done(refused)

        return await awaited(ask)

    async def _step(self, request, response):
        _result(response.result, await self._run(int(request.steps)))
        return response

    async def _simulate_steps(self, goal_handle):
        def feedback(completed: int, remaining: int) -> None:
            goal_handle.publish_feedback(SimulateSteps.Feedback(completed_steps=completed, remaining_steps=remaining))

        outcome = await self._run(int(goal_handle.request.steps), feedback, lambda: goal_handle.is_cancel_requested)
        result = SimulateSteps.Result()
        _result(result.result, outcome)
        if goal_handle.is_cancel_requested:
            goal_handle.canceled()
        elif outcome.ok:
            goal_handle.succeed()
        else:
            goal_handle.abort()
        return result

    # --- entities ------------------------------------------------------------------------------
    def _filtered(self, filters, response) -> list[str] | None:
        unsupported = Code.FEATURE_UNSUPPORTED
        if filters.tags.tags:
            _result(response.result, Outcome(unsupported, "entity tags are not supported (no ENTITY_TAGS)"))
            return None
        if filters.bounds.type != 0 or filters.bounds.points:
            _result(response.result, Outcome(unsupported, "bounds filters are not supported (no ENTITY_BOUNDS)"))
            return None
        try:
            names = entities.matching(
                self._known_entities, filters.filter, [int(c.category) for c in filters.categories]
            )
        except entities.FilterError as exc:
            _result(response.result, Outcome(Code.OPERATION_FAILED, str(exc)))
            return None
        _result(response.result, Outcome(Code.OK))
        return names

    def _entities(self, request, response):
        names = self._filtered(request.filters, response)
        response.entities = names or []
        return response

    def _entities_states(self, request, response):
        names = self._filtered(request.filters, response)
        response.entities = names or []
        now = self._controls.now_ns
        response.states = [entity_state_to_msg(self._controls.entity_kinematics(n), now) for n in names or []]
        return response

    def _known(self, name: str, response) -> entities.Entity | None:
        """The entity called ``name``, or None with ``response`` answered NOT_FOUND."""
        entity = self._known_entities.get(name)
        if entity is None:
            _result(response.result, Outcome(Code.NOT_FOUND, UNKNOWN.format(name, ", ".join(self._known_entities))))
        return entity

    def _entity_info(self, request, response):
        entity = self._known(request.entity, response)
        if entity is None:
            return response
        response.info.category.category = int(entity.category)
        response.info.description = entity.description
        _result(response.result, Outcome(Code.OK))
        return response

    def _entity_state(self, request, response):
        if self._known(request.entity, response) is None:
            return response
        response.state = entity_state_to_msg(self._controls.entity_kinematics(request.entity), self._controls.now_ns)
        _result(response.result, Outcome(Code.OK))
        return response

    def _set_entity_state(self, request, response):
        entity = self._known(request.entity, response)
        if entity is None:
            return response
        if entity.name != entities.ROBOT:
            _result(response.result, Outcome(Code.OPERATION_FAILED, f"{entity.name} is static: part of the model"))
            return response
        try:
            state = entity_state_from_msg(request.state)
        except EntityStateError as exc:
            code = INVALID_POSE if exc.invalid_pose else Code.OPERATION_FAILED
            _result(response.result, Outcome(code, str(exc)))
            return response
        self._controls.set_base(state)
        _result(response.result, Outcome(Code.OK, "pose and twist set (acceleration is not settable)"))
        return response

    def _unsupported(self, what: str):
        def answer(request, response):
            outcome = Outcome(Code.FEATURE_UNSUPPORTED, f"{what} is not supported: Sally's scene is fixed")
            _result(response.result, outcome)
            return response

        return answer
