"""The way back: from the stand under the ceiling down the wall and onto the floor.

After the climb onto the ceiling and back down from it (``route:=floor,wall,ceiling,wall,floor``)
Sally stands on the wall as on the floor, 0.5 m below the ceiling (:data:`.wall_stand.UNDER_CEILING`,
every foot planted). The way back undoes the way up, each piece backwards, in the room's frame:

* :data:`LEAVE`, the stand undone: the body backs out from 0.12 m to 0.35 m off the wall in three
  WALL_APPROACH moves (every foot holding), then BR, BL, FR and FL step to the walk's stance, where
  the walk up ended (the stand's own steps backwards);
* :data:`WALK_DOWN`: the walk up backwards, :data:`.wall_stand.WALK_TO_STAND` down the wall, the
  back feet leading;
* :data:`GATHER`, the spread undone: the body moves half the spread down, then FR and FL step down
  by the spread to where the climb planted them (:func:`climb_end`);
* then the climb onto the wall backwards (:mod:`.descent`), as ``floor,wall,floor`` comes down: Sally
  ends standing on the floor as she started the climb.

Each stance is designed (the footholds below), not measured: a foot lands on its foothold within the
step's error whatever the earlier ones left, so the errors do not add up over the route.

Pure: positions in the room's frame (world, m).
"""

from __future__ import annotations

import numpy as np

from sally_description.pose import Pose

from .climb import CLIMB_BODY, plan_checks
from .wall_stand import GATHER as GATHER_NAME
from .wall_stand import LEAVE as LEAVE_NAME
from .wall_stand import STAND_ORDER, WALK_TO_STAND, Footholds, WallStand
from .wall_walk import WallWalk


def climb_end() -> Footholds:
    """Where the climb onto the wall leaves Sally, and where the way down starts: the climb's plan
    (:func:`.climb.plan_checks`: main_frame at :data:`.climb.CLIMB_BODY`, FL and FR where f2w plants
    them, BL and BR at their plant points)."""
    plan = plan_checks()
    return Footholds(CLIMB_BODY, {**plan.front_plants, **plan.back_plants})


def spread() -> float:
    """How far (m) the spread moves the front feet up from :func:`climb_end` (the body half as far):
    what the climb's stance lacks of the walk's span (:meth:`.wall_walk.WallWalk.spread`, as the
    walk up after the climb measures it)."""
    end = climb_end()
    return WallWalk("up", WALK_TO_STAND).spread({foot: end.foot(foot) for foot in STAND_ORDER})


def walk_stance(up: float) -> Footholds:
    """The walk's stance ``up`` m above the spread :func:`climb_end`: the front feet :func:`spread`
    above where the climb planted them, the body half as far, all of it ``up`` higher."""
    end, reach = climb_end(), spread()
    rise = np.array([0.0, 0.0, up])
    body = Pose(end.body.position + rise + [0.0, 0.0, reach / 2], end.body.quat)
    feet = {foot: end.foot(foot) + rise + [0.0, 0.0, reach if foot.startswith("F") else 0.0] for foot in STAND_ORDER}
    return Footholds(body, feet)


LEAVE = WallStand(walk_stance(WALK_TO_STAND), tuple(reversed(STAND_ORDER)), body_first=True, name=LEAVE_NAME)
"""The stand under the ceiling undone: the body out to the walk's stance, then each foot to it."""
WALK_DOWN = WallWalk("down", WALK_TO_STAND)
"""The walk up after the climb, backwards."""
GATHER = WallStand(climb_end(), ("FR", "FL"), body_first=True, name=GATHER_NAME)
"""The spread undone: the body down by half of it, then FR and FL back where the climb planted them."""


def duration() -> float:
    """Sim seconds the way back's phases take before the climb's way down (s)."""
    return LEAVE.duration + WALK_DOWN.duration + GATHER.duration
