"""The search space as CMA-ES sees it: 14 coordinates in [0, 1], one per physics parameter.

A coordinate is the position of the parameter in its range, on a log scale for the log-uniform
dimensions (the ``is_log`` flags), so sigma0 = 0.3 is the same relative step everywhere.
``noslip_iterations`` is rounded to a whole number when decoded. solref dampratio (10) and solimp
dmax (0.9999) are fixed in :mod:`sally_description.params`, not searched.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from sally_description.params import PARAM_SPACE, Dim, PhysicsParams

DIMENSIONS = len(PARAM_SPACE)


def _to_unit(dim: Dim, value: float) -> float:
    if dim.log:
        low = math.log(dim.low)
        return (math.log(value) - low) / (math.log(dim.high) - low)
    return (value - dim.low) / (dim.high - dim.low)


def _from_unit(dim: Dim, u: float) -> float | int:
    u = min(max(float(u), 0.0), 1.0)
    if dim.log:
        value = math.exp(math.log(dim.low) + u * (math.log(dim.high) - math.log(dim.low)))
    else:
        value = dim.low + u * (dim.high - dim.low)
    value = min(max(value, dim.low), dim.high)  # exp/log round-off at the ends
    return int(round(value)) if dim.integer else value


def encode(params: PhysicsParams) -> np.ndarray:
    """The CMA-ES coordinates of ``params``."""
    return np.array([_to_unit(dim, getattr(params, dim.name)) for dim in PARAM_SPACE])


def decode(x) -> PhysicsParams:
    """The parameters at coordinates ``x`` (clipped into [0, 1]); raises ValueError on a wrong
    length or a non-finite coordinate."""
    x = np.asarray(x, dtype=float)
    if x.shape != (DIMENSIONS,) or not np.isfinite(x).all():
        raise ValueError(f"a point of the search space is {DIMENSIONS} finite numbers, got {x.tolist()}")
    return PhysicsParams(**{dim.name: _from_unit(dim, u) for dim, u in zip(PARAM_SPACE, x)})


def params_from_row(row: Mapping[str, str]) -> PhysicsParams:
    """The parameters named in a CSV row (extra columns ignored)."""
    values = {}
    for dim in PARAM_SPACE:
        if dim.name not in row:
            raise ValueError(f"the row lacks parameter {dim.name}")
        value = float(row[dim.name])
        values[dim.name] = int(round(value)) if dim.integer else value
    return PhysicsParams(**values)
