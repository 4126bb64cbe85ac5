"""What a node that ends its graph declares (the sequencer, the pull-off rig): the process that runs
it (:func:`~sally_node_common.node_main.run_until_finished`, the composed container) reads these
and nothing else."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable


@runtime_checkable
class EndsGraph(Protocol):
    """A node whose verdict ends its graph."""

    finished: threading.Event
    """Set once the node has its verdict."""
    succeeded: bool
    """The verdict: the process exits 0 when true, with the node's failure status when not."""
    exit_when_done: bool
    """False: the node keeps running after its verdict (a graph driven by hand)."""
    final_publishers: Sequence[Any]
    """Latched publishers of the verdict: waited on until every reader acknowledged them, since a
    latched message goes with its writer."""
