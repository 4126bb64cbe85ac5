"""The QoS profiles Sally's nodes talk with, defined once so publishers and readers always match."""

from __future__ import annotations

from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy

RELIABLE_DEEP = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE, history=HistoryPolicy.KEEP_LAST)
"""Every message of a stream (states, efforts, commands): reliable, 100 deep."""
KEPT = QoSProfile(
    depth=100,
    reliability=ReliabilityPolicy.RELIABLE,
    history=HistoryPolicy.KEEP_LAST,
    durability=DurabilityPolicy.TRANSIENT_LOCAL,
)
"""Messages each sent once per step (joint targets, foot states, sequencer targets), kept for late
readers: a lockstep graph waits for the one a reader missed while discovery was going on. A
transient-local reader refuses volatile writers, so nodes read these through a volatile reader too
(and drop the second copy by its stamp)."""
STATUS = QoSProfile(
    depth=2000,
    reliability=ReliabilityPolicy.RELIABLE,
    history=HistoryPolicy.KEEP_LAST,
    durability=DurabilityPolicy.TRANSIENT_LOCAL,
)
"""The sequence status (one message a step), kept as :data:`KEPT` is but 2000 deep (10 s of it at
200 Hz): a reliable writer that keeps the last N drops a message once N newer ones wait, whatever
the reader's own depth. At 100, a runner's record behind by more than 0.5 s, with three graphs on
two cores, lost a whole phase of a sequencer running in its own process."""
LATEST = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE, history=HistoryPolicy.KEEP_LAST)
"""Only the newest message matters (/clock)."""
LATCHED = QoSProfile(
    depth=1,
    reliability=ReliabilityPolicy.RELIABLE,
    history=HistoryPolicy.KEEP_LAST,
    durability=DurabilityPolicy.TRANSIENT_LOCAL,
)
"""The last message only, for late readers (a run's result)."""
