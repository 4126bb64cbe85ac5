"""Joint-space PID controller node (the PID core itself is :mod:`sally_node_common.pid`, shared with the sim's hold)."""

from sally_node_common.pid import (
    DEFAULT_I_CLAMP,
    DEFAULT_KD,
    DEFAULT_KI,
    DEFAULT_KP,
    HoldController,
    JointPID,
    PIDGains,
)

from .errors import ControllerError

__all__ = [
    "ControllerError",
    "DEFAULT_I_CLAMP",
    "DEFAULT_KD",
    "DEFAULT_KI",
    "DEFAULT_KP",
    "HoldController",
    "JointPID",
    "PIDGains",
]
