"""The wheeled platform's tunable parameters: contact, solver, drive gains and magnet.

A :class:`WheeledParams` is immutable and always valid (every value is checked against
:data:`WHEELED_SPACE`, the space the Gaussian-process tuning searches). The file format is the
tuning's ``best_params.json``: one flat mapping of name to value.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sally_description.constants import MAGNET_VOLUME
from sally_description.errors import ParameterError
from sally_description.params import Dim
from sally_sim_node.magnet_model import MagnetModel

from .geometry import N_SPHERES

WHEELED_SPACE: tuple[Dim, ...] = (
    Dim("sliding_friction", 0.2, 1.5, log=False),
    Dim("solref_timeconst", 0.001, 0.02, log=True, unit="s"),
    Dim("noslip_iterations", 0, 50, log=False, integer=True),
    Dim("drive_kp", 1.0, 300.0, log=True, unit="N m/rad"),
    Dim("drive_kv", 0.05, 10.0, log=True, unit="N m s/rad"),
    Dim("steer_kp", 5.0, 500.0, log=True, unit="N m/rad"),
    Dim("Br", 0.5, 2.0, log=True, unit="T"),
    Dim("max_force_per_wheel", 300.0, 1200.0, log=True, unit="N"),
)
"""What the tuning searches, with each parameter's valid range."""
WHEELED_NAMES = tuple(d.name for d in WHEELED_SPACE)
MAX_MAGNETIC_DISTANCE = 0.0575
"""m, fixed: the legged model's (beyond it a sampling sphere pulls nothing)."""


@dataclass(frozen=True)
class WheeledParams:
    """Defaults: steel-on-steel-like friction 0.6, stiff contacts, the legged Sally's magnet (Br
    1.88 T, 800.7 N per magnet) and drive gains that hold a commanded wheel speed under the
    platform's weight."""

    sliding_friction: float = 0.6
    solref_timeconst: float = 0.004
    noslip_iterations: int = 10
    drive_kp: float = 30.0
    """Wheel drive stiffness: the drive integrates the commanded speed into a wheel angle and
    holds that angle with this gain (N m/rad), so a stopped wheel brakes instead of creeping."""
    drive_kv: float = 1.0
    """Wheel drive damping (N m per rad/s of speed error)."""
    steer_kp: float = 50.0
    """Steering position servo gain (N m/rad)."""
    Br: float = 1.88
    max_force_per_wheel: float = 800.7

    def __post_init__(self) -> None:
        for dim in WHEELED_SPACE:
            object.__setattr__(self, dim.name, dim.check(getattr(self, dim.name)))

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any]) -> WheeledParams:
        """The defaults overridden by ``values``; unknown names are rejected."""
        if not isinstance(values, Mapping):
            raise ParameterError(f"wheeled parameters must be a mapping of name to value, got {type(values).__name__}")
        unknown = sorted(set(values) - set(WHEELED_NAMES))
        if unknown:
            raise ParameterError(f"unknown wheeled parameter(s) {unknown}; valid: {list(WHEELED_NAMES)}")
        return dataclasses.replace(cls(), **dict(values))

    @classmethod
    def from_file(cls, path: str | Path) -> WheeledParams:
        """Parameters read from a JSON file (unknown names and bad values refused)."""
        path = Path(path)
        try:
            values = json.loads(path.read_text())
        except OSError as exc:
            raise ParameterError(f"cannot read wheeled parameter file {str(path)!r}: {exc.strerror}") from None
        except ValueError as exc:
            raise ParameterError(f"wheeled parameter file {str(path)!r} is not valid JSON: {exc}") from None
        try:
            return cls.from_mapping(values)
        except ParameterError as exc:
            raise ParameterError(f"{path}: {exc}") from None

    def as_dict(self) -> dict[str, float | int]:
        """Every parameter by name."""
        return {name: getattr(self, name) for name in WHEELED_NAMES}

    def magnet(self) -> MagnetModel:
        """One wheel's magnet in the shared dipole-dipole model: the EML63mm-12 core shared among
        the wheel's sampling spheres."""
        return MagnetModel(self.Br, MAX_MAGNETIC_DISTANCE, self.max_force_per_wheel, MAGNET_VOLUME / N_SPHERES)
