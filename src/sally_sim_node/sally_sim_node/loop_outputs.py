"""What the sim loop publishes off the physics, on its clock: /clock, the state (joint states, and
odometry with every ``odom_every``-th step of a time line) and what a run of steps makes due
(the magnets' telemetry, TF, the visuals, a camera frame). The loop owns them; the node only
created their publishers."""

from __future__ import annotations

from collections.abc import Callable

from .scene_outputs import SceneOutputs
from .sim_clock import SimClock
from .state_outputs import StateOutputs


class LoopOutputs:
    """The loop's publications: ``state`` (the state's topics), ``scene`` (TF, the visuals, the
    camera), on ``clock``'s time line."""

    def __init__(self, state: StateOutputs, scene: SceneOutputs, clock: SimClock) -> None:
        self.state, self.scene, self.clock = state, scene, clock
        self.odom_every = 1
        """Steps between odometry messages (a multiple of the state's period, so that odometry
        always carries a joint state's stamp)."""

    def publish_clock(self, stamp: int) -> None:
        """/clock at ``stamp`` (ns)."""
        self.state.clock(stamp)

    def publish_state(self) -> None:
        """/joint_states now, and /sally/odom when due."""
        self.prepare_state()()

    def prepare_state(self) -> Callable[[], None]:
        """/joint_states now, and /sally/odom when due, read now and published by the call returned."""
        return self.state.state(self.clock.now_ns, self.clock.since_start_over % self.odom_every == 0)

    def publish_due(self, due: set[str]) -> None:
        """The magnets' telemetry, TF, the visuals and a camera frame, those in ``due``."""
        self.prepare_due(due)()

    def prepare_due(self, due: set[str]) -> Callable[[], None]:
        """Those of TF, the visuals and the magnets' telemetry in ``due``, read now and built and
        published by the call returned (while the next period steps); a camera frame rendered and
        published now (it reads the whole scene)."""
        scene, now = self.scene, self.clock.now_ns
        if "camera" in due:
            scene.publish_camera(now)
        later = [
            *([scene.tf(now)] if "tf" in due else []),
            *([scene.visuals(now)] if "visuals" in due else []),
            *([self.state.telemetry(now)] if "telemetry" in due else []),
            *([self.state.ranges(now)] if "ranges" in due else []),
        ]
        if not later:
            return _nothing

        def publish() -> None:
            for each in later:
                each()

        return publish


def _nothing() -> None:
    """Nothing to publish."""
