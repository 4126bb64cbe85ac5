"""Sally's joint controller node: the IK's joint targets in, servo commands (or, on the effort path,
efforts from a joint PID, :mod:`sally_node_common.pid`) out."""

from sally_node_common.pid import (
    DEFAULT_I_CLAMP,
    DEFAULT_KD,
    DEFAULT_KI,
    DEFAULT_KP,
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
    "JointPID",
    "PIDGains",
]
