"""Campaign: one or more feet's sequences in turn, with the dual-foot handoff. Pure Python.

``f2w`` (and ``f2w_all``) first squares the body to the wall when it heads more than 0.5 deg off
the wall normal (BODY_SQUARE, 2 s, every foot holding: :func:`.climb.body_square`), then runs FL's
``f2w``; once FL has dwelt ``dwell`` (3.0 s) in F2W_REACH its runner is
force-completed, FL becomes a POSE stance foot (full pose lock) and FR's ``f2w_fr`` starts from
where FR stands. FR joins the wall feet after its own dwell; the campaign is done ``hold`` seconds
later. ``f2w_all`` (:mod:`.climb`) always runs BODY_SQUARE (it puts the IK's stance feet in their
faces-flat mode), steps BL and BR along the floor toward the corner, runs f2w, then a BODY stage
moves the body through the corner while every foot holds, then BL and BR are put on the wall in
turn; it is done ``hold`` seconds after BR is planted. ``orient``, ``f2w_fr``, ``wall_hold``
(FL's f2w) and ``floor_lift`` (FL lifted) are single-foot campaigns (``orient`` is done ``hold``
seconds after its orient motion ends, ``floor_lift`` ``hold`` seconds after the lift).

Whoever drives it (the sequencer node, a test) calls :meth:`Campaign.step` with a sim time and the
feet as last measured, and gets back what to send: the swing target, and the stances and magnet
switches that changed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np

from sally_description.constants import LEGS
from sally_description.pose import Pose, pose_from_hips
from sally_node_common.ik_target import IKTarget
from sally_node_common.stance import StanceMode

from .catalogue import make_sequence
from .descent import SEQUENCE_FEET as DESCENT
from .descent import make_descent
from .errors import SequenceError
from .phase import Ending, PhaseContext
from .phase_state import required
from .plan import CampaignPlan
from .plan_catalogue import BODY
from .runner import RunnerStatus, SequenceRunner
from .sequences import SEAT_SETTLE
from .wall_stand import STANDS, UNDER_CEILING, WallStand, wall_approach
from .wall_walk import (
    FOOT_ORDER,
    SPREAD,
    SPREAD_MAGNET_AT,
    SPREAD_PHASE,
    SPREAD_SEAT_TIME,
    WallWalk,
    wall_shift,
    wall_step,
)

FEET = LEGS
SWING, POSITION, POSE = (mode.name for mode in (StanceMode.SWING, StanceMode.POSITION, StanceMode.POSE))
"""The stances the core sets, by name (the node sends their :class:`StanceMode` values)."""
DWELL = 3.0
"""DUAL_REACH_DWELL: time in F2W_REACH after which a foot counts as planted."""
HOLD = 1.0


@dataclass(frozen=True)
class FootReading:
    """One foot as last measured: its EE site and hip pivot (world, m)."""

    position: np.ndarray
    hip_pivot: np.ndarray


@dataclass
class Tick:
    """What to send for one step: None / empty where nothing changed."""

    target: tuple[str, IKTarget] | None = None
    body: Pose | None = None
    """Where the body should be (a BODY stage); None: the IK keeps its latest body target."""
    stance: dict[str, str] | None = None
    magnets: dict[str, bool] = field(default_factory=dict)
    events: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class CampaignStatus:
    """Where a campaign stands: its sequence, foot, phase, and whether it has started, finished or failed."""

    sequence: str
    foot: str
    runner: RunnerStatus | None
    started: bool
    done: bool
    failed: bool
    message: str


@dataclass(frozen=True)
class CampaignTiming:
    """A campaign's times (s of campaign time)."""

    start_time: float
    """Settling before the sequence starts."""
    dwell: float
    """Time in F2W_REACH after which a foot is planted."""
    hold: float
    """Time held after the last foot is planted."""

    def __post_init__(self) -> None:
        for name in ("start_time", "dwell", "hold"):
            value = getattr(self, name)
            if not np.isfinite(value) or value < 0:
                raise SequenceError(f"{name} must be a non-negative finite number of seconds, got {value!r}")


@dataclass
class WalkProgress:
    """Where the walk under way stands (the walk before the climb, then the one after it)."""

    walk: WallWalk | None = None
    """The walk whose designed footholds :attr:`footholds` are."""
    spread: float = 0.0
    """How far the spread's leading feet step (m; :meth:`.wall_walk.WallWalk.spread`)."""
    start: np.ndarray | None = None
    """main_frame's position (world, m) when the plan's walk itself began."""
    footholds: dict[str, np.ndarray] = field(default_factory=dict)
    """The walk's designed footholds (world, m): each foot where the walk began plus its steps so
    far. A step aims at its foot's next one (in the plate's plane), not at where the foot landed
    plus a step, so that the small landing errors do not add up over a walk."""


class Campaign:
    """A whole sequence (one foot after another, body moves between): the sequencer's pure core."""

    def __init__(
        self,
        sequence: str | CampaignPlan,
        start_time: float = 0.5,
        dwell: float = DWELL,
        hold: float = HOLD,
        planted: Mapping[str, np.ndarray] | None = None,
        walk: WallWalk | None = None,
        stand: WallStand | None = None,
        before: WallWalk | None = None,
        down: bool = False,
        back: bool = False,
    ) -> None:
        """``sequence``, ``walk``, ``stand``, ``before``, ``down``, ``back``: the campaign's
        :class:`.plan.CampaignPlan` (refused there when it cannot run), or that plan as ``sequence``
        (the others left out). ``planted``: feet already on
        the wall (foot -> position), e.g. found so by a sequencer restarted mid-run; their stages are
        skipped and they stay POSE stance feet (a walk steps planted feet, so it skips nothing, and it
        starts only with every foot planted; a sequencer restarted with feet planted cannot tell a
        climb from its way down, so such a campaign stops at once). The way back (``back``) starts
        with every foot planted where the stand under the ceiling put it (``planted`` by default)."""
        if isinstance(sequence, CampaignPlan):
            if walk is not None or stand is not None or before is not None or down or back:
                raise SequenceError("a campaign takes its plan, or a sequence and what comes with it, not both")
            self.plan = sequence
        else:
            self.plan = CampaignPlan(sequence, walk, stand, before, down, back)
        unknown = sorted(set(planted or {}) - set(FEET))
        if unknown:
            raise SequenceError(f"planted feet {unknown} are not feet of {list(FEET)}")
        self.timing = CampaignTiming(float(start_time), float(dwell), float(hold))
        if self.plan.back:  # every foot where the stand under the ceiling put it
            planted = planted or {foot: UNDER_CEILING.foot(foot) for foot in FEET}
        self.resumed = tuple(planted or ())
        self._plan = self.plan.stages(before=not self.resumed)  # a foot planted: the walk before it was done
        """(foot or BODY, stage name, a walk's or a stand's stage's move in world m, else None) of
        every stage."""
        self._walking = WalkProgress()
        self.stage = -1
        self.stance = {foot: POSITION for foot in FEET}
        self.planted: dict[str, float] = {}
        """foot -> sim time it was declared planted."""
        self.range_of: Callable[[str], float] | None = None
        """A foot's range sensor reading for the tick under way (m; nan: none), where the runner
        reads the feet's range sensors: the measure takes the surface's distance from it."""
        self.contact_of: Callable[[str], bool] | None = None
        """Whether a foot's contact sensor says contact for the tick under way, where the runner
        reads it: a seat ends on it."""
        self.plant_targets: dict[str, np.ndarray] = {}
        self.phase_log: list[tuple[str, str, float]] = []
        """(foot, phase, sim time it began), in order."""
        self.runner: SequenceRunner | None = None
        self.done_at: float | None = None
        self._finish_at = float("inf")
        self.failed = False
        self.message = ""
        self._feet: Mapping[str, FootReading] = {}
        self._tick = Tick()
        self._last_time: float | None = None
        self._resume(planted or {})

    def _resume(self, planted: Mapping[str, np.ndarray]) -> None:
        """Feet ``planted`` already (foot -> position) hold as POSE stance feet from the start; a plan
        that comes back down does not resume."""
        for foot, position in planted.items():
            self.stance[foot] = POSE
            self.planted[foot] = self.timing.start_time
            self.plant_targets[foot] = np.asarray(position, dtype=float)
        if self.down and self.planted and not self.back:
            self.abort(
                f"{', '.join(sorted(self.planted))} found planted on the wall by a restarted sequencer: a route that "
                "climbs back down does not resume (the climb and the way down pass through the same stances)"
            )

    @property
    def sequence(self) -> str:
        """The sequence the campaign runs (:data:`.plan_catalogue.SEQUENCES`)."""
        return self.plan.sequence

    @property
    def before(self) -> WallWalk | None:
        """The plan's walk over the floor before the climb, unless a foot was planted at the start
        (the walk before it was done)."""
        return self.plan.before if not self.resumed else None

    @property
    def walk_from(self) -> np.ndarray | None:
        """main_frame's position (world, m) when the walk itself (the plan's, not the one before the
        climb) began; None before."""
        return self._walking.start

    @property
    def walk(self) -> WallWalk | None:
        """The plan's walk (a walk sequence's, or the walk after the climb)."""
        return self.plan.walk

    @property
    def stand(self) -> WallStand | None:
        """The plan's stand after its walk."""
        return self.plan.stand

    @property
    def down(self) -> bool:
        """Whether the plan comes back down the corner it climbed."""
        return self.plan.down

    @property
    def back(self) -> bool:
        """Whether the plan is the way back from the stand under the ceiling."""
        return self.plan.back

    @property
    def stages(self) -> tuple[tuple[str, str], ...]:
        """(foot or BODY, stage name) of every stage, in order."""
        return tuple((who, name) for who, name, _ in self._plan)

    @property
    def start_time(self) -> float:
        """Campaign time the sequence starts at (s; settling before it)."""
        return self.timing.start_time

    def _next_stage(self, after: int) -> int | None:
        """The first stage after ``after`` whose foot is not planted yet and that no planted foot's
        stage follows (a foot planted already says every stage before its own was done: the body
        moved, the back feet stepped along the floor; f2w squares a body only when it is turned, the
        climb always does)."""
        for i in range(after + 1, len(self.stages)):
            who, name = self.stages[i]
            if self._moves_planted(i):  # each one runs
                return i
            if name == "body_square" and not self._turned() and not self.moves_body:
                continue
            climbing = [self._plan[j][0] for j in range(i + 1, len(self._plan)) if not self._moves_planted(j)]
            if any(foot in self.planted for foot in climbing):
                continue
            if who == BODY or who not in self.planted:
                return i
        return None

    def _moves_planted(self, index: int) -> bool:
        """Whether stage ``index`` moves feet that are planted (a walk's, a stand's, the way down's),
        so that it runs whatever is planted; a climb's stage is done already for a planted foot."""
        _, name, move = self._plan[index]
        return move is not None or name in DESCENT

    def _turned(self) -> bool:
        """Whether the body heads far enough from the wall normal to be squared first (the body
        is read off the hips; before any reading, it is not)."""
        from .climb import SQUARE_MIN_DEG

        return bool(self._feet) and abs(self.body().yaw_deg) > SQUARE_MIN_DEG

    @property
    def moves_body(self) -> bool:
        """Whether the campaign moves the body through the corner (the climb) or over the wall (a walk):
        it must end pitched to the wall, unless it comes back down (:attr:`down`)."""
        over_the_wall = self.walk is not None and self.walk.surface == "wall"
        return over_the_wall or any(name == "body_climb" for _, name in self.stages)

    @property
    def foot(self) -> str:
        """The foot moving now (or the first one, before the start)."""
        if self.stage < 0:  # not started: the first foot (a squaring of the body may come first)
            return next(who for who, _ in self.stages if who != BODY)
        return self.stages[self.stage][0]

    @property
    def done(self) -> bool:
        """Whether the campaign has finished or failed."""
        return self.done_at is not None or self.failed

    def abort(self, reason: str) -> None:
        """Stop here, failed with ``reason`` (a command the node refused to send): nothing more is stepped."""
        self.failed, self.message = True, reason

    def step(self, t: float, feet: Mapping[str, FootReading]) -> Tick:
        """The commands for sim time ``t`` (non-decreasing) given the feet as last measured."""
        if not np.isfinite(t) or (self._last_time is not None and t < self._last_time):
            raise SequenceError(f"campaign time must be finite and non-decreasing, got {t!r} after {self._last_time!r}")
        missing = [f for f in FEET if f not in feet]
        if missing:
            raise SequenceError(f"foot readings lack {missing}")
        self._last_time, self._feet, self._tick = t, feet, Tick()
        if self.done or t < self.start_time:
            return self._tick
        try:
            if self.stage < 0 and self.plan.entry.walks:
                self._begin_walk(required(self.walk, "the walk's plan"))  # refused before any stage starts
            if self.stage < 0:
                first = self._next_stage(-1)
                if first is None:  # every foot is planted already: hold, then done
                    self.stage, self._finish_at = len(self.stages) - 1, t + self.timing.hold
                    self._set_stance({})
                    self._tick.events.append(
                        f"{', '.join(self.planted)} already planted: holding {self.timing.hold:g} s"
                    )
                    if self.done_at is None and t >= self._finish_at:
                        self.done_at = t
                    return self._tick
                if self.resumed:
                    self._tick.events.append(f"resuming: {', '.join(self.resumed)} already planted")
                self._start_stage(first, t)
            if self.runner is None:
                if self.done_at is None and t >= self._finish_at:
                    self.done_at = t
                    self._tick.events.append(f"done at {t:.3f} s")
                return self._tick
            self._advance(t)
        except SequenceError as exc:
            self.failed, self.message = True, str(exc)
            self._tick.events.append(f"failed: {exc}")
        return self._tick

    def _advance(self, t: float) -> None:
        runner = self.runner
        assert runner is not None
        if runner.done:
            if self.done_at is None and t >= self._finish_at:
                self.done_at = t
                self._tick.events.append(f"done at {t:.3f} s")
            return
        before = runner.index
        target = runner.step(t)
        for index in range(before + 1, runner.index + 1):  # an instant phase is passed within a step
            self._log_phase(runner.phases[index].name, runner.phase_start)
        if isinstance(target, Pose):
            self._tick.body = target
            if runner.done:
                self._body_moved(t)
            return
        self._tick.target = (self.foot, target)
        ends, since = runner.phase.ends, t - runner.phase_start
        if runner.done and ends is Ending.STEPPED:
            self._stepped(t)
        elif runner.done and ends is Ending.PLANTED:
            self._plant(t)
        elif ends is Ending.PLANTED_AFTER_DWELL and since >= self._dwell(runner):
            self._plant(t)
        elif ends is Ending.HOLDS and since >= runner.phase.duration + self.timing.hold:
            runner.force_complete()
            self._finish_at = t
            self._advance(t)

    def _dwell(self, runner: SequenceRunner) -> float:
        """How long F2W_REACH dwells before its foot is planted: the campaign's dwell, and with a
        seat that waited for its contact sensor at least as long after the touch as the timed seat's
        magnet had before it (its magnet on for a settle's time)."""
        seating = runner.ctx.state.seating
        if seating is None or seating.touched is None:
            return self.timing.dwell
        return max(self.timing.dwell, seating.touched[0] + 2 * SEAT_SETTLE)

    def _plant(self, t: float) -> None:
        foot, runner = self.foot, self.runner
        assert runner is not None, "a foot is planted only while its sequence runs"
        runner.force_complete()  # FL stays where it was put
        self.planted[foot] = t
        self.plant_targets[foot] = np.array(required(runner.ctx.state.reach, "F2W_MEASURE's plan").plant)
        self._set_stance({foot: POSE})
        self._tick.target = None  # a held foot takes no targets
        self._tick.events.append(f"{foot} planted on the wall at {t:.3f} s")
        self._stage_ended(t)

    def _stepped(self, t: float) -> None:
        """A floor step ended: the foot holds the floor again where it was put."""
        foot = self.foot
        self._set_stance({foot: POSITION})
        self._tick.target = None  # a held foot takes no targets
        self._tick.events.append(f"{foot} stepped on the floor at {t:.3f} s")
        self._stage_ended(t)

    def _body_moved(self, t: float) -> None:
        self._tick.events.append(f"body moved at {t:.3f} s")
        self._stage_ended(t, advance=False)  # this tick carries the body's last target

    def _stage_ended(self, t: float, advance: bool = True) -> None:
        """The next stage starts at ``t`` (and, with ``advance``, gives this tick its first target);
        after the last one the campaign is done ``hold`` seconds later."""
        following = self._next_stage(self.stage)
        if following is None:
            self._finish_at = t + self.timing.hold
            return
        self._start_stage(following, t)
        if advance:
            self._advance(t)

    def body(self) -> Pose:
        """main_frame's pose from the hips as last measured."""
        return pose_from_hips({foot: self._reading(foot).hip_pivot for foot in FEET})

    def _start_stage(self, index: int, t: float) -> None:
        walk = self._walk_of(index)
        if walk is not None and walk is not self._walking.walk:  # a walk's first stage (before or after a climb)
            self._begin_walk(walk)  # refused before its first foot is freed
        self.stage = index
        foot, name = self.stages[index]
        moving = foot if foot != BODY else FEET[0]  # a body stage swings no foot; its ctx foot is unused
        ranges, contacts = self.range_of, self.contact_of
        ctx = PhaseContext(
            foot=foot,
            ee_home=self._reading(moving).position.copy(),
            ee_pos_fn=lambda: self._reading(moving).position,
            hip_pivot_fn=lambda: self._reading(moving).hip_pivot,
            enable_magnet=lambda: self._switch(moving, True),
            disable_magnet=lambda: self._switch(moving, False),
            range_fn=(lambda: ranges(moving)) if ranges is not None else None,
            contact_fn=(lambda: contacts(moving)) if contacts is not None else None,
            body_fn=self.body,
        )
        if foot != BODY:
            self._set_stance({foot: SWING})
        if name in DESCENT:  # a foot leaving the wall on the way down is planted no more
            self.planted.pop(foot, None)
        move = self._plan[index][2]
        if name in DESCENT:
            phases = make_descent(name)
        elif move is None:
            phases = make_sequence(name)
        elif name in STANDS:
            phases = self._stand_phases(index, foot, move)
        else:
            phases = self._walk_phases(foot, name, move)
        self.runner = SequenceRunner(phases, ctx, t)
        self._log_phase(self.runner.phase.name, t)

    def _walk_phases(self, foot: str, name: str, move: np.ndarray) -> list:
        """A walk's stage (or its spread's): the body shifted by ``move``, or ``foot`` stepped by it
        from its designed foothold."""
        walking = self._walking
        walk = required(walking.walk, "the walk's plan")
        if name == SPREAD:
            move = move * (walking.spread / 2 if foot == BODY else walking.spread)
        elif walking.start is None and walk is self.walk:
            walking.start = self.body().position.copy()
        if foot == BODY:
            return wall_shift(move, SPREAD_PHASE) if name == SPREAD else walk.shift(move)
        walking.footholds[foot] = walking.footholds[foot] + move
        if name == SPREAD:
            return wall_step(walking.footholds[foot], SPREAD_MAGNET_AT, SPREAD_SEAT_TIME)
        return walk.step(walking.footholds[foot])

    def _stand_phases(self, index: int, foot: str, goal: np.ndarray) -> list:
        """A stand's stage ``index``: the body's approach (its share of what is left toward the
        stance's main_frame, turned as the stance is), or ``foot``'s step to ``goal``, its foothold."""
        kind = self._plan[index][1]
        stand = required(self.plan.stands.get(kind), "the stand's plan")
        if foot == BODY:  # its share of what is left: the approach's shifts to come, this one's on
            left = sum(1 for who, name, _ in self._plan[index:] if who == BODY and name == kind)
            return wall_approach(Pose(np.asarray(goal, float), stand.goal.body.quat), left)
        self._walking.footholds[foot] = np.asarray(goal, float).copy()
        return wall_step(self._walking.footholds[foot], SPREAD_MAGNET_AT, SPREAD_SEAT_TIME)

    def _walk_of(self, index: int) -> WallWalk | None:
        """The walk stage ``index`` belongs to (None: not a walk's, or a stand's)."""
        _, name, move = self._plan[index]
        if move is None or name in STANDS:
            return None
        before = self.before
        return before if before is not None and name.startswith("floor_") else self.walk

    def _begin_walk(self, walk: WallWalk) -> None:
        """``walk``'s designed footholds start where the feet are now; SequenceError unless every
        foot stands where the walk starts (on the wall, planted; on the floor, none planted) and the
        walk (its spread first, after a climb) keeps every magnet on its surface's steel."""
        self._walking.walk = walk
        if walk.surface == "floor" and self.planted:
            raise SequenceError(
                f"floor_walk starts with every foot on the floor; planted on the wall: {sorted(self.planted)}"
            )
        if walk.surface == "wall" and set(self.planted) != set(FEET):
            raise SequenceError(
                f"wall_walk starts with every foot planted on the wall (start:=wall); planted: "
                f"{sorted(self.planted) or 'none'}"
            )
        feet = {foot: self._reading(foot).position for foot in FEET}
        if walk is self.walk and any(name == SPREAD for _, name in self.stages):
            self._walking.spread = walk.spread(feet)
            for foot in FOOT_ORDER[walk.direction][:2]:  # where the spread puts the leading feet
                feet[foot] = feet[foot] + self._walking.spread * walk.unit
        off = walk.off_plate(feet)
        if off:
            raise SequenceError(off)
        self._walking.footholds = {f: self._reading(f).position.copy() for f in FEET}

    def _reading(self, foot: str) -> FootReading:
        reading = self._feet[foot]
        return FootReading(np.asarray(reading.position, float), np.asarray(reading.hip_pivot, float))

    def _switch(self, foot: str, on: bool) -> None:
        self._tick.magnets[foot] = on
        self._tick.events.append(f"{foot} magnet {'on' if on else 'off'}")

    def _set_stance(self, changes: Mapping[str, str]) -> None:
        self.stance.update(changes)
        self._tick.stance = dict(self.stance)

    def _log_phase(self, phase: str, t: float) -> None:
        self.phase_log.append((self.foot, phase, t))
        self._tick.events.append(f"{self.foot} {phase} from {t:.3f} s")

    def status(self, t: float) -> CampaignStatus:
        """Where the campaign stands at sim time ``t``."""
        runner = None if self.runner is None else self.runner.status(t)
        return CampaignStatus(
            self.sequence, self.foot, runner, self.stage >= 0, self.done_at is not None, self.failed, self.message
        )
