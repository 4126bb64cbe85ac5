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
AHEAD_LIMIT_NS = 5_000_000_000
"""ns: a notice stamped further than this past the latest state a node took is refused. The sim's
new time line starts at the next whole second after a reset, so a real notice comes at most about
a second ahead of the states already sent; one far in the future would make every command stale."""


class ResetWatch:
    """Which reset notices apply to a node: those stamped after the first state it took, once each."""

    def __init__(self) -> None:
        self.first_state: int | None = None
        """Stamp (ns) of the first state this node took in the current sim (None: none yet)."""
        self.last_state: int | None = None
        """Stamp (ns) of the newest state this node took in the current sim (None: none yet)."""
        self.latest = -1
        """Stamp of the latest reset acted on."""

    def state(self, stamp: int) -> None:
        """A state stamped ``stamp`` was taken."""
        if self.first_state is None:
            self.first_state = stamp
        if self.last_state is None or stamp > self.last_state:
            self.last_state = stamp

    def ahead(self, stamp: int) -> bool:
        """A notice stamped ``stamp`` is further than :data:`AHEAD_LIMIT_NS` past the newest state
        taken: not a reset of this sim (a sender's clock, a corrupt stamp), never to be acted on."""
        return self.last_state is not None and stamp > self.last_state + AHEAD_LIMIT_NS

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
        self.first_state, self.last_state, self.latest = None, None, -1


def subscribe_resets(node, on_reset: Callable[[int], None]):
    """Subscribe ``node`` to the reset notice (kept), calling ``on_reset(stamp_ns)`` for each."""
    from std_msgs.msg import Header

    from .qos import LATCHED
    from .stamps import stamp_ns

    return node.create_subscription(Header, RESET_TOPIC, lambda msg: on_reset(stamp_ns(msg.stamp)), LATCHED)
