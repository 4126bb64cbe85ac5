"""Electromagnets bound to a compiled model: switching, force application, readouts.

The layout (which bodies carry magnets, their sampling spheres, the steel plates) defaults to the
legged Sally's four feet; the wheeled platform passes its own (:class:`MagnetLayout`), so both
robots run the same model through the same kernel."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import mujoco
import numpy as np

from sally_description import LEGS, PhysicsParams
from sally_description.constants import PLATE_GEOMS, magnet_body, sampler_geoms

from .errors import SimulationError
from .magnet_kernel import NO_SURFACE, magnet_step
from .magnet_model import MIN_DISTANCE, MagnetModel

CONTACT_DISTANCE = 0.003
"""A magnet whose closest sphere is within this of a plate is reported in contact (m)."""


@dataclass(frozen=True)
class MagnetLayout:
    """Where the magnets are in a model: one name, body and sampling-sphere geoms per magnet, and
    the steel plates (surface name -> static box geom of the world body, in kernel order)."""

    names: tuple[str, ...]
    bodies: tuple[str, ...]
    spheres: tuple[tuple[str, ...], ...]
    plates: Mapping[str, str] = field(default_factory=lambda: dict(PLATE_GEOMS))
    kind: str = "magnet"
    """What a magnet's name names, for error messages ("foot", "wheel")."""

    def __post_init__(self) -> None:
        if not (len(self.names) == len(self.bodies) == len(self.spheres)) or not self.names:
            raise SimulationError("a magnet layout needs one body and one sphere list per magnet name")
        if len({len(s) for s in self.spheres}) != 1 or not self.spheres[0]:
            raise SimulationError("every magnet needs the same number (at least one) of sampling spheres")

    @classmethod
    def legged(cls, plates: Mapping[str, str] | None = None) -> MagnetLayout:
        """The legged Sally: one magnet per foot, named by its leg; ``plates`` (surface name -> geom, in
        kernel order) default to the floor and the wall's."""
        return cls(
            LEGS,
            tuple(magnet_body(leg) for leg in LEGS),
            tuple(sampler_geoms(leg) for leg in LEGS),
            dict(plates or PLATE_GEOMS),
            kind="foot",
        )


@dataclass(frozen=True)
class MagnetReadout:
    """One magnet's state after the last physics step."""

    leg: str
    enabled: bool
    force: tuple[float, float, float]
    """Applied force (N, world frame), after the clip."""
    magnitude: float
    min_distance: float
    """Smallest sampling-sphere distance to a plate (m); negative when sunk in."""
    surface: str
    """The nearest steel surface's name ("floor", "wall", "ceiling"), or "none" (no plate within
    max_magnetic_distance)."""
    in_contact: bool


class MagnetArray:
    """Applies the dipole-dipole model of every enabled magnet, every step, through one kernel call."""

    def __init__(
        self,
        model: mujoco.MjModel,
        params: PhysicsParams | None = None,
        enabled: bool | Mapping[str, bool] = True,
        layout: MagnetLayout | None = None,
        magnet: MagnetModel | None = None,
    ) -> None:
        """``layout`` defaults to the legged Sally's feet; ``magnet`` to the model of ``params`` (default:
        the default parameters) with the EML63mm-12 core shared among each magnet's sampling spheres."""
        layout = layout or MagnetLayout.legged()
        self.names, self._kind = layout.names, layout.kind
        self.surfaces = tuple(layout.plates)
        """Surface names in kernel plate order; ``"none"`` is reported beyond max_magnetic_distance."""
        n_spheres = len(layout.spheres[0])
        self.model_params = magnet or MagnetModel.from_params(params or PhysicsParams(), n_spheres)
        self._spheres = np.array(
            [[_id(model, mujoco.mjtObj.mjOBJ_GEOM, g) for g in spheres] for spheres in layout.spheres], dtype=np.int64
        )
        self._bodies = np.array([_id(model, mujoco.mjtObj.mjOBJ_BODY, b) for b in layout.bodies], dtype=np.int64)
        radii = model.geom_size[self._spheres.ravel(), 0]
        if not np.allclose(radii, radii[0]):
            raise SimulationError("all magnet sampling spheres must share one radius")
        self._radius = float(radii[0])
        plates = [_id(model, mujoco.mjtObj.mjOBJ_GEOM, name) for name in layout.plates.values()]
        for name, gid in zip(layout.plates.values(), plates):
            if model.geom_type[gid] != mujoco.mjtGeom.mjGEOM_BOX or model.geom_bodyid[gid] != 0:
                raise SimulationError(f"plate {name!r} must be a static box geom of the world body")
        scratch = mujoco.MjData(model)
        mujoco.mj_kinematics(model, scratch)
        self._plate_pos = scratch.geom_xpos[plates].copy()
        self._plate_rot = scratch.geom_xmat[plates].reshape(-1, 3, 3).copy()
        self._plate_half = model.geom_size[plates].copy()
        self.enabled = np.ones(len(self.names), dtype=np.bool_)
        self.set_enabled(enabled)
        m = len(self.names)
        self.force = np.zeros((m, 3))
        self.torque = np.zeros((m, 3))
        self.min_distance = np.full(m, np.inf)
        self.surface = np.full(m, NO_SURFACE, dtype=np.int64)
        self.sphere_distance = np.full((m, n_spheres), np.inf)
        self.sphere_force = np.zeros((m, n_spheres, 3))
        self._constants = (
            self._radius,
            self.model_params.coefficient,
            MIN_DISTANCE,
            self.model_params.max_distance,
            self.model_params.max_force,
        )

    def set_enabled(self, enabled: bool | Mapping[str, bool], leg: str | None = None) -> None:
        """Switch every magnet (``enabled`` a bool), one (``leg``), or several (a mapping)."""
        if leg is not None:
            self.enabled[self.index(leg)] = bool(enabled)
        elif isinstance(enabled, Mapping):
            for name, on in enabled.items():
                self.enabled[self.index(name)] = bool(on)
        else:
            self.enabled[:] = bool(enabled)

    def apply(self, data: mujoco.MjData, external: np.ndarray) -> None:
        """Write ``external`` plus every enabled magnet's wrench into ``data.xfrc_applied``.

        Needs ``geom_xpos``/``xipos`` of the current state (call between mj_step1 and mj_step2).
        """
        magnet_step(*self.kernel_arguments(data, external))

    def kernel_arguments(self, data: mujoco.MjData, external: np.ndarray) -> tuple:
        """What :func:`~.magnet_kernel.magnet_step` takes, in its order, for steps of ``data`` with
        ``external`` (views: they follow the state and the switches)."""
        return (
            data.geom_xpos, data.xipos, data.xfrc_applied, external,
            self._spheres, self._bodies, self.enabled,
            self._plate_pos, self._plate_rot, self._plate_half,
            *self._constants,
            self.force, self.torque, self.min_distance, self.surface,
            self.sphere_distance, self.sphere_force,
        )  # fmt: skip

    def index(self, name: str) -> int:
        """The position of magnet ``name`` in the arrays (force, torque, enabled, ...)."""
        try:
            return self.names.index(name)
        except ValueError:
            raise SimulationError(f"unknown {self._kind} {name!r}; valid: {list(self.names)}") from None

    def readout(self, leg: str) -> MagnetReadout:
        """``leg``'s magnet as of the last step."""
        i = self.index(leg)
        surface = self.surface[i]
        return MagnetReadout(
            leg=leg,
            enabled=bool(self.enabled[i]),
            force=(float(self.force[i][0]), float(self.force[i][1]), float(self.force[i][2])),
            magnitude=float(np.linalg.norm(self.force[i])),
            min_distance=float(self.min_distance[i]),
            surface="none" if surface == NO_SURFACE else self.surfaces[surface],
            in_contact=bool(self.min_distance[i] <= CONTACT_DISTANCE),
        )

    def readouts(self) -> dict[str, MagnetReadout]:
        """Every magnet as of the last step, by name."""
        return {name: self.readout(name) for name in self.names}


def leg_index(leg: str) -> int:
    """The index of ``leg`` in LEGS (an unknown foot is refused)."""
    try:
        return LEGS.index(leg)
    except ValueError:
        raise SimulationError(f"unknown foot {leg!r}; valid: {list(LEGS)}") from None


def _id(model: mujoco.MjModel, kind: mujoco.mjtObj, name: str) -> int:
    oid = mujoco.mj_name2id(model, kind, name)
    if oid < 0:
        raise SimulationError(f"model has no {kind.name.removeprefix('mjOBJ_').lower()} named {name!r}")
    return oid
