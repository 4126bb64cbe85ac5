"""Whether a node's volatile commands will reach their readers. No ROS.

A volatile command published before its reader's subscription has matched the publisher is lost,
and the run then differs from every other run (a CI run once kept FL's magnet on through its
lift). So a node that sends one-off commands (the sequencer before its first step, the pull-off
rig before it arms) waits until every output topic has a reader, every reader it sees is matched,
and every node named in ``readers`` is among them (its own view of the graph: seeing a node's
subscription and matching it happen together in one discovery step). Another reader (a recorder,
a probe) matching first is not enough.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping


def missing_readers(seen: Mapping[str, Iterable[str]], matched: Mapping[str, int], readers: Iterable[str]) -> list[str]:
    """What the outputs still wait for ([] when ready): ``seen`` maps each output topic to the
    names of the nodes whose subscriptions are known, ``matched`` to how many subscriptions the
    publisher has matched; ``readers`` are node names that must read at least one output."""
    waiting = []
    for topic, names in seen.items():
        names = list(names)
        if not names:
            waiting.append(f"a reader of {topic}")
        elif matched.get(topic, 0) < len(names):
            waiting.append(f"{topic} matched with {matched.get(topic, 0)} of {len(names)} readers")
    everyone = {name for names in seen.values() for name in names}
    waiting += [f"node {name}" for name in readers if name and name not in everyone]
    return waiting
