"""The sim's reset notice: ``/sally_sim/reset`` (``std_msgs/Header``, kept), stamped with the sim
time the reset took effect. Pure but for :func:`subscribe_resets`.

A reset (``ResetSimulation``, or a stop) puts the robot back in its initial state while sim time
runs on (stamps never go back; the new time line starts at the next whole second), so nothing in
the states themselves says that the world jumped. Each node that keeps state across
steps (the controller's integral, the IK's stance locks, the sequencer's phase) follows the notice:
:class:`ResetWatch` says which notices are news to it (a node started after a reset, e.g. one
restarted after a crash, gets the kept notice of a reset it never saw and ignores it), and which
commands are stale (stamped for the time line a reset ended).
"""

from __future__ import annotations

from collections.abc import Callable

RESET_TOPIC = "/sally_sim/reset"


class ResetWatch:
    """Which reset notices apply to a node: those stamped after the first state it took, once each."""

    def __init__(self) -> None:
        self.first_state: int | None = None
        """Stamp (ns) of the first state this node took in the current sim (None: none yet)."""
        self.latest = -1
        """Stamp of the latest reset acted on."""

    def state(self, stamp: int) -> None:
        """A state stamped ``stamp`` was taken."""
        if self.first_state is None:
            self.first_state = stamp

    def reset(self, stamp: int) -> bool:
        """A notice of a reset at ``stamp``: True when this node must act on it."""
        if self.first_state is None or stamp <= self.first_state or stamp <= self.latest:
            return False
        self.latest = stamp
        return True

    @property
    def start_ns(self) -> int:
        """Where the current time line starts (ns): 0 (a sim's), or the latest reset acted on. What
        is stamped before it belongs to a time line that ended."""
        return max(self.latest, 0)

    def stale(self, stamp: int) -> bool:
        """A command stamped before the latest reset acted on: meant for the time line the reset
        ended (in flight when it came), never to be applied. Unstamped (0) is never stale."""
        return 0 < stamp < self.latest

    def new_sim(self) -> None:
        """A new sim (its time started over): what was known of the old one goes."""
        self.first_state, self.latest = None, -1


def subscribe_resets(node, on_reset: Callable[[int], None]):
    """Subscribe ``node`` to the reset notice (kept), calling ``on_reset(stamp_ns)`` for each."""
    from std_msgs.msg import Header

    from .qos import LATCHED
    from .stamps import stamp_ns

    return node.create_subscription(Header, RESET_TOPIC, lambda msg: on_reset(stamp_ns(msg.stamp)), LATCHED)
