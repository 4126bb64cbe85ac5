"""What the sequencer node last saw of the robot and last sent it, between steps. No ROS."""

from __future__ import annotations

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
    surfaces: dict[str, str] = field(default_factory=dict)
    """foot -> the mapped surface at the foot where the latest foot states put it ("none": none)."""
    body: Pose | None = None
    """main_frame's pose from the hips of the latest foot states."""
    baselines: dict[str, np.ndarray] = field(default_factory=dict)
    """Each foot's position when the sequence started (the telemetry's drift)."""
    target: tuple[str, IKTarget] | None = None
    """The latest swing target sent (foot, target)."""
    stance: dict[str, StanceMode] = field(default_factory=dict)
    """Every foot's stance, sent with each tick: the IK's own at the first foot states of a time
    line (a restarted sequencer leaves them as they are), then the campaign's latest set."""

    def magnet(self, foot: str) -> tuple[bool, str, bool]:
        """(enabled, surface, in_contact) of ``foot``'s magnet (off, nowhere, before any telemetry):
        the surface the map has at the foot, not the world's."""
        enabled, contact = self.magnets.get(foot, (False, False))
        return enabled, self.surfaces.get(foot, "none"), contact

    def held(self) -> dict[str, tuple[bool, str, bool]]:
        """:meth:`magnet` of every foot with telemetry (empty before any): the interlock's view."""
        return {foot: self.magnet(foot) for foot in self.magnets}
