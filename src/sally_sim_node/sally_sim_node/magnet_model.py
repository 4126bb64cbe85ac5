"""The dipole-dipole electromagnet model, as plain formulas.

Per sampling sphere: F = 3 mu0 m^2 / (2 pi (2 d)^4) with m = Br V / mu0, where d is the distance
from the sphere to the closest steel plate and V is the sphere's share of the magnet volume.
Beyond ``max_distance`` a sphere contributes nothing; each magnet's total is clipped to
``max_force``. Distances below ``MIN_DISTANCE`` are evaluated at ``MIN_DISTANCE``: the formula
diverges at contact, and with the floor every touching sphere pulls equally.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from sally_description import PhysicsParams
from sally_description.constants import MAGNET_VOLUME, MU_0, N_SAMPLING_SPHERES

MIN_DISTANCE = 1e-3
"""Sphere distances are floored here before the formula is applied (m)."""


@dataclass(frozen=True)
class MagnetModel:
    """The dipole-dipole magnet model: remanence, reach, clip and the sampling spheres' share of the volume."""

    Br: float
    max_distance: float
    max_force: float
    sphere_volume: float = MAGNET_VOLUME / N_SAMPLING_SPHERES

    @classmethod
    def from_params(cls, params: PhysicsParams, n_spheres: int = N_SAMPLING_SPHERES) -> MagnetModel:
        """``params``' magnet, the EML63mm-12 core shared among ``n_spheres`` sampling spheres."""
        return cls(params.Br, params.max_magnetic_distance, params.max_force_per_wheel, MAGNET_VOLUME / n_spheres)

    @property
    def dipole_moment(self) -> float:
        """The dipole moment m = Br V / mu0 of one sampling sphere (A m^2)."""
        return self.Br * self.sphere_volume / MU_0

    @property
    def coefficient(self) -> float:
        """C in F = C / d^4, i.e. 3 mu0 m^2 / (2 pi 2^4)."""
        return 3.0 * MU_0 * self.dipole_moment**2 / (2.0 * math.pi * 16.0)

    def sphere_force(self, distance: float | np.ndarray) -> float | np.ndarray:
        """Magnitude of one sphere's attraction at ``distance`` (0 beyond max_distance)."""
        d = np.asarray(distance, dtype=float)
        force = self.coefficient / np.maximum(d, MIN_DISTANCE) ** 4
        out = np.where(d < self.max_distance, force, 0.0)
        return float(out) if out.ndim == 0 else out
