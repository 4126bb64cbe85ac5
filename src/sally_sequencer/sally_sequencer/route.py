"""A route: the steel surfaces Sally goes over in one run, in order, checked before anything starts.

``route:=floor,wall`` names the surface Sally starts on and each one she climbs onto next. Its stages
are climbs over the concave corners between consecutive surfaces (:class:`Climb`); a route is refused
by name when a surface is not in the scene or not steel, when two consecutive surfaces do not meet in
a concave corner (floor and ceiling never do), or when it names a surface twice in a row.

A route of one climb runs in the scene that climbs that corner (:data:`CLIMBS`: the floor-wall corner
in ``floor_wall`` or ``room``, the wall-ceiling corner in ``corner3``); after the climb onto the wall
a walk up it may follow in the same run (``wall_walk:=``, :class:`.campaign.Campaign`'s ``walk``).
``floor,wall,ceiling`` runs in the room (:data:`CHAINS`): the climb onto the wall, the walk up to the
stand under the ceiling, then the climb onto the ceiling planned in that corner's frame.
A route may end by coming back down the corner it climbed last (:mod:`.descent`): ``floor,wall,floor``
climbs onto the wall and back down the way it came, ``wall,ceiling,wall`` the same in corner3, and
``floor,wall,ceiling,wall`` (in the room) comes back down from the ceiling onto the wall, where the
climb onto the ceiling started. ``floor,wall,ceiling,wall,floor`` (:func:`returns`) goes on from there
the way it came (:mod:`.way_back`): down the wall and back onto the floor, where it started. Any
other route of more climbs is refused, naming those that run.
"""

from __future__ import annotations

from dataclasses import dataclass

from sally_description.errors import DescriptionError
from sally_description.scene import Scene, climbing, corners_of
from sally_description.surfaces import meets

from .errors import SequenceError
from .plan_catalogue import CLIMBS

CHAINS = ((("floor", "wall"), ("wall", "ceiling")),)
"""The routes of more than one climb that run: floor, wall, ceiling (the climb onto the wall, the walk
up it to the stand under the ceiling, :mod:`.wall_stand`, and the climb onto the ceiling)."""
DOWNS = (*((corner,) for corner in CLIMBS), *CHAINS)
"""The climbs a route may come back down from, the last corner's way back down added
(:mod:`.descent`, in the last climb's campaign, with ``down``): ``floor,wall,floor``, in corner3
``wall,ceiling,wall``, and in the room ``floor,wall,ceiling,wall``."""
THEN = tuple(dict.fromkeys(CLIMBS[corner] for chain in CHAINS for corner in chain[1:]))
"""The climbs a campaign may hand over to (the sequencer's ``then``): each chain's after its first."""


@dataclass(frozen=True)
class Climb:
    """One stage: from surface ``stand`` onto surface ``goal`` over the concave corner they form."""

    stand: str
    goal: str

    def __str__(self) -> str:
        return f"{self.stand}->{self.goal}"


def plan(text: str, chosen: Scene) -> tuple[Climb, ...]:
    """The climbs of route ``text`` (surface names, comma-separated) in scene ``chosen``; SequenceError
    names the first surface or pair that cannot be part of a route."""
    names = [name.strip() for name in text.split(",")]
    if len(names) < 2 or not all(names):
        raise SequenceError("a route names at least two surfaces, comma-separated (e.g. floor,wall)")
    for name in names:
        try:
            surface = chosen.surface(name)
        except DescriptionError as exc:
            raise SequenceError(str(exc)) from None
        if not surface.steel:
            raise SequenceError(f"{name} is not steel in scene {chosen.name!r}: no magnet holds on it")
    stages = []
    for stand, goal in zip(names, names[1:]):
        if stand == goal:
            raise SequenceError(f"{stand} twice in a row: each stage goes onto another surface")
        if not meets(chosen.surface(stand), chosen.surface(goal)):
            raise SequenceError(f"{stand} and {goal} do not meet in a concave corner: no climb joins them")
        stages.append(Climb(stand, goal))
    return tuple(stages)


def campaigns_of(stages: tuple[Climb, ...], chosen: Scene) -> tuple[str, ...]:
    """The campaigns that run ``stages`` in scene ``chosen``, in order: one climb, or the climb onto
    the wall and then the one onto the ceiling (:data:`CHAINS`); SequenceError says why a route of
    these stages does not run."""
    first = stages[0]
    corner = (first.stand, first.goal)
    if corner not in CLIMBS:
        climbs = ", ".join(f"{a}->{b}" for a, b in CLIMBS)
        raise SequenceError(f"the {first} climb is not built: the climbs are {climbs}")
    if corner != chosen.corner:
        raise SequenceError(
            f"scene {chosen.name!r} is planned in its {'-'.join(chosen.corner)} corner's frame: "
            f"the {first} climb runs in {climbing(corner)}"
        )
    corners = _climbs(stages)
    if len(corners) == 1:
        return (CLIMBS[corner],)
    if corners not in CHAINS:
        routes = [*CHAINS, *((*chain, chain[-1][::-1]) for chain in DOWNS), *(_round_trip(c) for c in CHAINS)]
        chains = " and ".join(",".join([c[0][0], *(goal for _, goal in c)]) for c in routes)
        raise SequenceError(f"the climbs {', '.join(str(s) for s in stages)} are not built in one run: {chains} are")
    planned = {other.corner for other in corners_of(chosen.name).values()}
    missing = [f"{a}->{b}" for a, b in corners if (a, b) not in planned]
    if missing:
        raise SequenceError(f"scene {chosen.name!r} has no {missing[0]} corner the planners can work in")
    return tuple(CLIMBS[c] for c in corners)


def descends(stages: tuple[Climb, ...]) -> bool:
    """Whether ``stages`` end by coming back down the corner climbed last (:data:`DOWNS`), or all the
    way back (:func:`returns`)."""
    corners = tuple((stage.stand, stage.goal) for stage in stages)
    last = len(corners) > 1 and corners[-1] == corners[-2][::-1] and corners[:-1] in DOWNS
    return last or returns(stages)


def returns(stages: tuple[Climb, ...]) -> bool:
    """Whether ``stages`` climb a chain (:data:`CHAINS`) and come back down every corner of it, the
    last first: ``floor,wall,ceiling,wall,floor``."""
    corners = tuple((stage.stand, stage.goal) for stage in stages)
    return any(corners == _round_trip(chain) for chain in CHAINS)


def _round_trip(chain: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
    """``chain``'s corners, then each of them back down, the last first."""
    return (*chain, *(corner[::-1] for corner in reversed(chain)))


def _climbs(stages: tuple[Climb, ...]) -> tuple[tuple[str, str], ...]:
    """The corners ``stages`` climb, the ways back down left out (they are those climbs')."""
    corners = tuple((stage.stand, stage.goal) for stage in stages)
    if returns(stages):
        return corners[: len(corners) // 2]
    return corners[:-1] if descends(stages) else corners
