"""The sim's answers to the ROS 2 simulator-control standard (``simulation_interfaces`` 1.x): its
states and their transitions, the features it lists, which step requests and reset scopes it takes,
and a run of requested steps. Pure: the ROS side is :mod:`.sim_interfaces`.

Codes and states are the standard's constants (``Result``, ``SimulationState``, the per-service
extras), so a test can hold them against the generated messages.

* States: PLAYING, PAUSED, STOPPED (paused at the start state: reached by a stop, which resets).
  QUITTING and the world states are refused as unsupported: the sim has one world, loaded at start,
  and ends with its graph.
* A step is one control period (``1 / state_rate``, 5 ms and ten physics steps at the defaults) in
  every pacing mode; in lockstep (or realtime synchronous) it is exactly a lockstep tick: the state
  goes out, the controller's answer is waited for, the period is stepped. Steps are taken only while
  paused or stopped (stopped then becomes paused); a request while playing is refused.
* Reset: the state scope (the robot back at its start pose and velocity, magnets as started,
  commands and external forces cleared; the controller, IK and sequencer follow the reset notice).
  The time scope is not supported: sim time never runs backwards (every reader of ``/clock`` and the
  nodes' stamp order would see time jump back); a default or full reset resets the state and says
  that time runs on.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import IntEnum


class State(IntEnum):
    """``simulation_interfaces/SimulationState`` values."""

    STOPPED = 0
    PLAYING = 1
    PAUSED = 2
    QUITTING = 3
    NO_WORLD = 4
    LOADING_WORLD = 5


class Code(IntEnum):
    """``simulation_interfaces/Result`` codes common to every service."""

    FEATURE_UNSUPPORTED = 0
    OK = 1
    NOT_FOUND = 2
    INCORRECT_STATE = 3
    OPERATION_FAILED = 4


ALREADY_IN_TARGET_STATE = 101
"""``SetSimulationState``: the simulation already is in the requested state."""
INVALID_POSE = 101
"""``SetEntityState``: the pose is not finite or its quaternion is not a rotation."""

SCOPE_TIME, SCOPE_STATE, SCOPE_SPAWNED, SCOPE_ALL = 1, 2, 4, 255
"""``ResetSimulation`` scope bits (``SCOPE_DEFAULT`` = 0 means ``SCOPE_ALL``)."""

FEATURES = (
    8,  # ENTITY_CATEGORIES: GetEntities filters by category; GetEntityInfo says it
    10,  # ENTITY_STATE_GETTING
    11,  # ENTITY_STATE_SETTING (Sally's base; the plates are part of the model)
    12,  # ENTITY_INFO_GETTING
    20,  # SIMULATION_RESET
    22,  # SIMULATION_RESET_STATE
    24,  # SIMULATION_STATE_GETTING
    25,  # SIMULATION_STATE_SETTING
    26,  # SIMULATION_STATE_PAUSE
    31,  # STEP_SIMULATION_SINGLE
    32,  # STEP_SIMULATION_MULTIPLE
    33,  # STEP_SIMULATION_ACTION
)
"""``SimulatorFeatures`` the sim has; every other one is answered FEATURE_UNSUPPORTED."""

MAX_STEPS = 1_000_000
"""The most steps one request may ask for (5000 s of sim time at the default 200 Hz control rate)."""


@dataclass(frozen=True)
class Outcome:
    """A service's result: a code (:class:`Code` or a service's own) and a message saying why."""

    code: int
    message: str = ""

    @property
    def ok(self) -> bool:
        """The request was carried out."""
        return self.code == Code.OK


OK = Outcome(Code.OK)


@dataclass(frozen=True)
class Transition:
    """What a ``SetSimulationState`` request does: its outcome, the state after, whether to reset."""

    outcome: Outcome
    state: State
    reset: bool = False


def transition(current: State, target: int) -> Transition:
    """The answer to a request for state ``target`` (a ``SimulationState`` value) in ``current``."""
    if target not in State._value2member_map_:
        return Transition(Outcome(Code.OPERATION_FAILED, f"state {target} is not a SimulationState value"), current)
    wanted = State(target)
    if wanted in (State.QUITTING, State.NO_WORLD, State.LOADING_WORLD):
        return Transition(
            Outcome(
                Code.FEATURE_UNSUPPORTED,
                f"{wanted.name} is not supported: the sim has one world, loaded at start, and ends with its graph",
            ),
            current,
        )
    if wanted == current:
        return Transition(Outcome(ALREADY_IN_TARGET_STATE, f"already {wanted.name}"), current)
    if wanted is State.STOPPED:
        return Transition(Outcome(Code.OK, "stopped: reset to the start state and paused"), wanted, reset=True)
    return Transition(Outcome(Code.OK, wanted.name.lower()), wanted)


def step_refusal(state: State, steps: int, busy: bool, diverged: str | None) -> Outcome | None:
    """Why a request for ``steps`` steps cannot be taken now, or None when it can."""
    if state is State.PLAYING:
        return Outcome(Code.OPERATION_FAILED, "the simulation is playing: pause it first (SetSimulationState PAUSED)")
    if not 1 <= steps <= MAX_STEPS:
        return Outcome(Code.OPERATION_FAILED, f"steps must be in 1..{MAX_STEPS}, got {steps}")
    if busy:
        return Outcome(Code.OPERATION_FAILED, "another step request is running; wait for it or cancel it")
    if diverged is not None:
        return Outcome(Code.OPERATION_FAILED, f"{diverged}; reset the simulation first (ResetSimulation)")
    return None


@dataclass(frozen=True)
class ResetPlan:
    """What a ``ResetSimulation`` request does: its outcome and whether the state is reset."""

    outcome: Outcome
    reset_state: bool


def reset_plan(scope: int) -> ResetPlan:
    """The answer to a reset of ``scope`` (bits of :data:`SCOPE_TIME`, :data:`SCOPE_STATE`, ...)."""
    if scope in (0, SCOPE_ALL):
        return ResetPlan(Outcome(Code.OK, "state reset; sim time runs on (it never runs backwards)"), True)
    if scope & ~(SCOPE_TIME | SCOPE_STATE | SCOPE_SPAWNED):
        undefined = Outcome(Code.FEATURE_UNSUPPORTED, f"scope {scope} has bits ResetSimulation does not define")
        return ResetPlan(undefined, False)
    if scope & SCOPE_TIME:
        return ResetPlan(
            Outcome(
                Code.FEATURE_UNSUPPORTED,
                "SCOPE_TIME is not supported: sim time never runs backwards (readers of /clock and the nodes' "
                "stamp order would see time jump back); reset SCOPE_STATE instead",
            ),
            False,
        )
    if scope & SCOPE_STATE:
        return ResetPlan(Outcome(Code.OK, "state reset"), True)
    return ResetPlan(Outcome(Code.OK, "nothing was spawned: nothing to remove"), False)


@dataclass
class StepRun:
    """A run of requested steps, taken one at a time by the sim's loop.

    ``feedback(done, remaining)`` is called after each step; ``finish(outcome)`` once, when the run
    ends (done, cancelled, or stopped by a divergence, a play or a reset); ``cancelled()`` is asked
    before each step.
    """

    total: int
    feedback: Callable[[int, int], None]
    finish: Callable[[Outcome], None]
    cancelled: Callable[[], bool] = lambda: False
    done: int = field(default=0, init=False)

    @property
    def remaining(self) -> int:
        """Steps still to take."""
        return self.total - self.done

    def stepped(self) -> bool:
        """One step was taken: feedback, and the finish when it was the last. True when the run is over."""
        self.done += 1
        self.feedback(self.done, self.remaining)
        if self.remaining == 0:
            self.finish(Outcome(Code.OK, f"{self.total} steps taken"))
            return True
        return False

    def stop(self, why: str, code: int = Code.OPERATION_FAILED) -> None:
        """End the run before its last step, saying why."""
        self.finish(Outcome(code, f"stopped after {self.done} of {self.total} steps: {why}"))
