"""Inverse kinematics for Sally: pure cores (no rclpy here)."""

from .errors import IKError
from .numerical_ik import NumericalFootIK, NumericalIKResult

__all__ = ["IKError", "NumericalFootIK", "NumericalIKResult"]
