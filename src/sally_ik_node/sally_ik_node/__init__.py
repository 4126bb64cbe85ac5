"""Inverse kinematics for Sally: pure cores (no rclpy here) and, separately, the IK node."""

from .errors import IKError
from .numerical_ik import NumericalFootIK, NumericalIKResult
from .whole_body_ik import IKCode, IKConfig, IKResult, StanceMode, WholeBodyIK

__all__ = [
    "IKCode",
    "IKConfig",
    "IKError",
    "IKResult",
    "NumericalFootIK",
    "NumericalIKResult",
    "StanceMode",
    "WholeBodyIK",
]
