"""A route: the steel surfaces Sally goes over in one run, in order, checked before anything starts.

``route:=floor,wall`` names the surface Sally starts on and each one she climbs onto next. Its stages
are climbs over the concave corners between consecutive surfaces (:class:`Climb`); a route is refused
by name when a surface is not in the scene or not steel, when two consecutive surfaces do not meet in
a concave corner (floor and ceiling never do), or when it names a surface twice in a row.

What runs today is one climb per run, in the scene that climbs that corner (:data:`CLIMBS`: the
floor-wall corner in ``floor_wall`` or ``room``, the wall-ceiling corner in ``corner3``): a route of
more stages, or a climb back down, is refused with the reason (the stages after the first need one
frame for every corner, which the planners do not have yet). After the climb onto the wall a walk
up it may follow in the same run (``wall_walk:=``, :class:`.campaign.Campaign`'s ``walk``).
"""

from __future__ import annotations

from dataclasses import dataclass

from sally_description.errors import DescriptionError
from sally_description.scene import Scene, climbing
from sally_description.surfaces import meets

from .errors import SequenceError

CLIMBS = {("floor", "wall"): "f2w_all", ("wall", "ceiling"): "w2c"}
"""(surface stood on, surface climbed onto) -> the campaign that climbs that corner with all four feet."""


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


def campaign_of(stages: tuple[Climb, ...], chosen: Scene) -> str:
    """The campaign that runs ``stages`` in scene ``chosen``; SequenceError says why a route of these
    stages does not run yet."""
    first = stages[0]
    corner = (first.stand, first.goal)
    if len(stages) > 1:
        rest = ", ".join(str(stage) for stage in stages[1:])
        raise SequenceError(
            f"a route runs one climb so far ({first} here); its further stages ({rest}) need the planners to work "
            "in one frame for every corner, which is not built yet"
        )
    if corner not in CLIMBS:
        climbs = ", ".join(f"{a}->{b}" for a, b in CLIMBS)
        raise SequenceError(f"the {first} climb is not built: the climbs are {climbs}")
    if corner != chosen.corner:
        raise SequenceError(
            f"scene {chosen.name!r} is planned in its {'-'.join(chosen.corner)} corner's frame: "
            f"the {first} climb runs in {climbing(corner)}"
        )
    return CLIMBS[corner]
