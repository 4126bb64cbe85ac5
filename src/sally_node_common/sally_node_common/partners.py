"""Waiting on a partner node: a slow partner is waited for, a gone one is not.

In a lockstep graph each node waits for its partner's answer (the sim for the controller's efforts,
the controller for the IK's targets, the IK for the sequencer's tick) and gives up after a short
wall-clock wait (``lockstep_timeout``, ``target_wait``) so that a dead partner does not stall the
graph. On a busy machine an answer can take longer than that while the partner is alive, and giving
up then makes the run depend on how the machine shared its time. So a wait past its base length
goes on while the partner is still on the ROS graph (DDS drops a killed or hung process within its
lease, 3 s with :data:`~.discovery.PARTICIPANT_PROFILE`), up to :data:`SLOW_PARTNER_WAIT`: a
partner that is there but does not answer (a bug, or a node started by hand that never will)
stalls the graph that long once, not forever.

The waits form a chain (the sim waits for the controller, which waits for the IK, which waits for
the sequencer), all begun by one state within milliseconds of each other. Each wait up the chain
may go on :data:`CHAIN_STEP` longer than the one below it (:func:`longest_wait`): when the bottom
gives up on a silent partner and answers, the answer travels up before any wait above it has
given up, so one silence makes one fallback, not one at every level at once.
"""

from __future__ import annotations

from collections.abc import Callable

SLOW_PARTNER_WAIT = 10.0
"""Wall seconds a wait goes on at most while its partner is on the graph: ten times the longest
answer seen late on a loaded machine (1 s, three graphs and the test suite on two cores), and what
a partner that is there but refuses (a controller rejecting every state) costs once."""


CHAIN_STEP = 2.5
"""Wall seconds each wait up the chain goes on longer than the one below it."""


def longest_wait(depth: int) -> float:
    """How long (s) a wait ``depth`` links up the chain goes on at most while its partner is on the
    graph: 0 the IK's for the sequencer, 1 the controller's for the IK, 2 the sim's for the controller."""
    return SLOW_PARTNER_WAIT + depth * CHAIN_STEP


def keep_waiting(waited: float, base: float, present: Callable[[], bool], longest: float = SLOW_PARTNER_WAIT) -> bool:
    """Whether a wait that has lasted ``waited`` s, past its ``base`` length, goes on: only while
    ``present()`` (asked only then: it looks at the ROS graph) and for at most ``longest`` s."""
    return base <= waited < max(base, longest) and present()


def other_publishers(node, topic: str) -> set[tuple[str, str]]:
    """(name, namespace) of every node but ``node`` that publishes ``topic``."""
    me = (node.get_name(), node.get_namespace())
    return {(i.node_name, i.node_namespace) for i in node.get_publishers_info_by_topic(topic)} - {me}


def publishes(node, topic: str, reads: str | None = None) -> bool:
    """Some node other than ``node`` publishes ``topic`` (and, if given, subscribes ``reads``): the
    partner that answers there is on the graph."""
    writers = other_publishers(node, topic)
    if reads is not None:
        writers &= {(i.node_name, i.node_namespace) for i in node.get_subscriptions_info_by_topic(reads)}
    return bool(writers)


def given_up(
    waited: float, wait: float, present: Callable[[], bool] | None, longest: float = SLOW_PARTNER_WAIT
) -> bool:
    """Whether a wait of ``waited`` s for a partner's answer is over: ``wait`` s reached, and (when
    ``present`` is given) the partner no longer on the graph or ``longest`` s passed."""
    return waited >= wait and not (present is not None and keep_waiting(waited, wait, present, longest))
