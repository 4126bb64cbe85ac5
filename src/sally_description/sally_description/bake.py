"""Baked joint angles: the standing pose written into the model's geometry, in memory.

Sally's description bakes knee, wrist and ee angles into the link geometry (Rodrigues rotation of each link
about its joint axis) instead of relying on keyframes. We do the same on an ``mujoco.MjSpec``: the
child body of each baked joint is rotated about that joint's axis, so q = 0 *is* the baked pose
and joint ranges are measured from it. No file is touched.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

import mujoco
import numpy as np

from .constants import BAKED_KINDS, LEGS, joint_name
from .errors import DescriptionError

_DEFAULT_DEG = {"knee": -40.0, "wrist": 100.0, "ee": 30.0}
_LIMIT_DEG = 180.0


def _per_leg(value: float) -> Mapping[str, float]:
    return MappingProxyType({leg: value for leg in LEGS})


@dataclass(frozen=True)
class Bake:
    """Per-leg baked angles in degrees (KNEE/WRIST/EE_BAKE_DEG).

    The defaults put the thigh 40 deg up, the shin 60 deg down and the ee link vertical, so every
    magnet face lies flat on the floor about 0.28 m from its hip.
    """

    knee_deg: Mapping[str, float] = field(default_factory=lambda: _per_leg(_DEFAULT_DEG["knee"]))
    wrist_deg: Mapping[str, float] = field(default_factory=lambda: _per_leg(_DEFAULT_DEG["wrist"]))
    ee_deg: Mapping[str, float] = field(default_factory=lambda: _per_leg(_DEFAULT_DEG["ee"]))

    def __post_init__(self) -> None:
        for kind in BAKED_KINDS:
            table = dict(getattr(self, f"{kind}_deg"))
            if set(table) != set(LEGS):
                raise DescriptionError(f"bake {kind}_deg must give exactly the legs {list(LEGS)}, got {sorted(table)}")
            for leg, value in table.items():
                if not isinstance(value, (int, float)) or not math.isfinite(value):
                    raise DescriptionError(f"bake {kind}_deg[{leg}] must be a finite number, got {value!r}")
                if abs(value) > _LIMIT_DEG:
                    raise DescriptionError(
                        f"bake {kind}_deg[{leg}] = {value} is outside [-{_LIMIT_DEG}, {_LIMIT_DEG}] deg"
                    )
            object.__setattr__(self, f"{kind}_deg", MappingProxyType({k: float(v) for k, v in table.items()}))

    def angle_deg(self, kind: str, leg: str) -> float:
        """The baked angle (deg) of joint ``kind`` of ``leg``."""
        if kind not in BAKED_KINDS:
            raise DescriptionError(f"unknown baked joint kind {kind!r}; valid: {list(BAKED_KINDS)}")
        if leg not in LEGS:
            raise DescriptionError(f"unknown leg {leg!r}; valid: {list(LEGS)}")
        return getattr(self, f"{kind}_deg")[leg]


DEFAULT_BAKE = Bake()


def apply_bake(spec: mujoco.MjSpec, bake: Bake) -> None:
    """Rotate the child body of every baked joint about the joint axis by its bake angle."""
    for leg in LEGS:
        for kind in BAKED_KINDS:
            joint = spec.joint(joint_name(kind, leg))
            if joint is None:
                raise DescriptionError(f"model has no joint {joint_name(kind, leg)!r} to bake")
            body = joint.parent
            if body.alt.type != mujoco.mjtOrientation.mjORIENTATION_QUAT:
                raise DescriptionError(f"body {body.name!r} must be oriented by quat to be baked")
            if np.linalg.norm(joint.pos) > 1e-12:
                raise DescriptionError(f"joint {joint.name!r} must sit at its body origin to be baked")
            turn = np.zeros(4)
            mujoco.mju_axisAngle2Quat(turn, np.asarray(joint.axis, float), math.radians(bake.angle_deg(kind, leg)))
            out = np.zeros(4)
            mujoco.mju_mulQuat(out, np.asarray(body.quat, float), turn)
            body.quat = out
