"""Sally's body from what she senses: the IMU, the kinematics of the feet her magnets hold, and the
map of the steel surfaces (pure: numpy and the leg kinematics, no ROS).

The design (the package README gives the error budget):

* **Feet that hold are fixed points.** A foot whose magnet is on and whose contact sensor says
  contact is clamped: it does not slip (a held foot drifts < 1 mm over a whole climb). When a foot
  starts to hold, its point in the world is fixed from the estimate then (its *anchor*); while it
  holds, the encoders give where it is from main_frame (:class:`.leg_kinematics.LegKinematics`).
* **Map-aided anchors.** An anchor whose magnet face lies within :attr:`EstimatorConfig.map_gate`
  of a steel surface of the map is put on that surface's plane: each seated foot brings the body's
  distance to that surface back to the map's, so the error along a surface's normal never grows. A
  surface further from the map than the gate is taken as found (not corrected toward the map).
* **Three or more anchors give the whole pose**: the rotation and position that carry the feet's
  kinematic points onto their anchors (Kabsch's least squares). The gyro's integration is blended
  into it (``gyro_weight``), and carries the orientation alone when fewer than three feet hold; the
  accelerometer levels it then (a small gain toward gravity while the body is still).
* **Fewer than three**: the orientation from the IMU, the position from the anchors that remain
  (none: the last velocity, its covariance growing).

An IMU reading that is not finite or beyond its range is refused (:class:`ImuRefusedError`) and the
estimate goes on from the legs; with no IMU at all, the orientation comes from the legs alone.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from sally_description import LEGS
from sally_description.constants import CLAMP_SINK, FOOT_STANDOFF
from sally_description.pose import Pose
from sally_description.surfaces import Surface

from .leg_kinematics import Feet, LegKinematics

GRAVITY = 9.81
MAX_GAP = 0.1
"""s: a gap between two updates longer than this (the estimator started again after a crash, from
its saved state) moves nothing by the velocity and the gyro: the legs fix the pose again."""
MAX_SURFACES = 12
"""The most steel surfaces a map may have for the estimator's state to hold."""
_STATE = struct.Struct(f"<d9d3d3d3d6dI4B4b12d{MAX_SURFACES}d")
"""The estimator's state as bytes: t (nan: none yet), rotation, position, velocity, angular rate,
the covariance's diagonal, releases, each foot's anchor (1 held, 2 released, 0 neither; its
surface's index, -1 none; its point), then ``found`` per surface (nan: not found)."""
STATE_BYTES = _STATE.size


class ImuRefusedError(ValueError):
    """An IMU reading that cannot be used (not finite, or beyond the sensor's range)."""


@dataclass(frozen=True)
class EstimatorConfig:
    """The estimator's settings, each in its unit."""

    map_gate: float = 0.003
    """m: an anchor within this of a steel surface's plane is put on it."""
    release_gate: float = 0.001
    """m: a held foot this far off its anchor, while the other three fit theirs within half of it,
    is taken as moving (its magnet off, or slipping) and released."""
    seat_depth: float = CLAMP_SINK
    """m: how far a clamped magnet's face sits into its plate (the contact's compliance under an
    800 N clamp, measured on a standing Sally; a robot's pad compression): where an anchor is put."""
    gyro_weight: float = 0.5
    """How much of the gyro's integrated orientation each update keeps against the legs' (0..1)."""
    level_gain: float = 0.02
    """Per update, how far toward the accelerometer's gravity the tilt moves with fewer than three
    feet holding and the body still (0..1)."""
    gyro_limit: float = 4.36
    """rad/s: a gyro reading beyond this is refused (the BMI088 at +-250 deg/s)."""
    accel_limit: float = 58.8
    """m/s^2: an accelerometer reading beyond this is refused (+-6 g)."""
    leg_sigma: float = 2.0e-4
    """m: one held foot's kinematic error (encoder resolution over a 0.5 m leg, the foot's
    compliance): the position's standard deviation with three or more holding."""
    drift_rate: float = 5.0e-3
    """m/sqrt(s): how fast the position's standard deviation grows with no foot holding."""
    gyro_sigma: float = 2.1e-3
    """rad/s: the gyro's noise, for the orientation's growth when the legs do not fix it."""


@dataclass
class Estimate:
    """main_frame's estimated state at ``t`` (s)."""

    t: float
    pose: Pose
    linear: np.ndarray
    """m/s, world."""
    angular: np.ndarray
    """rad/s, main_frame."""
    covariance: np.ndarray
    """6 x 6: position (m^2) then orientation (rad^2, about world x, y, z)."""
    holding: tuple[str, ...] = ()
    """The feet anchored (held) in this update."""
    imu: bool = True
    """Whether this update used an IMU reading."""


@dataclass
class _Anchor:
    point: np.ndarray
    surface: str | None
    """The map surface it was put on (None: not near any)."""


@dataclass
class BodyEstimator:
    """The estimator: ``start`` the pose Sally was put down at (as an operator tells a robot its
    initial pose), ``surfaces`` the map's steel surfaces (in the same frame)."""

    start: Pose
    surfaces: Sequence[Surface]
    kinematics: LegKinematics = field(default_factory=LegKinematics)
    config: EstimatorConfig = field(default_factory=EstimatorConfig)

    def __post_init__(self) -> None:
        if len(self.surfaces) > MAX_SURFACES:
            raise ValueError(f"a map of at most {MAX_SURFACES} surfaces, not {len(self.surfaces)}")
        self.reset()

    def reset(self) -> None:
        """Back to the start pose, nothing anchored."""
        self._rotation = self.start.rotation.copy()
        self._position = self.start.position.copy()
        self._velocity = np.zeros(3)
        self._angular = np.zeros(3)
        self._anchors: dict[str, _Anchor] = {}
        self._released: set[str] = set()
        """Feet released for moving off their anchors while still said to hold."""
        self.releases = 0
        """How many anchors were released so."""
        self._t: float | None = None
        self._var = np.array([1e-8] * 3 + [1e-8] * 3)
        self.found: dict[str, float] = {}
        """Surface -> how far (m, along its normal) a seated foot found it from the map, where beyond the gate."""

    @property
    def anchors(self) -> dict[str, np.ndarray]:
        """Each held foot's anchor (world, m)."""
        return {leg: a.point.copy() for leg, a in self._anchors.items()}

    def state(self) -> bytes:
        """Everything :meth:`update` carries from one update to the next, as bytes (:meth:`restore`)."""
        names = [s.name for s in self.surfaces]
        flags = [2 if leg in self._released else int(leg in self._anchors) for leg in LEGS]
        surfaces = [
            names.index(self._anchors[leg].surface) if leg in self._anchors and self._anchors[leg].surface else -1
            for leg in LEGS
        ]
        points = [v for leg in LEGS for v in (self._anchors[leg].point if leg in self._anchors else np.zeros(3))]
        found = [self.found.get(name, math.nan) for name in names] + [math.nan] * (MAX_SURFACES - len(names))
        return _STATE.pack(
            math.nan if self._t is None else self._t, *self._rotation.ravel(), *self._position, *self._velocity,
            *self._angular, *self._var, self.releases, *flags, *surfaces, *points, *found,
        )  # fmt: skip

    def restore(self, state: bytes) -> float | None:
        """The state :meth:`state` gave, taken up (ValueError for bytes that are not one); its time (s)."""
        try:
            values = _STATE.unpack(state[: _STATE.size])
        except struct.error:
            raise ValueError(f"not an estimator's state ({len(state)} bytes)") from None
        names = [s.name for s in self.surfaces]
        t = values[0]
        self._t = None if math.isnan(t) else t
        self._rotation = np.array(values[1:10]).reshape(3, 3)
        self._position, self._velocity, self._angular = (np.array(values[i : i + 3]) for i in (10, 13, 16))
        self._var = np.array(values[19:25])
        self.releases = values[25]
        flags, surfaces, points = values[26:30], values[30:34], np.array(values[34:46]).reshape(4, 3)
        self._anchors = {
            leg: _Anchor(points[i].copy(), names[surfaces[i]] if surfaces[i] >= 0 else None)
            for i, leg in enumerate(LEGS)
            if flags[i] == 1
        }
        self._released = {leg for i, leg in enumerate(LEGS) if flags[i] == 2}
        self.found = {name: v for name, v in zip(names, values[46:]) if not math.isnan(v)}
        return self._t

    def check_imu(self, accel: np.ndarray, gyro: np.ndarray) -> None:
        """Refuse (:class:`ImuRefusedError`) a reading that is not finite or beyond the sensor's range."""
        a, g = np.asarray(accel, float), np.asarray(gyro, float)
        if a.shape != (3,) or g.shape != (3,) or not (np.isfinite(a).all() and np.isfinite(g).all()):
            raise ImuRefusedError(f"IMU reading not finite: accel {a.tolist()}, gyro {g.tolist()}")
        if np.abs(g).max() > self.config.gyro_limit or np.abs(a).max() > self.config.accel_limit:
            raise ImuRefusedError(
                f"IMU reading beyond its range (gyro {self.config.gyro_limit} rad/s, accel "
                f"{self.config.accel_limit} m/s^2): accel {a.tolist()}, gyro {g.tolist()}"
            )

    def update(
        self,
        t: float,
        positions: np.ndarray,
        holding: Mapping[str, bool | None],
        imu: tuple[np.ndarray, np.ndarray] | None = None,
    ) -> Estimate:
        """The estimate at ``t`` (s) from the encoders' ``positions`` (rad, every joint), which feet
        hold (None: no reading says, as a restarted estimator's first states before its telemetry:
        a foot anchored stays so, one not anchored is not anchored), and the IMU's (specific force
        m/s^2, rate rad/s) in main_frame (None: no reading)."""
        dt = 0.0 if self._t is None else max(0.0, t - self._t)
        if dt > MAX_GAP:  # (started again from a saved state): nothing integrated over the gap
            dt, self._velocity = 0.0, np.zeros(3)
        self._t = t
        if imu is not None:
            self.check_imu(*imu)
        feet = self.kinematics.feet(np.asarray(positions, float))
        predicted = self._rotation @ _exp(np.asarray(imu[1], float) * dt) if imu is not None else self._rotation
        position = self._position + self._velocity * dt
        self._anchor(feet, holding, predicted, position)
        fitted = self._release_moving(feet)
        held = [i for i, leg in enumerate(LEGS) if leg in self._anchors]
        rotation = predicted
        if len(held) >= 3:
            if fitted is None or len(held) < len(LEGS):
                fitted, _ = _fit(feet.points[held], np.array([self._anchors[LEGS[i]].point for i in held]))
            rotation = _blend(predicted, fitted, 1.0 - self.config.gyro_weight)
        elif imu is not None:
            rotation = self._level(predicted, np.asarray(imu[0], float))
        if held:
            anchors = np.array([self._anchors[LEGS[i]].point for i in held])
            position = (anchors - feet.points[held] @ rotation.T).mean(axis=0)
        if dt > 0:
            self._velocity = (position - self._position) / dt
            self._angular = _log(self._rotation.T @ rotation) / dt
        self._rotation, self._position = rotation, position
        self._grow(len(held), dt, imu is not None)
        return Estimate(
            t,
            Pose.from_matrix(position, rotation),
            self._velocity.copy(),
            np.asarray(imu[1], float).copy() if imu is not None else self._angular.copy(),
            np.diag(self._var),
            tuple(LEGS[i] for i in held),
            imu is not None,
        )

    def _anchor(
        self, feet: Feet, holding: Mapping[str, bool | None], rotation: np.ndarray, position: np.ndarray
    ) -> None:
        """Drop the anchors of feet that let go; fix those of feet that start to hold (not a foot
        released for moving until its magnet lets go and holds again); a foot no reading tells of
        (None) as it stood."""
        for i, leg in enumerate(LEGS):
            held = holding.get(leg, False)
            if held is None:
                continue
            if not held:
                self._anchors.pop(leg, None)
                self._released.discard(leg)
                continue
            if leg in self._anchors or leg in self._released:
                continue
            point = position + rotation @ feet.points[i]
            normal = rotation @ feet.normals[i]
            self._anchors[leg] = self._on_map(point, normal)

    def _release_moving(self, feet: Feet) -> np.ndarray | None:
        """With four anchors, the one foot that moved off its anchor while the other three still fit
        theirs (a magnet switched off before its telemetry says so, a foot that slipped) is released.
        Returns the rotation that fits all four feet onto their anchors (:data:`LEGS` order) when
        four anchors were checked (the update's own fit, computed once), else None."""
        if len(self._anchors) < len(LEGS):
            return None
        points, anchors = feet.points, np.array([self._anchors[leg].point for leg in LEGS])
        residuals, rotation = _residuals(points, anchors)
        if residuals.max() <= self.config.release_gate:
            return rotation
        fits = []
        for k in range(len(LEGS)):
            rest = [j for j in range(len(LEGS)) if j != k]
            fits.append((_residuals(points[rest], anchors[rest])[0].max(), k))
        worst, k = min(fits)
        if worst <= self.config.release_gate / 2:
            self._anchors.pop(LEGS[k])
            self._released.add(LEGS[k])
            self.releases += 1
        return rotation

    def _on_map(self, point: np.ndarray, normal: np.ndarray) -> _Anchor:
        """``point`` (an EE site, world) put on the steel surface its face lies on, when within the gate."""
        face = point + FOOT_STANDOFF * normal
        for surface in self.surfaces:
            if not surface.steel or float(normal @ surface.normal) > -0.5:
                continue  # a face seats on a surface it faces
            gap = surface.height(face)
            if abs(gap) <= self.config.map_gate and surface.covers(face):
                return _Anchor(point - (gap + self.config.seat_depth) * surface.normal, surface.name)
            if surface.covers(face) and abs(gap) <= 0.05:
                self.found[surface.name] = gap
        return _Anchor(point, None)

    def _level(self, rotation: np.ndarray, accel: np.ndarray) -> np.ndarray:
        """``rotation`` turned a little toward the accelerometer's gravity when the body is still."""
        norm = float(np.linalg.norm(accel))
        if abs(norm - GRAVITY) > 0.05 * GRAVITY:
            return rotation
        up_sensed = rotation @ (accel / norm)  # the specific force at rest points up
        axis = np.cross(up_sensed, np.array([0.0, 0.0, 1.0]))
        return _exp(self.config.level_gain * axis) @ rotation

    def _grow(self, held: int, dt: float, imu: bool) -> None:
        """The covariance for this update: fixed by the legs with three or more holding, growing otherwise."""
        c = self.config
        if held >= 3:
            self._var[:3] = c.leg_sigma**2
            self._var[3:] = (c.leg_sigma / 0.3) ** 2  # the feet span ~0.3 m
            return
        self._var[:3] = c.leg_sigma**2 if held else self._var[:3] + c.drift_rate**2 * dt
        self._var[3:] += (c.gyro_sigma if imu else 10 * c.gyro_sigma) ** 2 * dt


def _fit(body_points: np.ndarray, world_points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The rotation and translation carrying ``body_points`` onto ``world_points`` (Kabsch)."""
    n = len(body_points)
    cb, cw = body_points.sum(axis=0) / n, world_points.sum(axis=0) / n
    h = (body_points - cb).T @ (world_points - cw)
    u, _, vt = np.linalg.svd(h)
    v = np.ascontiguousarray(vt.T)  # (the product's rounding follows its operands' layout)
    if _det(v) * _det(u) < 0.0:  # det(v u^T) < 0: a reflection
        v = v * np.array([1.0, 1.0, -1.0])
    rotation = v @ u.T
    return rotation, cw - rotation @ cb


def _det(m: np.ndarray) -> float:
    """The determinant of 3 x 3 ``m`` (in plain floats: numpy's calls cost more than the sum)."""
    (a, b, c), (d, e, f), (g, h, i) = m.tolist()
    return a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g)


def _residuals(body_points: np.ndarray, world_points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(how far, m, each of ``body_points`` lands from its ``world_points`` after their best fit;
    that fit's rotation)."""
    rotation, translation = _fit(body_points, world_points)
    gaps = body_points @ rotation.T + translation - world_points
    return np.sqrt((gaps * gaps).sum(axis=1)), rotation


def _exp(w: np.ndarray) -> np.ndarray:
    """The rotation of rotation vector ``w`` (rad)."""
    angle = math.sqrt(float(w @ w))  # (np.linalg.norm's sum, without its checks)
    if angle < 1e-12:
        return np.eye(3)
    x, y, z = (float(v) / angle for v in w)
    kx = np.array([[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]])
    return np.eye(3) + math.sin(angle) * kx + (1 - math.cos(angle)) * kx @ kx


def _log(r: np.ndarray) -> np.ndarray:
    """The rotation vector of rotation ``r`` (rad)."""
    cos = max(-1.0, min(1.0, (np.trace(r) - 1.0) / 2.0))
    angle = math.acos(cos)
    if angle < 1e-9:
        return np.zeros(3)
    return angle / (2 * math.sin(angle)) * np.array([r[2, 1] - r[1, 2], r[0, 2] - r[2, 0], r[1, 0] - r[0, 1]])


def _blend(a: np.ndarray, b: np.ndarray, s: float) -> np.ndarray:
    """The rotation ``s`` of the way from ``a`` to ``b``."""
    return a @ _exp(s * _log(a.T @ b))
