"""IKTarget: what the swing foot should do for one IK step, as plain numbers.

Produced by the sequences (sally_sequencer), consumed by the whole-body IK (sally_ik_node); on the
wire it is ``sally_interfaces/IKTarget``. It lives here, below both, so neither imports the other.
Bad values raise :class:`IKTargetError` (a ``ValueError``) naming the field."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


class IKTargetError(ValueError):
    """A target field that is not finite, not a 3-vector, or a negative cost."""


@dataclass(frozen=True)
class IKTarget:
    """One swing-foot target for the IK: position, optional face direction and the costs of both."""

    position: np.ndarray
    face_axis: np.ndarray | None = None
    """World direction the magnet face normal (EE local -Y) should point along; None: position only."""
    position_cost: float = 1.0
    orientation_cost: float = 0.0

    def __post_init__(self) -> None:
        position = np.asarray(self.position, dtype=float)
        if position.shape != (3,) or not np.isfinite(position).all():
            raise IKTargetError(f"IK target position must be a finite 3-vector, got {self.position!r}")
        object.__setattr__(self, "position", position)
        if self.face_axis is not None:
            axis = np.asarray(self.face_axis, dtype=float)
            if axis.shape != (3,) or not np.isfinite(axis).all() or np.linalg.norm(axis) < 1e-9:
                raise IKTargetError(f"face axis must be a finite non-zero 3-vector, got {self.face_axis!r}")
            object.__setattr__(self, "face_axis", axis / np.linalg.norm(axis))
        for name in ("position_cost", "orientation_cost"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not np.isfinite(value) or value < 0:
                raise IKTargetError(f"{name} must be a non-negative finite number, got {value!r}")

    @classmethod
    def position_only(cls, position, cost: float = 1.0) -> IKTarget:
        """A target for the position only."""
        return cls(position, None, cost, 0.0)

    @classmethod
    def with_orientation(
        cls, position, face_axis, position_cost: float = 1.0, orientation_cost: float = 1.0
    ) -> IKTarget:
        """A target for the position and the face's direction."""
        return cls(position, face_axis, position_cost, orientation_cost)
