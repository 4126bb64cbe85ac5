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
LATEST = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE, history=HistoryPolicy.KEEP_LAST)
"""Only the newest message matters (/clock)."""
LATCHED = QoSProfile(
    depth=1,
    reliability=ReliabilityPolicy.RELIABLE,
    history=HistoryPolicy.KEEP_LAST,
    durability=DurabilityPolicy.TRANSIENT_LOCAL,
)
"""The last message only, for late readers (a run's result)."""
