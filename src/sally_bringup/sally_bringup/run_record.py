"""What a run's report is computed from: the feet, the magnets, the targets and the verdicts the
graph published, as plain records keyed by sim time (:mod:`.recording` builds them, :mod:`.report`
judges them). Pure."""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np

from sally_description import LEGS
from sally_description.pose import Pose
from sally_description.scene import room_from


@dataclass
class FootSample:
    """The feet as the IK published them at one instant (sim time ``t``, s)."""

    t: float
    position: dict[str, np.ndarray]
    mode: dict[str, int]
    in_contact: dict[str, bool]
    hips: dict[str, np.ndarray] = field(default_factory=dict)
    """Each leg's hip pivot (world): main_frame's pose follows from them (pose_from_hips)."""
    frame: str = ""
    """The TF frame of the positions (the IK's planning frame: ``world``, or ``corner`` for a climb
    planned in a turned corner; a route's later climb changes it)."""


@dataclass
class MagnetSample:
    """The magnets as the sim published them at one instant (sim time ``t``, s)."""

    t: float
    force: dict[str, float]
    enabled: dict[str, bool]
    surface: dict[str, str]
    in_contact: dict[str, bool]
    contact_force: dict[str, float] = field(default_factory=dict)
    """Normal force the plates push on each magnet housing (N)."""


@dataclass
class RunRecord:
    """What a run's report is computed from: the feet, the magnets, the targets and the sequencer's result."""

    feet: list[FootSample] = field(default_factory=list)
    magnets: list[MagnetSample] = field(default_factory=list)
    targets: list[tuple[float, str, str, np.ndarray]] = field(default_factory=list)
    """(t, foot, phase, position) of every swing target."""
    phases: list[tuple[float, str, str]] = field(default_factory=list)
    """(t, foot, phase) whenever the sequence status names a new foot/phase."""
    result: dict | None = None
    """The sequencer's final status: done, failed, message, t."""
    pacing: dict[str, float] = field(default_factory=dict)
    """The sim's pacing figures from /diagnostics: the last effective factor, the worst lag."""
    pulloff: dict | None = None
    """The pull-off rig's verdict (/sally/pulloff_result), in the pull-off graph."""
    divergence: str | None = None
    """The sim's report that the physics diverged (its /diagnostics physics status), if it did."""
    divergence_t: float | None = None
    """The sim time of that report (s): where the stepping stopped."""
    status_t: float | None = None
    """The stamp of the last sequence status heard (s)."""
    recording_stopped: str | None = None
    """Why a recording written by the graph's own process stopped early (its /diagnostics), if it did."""
    reset_at: float | None = None
    """The sim time (s) of the sim reset the record starts from: it holds only the run after it, its
    times counted from it (as a fresh run's from 0). None: no reset."""
    fallbacks: dict[str, int] = field(default_factory=dict)
    """``"<node>: <count>"`` -> how often a node went on without the answer it waits for in lockstep
    (its /diagnostics; only counts above 0): the run is then not the lockstep run."""

    believed: dict[int, Pose] = field(default_factory=dict)
    """main_frame's pose on /sally/odom (what the controller and the IK took), by stamp (ns from the
    record's start), in the room."""
    truth: dict[int, Pose] = field(default_factory=dict)
    """main_frame's exact pose (/sally/ground_truth/odom), by stamp, in the room."""
    truth_feet: dict[int, np.ndarray] = field(default_factory=dict)
    """Every EE site then every hip pivot exactly (8, 3; /sally/ground_truth/feet), by stamp, in the room."""

    def judged_by_truth(self) -> RunRecord:
        """This record with each foot sample where the foot really was (:attr:`truth_feet` of its
        stamp, in the sample's frame): the IK gives its feet from the body it believes (the
        estimate). A graph whose /sally/odom is the truth, and samples whose stamp has no truth, stay
        as they are."""
        truth, believed = self.truth.copy(), self.believed.copy()  # (a live graph's record grows meanwhile)
        if not self.truth_feet or all(believed.get(k) is None or _same(believed[k], v) for k, v in truth.items()):
            return self
        feet, frames = [], {}
        for sample in self.feet:
            points = self.truth_feet.get(round(sample.t * 1e9))
            if points is None:
                feet.append(sample)
                continue
            if sample.frame not in frames:  # (a record has one or two frames: each inverted once, not once a sample)
                frames[sample.frame] = room_from(sample.frame).inverse()
            frame = frames[sample.frame]
            position = {leg: frame.to_world(points[i]) for i, leg in enumerate(LEGS)}
            hips = {leg: frame.to_world(points[len(LEGS) + i]) for i, leg in enumerate(LEGS)}
            feet.append(replace(sample, position=position, hips=hips))
        return replace(self, feet=feet, believed={})  # judged once: the feet are the truth's now

    def estimate_error(self) -> dict | None:
        """How far the pose the graph believed was from the truth over the run, up to the sequencer's
        verdict (how long the graph runs on after it is the OS's): the largest position error (mm),
        tilt error and heading error (deg); None when the graph took the truth itself."""
        verdict = (self.result or {}).get("t")
        until = math.inf if verdict is None else round(verdict * 1e9)
        truth, believed = self.truth.copy(), self.believed.copy()  # (a live graph's record grows meanwhile)
        pairs = [(believed[k], v) for k, v in truth.items() if k in believed and k <= until]
        if not pairs or all(_same(b, t) for b, t in pairs):
            return None
        position = [float(np.linalg.norm(b.position - t.position)) * 1e3 for b, t in pairs]
        turns = [t.rotation.T @ b.rotation for b, t in pairs]
        tilt = [np.degrees(np.arccos(np.clip(r[2, 2], -1.0, 1.0))) for r in turns]
        yaw = [abs(np.degrees(np.arctan2(r[1, 0], r[0, 0]))) for r in turns]
        return {
            "samples": len(pairs),
            "pos_rmse_mm": round(float(np.sqrt(np.mean(np.square(position)))), 3),
            "pos_max_mm": round(max(position), 3),
            "tilt_max_deg": round(float(max(tilt)), 4),
            "yaw_max_deg": round(float(max(yaw)), 4),
        }

    def behind_result(self) -> str:
        """What of the run before the sequencer's verdict has not been heard yet ('' when nothing:
        the foot states and the sequence status have reached the verdict's stamp, or there is no
        verdict). The verdict travels on its own topic and can arrive before the last of them."""
        if self.result is None:
            return ""
        end = self.result["t"]
        behind = []
        if not self.feet or self.feet[-1].t < end:
            behind.append(f"foot states to {self.feet[-1].t:.3f} s" if self.feet else "no foot states")
        if self.status_t is None or self.status_t < end:
            behind.append(f"sequence status to {self.status_t:.3f} s" if self.status_t is not None else "no status")
        return f"{' and '.join(behind)}, verdict at {end:.3f} s" if behind else ""


def _same(a: Pose, b: Pose) -> bool:
    """Whether two poses are the same to the bit."""
    return bool(np.array_equal(a.position, b.position) and np.array_equal(a.quat, b.quat))
