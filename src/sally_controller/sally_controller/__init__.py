"""Joint-space PID controller: the pure core (this package's node wraps it)."""

from .errors import ControllerError
from .pid import DEFAULT_I_CLAMP, DEFAULT_KD, DEFAULT_KI, DEFAULT_KP, HoldController, JointPID, PIDGains

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
