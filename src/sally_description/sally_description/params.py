"""The 14 physics parameters the optimizer identifies, validated, and applied to a model spec.

A :class:`PhysicsParams` is immutable and always valid: construction checks every value against
:data:`PARAM_SPACE`. Contact parameters go onto the electromagnet geoms (which carry
``priority=1``, so their friction/solref/solimp decide every foot contact); noslip settings go onto
the model options; ``Br``, ``max_magnetic_distance`` and ``max_force_per_wheel`` are read by the
magnet model in ``sally_sim_node``. The file format is the optimizer's ``best_params.json``: one flat
mapping of parameter name to value (JSON or YAML).
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import mujoco

from .constants import LEGS, magnet_geom
from .errors import ParameterError

SOLREF_DAMPRATIO = 10.0
"""solref damping ratio, fixed (not searched)."""
SOLIMP_DMAX = 0.9999
"""solimp dmax, fixed (not searched)."""


@dataclass(frozen=True)
class Dim:
    """One dimension of the search space: its valid range and the prior the optimizer samples."""

    name: str
    low: float
    high: float
    log: bool
    integer: bool = False
    unit: str = ""

    def check(self, value: Any) -> float | int:
        """Return ``value`` as this dimension's type, or raise naming the parameter and range."""
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ParameterError(f"{self.name} must be a number in {self.range_text()}, got {value!r}")
        if not math.isfinite(value):
            raise ParameterError(f"{self.name} must be finite, in {self.range_text()}, got {value!r}")
        if not self.low <= value <= self.high:
            raise ParameterError(f"{self.name} = {value!r} is outside its valid range {self.range_text()}")
        if self.integer:
            if value != int(value):
                raise ParameterError(f"{self.name} must be a whole number in {self.range_text()}, got {value!r}")
            return int(value)
        return float(value)

    def range_text(self) -> str:
        """The parameter's range as text, with its unit."""
        unit = f" {self.unit}" if self.unit else ""
        return f"[{self.low:g}, {self.high:g}]{unit}"


PARAM_SPACE: tuple[Dim, ...] = (
    Dim("sliding_friction", 0.01, 2.0, log=True),
    Dim("torsional_friction", 1e-6, 10.0, log=True),
    Dim("rolling_friction", 1e-6, 1e-3, log=True),
    Dim("solref_timeconst", 1e-5, 5.0, log=True, unit="s"),
    Dim("solimp_dmin", 0.001, 0.999, log=False),
    Dim("solimp_width", 1e-7, 1.0, log=True, unit="m"),
    Dim("solimp_midpoint", 0.01, 0.99, log=False),
    Dim("solimp_power", 1.0, 10.0, log=False),
    Dim("noslip_iterations", 0, 100, log=False, integer=True),
    Dim("noslip_tolerance", 1e-6, 1e-3, log=True),
    Dim("margin", 0.0, 0.02, log=False, unit="m"),
    Dim("Br", 0.5, 2.0, log=True, unit="T"),
    Dim("max_magnetic_distance", 0.001, 0.2, log=True, unit="m"),
    Dim("max_force_per_wheel", 800.0, 1500.0, log=True, unit="N"),
)
PARAM_NAMES = tuple(d.name for d in PARAM_SPACE)
_DIMS = {d.name: d for d in PARAM_SPACE}


@dataclass(frozen=True)
class PhysicsParams:
    """Contact, solver and magnet parameters. Defaults: the combined optimizer's best for the
    magnet (Br 1.88 T, 57.5 mm, 800.7 N, 49 noslip iterations) and stiff, well-damped foot contacts."""

    sliding_friction: float = 0.8
    torsional_friction: float = 0.005
    rolling_friction: float = 1e-4
    solref_timeconst: float = 0.002
    solimp_dmin: float = 0.9
    solimp_width: float = 0.001
    solimp_midpoint: float = 0.5
    solimp_power: float = 2.0
    noslip_iterations: int = 49
    noslip_tolerance: float = 1e-6
    margin: float = 0.0
    Br: float = 1.88
    max_magnetic_distance: float = 0.0575
    max_force_per_wheel: float = 800.7

    def __post_init__(self) -> None:
        for dim in PARAM_SPACE:
            object.__setattr__(self, dim.name, dim.check(getattr(self, dim.name)))

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any], base: PhysicsParams | None = None) -> PhysicsParams:
        """Override ``base`` (default: the defaults) with ``values``; unknown names are rejected."""
        if not isinstance(values, Mapping):
            raise ParameterError(f"physics parameters must be a mapping of name to value, got {type(values).__name__}")
        unknown = sorted(set(values) - set(PARAM_NAMES))
        if unknown:
            raise ParameterError(f"unknown physics parameter(s) {unknown}; valid: {list(PARAM_NAMES)}")
        return dataclasses.replace(base or cls(), **dict(values))

    @classmethod
    def from_file(cls, path: str | Path, base: PhysicsParams | None = None) -> PhysicsParams:
        """Load a flat JSON or YAML mapping (the optimizer's ``best_params.json``)."""
        path = Path(path)
        try:
            text = path.read_text()
        except OSError as exc:
            raise ParameterError(f"cannot read physics parameter file {str(path)!r}: {exc.strerror}") from None
        try:
            values = _parse(text, yaml_syntax=path.suffix.lower() in (".yaml", ".yml"))
        except Exception as exc:  # noqa: BLE001 - json and yaml errors both carry the position
            raise ParameterError(f"physics parameter file {str(path)!r} is not valid: {exc}") from None
        try:
            return cls.from_mapping(values, base)
        except ParameterError as exc:
            raise ParameterError(f"{path}: {exc}") from None

    def as_dict(self) -> dict[str, float | int]:
        """Every parameter by name."""
        return {name: getattr(self, name) for name in PARAM_NAMES}

    @property
    def solref(self) -> tuple[float, float]:
        """MuJoCo's ``solref`` (time constant, damping ratio) of the contacts."""
        return (self.solref_timeconst, SOLREF_DAMPRATIO)

    @property
    def solimp(self) -> tuple[float, float, float, float, float]:
        """MuJoCo's ``solimp`` of the contacts."""
        return (self.solimp_dmin, SOLIMP_DMAX, self.solimp_width, self.solimp_midpoint, self.solimp_power)


DEFAULT_PARAMS = PhysicsParams()


def _parse(text: str, yaml_syntax: bool) -> Any:
    if yaml_syntax:
        import yaml

        return yaml.safe_load(text)
    return json.loads(text)


def apply_params(spec: mujoco.MjSpec, params: PhysicsParams) -> None:
    """Write the contact and solver parameters into ``spec`` (the magnet ones are not MJCF)."""
    for leg in LEGS:
        geom = spec.geom(magnet_geom(leg))
        geom.friction = [params.sliding_friction, params.torsional_friction, params.rolling_friction]
        geom.solref = list(params.solref)
        geom.solimp = list(params.solimp)
        geom.margin = params.margin
    spec.option.noslip_iterations = params.noslip_iterations
    spec.option.noslip_tolerance = params.noslip_tolerance
