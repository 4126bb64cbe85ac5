"""CampaignPlan: what one campaign runs, checked before anything starts. Pure Python.

A campaign is a sequence of :data:`.plan_catalogue.SEQUENCES` and what a route adds around it: a
walk (the walk a walk sequence walks, or a walk over the surface a climb climbed onto), a stand
after that walk, a walk over the floor before the climb onto the wall, the way back down after a
climb, or the way back from the stand under the ceiling. The plan refuses a combination that cannot
run, in one line that says why, and lists the campaign's stages in order.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .descent import STAGES as DESCENT_STAGES
from .errors import SequenceError
from .plan_catalogue import SEQUENCES, SequenceSpec, climb_of, spec
from .wall_stand import WallStand
from .wall_walk import WallWalk
from .way_back import GATHER, LEAVE, WALK_DOWN

WALL_CLIMB = climb_of(("floor", "wall"))
"""The climb from the floor onto the wall: a walk over the floor may come before it, a stand under
the ceiling after its walk, and the way back after that stand."""
Stage = tuple[str, str, "np.ndarray | None"]
"""(foot or BODY, stage name, a walk's or a stand's stage's move in world m, else None)."""


@dataclass(frozen=True)
class CampaignPlan:
    """One campaign: ``sequence`` (a name of :data:`.plan_catalogue.SEQUENCES`) and what comes with
    it. ``walk``: a walk sequence's direction and distance (default: its entry's), or a walk over the
    surface a climb climbed onto; ``stand``: after that walk, the body and the feet brought to a
    stance on the wall (:mod:`.wall_stand`); ``before``: a walk over the floor before the climb onto
    the wall; ``down``: after a climb, the way back down the same corner (:mod:`.descent`); ``back``:
    the climb onto the wall's way back from the stand under the ceiling (:mod:`.way_back`: the stand
    undone, the walk down, the spread undone, then the way down), which takes no walk or stand of its
    own. SequenceError names what cannot run."""

    sequence: str
    walk: WallWalk | None = None
    stand: WallStand | None = None
    before: WallWalk | None = None
    down: bool = False
    back: bool = False

    def __post_init__(self) -> None:
        refusal = self._refusal(spec(self.sequence))  # an unknown sequence refused first
        if refusal:
            raise SequenceError(refusal)
        if self.back:  # its own walk and stands, then the way down
            self._set(walk=WALK_DOWN, stand=GATHER, down=True)
        elif self.walk is None and self.entry.walks:
            self._set(walk=self.entry.default_walk)

    def _set(self, **fields: object) -> None:
        for name, value in fields.items():
            object.__setattr__(self, name, value)

    def _refusal(self, entry: SequenceSpec) -> str:
        """Why the plan cannot run ('' when it can)."""
        walk, name = self.walk, self.sequence
        if self.back and (name != WALL_CLIMB or walk is not None or self.stand is not None or self.before is not None):
            return f"the way back follows {WALL_CLIMB}'s stand under the ceiling; it takes no walk or stand"
        surface = entry.walks_over or "wall"
        if walk is not None and walk.surface != surface:
            return f"{name} walks over the {surface}, not the {walk.surface}"
        if walk is not None and not (entry.walks or entry.climbs):
            return f"{name} ends where no walk follows: a walk follows {_climbs()} (over the surface they climb onto)"
        if self.stand is not None and (walk is None or name != WALL_CLIMB):
            return "a stand follows a walk after a climb onto the wall (wall_walk:=ceiling)"
        if self.before is not None and (name != WALL_CLIMB or self.before.surface != "floor"):
            return (
                f"a walk over the floor comes before the climb from the floor onto the wall ({WALL_CLIMB}), not a "
                f"walk over the {self.before.surface} before {name}"
            )
        if not self.back and self.down and (not entry.climbs or walk is not None):
            return f"the climb back down follows a climb with all four feet ({_climbs()}) with no walk between"
        return ""

    @property
    def entry(self) -> SequenceSpec:
        """The sequence's entry in the catalogue."""
        return spec(self.sequence)

    @property
    def stands(self) -> dict[str, WallStand]:
        """The stands of the plan by their stages' name (:data:`.wall_stand.STANDS`)."""
        return {each.name: each for each in (LEAVE if self.back else None, self.stand) if each is not None}

    def stages(self, before: bool = True) -> tuple[Stage, ...]:
        """Every stage in order; ``before``: with the walk over the floor before the climb (a
        campaign whose feet are planted already has walked it)."""
        plan: list[Stage] = list(self.before.stages()) if before and self.before is not None else []
        if not self.entry.walks:  # a walk's stages are its plan's, not the template's
            plan += [(who, name, None) for who, name in self.entry.stages]
        if self.back:  # the stand undone first: the body out, the feet to the walk's stance
            plan += LEAVE.stages()
        if self.walk is not None:
            if not self.entry.walks and not self.back:  # after a climb: the stance it left spread first
                plan += self.walk.spread_stages()
            plan += self.walk.stages()
        if self.stand is not None:
            plan += self.stand.stages()
        if self.down:  # the stage's foot and name say everything: no move of its own
            plan += [(who, name, None) for who, name in DESCENT_STAGES]
        return tuple(plan)


def _climbs() -> str:
    """The climbs with all four feet, for a refusal: 'f2w_all, w2c'."""
    return ", ".join(name for name, entry in SEQUENCES.items() if entry.climbs)
