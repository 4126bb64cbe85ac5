"""PhaseContext and Phase: the typed pieces a sequence is made of."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum

import numpy as np

from sally_description.pose import Pose
from sally_node_common.ik_target import IKTarget

from .errors import SequenceError
from .phase_state import PhaseState


@dataclass
class PhaseContext:
    """Everything a phase may read or do, injected by whoever runs the sequence (node or test)."""

    foot: str
    ee_home: np.ndarray
    """The swing foot's EE position when the sequence started (stance position)."""
    ee_pos_fn: Callable[[], np.ndarray]
    """The foot's current EE position (refreshed each call)."""
    hip_pivot_fn: Callable[[], np.ndarray]
    """The foot's current hip pivot."""
    enable_magnet: Callable[[], None]
    disable_magnet: Callable[[], None]
    wall_dist_fn: Callable[[np.ndarray], float] | None = None
    """Distance from a point to the wall along its normal, if the runner knows the wall."""
    range_fn: Callable[[], float] | None = None
    """The swing foot's range sensor: its face's distance to what it faces, along its normal (m;
    nan: no reading; inf: nothing within reach), if the runner reads one."""
    contact_fn: Callable[[], bool] | None = None
    """Whether the swing foot's contact sensor says contact, if the runner reads it."""
    body_fn: Callable[[], Pose] | None = None
    """main_frame's current pose (from the hips), if the runner knows it."""
    state: PhaseState = field(default_factory=PhaseState)
    """What earlier phases of the sequence left for later ones (e.g. F2W_MEASURE's plan for F2W_REACH)."""

    def ee_pos(self) -> np.ndarray:
        """The swing foot's EE site now (world, m)."""
        return np.asarray(self.ee_pos_fn(), dtype=float)

    def hip_pivot(self) -> np.ndarray:
        """The swing foot's hip pivot now (world, m)."""
        return np.asarray(self.hip_pivot_fn(), dtype=float)

    def body(self) -> Pose:
        """The body's pose now (refused where nobody gave one)."""
        if self.body_fn is None:
            raise SequenceError("this phase moves the body, and whoever runs it gave no body pose")
        return self.body_fn()


class Ending(Enum):
    """What a foot's stage has done when a phase of it ends: the campaign's completion rule for that
    stage (:meth:`.campaign.Campaign.step`), carried by the phase instead of matched on its name."""

    STEPPED = "stepped"
    """The phase's end puts the foot down where it holds its surface again (a POSITION stance foot):
    a step over the floor, the way down's seat."""
    PLANTED = "planted"
    """The phase's end plants the foot on the wall (a POSE stance foot): a step over the wall."""
    PLANTED_AFTER_DWELL = "planted after dwell"
    """An unbounded reach: the foot counts as planted once it has dwelt the campaign's dwell in it."""
    HOLDS = "holds"
    """An unbounded hold ending the campaign: done the phase's duration plus the campaign's hold after
    it began."""


@dataclass(frozen=True)
class Phase:
    """One phase of a sequence: its name, duration, step function and what it does on entry."""

    name: str
    duration: float
    step: Callable[[float, PhaseContext], IKTarget | Pose]
    """(time since the phase began, context) -> the target for now: the swing foot's, or (a body
    phase, every foot holding) the body's."""
    on_enter: Callable[[PhaseContext], None] | None = None
    unbounded: bool = False
    """Never ends by itself (holds until the runner is force-completed)."""
    ends: Ending | None = None
    """What its end does to the foot's stage (None: nothing; the stage goes on, or a body stage ends
    with its last phase)."""
