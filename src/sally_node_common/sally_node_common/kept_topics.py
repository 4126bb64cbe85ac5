"""Topics kept for late readers, read through two subscriptions and delivered once.

A graph's per-step topics (joint targets, foot states, the sequencer's targets and stances) are
published transient local (:data:`~sally_node_common.qos.KEPT`) so that a node started late, or
restarted, still gets them. A transient-local reader refuses volatile writers, though, and a probe,
a person or a fault injector publishes volatile; so a node reads such a topic through two
subscriptions, one kept and one volatile, and a kept writer's messages arrive through both.

:class:`CopyFilter` passes each message on once. A message is dropped only when *the same message*
(equal in every field) came through the other subscription and has not been paired yet: two
different messages with the same stamp (a bad message injected at the stamp of the latest good
one, a second publisher) are both delivered, and so is a message a writer really sends twice.
:func:`subscribe_kept` creates the two subscriptions around one filter.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import TypeVar

from .qos import KEPT, RELIABLE_DEEP

Msg = TypeVar("Msg")

PAIRING_DEPTH = 16
"""How many delivered messages wait for their copy through the other subscription. The two
subscriptions of one node are served by one executor, so a copy arrives within a few messages."""


class CopyFilter:
    """Delivers each message of a topic read through two subscriptions once (pure, no ROS)."""

    def __init__(self, depth: int = PAIRING_DEPTH) -> None:
        if depth < 1:
            raise ValueError(f"depth must be at least 1, got {depth}")
        self._unpaired: deque[tuple[bool, object]] = deque(maxlen=depth)

    def first(self, msg: object, kept: bool) -> bool:
        """True when ``msg`` (received through the kept subscription if ``kept``) is to be
        delivered; False when it is the copy of one delivered through the other subscription."""
        for i, (via, seen) in enumerate(self._unpaired):
            if via != kept and (seen is msg or seen == msg):  # hosted nodes hand over the object itself
                del self._unpaired[i]
                return False
        self._unpaired.append((kept, msg))
        return True


def subscribe_kept(node, msg_type: type, topic: str, callback: Callable[[Msg, bool], None]) -> list:
    """Subscribe ``node`` to ``topic`` kept (transient local) and volatile; ``callback(msg, kept)``
    runs once per message, ``kept`` saying it came through the kept subscription (and so may be old
    history replayed to a restarted node). Returns the two subscriptions."""
    copies = CopyFilter()

    def reader(kept: bool) -> Callable[[Msg], None]:
        def on_message(msg: Msg) -> None:
            if copies.first(msg, kept):
                callback(msg, kept)

        return on_message

    return [node.create_subscription(msg_type, topic, reader(qos is KEPT), qos) for qos in (KEPT, RELIABLE_DEEP)]
