"""The search space as CMA-ES sees it: 14 coordinates in [0, 1], one per physics parameter.

A coordinate is the position of the parameter in its range, on a log scale for the log-uniform
dimensions (:mod:`sally_search.space`), so sigma0 = 0.3 is the same relative step everywhere.
``noslip_iterations`` is rounded to a whole number when decoded. solref dampratio (10) and solimp
dmax (0.9999) are fixed in :mod:`sally_description.params`, not searched.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from sally_description.params import PARAM_SPACE, PhysicsParams
from sally_search import space


def encode(params: PhysicsParams) -> np.ndarray:
    """The CMA-ES coordinates of ``params``."""
    return space.encode(PARAM_SPACE, params.as_dict())


def decode(x) -> PhysicsParams:
    """The parameters at coordinates ``x`` (clipped into [0, 1]); raises ValueError on a wrong
    length or a non-finite coordinate."""
    return PhysicsParams(**space.decode(PARAM_SPACE, x))


def params_from_row(row: Mapping[str, str]) -> PhysicsParams:
    """The parameters named in a CSV row (extra columns ignored)."""
    return PhysicsParams(**space.values_from_row(PARAM_SPACE, row))
