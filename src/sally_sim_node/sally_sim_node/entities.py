"""The entities the sim shows through ``simulation_interfaces``: Sally (a robot, her base body
``main_frame`` on its free joint) and every surface of the scene (static objects, part of the model:
``<surface>_plate`` for a steel one, ``room_<surface>`` for one that is not).

Pure: names, categories, the ``GetEntities`` filter and each entity's state from a
:class:`~.simulator.Simulator`. Messages are built in :mod:`.sim_interfaces`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import IntEnum

import numpy as np

from sally_description.pose import Pose
from sally_description.scene import others_of, plates_of

from .simulator import Simulator

ROBOT = "sally"
"""Sally's entity name."""


class Category(IntEnum):
    """``simulation_interfaces/EntityCategory`` values."""

    OBJECT = 0
    ROBOT = 1
    HUMAN = 2
    DYNAMIC_OBJECT = 4
    STATIC_OBJECT = 5


@dataclass(frozen=True)
class Entity:
    """One entity: its unique name, category and a description for people."""

    name: str
    category: Category
    description: str


SALLY = Entity(
    ROBOT, Category.ROBOT, "Sally, the magnetic wall-climbing quadruped (state: main_frame on its free joint)"
)


def listing(sim: Simulator) -> dict[str, Entity]:
    """Entity name -> entity for ``sim``'s scene: Sally, then each surface (steel plates first)."""
    plates = [
        Entity(geom, Category.STATIC_OBJECT, f"the steel {surface} the magnets hold on (part of the model)")
        for surface, geom in plates_of(sim.model).items()
    ]
    others = [
        Entity(geom, Category.STATIC_OBJECT, f"the room's {surface}, not steel (part of the model)")
        for surface, geom in others_of(sim.model).items()
    ]
    return {entity.name: entity for entity in (SALLY, *plates, *others)}


class FilterError(ValueError):
    """A ``GetEntities`` name filter that is not a regular expression."""


def matching(known: dict[str, Entity], pattern: str, categories: list[int]) -> list[str]:
    """Names of the entities whose name matches ``pattern`` (searched; empty: all) and whose category
    is one of ``categories`` (empty: any). Raises :class:`FilterError` for a pattern that does not compile."""
    try:
        regex = re.compile(pattern)
    except re.error as exc:
        raise FilterError(f"filter {pattern!r} is not a regular expression: {exc}") from None
    return [
        e.name for e in known.values() if regex.search(e.name) and (not categories or int(e.category) in categories)
    ]


@dataclass(frozen=True)
class Kinematics:
    """An entity's ground truth in the world frame: pose, velocity and acceleration (linear, angular)."""

    pose: Pose
    linear: np.ndarray
    angular: np.ndarray
    linear_acceleration: np.ndarray
    angular_acceleration: np.ndarray


def kinematics(sim: Simulator, name: str) -> Kinematics:
    """``name``'s state now (a surface is at rest). ``name`` must be one of :func:`listing`'s."""
    if name == ROBOT:
        linear, angular = sim.base_velocity()
        linear_acc, angular_acc = sim.base_acceleration()
        return Kinematics(sim.body_pose(), linear, angular, linear_acc, angular_acc)
    plate = next(p for p in sim.plates() if p.name == name)
    zero = np.zeros(3)
    return Kinematics(Pose(plate.position, plate.quaternion), zero, zero, zero, zero)
