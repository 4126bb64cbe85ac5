"""MuJoCo side of Sally: magnet model, simulator core (no rclpy here) and, separately, the node."""

from .errors import DivergenceError, SimulationError
from .magnet_model import MagnetModel
from .magnets import MagnetArray, MagnetReadout
from .simulator import Simulator

__all__ = [
    "DivergenceError",
    "MagnetArray",
    "MagnetModel",
    "MagnetReadout",
    "SimulationError",
    "Simulator",
]
