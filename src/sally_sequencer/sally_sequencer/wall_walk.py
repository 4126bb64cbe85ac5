"""The walk: a statically stable crawl over the wall (or the floor), one foot at a time, three magnets holding.

``wall_walk`` starts with every foot planted on the wall (``start:=wall``) and moves the body
``distance`` (m) ``up``, ``down``, ``left`` (+y, the robot's left) or ``right`` along the wall, in
cycles of one step length ``s`` (:meth:`WallWalk.steps`: at most :data:`STEP` m, the distance split
evenly):

WALL_SHIFT (1.5 s)      every foot holds; the body moves half a step (the first and last cycle) or a
                        whole step (between cycles) along the walk, on one quintic
then each foot in turn, leading feet first (:data:`FOOT_ORDER`), a step of ``s``:
WALL_RELEASE (0.4 s)    the magnet off, the foot straight off the wall by :data:`CLEARANCE`
WALL_MOVE (0.8 s)       along the wall, :data:`CLEARANCE` off it, to in front of its new plant point
WALL_SEAT (0.6 s)       straight onto the plant point (trimmed in the wall's plane by the measured
                        error until the magnet goes on, :mod:`.seat_trim`), the magnet on at 0.4 s,
                        then held; the foot is a POSE stance foot again at the end

The plant point of a step is the foot's next designed foothold in the wall's plane (where the foot
stood as the walk began, plus its steps so far), at the depth the foot held the steel before it let
go: aimed at the plan, not at where the foot landed last plus a step, a foot's landing errors
(0.1-0.7 mm, the same way each time) do not add up over a walk.

Why this step length (``sally-reach``'s leg IK, :mod:`sally_description.wall_start`): with the body
0.35 m from the wall a foot plants from 0.13 to about 0.43 m above (front) or below (back)
main_frame, and from 0.08 to 0.28 m beside its centre line. Standing :data:`~sally_description.
wall_start.WALL_STANCE` (0.24 m, 0.16 m), a foot moves half a step either side of its stance
point over a cycle, so the sideways band (0.08 m of room inward) sets the step: at most 0.16 m
there, 0.22 m up and down. :data:`STEP` is 0.10 m: the pace is set by time, not reach (below).

Why these times: the magnet switches at once in the model, the joints track their targets
0.5-1 deg behind, and a foot landing while still moving slides along the plate before its face
holds (the climb's seat, :mod:`.sequences`): the seat goes straight in along the wall normal and
dwells before the magnet goes on. A cycle is four 1.8 s steps and a 1.5 s body shift, 8.7 s for
0.10 m; with the half shifts at either end a 0.30 m walk makes 10.6-10.7 mm/s.

The floor walk (``floor_walk``, :data:`SURFACES`) is the same plan on the corner's floor: the body
shifts and the feet step ``forward`` (toward the corner, +x), ``back``, ``left`` or ``right`` over the
floor, each step straight up off it by :data:`CLEARANCE`, along it, straight down onto its foothold
(FLOOR_SHIFT, FLOOR_RELEASE, FLOOR_MOVE, FLOOR_SEAT, the same times), every foot a FLOOR stance
foot again after its seat.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from sally_description.constants import MAGNET_DIAMETER
from sally_description.pose import Pose
from sally_description.scene import DEFAULT_SCENE, scene
from sally_description.surfaces import Surface
from sally_description.wall_start import WALL_STANCE
from sally_node_common.ik_target import IKTarget

from .errors import SequenceError
from .phase import Ending, Phase, PhaseContext
from .phase_state import BodyMove, Move, ReachPlan, Seating, required
from .seat_trim import SeatTrim
from .sequences import FACE_FLOOR, FACE_WALL
from .trajectory import quintic


@dataclass(frozen=True)
class WalkSurface:
    """A plate of the climbed corner a walk goes over, in the planning frame: ``into`` (unit, along
    one of the frame's axes, into the plate: a planted face's axis), its walk directions (name ->
    unit vector in its plane), its steel (the surface, in the planning frame) and what a seat on it
    ends with (the wall's plants the foot; the floor's puts it down where it holds again)."""

    name: str
    into: np.ndarray
    directions: dict[str, np.ndarray]
    steel: Surface
    seated: Ending

    @property
    def depth(self) -> int:
        """The frame's axis (0, 1, 2: x, y, z) along the plate's normal."""
        return int(np.argmax(np.abs(self.into)))

    @property
    def axes(self) -> tuple[int, int]:
        """The frame's two axes in the plate's plane, in order."""
        first, second = (i for i in range(3) if i != self.depth)
        return first, second

    def phase(self, kind: str) -> str:
        """The name of this surface's walk phase ``kind`` (SHIFT, RELEASE, MOVE, SEAT): WALL_SEAT, ..."""
        return f"{self.name.upper()}_{kind}"


_LEFT, _RIGHT = np.array([0.0, 1.0, 0.0]), np.array([0.0, -1.0, 0.0])
_CORNER = scene(DEFAULT_SCENE)
SURFACES = {
    "wall": WalkSurface(
        "wall",
        FACE_WALL,
        {"up": np.array([0.0, 0.0, 1.0]), "down": np.array([0.0, 0.0, -1.0]), "left": _LEFT, "right": _RIGHT},
        _CORNER.in_corner(_CORNER.climbed_onto),
        Ending.PLANTED,
    ),
    "floor": WalkSurface(
        "floor",
        FACE_FLOOR,
        {"forward": np.array([1.0, 0.0, 0.0]), "back": np.array([-1.0, 0.0, 0.0]), "left": _LEFT, "right": _RIGHT},
        _CORNER.in_corner(_CORNER.stood_on),
        Ending.STEPPED,
    ),
}
"""The corner's plates a walk goes over, by their role: the one climbed onto (``wall``: up is the
frame's +z) and the one stood on (``floor``: forward is the frame's +x, toward the corner). Left is
the robot's left (+y) on both."""
DIRECTIONS = {name: unit for surface in SURFACES.values() for name, unit in surface.directions.items()}
"""Every walk direction of any surface -> its unit vector (world)."""
FOOT_ORDER = {
    "up": ("FL", "FR", "BL", "BR"),
    "forward": ("FL", "FR", "BL", "BR"),
    "down": ("BL", "BR", "FL", "FR"),
    "back": ("BL", "BR", "FL", "FR"),
    "left": ("FL", "BL", "FR", "BR"),
    "right": ("FR", "BR", "FL", "BL"),
}
"""The order the feet step in, for each direction: the leading feet first."""
SHIFT_PHASES = frozenset(surface.phase("SHIFT") for surface in SURFACES.values())
RELEASE_PHASES = frozenset(surface.phase("RELEASE") for surface in SURFACES.values())
SEAT_PHASES = frozenset(surface.phase("SEAT") for surface in SURFACES.values())
STEP_PHASES = frozenset(surface.phase(kind) for surface in SURFACES.values() for kind in ("RELEASE", "MOVE", "SEAT"))
"""A walk's phases of every surface, by kind."""
STEP = 0.10
"""The longest step (m) of a foot, and how far the body moves per cycle."""
MAX_DISTANCE = 1.0
"""The longest walk asked for (m): the wall plate is 1 m square."""
WALK_TOLERANCE = 0.02
"""A walk succeeds when the body went at least its distance less this (m) along its direction: the
body rides a few mm behind its targets on the stance legs' compliance (0.30 m up: 292 mm)."""
CLEARANCE = 0.02
"""How far off the wall (m) a stepping foot moves."""
SHIFT_TIME = 1.5
RELEASE_TIME, MOVE_TIME, SEAT_TIME, MAGNET_AT = 0.4, 0.8, 0.6, 0.4
MAGNET_RADIUS = MAGNET_DIAMETER / 2
"""A walk keeps every magnet's whole face on the wall's steel (m)."""
SPREAD = "wall_spread"
"""The stages that spread a stance a climb left short before a walk (:meth:`WallWalk.spread`)."""
SPREAD_PHASE = "WALL_SPREAD"
"""The body's move of the spread (a walk's own body moves are WALL_SHIFT)."""
MAX_SPREAD = 0.22
"""The longest step (m) the spread asks of a leading foot: the reach band's room along the wall."""
SPREAD_MAGNET_AT, SPREAD_SEAT_TIME = 0.8, 1.0
"""A spreading step's seat (s): it plants 0.32 m above the body, where the leg gives most, and with
the walk's 0.4 s before its magnet the trim left it 1.3-2.0 mm off its plant (0.4-0.9 mm now)."""


@dataclass(frozen=True)
class WallWalk:
    """A walk of ``distance`` (m) in ``direction`` over ``surface`` (a plate of :data:`SURFACES`:
    the wall, or the floor)."""

    direction: str = "up"
    distance: float = 0.30
    surface: str = "wall"

    def __post_init__(self) -> None:
        """Refuse an unknown surface, a direction the surface has not, or a distance that is not a
        positive number of metres up to :data:`MAX_DISTANCE`."""
        if self.surface not in SURFACES:
            raise SequenceError(f"a walk goes over one of {sorted(SURFACES)}, not {self.surface!r}")
        if self.direction not in SURFACES[self.surface].directions:
            raise SequenceError(
                f"walk direction {self.direction!r} is not one of {sorted(SURFACES[self.surface].directions)} "
                f"(on the {self.surface})"
            )
        if not (math.isfinite(self.distance) and 0.0 < self.distance <= MAX_DISTANCE):
            raise SequenceError(f"walk distance must be in (0, {MAX_DISTANCE:g}] m, got {self.distance!r}")

    @property
    def plate(self) -> WalkSurface:
        """The surface walked over."""
        return SURFACES[self.surface]

    @property
    def unit(self) -> np.ndarray:
        """The walk's direction (world unit vector in the surface's plane)."""
        return self.plate.directions[self.direction].copy()

    def steps(self) -> list[float]:
        """The cycles' step lengths (m): the distance split evenly into steps of at most :data:`STEP`."""
        count = max(1, math.ceil(self.distance / STEP - 1e-9))
        return [self.distance / count] * count

    def stages(self) -> list[tuple[str, str, np.ndarray]]:
        """(who, stage sequence, move in m, world) in order: half a shift, each cycle's four steps
        with a shift between cycles, half a shift."""
        steps, unit, out = self.steps(), self.unit, []
        shift, step = f"{self.surface}_shift", f"{self.surface}_step"
        for i, s in enumerate(steps):
            before = s / 2 if i == 0 else (steps[i - 1] + s) / 2
            out.append(("BODY", shift, before * unit))
            out.extend((foot, step, s * unit) for foot in FOOT_ORDER[self.direction])
        out.append(("BODY", shift, steps[-1] / 2 * unit))
        return out

    def shift(self, move: np.ndarray) -> list[Phase]:
        """The walk's body shift by ``move`` (:func:`wall_shift`, named for its surface)."""
        return wall_shift(move, self.plate.phase("SHIFT"))

    def step(self, to: np.ndarray) -> list[Phase]:
        """A foot's step of the walk ``to`` its foothold (:func:`wall_step` on its surface)."""
        return wall_step(to, plate=self.plate)

    def off_plate(self, feet: Mapping[str, np.ndarray]) -> str:
        """Why the walk cannot start with the feet at ``feet`` (foot -> EE site, world, m): the foot
        whose magnet face would leave the wall's steel by the walk's end, and the farthest walk
        that keeps every face on it ('' when the walk fits)."""
        axes = list(self.plate.axes)
        corners = self.plate.steel.corners()[:, axes]
        low, high = corners.min(axis=0) + MAGNET_RADIUS, corners.max(axis=0) - MAGNET_RADIUS
        unit = self.unit[axes]
        room: dict[str, float] = {}
        for foot, position in feet.items():
            point = np.asarray(position, float)[axes]
            along = [
                (high - point)[i] / unit[i] if unit[i] > 0 else (low - point)[i] / unit[i] for i in (0, 1) if unit[i]
            ]
            room[foot] = min(along)
        foot = min(room, key=lambda f: room[f])
        if room[foot] >= self.distance:
            return ""
        return (
            f"walking {self.distance:g} m {self.direction} takes {foot}'s magnet off the {self.surface}'s steel; "
            f"from here at most {max(room[foot], 0.0):.3f} m"
        )

    def span(self) -> float:
        """How far apart (m) the leading feet stand from the trailing ones along the walk in the wall
        start's stance (:data:`~sally_description.wall_start.WALL_STANCE`): twice its ``reach`` up or
        down, twice its ``side`` left or right."""
        return 2 * (WALL_STANCE.reach if self.direction in ("up", "down") else WALL_STANCE.side)

    def spread(self, feet: Mapping[str, np.ndarray]) -> float:
        """How far (m, along the walk) the leading feet step so that the stance at ``feet`` (foot ->
        EE site, world) spans :meth:`span` (0 when it does already): a climb onto the wall leaves the
        back feet 0.31 m behind the front ones, and a back foot then cannot follow its step (it would
        stand closer than 0.13 m to the body). SequenceError when that step is longer than
        :data:`MAX_SPREAD`."""
        order = FOOT_ORDER[self.direction]
        along = {foot: float(np.asarray(feet[foot], float) @ self.unit) for foot in order}
        span = (along[order[0]] + along[order[1]] - along[order[2]] - along[order[3]]) / 2
        step = max(0.0, self.span() - span)
        if step > MAX_SPREAD:
            raise SequenceError(
                f"the stance spans {span * 1e3:.0f} mm along the walk: spreading it to {self.span() * 1e3:.0f} mm "
                f"takes a step of {step * 1e3:.0f} mm, longer than {MAX_SPREAD * 1e3:.0f}"
            )
        return step

    def spread_stages(self) -> list[tuple[str, str, np.ndarray]]:
        """(who, :data:`SPREAD`, the walk's unit vector) of the spread before a walk that follows a
        climb: each leading foot steps by :meth:`spread`, then the body moves by half of it."""
        lead = FOOT_ORDER[self.direction][:2]
        return [*((foot, SPREAD, self.unit) for foot in lead), ("BODY", SPREAD, self.unit)]

    @property
    def duration(self) -> float:
        """Sim seconds the walk's phases take (s)."""
        cycles = len(self.steps())
        return (cycles + 1) * SHIFT_TIME + 4 * cycles * (RELEASE_TIME + MOVE_TIME + SEAT_TIME)


def wall_shift(move: np.ndarray, name: str = "WALL_SHIFT") -> list[Phase]:
    """WALL_SHIFT (or ``name``): every foot holds; the body moves by ``move`` (world, m), its
    orientation kept."""

    def enter(ctx: PhaseContext) -> None:
        start = ctx.body()
        ctx.state.body_move = BodyMove(start, Pose(start.position + move, start.quat))

    def step(t: float, ctx: PhaseContext) -> Pose:
        shift = required(ctx.state.body_move, "WALL_SHIFT's move")
        return shift.start.toward(shift.goal, quintic(t / SHIFT_TIME))

    return [Phase(name, SHIFT_TIME, step, enter)]


def wall_step(
    to: np.ndarray,
    magnet_at: float = MAGNET_AT,
    seat_time: float = SEAT_TIME,
    plate: WalkSurface | None = None,
) -> list[Phase]:
    """A planted foot's step ``to`` a point on its ``plate`` (default: the wall; world, m: its place
    in the plate's plane; its depth along the plate's normal is the foot's own as it lets go, where
    it held the steel): release, move, seat (its magnet on ``magnet_at`` s into the seat, which lasts
    ``seat_time`` s), the phases named for the plate (WALL_RELEASE, WALL_MOVE, WALL_SEAT)."""
    plate = plate if plate is not None else SURFACES["wall"]
    into, depth = plate.into, plate.depth
    off = -CLEARANCE * into

    def release_enter(ctx: PhaseContext) -> None:
        ctx.disable_magnet()
        start = ctx.ee_pos()
        plant = np.array(to, dtype=float)
        plant[depth] = start[depth]  # the plate's normal is one of the frame's axes
        ctx.state.orient = Move(start, start + off)
        ctx.state.reach = ReachPlan(plant, plant + off)

    def release(t: float, ctx: PhaseContext) -> IKTarget:
        lift = required(ctx.state.orient, "WALL_RELEASE's move")
        return IKTarget.with_orientation(lift.start + quintic(t / RELEASE_TIME) * (lift.end - lift.start), into)

    def travel(t: float, ctx: PhaseContext) -> IKTarget:
        start = required(ctx.state.orient, "WALL_RELEASE's move").end
        end = required(ctx.state.reach, "the step's plan").approach
        return IKTarget.with_orientation(start + quintic(t / MOVE_TIME) * (end - start), into)

    return [
        Phase(plate.phase("RELEASE"), RELEASE_TIME, release, release_enter),
        Phase(plate.phase("MOVE"), MOVE_TIME, travel),
        seat(plate.phase("SEAT"), into, seat_time, magnet_at, ends=plate.seated),
    ]


def seat(
    name: str,
    into: np.ndarray,
    duration: float,
    magnet_at: float,
    move_time: float | None = None,
    lead: np.ndarray | None = None,
    ends: Ending = Ending.STEPPED,
) -> Phase:
    """A seat: from the approach point of the plan an earlier phase set (``ctx.state.reach``) straight
    onto its plant point over ``move_time`` s (default ``magnet_at``), face along ``into``, the target
    trimmed in the plate's plane by the measured error (:mod:`.seat_trim`) until the magnet goes on at
    ``magnet_at`` s; the plan's point after that, to ``duration`` s. ``lead`` (m, world): the foot is
    held that far off the plant point until the magnet goes on (a known slip as the magnet pulls the
    foot in, aimed off). ``ends``: what the seat's end does to the foot's stage (default: the foot
    holds its surface again)."""
    moving = magnet_at if move_time is None else move_time
    off = np.zeros(3) if lead is None else np.asarray(lead, dtype=float)

    def enter(ctx: PhaseContext) -> None:
        ctx.state.seating = Seating(ctx.ee_pos(), SeatTrim(into))

    def step(t: float, ctx: PhaseContext) -> IKTarget:
        seating, plan = required(ctx.state.seating, "the seat's start"), required(ctx.state.reach, "the seat's plan")
        if t >= magnet_at and not seating.magnet_on:
            ctx.enable_magnet()
            seating.magnet_on = True
        point = plan.approach + quintic(min(t / moving, 1.0)) * (plan.plant - plan.approach)
        if seating.magnet_on:  # the magnet holds the foot where it landed: the plan again
            return IKTarget.with_orientation(point, into)
        return IKTarget.with_orientation(seating.trim.update(t, point + off, ctx.ee_pos()), into)

    return Phase(name, duration, step, enter, ends=ends)
