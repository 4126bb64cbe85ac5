"""The telemetry block, as text (printed by the sequencer node every second of sim time)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from sally_description.constants import FACE_AXIS_LOCAL
from sally_description.pose import rotation
from sally_node_common.stance import StanceMode

BAR = 12


@dataclass(frozen=True)
class FootView:
    """One foot as the sequencer's telemetry shows it."""

    foot: str
    mode: str
    position: np.ndarray
    face: np.ndarray
    """World direction of the magnet face normal."""
    in_contact: bool
    penetration: float
    magnet_on: bool


def face_normal(quat_wxyz) -> np.ndarray:
    """The magnet face's normal (world) of a foot at orientation ``quat_wxyz``."""
    return rotation(quat_wxyz) @ np.asarray(FACE_AXIS_LOCAL)


def telemetry_block(
    t: float,
    foot: str,
    phase: str,
    progress: float,
    target_position: np.ndarray | None,
    target_face: np.ndarray | None,
    feet: dict[str, FootView],
    drift: dict[str, float],
    body_pitch: float | None = None,
) -> str:
    """``drift``: stance foot -> distance from where it stood when the sequence began (m);
    ``body_pitch``: main_frame's nose-up pitch (deg), shown when given."""
    filled = round(min(max(progress, 0.0), 1.0) * BAR)
    head = f"t={t:5.1f} [{'█' * filled}{'░' * (BAR - filled)}] {foot}/{phase} {progress * 100:5.1f}%"
    swing = feet.get(foot)
    if swing is not None and target_position is not None:
        d = (swing.position - target_position) * 1e3
        head += f" pos_err={np.linalg.norm(d):5.1f}mm (Δx={d[0]:+.1f} Δy={d[1]:+.1f} Δz={d[2]:+.1f})"
        if target_face is not None:
            angle = math.degrees(math.acos(min(max(float(swing.face @ target_face), -1.0), 1.0)))
            head += f" ang_to_goal={angle:4.1f}°"
    worst = max(drift, key=lambda foot: drift[foot]) if drift else None
    if worst is not None:
        head += f" stance={worst}/{drift[worst] * 1e3:.1f}mm"
    if swing is not None:
        head += f" mag={'ON' if swing.magnet_on else 'OFF'}"
    if body_pitch is not None:
        head += f" body_pitch={body_pitch:5.1f}°"
    lines = [head]
    for name, view in feet.items():
        if view.mode == StanceMode.SWING.name:
            state = f"contact={'●' if view.in_contact else '○'} airborne"
        else:
            state = f"contact={'●' if view.in_contact else '○'} pen={view.penetration * 1e3:5.2f}mm"
        lines.append(
            f"{name} [{view.mode}] {state} mag={'on' if view.magnet_on else 'off'}" + (" ◄" if name == worst else "")
        )
    return "\n".join(lines)
