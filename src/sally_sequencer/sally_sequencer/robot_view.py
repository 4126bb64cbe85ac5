"""What the sequencer node last saw of the robot and last sent it, between steps. No ROS."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from sally_description.pose import Pose
from sally_node_common.ik_target import IKTarget
from sally_node_common.stance import StanceMode


@dataclass
class RobotView:
    """The robot as the latest messages show it, and the sequencer's own latest commands."""

    magnets: dict[str, tuple[bool, bool]] = field(default_factory=dict)
    """foot -> (enabled, contact sensed) from the latest /sally/magnets: what the magnets' driver
    knows (the switch, the contact reading it trusts)."""
    locate: Callable[[], dict[str, str]] | None = None
    """The latest foot states' :attr:`surfaces`, looked up in the map when first asked (most ticks
    never ask: the interlock and the verdict do)."""
    body: Pose | None = None
    """main_frame's pose from the hips of the latest foot states."""
    baselines: dict[str, np.ndarray] = field(default_factory=dict)
    """Each foot's position when the sequence started (the telemetry's drift)."""
    target: tuple[str, IKTarget] | None = None
    """The latest swing target sent (foot, target)."""
    stance: dict[str, StanceMode] = field(default_factory=dict)
    """Every foot's stance, sent with each tick: the IK's own at the first foot states of a time
    line (a restarted sequencer leaves them as they are), then the campaign's latest set."""

    _surfaces: dict[str, str] | None = None

    @property
    def surfaces(self) -> dict[str, str]:
        """Foot -> the mapped surface at the foot where the latest foot states put it ("none": none;
        empty before any foot states)."""
        if self._surfaces is None:
            self._surfaces = self.locate() if self.locate is not None else {}
        return self._surfaces

    def place(self, locate: Callable[[], dict[str, str]]) -> None:
        """The latest foot states' surfaces, from ``locate()`` when first asked."""
        self.locate, self._surfaces = locate, None

    def magnet(self, foot: str) -> tuple[bool, str, bool]:
        """(enabled, surface, in_contact) of ``foot``'s magnet (off, nowhere, before any telemetry):
        the surface the map has at the foot, not the world's."""
        enabled, contact = self.magnets.get(foot, (False, False))
        return enabled, self.surfaces.get(foot, "none"), contact

    def held(self) -> dict[str, tuple[bool, str, bool]]:
        """:meth:`magnet` of every foot with telemetry (empty before any): the interlock's view."""
        return {foot: self.magnet(foot) for foot in self.magnets}
