"""Every sequence a graph runs, by name, in one place: its stages, where it runs and how its run is
judged. The graph's arguments (``sequence:=``, ``duration:=auto``, ``--help``), the route's climbs,
the campaign that runs it and the run's report all read this table; none keeps a list of its own.

A sequence is a :class:`SequenceSpec`. Its typed facts say what the other layers used to test by
matching its name against their lists:

* ``corner``: a climb through a concave corner with all four feet, from the first surface onto the
  second (:mod:`.route` climbs a corner with the sequence that names it). A walk up the surface
  climbed onto may follow a climb, and so may the way back down (:mod:`.descent`).
* ``walks_over``: a walk run alone over the corner's plate (``wall`` or ``floor``), with its walk
  when none is given (``default_walk``).
* ``scenario``: one of the optimizer's scenarios, judged by its costs, not by where the feet end.

Adding a sequence is one entry here (its stages are made by :func:`.catalogue.make_sequence` or a
walk's plan) and its tests.
"""

from __future__ import annotations

from dataclasses import dataclass

from sally_description.constants import LEGS
from sally_description.scene import DEFAULT_SCENE, scene

from .errors import SequenceError
from .wall_walk import WallWalk

BODY = "BODY"
"""The stage that moves the body (every foot holds) instead of a foot."""
WALL_PLANTS = frozenset({"f2w", "f2w_fr", "b2w_bl", "b2w_br", "wall_step"})
"""Stages (stage sequences) that end with their foot planted on the wall (F2W_REACH or WALL_SEAT,
magnet on)."""
DEFAULT_DURATION = 25.0
"""duration:=auto (s of sim time) for a sequence that gives none and walks no walk."""


@dataclass(frozen=True)
class SequenceSpec:
    """One sequence: its stages ((foot or BODY, stage sequence) in order), what it does in a phrase
    (``sequence:=``'s help), the scene it runs in, and the typed facts its run is judged by."""

    stages: tuple[tuple[str, str], ...]
    summary: str
    scene: str = DEFAULT_SCENE
    corner: tuple[str, str] | None = None
    """A climb with all four feet: (surface stood on, surface climbed onto); None: not a climb."""
    walks_over: str | None = None
    """A walk run alone: the corner's plate it walks over (:data:`.wall_walk.SURFACES`)."""
    default_walk: WallWalk | None = None
    """A walk's plan when none is given."""
    scenario: bool = False
    """One of the optimizer's scenarios: judged by its costs, not by where the feet end."""
    duration: float | None = None
    """duration:=auto (s of sim time); None: :data:`DEFAULT_DURATION`, or a walk's own time."""

    @property
    def climbs(self) -> bool:
        """A climb through a corner with all four feet: a walk or the way back down may follow it."""
        return self.corner is not None

    @property
    def walks(self) -> bool:
        """A walk run alone: judged step by step and by the magnets holding."""
        return self.walks_over is not None

    @property
    def ends_on_wall(self) -> bool:
        """Every foot ends on the wall (w2c: the ceiling, its corner frame's wall): judged by the drift
        of the feet while they held, the fewest magnets holding, and the body's pitch."""
        return self.climbs or self.walks_over == "wall"

    @property
    def feet_to_plant(self) -> tuple[str, ...]:
        """The feet the run must end with planted on the wall, in the order it plants them (none for a
        scenario, or for a sequence that plants none)."""
        if self.scenario:
            return ()
        return tuple(dict.fromkeys(foot for foot, stage in self.stages if stage in WALL_PLANTS))


CLIMB = (
    (BODY, "body_square"),
    ("BL", "step_bl"),
    ("BR", "step_br"),
    ("FL", "f2w"),
    ("FR", "f2w_fr"),
    (BODY, "body_climb"),
    ("BL", "b2w_bl"),
    ("BR", "b2w_br"),
)
"""The stages of a climb through a concave corner, all four feet from the surface Sally stands on
to the one ahead (:mod:`.climb`)."""

SEQUENCES: dict[str, SequenceSpec] = {
    "f2w": SequenceSpec(
        ((BODY, "body_square"), ("FL", "f2w"), ("FR", "f2w_fr")), "FL then FR onto the wall", duration=30.0
    ),
    "f2w_all": SequenceSpec(CLIMB, "all four feet onto the wall", corner=("floor", "wall"), duration=80.0),
    "w2c": SequenceSpec(
        CLIMB, "all four feet from the wall onto the ceiling", "corner3", ("wall", "ceiling"), duration=80.0
    ),
    "wall_walk": SequenceSpec(
        ((BODY, "wall_shift"), *((foot, "wall_step") for foot in LEGS)),
        "a crawl over the wall from start:=wall",
        walks_over="wall",
        default_walk=WallWalk(),
    ),
    "floor_walk": SequenceSpec(
        ((BODY, "floor_shift"), *((foot, "floor_step") for foot in LEGS)),
        "the same over the floor",
        walks_over="floor",
        default_walk=WallWalk("back", 0.30, "floor"),
    ),
    "orient": SequenceSpec((("FL", "orient"),), "FL lifted and swung, its face turned to the wall, held"),
    "f2w_fr": SequenceSpec((("FR", "f2w_fr"),), "FR's part of f2w alone"),
    "wall_hold": SequenceSpec((("FL", "f2w"),), "the optimizer's scenario: FL planted on the wall", scenario=True),
    "floor_lift": SequenceSpec((("FL", "lift"),), "the optimizer's scenario: FL lifted off the floor", scenario=True),
}
"""``f2w_all`` climbs the floor-wall corner; ``w2c`` the same way the wall-ceiling corner (scene
``corner3``, simulated in that corner's frame, where the wall is the floor and the ceiling the wall:
:mod:`sally_description.scene`). A walk's stages are one cycle's template: its
:class:`.wall_walk.WallWalk` plan repeats it for its distance (0.30 m up the wall, 0.30 m back over
the floor, away from the wall where the floor's steel goes on 2.5 m, when none is given).
``wall_hold`` and ``floor_lift`` are the optimizer's scenarios: FL planted on the wall, or lifted off
the floor, then held ``hold`` seconds while the other feet must stay put."""


def spec(name: str) -> SequenceSpec:
    """Sequence ``name``'s entry; SequenceError names the valid ones."""
    try:
        return SEQUENCES[name]
    except KeyError:
        raise SequenceError(f"unknown sequence {name!r}; valid: {sorted(SEQUENCES)}") from None


def climb_of(corner: tuple[str, str]) -> str:
    """The sequence that climbs ``corner`` (surface stood on, surface climbed onto); SequenceError
    names the corners a climb climbs."""
    for name, entry in SEQUENCES.items():
        if entry.corner == corner:
            return name
    climbs = ", ".join(f"{a}->{b}" for a, b in CLIMBS)
    raise SequenceError(f"no climb from the {corner[0]} onto the {corner[1]}; the climbs: {climbs}")


CLIMBS = {entry.corner: name for name, entry in SEQUENCES.items() if entry.corner is not None}
"""(surface stood on, surface climbed onto) -> the sequence that climbs that corner (its entry's corner)."""


def scene_of(sequence: str) -> str:
    """The scene sequence ``sequence`` runs in (:data:`sally_description.scene.SCENES`)."""
    return spec(sequence).scene


def frame_of(sequence: str) -> str:
    """The TF frame sequence ``sequence`` plans in: its climbed corner's (``world`` or ``corner``)."""
    return scene(scene_of(sequence)).planning_frame
