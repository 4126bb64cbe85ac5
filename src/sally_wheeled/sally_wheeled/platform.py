"""The wheeled platform in MuJoCo: stepping, swerve drive, magnets. Pure (mujoco and numpy).

Each step applies the legged sim's dipole-dipole magnet model to every enabled wheel magnet
through the same :class:`~sally_sim_node.magnets.MagnetArray` and compiled kernel, with the
wheeled layout (four magnets of 24 sampling spheres; see :mod:`.geometry`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import mujoco
import numpy as np

from sally_sim_node.magnets import MagnetArray, MagnetLayout, MagnetReadout

from . import geometry as g
from .model import CHASSIS, WHEEL_SPEED, Start, build_model
from .params import WheeledParams


class DivergedError(RuntimeError):
    """The physics produced a non-finite state."""


class WheeledSim:
    """The platform at ``start`` with ``params``; magnets on (all, or per wheel) or off."""

    def __init__(
        self,
        params: WheeledParams | None = None,
        start: Start | None = None,
        magnets_on: bool | Mapping[str, bool] = True,
    ) -> None:
        self.params = params or WheeledParams()
        self.start = start or Start()
        self.model = build_model(self.params, self.start)
        self.data = mujoco.MjData(self.model)
        layout = MagnetLayout(
            g.WHEELS,
            tuple(g.magnet_body(w) for w in g.WHEELS),
            tuple(g.sphere_geoms(w) for w in g.WHEELS),
            kind="wheel",
        )
        self.magnets = MagnetArray(self.model, enabled=magnets_on, layout=layout, magnet=self.params.magnet())
        self._external = np.zeros((self.model.nbody, 6))
        self._chassis = mujoco.mj_name2id(self.model, mujoco.mjtObj.mjOBJ_BODY, CHASSIS)
        self._steer = [self._actuator(g.pivot_joint(w)) for w in g.WHEELS]
        self._drive = [self._actuator(g.wheel_joint(w)) for w in g.WHEELS]
        self._magnet_bodies = [
            mujoco.mj_name2id(self.model, mujoco.mjtObj.mjOBJ_BODY, g.magnet_body(w)) for w in g.WHEELS
        ]
        self.command = (0.0, 0.0)
        """The body-frame velocity (vx, vy) the wheels are driving (m/s)."""
        mujoco.mj_forward(self.model, self.data)

    def _actuator(self, name: str) -> int:
        return mujoco.mj_name2id(self.model, mujoco.mjtObj.mjOBJ_ACTUATOR, name)

    @property
    def time(self) -> float:
        """Sim time (s)."""
        return float(self.data.time)

    def drive(self, vx: float, vy: float) -> None:
        """Drive at (vx, vy) m/s in the body frame (x forward, y left) without turning: every wheel
        steers to the direction of travel (within +-90 deg, reversing its spin past that) and turns
        at speed / radius. (0, 0) stops the wheels and keeps their steering."""
        vx, vy = float(vx), float(vy)
        if not (math.isfinite(vx) and math.isfinite(vy)):
            raise ValueError(f"drive velocity must be finite, got ({vx}, {vy})")
        speed = math.hypot(vx, vy)
        if speed / g.WHEEL_RADIUS > WHEEL_SPEED:
            raise ValueError(f"drive speed {speed:.3f} m/s is above the wheels' {WHEEL_SPEED * g.WHEEL_RADIUS:g} m/s")
        self.command = (vx, vy)
        if speed > 0.0:
            angle = math.atan2(vy, vx)
            if abs(angle) > math.pi / 2:
                angle -= math.copysign(math.pi, angle)
                speed = -speed
            self.data.ctrl[self._steer] = angle
        self.data.ctrl[self._drive] = speed / g.WHEEL_RADIUS

    def step(self, n: int = 1) -> None:
        """``n`` physics steps, the magnets applied in each."""
        for _ in range(n):
            mujoco.mj_step1(self.model, self.data)
            self.magnets.apply(self.data, self._external)
            mujoco.mj_step2(self.model, self.data)
        if not np.isfinite(self.data.qpos).all():
            raise DivergedError(f"the physics diverged at t = {self.time:.4f} s")

    def run(self, seconds: float) -> None:
        """Step for ``seconds`` of sim time."""
        self.step(max(0, round(seconds / self.model.opt.timestep)))

    def position(self) -> np.ndarray:
        """Chassis centre (world, m)."""
        return self.data.xpos[self._chassis].copy()

    def rotation(self) -> np.ndarray:
        """Chassis orientation (body -> world rotation matrix)."""
        return self.data.xmat[self._chassis].reshape(3, 3).copy()

    def velocity(self) -> np.ndarray:
        """Chassis linear velocity (world, m/s)."""
        out = np.zeros(6)
        mujoco.mj_objectVelocity(self.model, self.data, mujoco.mjtObj.mjOBJ_BODY, self._chassis, out, 0)
        return out[3:].copy()

    def readouts(self) -> dict[str, MagnetReadout]:
        """Every wheel magnet's readout as of the last step."""
        return self.magnets.readouts()

    def magnet_position(self, wheel: str) -> np.ndarray:
        """Wheel ``wheel``'s magnet body (world, m)."""
        return self.data.xpos[self._magnet_bodies[self.magnets.index(wheel)]].copy()
