"""A search space of :class:`~sally_description.params.Dim` as unit-cube coordinates.

A coordinate is the position of a value in its dimension's range, on a log scale for the
log-uniform dimensions, so one step size means the same relative change everywhere (CMA-ES's
sigma0, a Gaussian process's length scales). Integer dimensions are rounded when decoded.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from sally_description.params import Dim


def to_unit(dim: Dim, value: float) -> float:
    """``value``'s coordinate in [0, 1] along ``dim``."""
    if dim.log:
        low = math.log(dim.low)
        return (math.log(value) - low) / (math.log(dim.high) - low)
    return (value - dim.low) / (dim.high - dim.low)


def from_unit(dim: Dim, u: float) -> float | int:
    """The value at coordinate ``u`` (clipped into [0, 1]) along ``dim``."""
    u = min(max(float(u), 0.0), 1.0)
    if dim.log:
        value = math.exp(math.log(dim.low) + u * (math.log(dim.high) - math.log(dim.low)))
    else:
        value = dim.low + u * (dim.high - dim.low)
    value = min(max(value, dim.low), dim.high)  # exp/log round-off at the ends
    return int(round(value)) if dim.integer else value


def encode(space: Sequence[Dim], values: Mapping[str, float]) -> np.ndarray:
    """The coordinates of ``values`` (one per dimension, by name)."""
    return np.array([to_unit(dim, values[dim.name]) for dim in space])


def decode(space: Sequence[Dim], x) -> dict[str, float | int]:
    """The values at coordinates ``x``; raises ValueError on a wrong length or a non-finite one."""
    x = np.asarray(x, dtype=float)
    if x.shape != (len(space),) or not np.isfinite(x).all():
        raise ValueError(f"a point of the search space is {len(space)} finite numbers, got {x.tolist()}")
    return {dim.name: from_unit(dim, u) for dim, u in zip(space, x)}


def values_from_row(space: Sequence[Dim], row: Mapping[str, str]) -> dict[str, float | int]:
    """The values named in a CSV row (extra columns ignored)."""
    values: dict[str, float | int] = {}
    for dim in space:
        if dim.name not in row:
            raise ValueError(f"the row lacks parameter {dim.name}")
        value = float(row[dim.name])
        values[dim.name] = int(round(value)) if dim.integer else value
    return values
