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

from dataclasses import dataclass

import numpy as np

from sally_description.pose import Pose
from sally_description.scene import CEILING_HEIGHT
from sally_description.wall_start import WallStance, standing

from .phase import Phase, PhaseContext
from .phase_state import BodyMove, required
from .trajectory import quintic
from .wall_walk import SHIFT_TIME

STAND = "wall_stand"
"""The stages of a stand (:meth:`WallStand.stages`)."""
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


@dataclass(frozen=True)
class WallStand:
    """The stages that bring a stance on the wall to ``goal``."""

    goal: WallStance = UNDER_CEILING

    def stages(self) -> list[tuple[str, str, np.ndarray]]:
        """(who, :data:`STAND`, the foot's foothold or main_frame's goal position, world m) in order:
        each foot's step, then :data:`APPROACH_SHIFTS` body moves."""
        body = self.goal.body.position
        steps = [(foot, STAND, self.goal.foot(foot)) for foot in STAND_ORDER]
        return [*steps, *(("BODY", STAND, body) for _ in range(APPROACH_SHIFTS))]

    @property
    def duration(self) -> float:
        """Sim seconds the stand's phases take (s)."""
        from .wall_walk import MOVE_TIME, RELEASE_TIME, SPREAD_SEAT_TIME

        return APPROACH_SHIFTS * SHIFT_TIME + len(STAND_ORDER) * (RELEASE_TIME + MOVE_TIME + SPREAD_SEAT_TIME)

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
