"""What every Sally node's ``main`` shares: start-up, signals, the executor loop, shutdown.

The names below come from :mod:`.node_main`, imported when one is first used: the package's pure
modules (the time contract, the sim-reset topic, the discovery settings) are imported without
rclpy, as the recording's outlet process does (rclpy is 0.3-0.5 s of its start-up otherwise)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .node_main import EXIT_BAD_START, StartupError, run_node, run_until_finished, spin_until_shutdown

__all__ = ["EXIT_BAD_START", "StartupError", "run_node", "run_until_finished", "spin_until_shutdown"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from . import node_main

        return getattr(node_main, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
