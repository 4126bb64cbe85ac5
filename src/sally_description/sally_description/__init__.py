"""Sally's MJCF and the in-memory model builder (no ROS, no side effects at import)."""

from .bake import DEFAULT_BAKE, Bake
from .constants import (
    ACTUATED_JOINT_NAMES,
    FLOOR_Z,
    JOINT_NAMES,
    LEGS,
    TIMESTEP,
    WALL_X,
)
from .errors import DescriptionError, ParameterError
from .model import build_model, build_spec, load_spec, model_path
from .params import DEFAULT_PARAMS, PARAM_NAMES, PARAM_SPACE, Dim, PhysicsParams

__all__ = [
    "ACTUATED_JOINT_NAMES",
    "Bake",
    "DEFAULT_BAKE",
    "DEFAULT_PARAMS",
    "DescriptionError",
    "Dim",
    "FLOOR_Z",
    "JOINT_NAMES",
    "LEGS",
    "PARAM_NAMES",
    "PARAM_SPACE",
    "ParameterError",
    "PhysicsParams",
    "TIMESTEP",
    "WALL_X",
    "build_model",
    "build_spec",
    "load_spec",
    "model_path",
]
