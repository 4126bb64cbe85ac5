"""What every Sally node's ``main`` shares: start-up, signals, the executor loop, shutdown."""

from .node_main import EXIT_BAD_START, StartupError, run_node, run_until_finished, spin_until_shutdown

__all__ = ["EXIT_BAD_START", "StartupError", "run_node", "run_until_finished", "spin_until_shutdown"]
