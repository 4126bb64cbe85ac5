"""The QoS profiles Sally's nodes talk with, defined once so publishers and readers always match."""

from __future__ import annotations

from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy

RELIABLE_DEEP = QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE, history=HistoryPolicy.KEEP_LAST)
"""Every message of a stream (states, efforts, commands), as its readers take it, and the occasional
commands' writers: reliable, 100 deep."""
STREAM = QoSProfile(depth=2000, reliability=ReliabilityPolicy.RELIABLE, history=HistoryPolicy.KEEP_LAST)
"""The writer of a stream (states, efforts, commands, /tf: up to 200 Hz): reliable, and 10 s of it
kept, for the reason given at :data:`STATUS`. Its readers read it with :data:`RELIABLE_DEEP` (depth
takes no part in matching), so a node behind is behind by 100 at most. Kept 100 deep, a run's
recording lost 2-10 % of each such stream in gaps when four busy loops shared the two cores with the
four node processes; kept 2000 deep, no gaps."""
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
CLOCK = QoSProfile(depth=10000, reliability=ReliabilityPolicy.RELIABLE, history=HistoryPolicy.KEEP_LAST)
"""/clock (1 kHz): reliable, and 10 s of it kept by the writer (as deep as a run's recording reads
it), for the same reason as :data:`STATUS`. Kept 1 deep, a recording that fell behind lost what it
missed: 8 % of /clock in one run on a loaded CI machine. Nodes read /clock best effort (rclpy's
``TimeSource``), so only reliable readers (a recording, an outside client) ever ask for one again."""
LATCHED = QoSProfile(
    depth=1,
    reliability=ReliabilityPolicy.RELIABLE,
    history=HistoryPolicy.KEEP_LAST,
    durability=DurabilityPolicy.TRANSIENT_LOCAL,
)
"""The last message only, for late readers (a run's result)."""
