"""RoutePlan and RouteRun: a run's campaigns, one after another, and the state machine that hands
one over to the next. Pure Python.

A run is one campaign (:class:`.plan.CampaignPlan`), or a route of two climbs: the climb onto the
wall with its walk to the stand under the ceiling, then the climb onto the ceiling (``then``) in its
own corner's frame, with a walk along the ceiling or the way back down onto the wall after it; and
after that way down, the way back (``back``: the first climb's way back down the wall and onto the
floor, in its frame). :func:`route_plan` builds the plan from the sequencer's parameters (the graph
splits its ``route:=`` into them) and refuses, in one line, a combination that cannot run.

Whoever drives a :class:`RouteRun` (the sequencer node, a test) steps :attr:`RouteRun.campaign`; when
it is done, :meth:`RouteRun.hand_over` starts the next one; a sequencer started mid-run resumes the
campaign whose frame the foot states come in (:meth:`RouteRun.resume`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from .campaign import Campaign, CampaignTiming
from .errors import SequenceError
from .phase_state import required
from .plan import WALL_CLIMB, CampaignPlan
from .plan_catalogue import frame_of, spec
from .wall_stand import WallStand
from .wall_walk import WallWalk


@dataclass(frozen=True)
class RoutePlan:
    """A run's campaigns: the first, the route's next climb (None: none), and whether the way back
    follows that climb's way down."""

    first: CampaignPlan
    then: CampaignPlan | None = None
    back: bool = False


def route_plan(
    sequence: str,
    direction: str = "up",
    distance: float = 0.30,
    wall_walk: float = 0.0,
    stand: bool = False,
    floor_walk: float = 0.0,
    down: bool = False,
    then: str = "",
    then_walk: float = 0.0,
    then_down: bool = False,
    then_back: bool = False,
) -> RoutePlan:
    """The plan the sequencer's parameters of these names give (m for the distances); SequenceError
    says what cannot run. A walk sequence walks ``distance`` in ``direction`` over its plate; after a
    climb onto the wall, ``wall_walk`` m up it (then the stand under the ceiling with ``stand``);
    ``floor_walk`` m over the floor before that climb; ``down``: the way back down after the climb;
    ``then``: the next climb, with ``then_walk`` m after it or its way down (``then_down``), and after
    that the way back (``then_back``)."""
    walks_over = spec(sequence).walks_over
    walk = None
    if walks_over is not None:
        walk = WallWalk(direction, float(distance), walks_over)
    elif wall_walk > 0:
        walk = WallWalk("up", float(wall_walk))
    if then and not stand:
        raise SequenceError(
            f"then:={then} climbs from the stand under the ceiling: {WALL_CLIMB} with wall_walk and stand set"
        )
    if then_walk > 0 and not then:
        raise SequenceError(f"then_walk:={then_walk:g} walks after the 'then' climb: set then")
    if then_down and (not then or then_walk > 0):
        raise SequenceError("then_down comes back down after the 'then' climb: set then, and no then_walk")
    if then_back and not then_down:
        raise SequenceError("then_back comes back down the wall after the 'then' climb's way down: set then_down")
    before = WallWalk("forward", float(floor_walk), "floor") if floor_walk > 0 else None
    first = CampaignPlan(sequence, walk, WallStand() if stand else None, before, bool(down))
    next_walk = WallWalk("up", float(then_walk)) if then_walk > 0 else None
    second = CampaignPlan(then, next_walk, down=bool(then_down)) if then else None
    return RoutePlan(first, second, bool(then_back))


def route_parameters(plan: RoutePlan) -> dict[str, object]:
    """The sequencer's parameters that make ``plan``, those of :func:`route_plan`'s names that it
    needs (the others keep their defaults): ``route_plan(**route_parameters(plan))`` is ``plan``'s
    plan again. The graph hands them to the sequencer node."""
    first, then = plan.first, plan.then
    out: dict[str, object] = {"sequence": first.sequence}
    if first.walk is not None and first.entry.walks:
        out.update(direction=first.walk.direction, distance=first.walk.distance)
    elif first.walk is not None:  # the walk after the climb
        out["wall_walk"] = first.walk.distance
    if first.stand is not None:
        out["stand"] = True  # then the stand under the ceiling
    if first.before is not None:  # the walk over the floor to the climb's start
        out["floor_walk"] = first.before.distance
    if first.down:
        out["down"] = True
    if then is not None:  # the route's next climb, the walk after it or its way down
        out["then"] = then.sequence
        if then.walk is not None:
            out["then_walk"] = then.walk.distance
        if then.down:
            out["then_down"] = True
    if plan.back:
        out["then_back"] = True  # and on down the wall, onto the floor
    return out


class RouteRun:
    """A route run: the campaign under way, the frame it plans in, and what is still to run."""

    def __init__(self, plan: RoutePlan, timing: CampaignTiming) -> None:
        """``timing``: each campaign's (the first starts at its ``start_time``; each next one that
        long after the one before it is done, while the IK takes its stances in the new frame)."""
        self.plan, self.timing = plan, timing
        self.campaign = self._campaign(plan.first, timing.start_time)
        self.then = plan.then
        """The climb still to run after this campaign (None once it runs, or without one)."""
        self.back = plan.back
        """Whether the way back is still to run after the 'then' climb."""
        self.first: Campaign | None = None
        """The campaign that ran before this one (a route's climb onto the wall), once it is done."""
        self.second: Campaign | None = None
        """The route's second climb, once it is done and the way back runs."""

    def _campaign(
        self, plan: CampaignPlan, start_time: float, planted: Mapping[str, np.ndarray] | None = None
    ) -> Campaign:
        timing = self.timing
        return Campaign(plan, start_time, timing.dwell, timing.hold, planted or None)

    @property
    def frame(self) -> str:
        """The TF frame the campaign under way plans in: its climbed corner's."""
        return frame_of(self.campaign.sequence)

    @property
    def next_due(self) -> bool:
        """Whether another campaign follows the one under way once it is done."""
        return self.then is not None or (self.back and self.first is not None)

    def hand_over(self, t: float) -> Campaign:
        """The campaign under way is done at sim time ``t``: the next one starts (the campaign that
        ended is returned)."""
        settle = t + self.timing.start_time  # held while the IK takes its stances there
        ended = self.campaign
        if self.then is not None:
            self.first, self.campaign, self.then = ended, self._campaign(self.then, settle), None
        else:  # the 'then' climb came back down: the way back down the wall, in the first climb's frame
            first = required(self.first, "the route's first climb")
            self.campaign = self._campaign(CampaignPlan(first.sequence, back=True), settle)
            self.back, self.second = False, ended
        return ended

    def resume(self, frame: str, planted: Mapping[str, np.ndarray]) -> str:
        """The run's first foot states came in ``frame`` with feet ``planted`` already (foot ->
        position; a sequencer started mid-run): the campaign they belong to, resumed. What was
        resumed, for the log ('' when nothing was: no foot planted, in the first campaign's frame)."""
        if self.then is not None and frame == frame_of(self.then.sequence) != self.frame:
            self.campaign, self.then = self._campaign(self.then, self.timing.start_time, planted), None
            return (
                f"resuming the route at its {self.campaign.sequence} climb (the IK plans in {self.frame!r}): "
                f"{sorted(planted)} already planted"
            )
        if not planted:
            return ""
        self.campaign = self._campaign(self.plan.first, self.timing.start_time, planted)
        if self.back:  # on the wall in the first climb's frame: on the way up, or on the way back?
            self.campaign.abort(
                f"{', '.join(sorted(planted))} found planted by a restarted sequencer: a route that comes back the "
                "way it went does not resume (the way up and the way back pass through the same stances)"
            )
        return f"resuming the {self.campaign.sequence} run: {sorted(planted)} already planted on the wall"

    def verdict(self, message: str, succeeded: bool, all_held: str) -> str:
        """The run's final message from the last campaign's ``message``: what the route ran before it
        said first (``all_held``: every foot held where the way back ends)."""
        if self.second is not None and succeeded:  # the way back: both climbs are done, and back down
            message = f"{self.second.sequence} done and back down, then the way back: {all_held}"
        if self.first is not None:  # a route's second climb: the first one is done
            message = f"{self.first.sequence} done, then {message}"
        return message
