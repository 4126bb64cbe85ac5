"""Standing on the wall as on the floor: the stance a climb through the wall's top corner starts from.

A climb onto the wall starts from Sally standing on the floor (main_frame 0.124 m above it, each foot
0.330 m ahead or behind and 0.280 m beside: the model's start, :func:`~sally_description.wall_start.
standing`). A climb onto the ceiling starts from the same stance on the wall, 0.5 m below the ceiling
(``scene:=corner3``'s start). After a climb onto the wall and a walk up it the body stands 0.34 m off
the wall, pitched 89 deg, with its feet in the walk's stance (0.24 m along, 0.08-0.22 m beside). The
stand brings it there:

each foot in turn (:data:`STAND_ORDER`), a wall step (:func:`.wall_walk.wall_step`: release, move,
seat) to its foothold in the goal's stance, with the spreading step's slower seat, where the walk
left the body (the front feet 0.20 m outward, 0.33 m above main_frame, 0.28 m beside it: the
reach band's edge there);
then WALL_APPROACH (1.5 s) x :data:`APPROACH_SHIFTS`: every foot holds; the body moves (and turns) a
third, a half, then all of what is left toward the goal's main_frame pose, on one quintic each.

Why the steps first: with the body brought in first (0.22 m toward the wall) and the feet stepped
after, the first foot to let go (FL) sprang its neighbour FR back by 1.1-2.2 mm on some perturbed
starts (15 runs of the route's benchmark: 2 failed the 2 mm limit, 4 went above 1 mm), however the
body came in (three to eight shifts, turned square or not, stopped half way or short); stepped
where the walk leaves the body, as the walk's own steps are, it moved 0.27-0.30 mm on the worst of
those starts. Why three shifts: 0.22 m toward the wall in one 1.5 s move asks the stance legs for
more than they hold on to; a prototype took main_frame from 0.342 to 0.116 m off the wall in three
moves of 73.5 mm, each foot within 0.12 mm of where it held.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from sally_description.pose import Pose
from sally_description.scene import CEILING_HEIGHT
from sally_description.wall_start import standing

from .phase import Phase, PhaseContext
from .phase_state import BodyMove, required
from .trajectory import quintic
from .wall_walk import SHIFT_TIME

STAND = "wall_stand"
"""The stages of a stand (:meth:`WallStand.stages`)."""
LEAVE = "wall_leave"
"""The stages of a stand undone: the body backed out from the wall first, then the feet stepped
(:data:`.way_back.LEAVE`)."""
GATHER = "wall_gather"
"""The stages of a spread undone: the body moved first, then the leading feet stepped back
(:data:`.way_back.GATHER`)."""
STANDS = (STAND, LEAVE, GATHER)
"""Every kind of stand, by its stages' name."""
APPROACH_PHASE = "WALL_APPROACH"
"""The body's moves of a stand (a walk's own are WALL_SHIFT)."""
APPROACH_SHIFTS = 3
STAND_ORDER = ("FL", "FR", "BL", "BR")
CORNER_DISTANCE = 0.5
"""How far main_frame starts from the surface a climb goes onto (m): the floor start's distance
from the wall, and corner3's below the ceiling."""
UNDER_CEILING = standing(CEILING_HEIGHT - CORNER_DISTANCE)
"""The stance the climb onto the ceiling starts from (corner3's start, in the room)."""
WALK_TO_STAND = 0.17
"""How far (m) a walk up the wall after the climb onto it goes before the stand under the ceiling:
the climb and the spread leave main_frame about 0.33 m up; the approach takes up what is left."""
STAND_TOLERANCE = 0.01
"""How far (m) main_frame may end from the goal's: the body rides a few mm behind its targets on the
stance legs' compliance."""


class Stance(Protocol):
    """Where a stand takes the body and the feet: main_frame's pose and each foot's foothold (world, m)."""

    @property
    def body(self) -> Pose:
        """main_frame's pose (world)."""
        ...

    def foot(self, leg: str) -> np.ndarray:
        """Where ``leg``'s EE site stands (world, m)."""
        ...


@dataclass(frozen=True)
class Footholds:
    """A stance given as main_frame's pose and each foot's foothold (world, m)."""

    pose: Pose
    feet: Mapping[str, np.ndarray] = field(default_factory=dict)

    @property
    def body(self) -> Pose:
        """main_frame's pose (world)."""
        return self.pose

    def foot(self, leg: str) -> np.ndarray:
        """Where ``leg``'s EE site stands (world, m)."""
        return np.asarray(self.feet[leg], float).copy()


@dataclass(frozen=True)
class WallStand:
    """The stages that bring a stance on the wall to ``goal``: the feet in ``order`` stepped to their
    footholds, then the body's :data:`APPROACH_SHIFTS` moves (``body_first``: the moves first, then
    the steps), every stage named ``name`` (:data:`STANDS`)."""

    goal: Stance = UNDER_CEILING
    order: tuple[str, ...] = STAND_ORDER
    body_first: bool = False
    name: str = STAND

    def __post_init__(self) -> None:
        """Refuse an unknown kind of stand or a foot named twice or not at all a foot."""
        if self.name not in STANDS:
            raise ValueError(f"a stand's stages are named one of {STANDS}, not {self.name!r}")
        if len(set(self.order)) != len(self.order) or not set(self.order) <= set(STAND_ORDER):
            raise ValueError(f"a stand steps each of {STAND_ORDER} at most once, got {self.order}")

    def stages(self) -> list[tuple[str, str, np.ndarray]]:
        """(who, :attr:`name`, the foot's foothold or main_frame's goal position, world m) in order:
        each foot's step, then :data:`APPROACH_SHIFTS` body moves (or the other way round)."""
        body = self.goal.body.position
        steps = [(foot, self.name, self.goal.foot(foot)) for foot in self.order]
        moves = [("BODY", self.name, body) for _ in range(APPROACH_SHIFTS)]
        return [*moves, *steps] if self.body_first else [*steps, *moves]

    @property
    def duration(self) -> float:
        """Sim seconds the stand's phases take (s)."""
        from .wall_walk import MOVE_TIME, RELEASE_TIME, SPREAD_SEAT_TIME

        return APPROACH_SHIFTS * SHIFT_TIME + len(self.order) * (RELEASE_TIME + MOVE_TIME + SPREAD_SEAT_TIME)

    def shortfall(self, body: Pose) -> str:
        """Why ``body`` (main_frame, world) is not where the stand puts it ('' when it is, within
        :data:`STAND_TOLERANCE`)."""
        off = float(np.linalg.norm(body.position - self.goal.body.position))
        if off <= STAND_TOLERANCE:
            return ""
        return f"the body stands {off * 1e3:.1f} mm from the stance's (at most {STAND_TOLERANCE * 1e3:g})"


def wall_approach(goal: Pose, shifts_left: int) -> list[Phase]:
    """WALL_APPROACH: every foot holds; the body moves 1 / ``shifts_left`` of the way from where it is
    to ``goal`` (main_frame, world), position and orientation."""
    if shifts_left < 1:
        raise ValueError(f"a stand's approach has at least one shift left, got {shifts_left}")

    def enter(ctx: PhaseContext) -> None:
        start = ctx.body()
        ctx.state.body_move = BodyMove(start, start.toward(goal, 1.0 / shifts_left))

    def step(t: float, ctx: PhaseContext) -> Pose:
        move = required(ctx.state.body_move, "WALL_APPROACH's move")
        return move.start.toward(move.goal, quintic(t / SHIFT_TIME))

    return [Phase(APPROACH_PHASE, SHIFT_TIME, step, enter)]
