"""``sally-reach``: the reachability map behind the climb, computed with the model's kinematics.

For body poses along the corner (pitch 0-90 deg nose-up, distance of main_frame from the wall,
height above the floor) it asks, per foot, whether the foot can be planted flat on the wall and on
the floor anywhere on the plates (:mod:`sally_description.reachability`), and draws one panel per
foot kind (front: FL, back: BL; FR and BR are their mirror images) and pitch. It then checks the
climb's own plan (:mod:`.climb`) point by point: all four feet held along the body's path, and the
back feet's wall plants at the climb pose, and prints what it found.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sally_description import build_model
from sally_description.leg_ik import LegKinematics
from sally_description.reachability import CornerPose, body_clear, solve_plant
from sally_description.scene import DEFAULT_SCENE, scene

from . import climb

PITCHES = (0.0, 30.0, 60.0, 75.0, 90.0)
DISTANCES = tuple(np.round(np.linspace(0.20, 0.50, 7), 3))
HEIGHTS = tuple(np.round(np.linspace(0.10, 0.40, 7), 3))
START = CornerPose(0.5, 0.12365, 0.0)
"""Where f2w leaves the body (about: spawned at the origin, 0.124 m up, level)."""
_CORNER = scene(DEFAULT_SCENE)
STOOD_ON, CLIMBED_ONTO = _CORNER.in_corner(_CORNER.stood_on), _CORNER.in_corner(_CORNER.climbed_onto)
"""The corner's two surfaces, in its frame: the floor and the wall."""
PATH_STEPS = 10
MARGINS = (5.0, 10.0)
"""Joint margins the plan is checked with too (deg)."""


@dataclass(frozen=True)
class PathPoint:
    """One pose on the body's path: which feet held and how far each ee2 twisted (deg)."""

    pose: CornerPose
    held: dict[str, bool]
    twist_deg: dict[str, float]


def classify(kin: LegKinematics, pose: CornerPose) -> int:
    """0 body in a plate, 1 neither surface, 2 floor only, 3 wall only, 4 both."""
    if not body_clear(pose.pose):
        return 0
    stood = solve_plant(kin, pose.pose, STOOD_ON, seeds=2).ok
    climbed = solve_plant(kin, pose.pose, CLIMBED_ONTO, seeds=2).ok
    return 1 + int(stood) + 2 * int(climbed)


def reach_grid(model) -> dict[str, np.ndarray]:
    """Foot kind (FL / BL) -> classes [pitch, distance, height]."""
    out = {}
    for leg in ("FL", "BL"):
        kin = LegKinematics(model, leg, 4)
        grid = np.zeros((len(PITCHES), len(DISTANCES), len(HEIGHTS)), dtype=int)
        for i, pitch in enumerate(PITCHES):
            for j, d in enumerate(DISTANCES):
                for k, h in enumerate(HEIGHTS):
                    grid[i, j, k] = classify(kin, CornerPose(float(d), float(h), pitch))
        out[leg] = grid
    return out


def check_plan(model, margin_deg: float = 0.0) -> tuple[list[PathPoint], dict[str, tuple[bool, float]]]:
    """The climb's plan, each planted leg followed along its own solution branch (a planted leg
    cannot flip its knee): the back feet stepped along the floor from where they stand to their
    step points, then the body's path with every foot held, then the back feet's wall plants at
    the climb pose (each: found, ee2 twist in deg; the swinging leg may take any branch).
    ``margin_deg``: how far the bend joints must stay off their stops."""
    plan = climb.plan_checks()
    end = plan.body
    kins = {leg: LegKinematics(model, leg, 4, margin_deg) for leg in ("FL", "FR", "BL", "BR")}
    fronts = plan.front_plants.items()
    branch = {f: solve_plant(kins[f], START.pose, CLIMBED_ONTO, p, seeds=4).joints for f, p in fronts}
    holds = {f: (CLIMBED_ONTO, p) for f, p in fronts}
    path: list[PathPoint] = []
    for foot, point in plan.floor_steps.items():  # the standing pose is the joints at zero
        q = np.zeros(5)
        home = kins[foot].site(START.pose, q)[0]
        for s in np.linspace(0.0, 1.0, PATH_STEPS + 1)[1:]:
            found = solve_plant(kins[foot], START.pose, STOOD_ON, home + s * (point - home), start=q)
            q = found.joints
            if not found.ok:
                path.append(PathPoint(START, {foot: False}, {foot: found.twist_deg}))
                return path, {f: (False, 0.0) for f in plan.back_plants}
        branch[foot] = q
        holds[foot] = (STOOD_ON, point)
    for s in np.linspace(0.0, 1.0, PATH_STEPS + 1):
        pose = CornerPose(
            START.distance + s * (end.distance - START.distance),
            START.height + s * (end.height - START.height),
            START.pitch_deg + s * (end.pitch_deg - START.pitch_deg),
        )
        plants = {f: solve_plant(kins[f], pose.pose, surface, p, start=branch[f]) for f, (surface, p) in holds.items()}
        branch.update({f: p.joints for f, p in plants.items()})
        path.append(PathPoint(pose, {f: p.ok for f, p in plants.items()}, {f: p.twist_deg for f, p in plants.items()}))
    backs = {}
    for foot, point in plan.back_plants.items():
        found = solve_plant(kins[foot], end.pose, CLIMBED_ONTO, point, seeds=3)
        backs[foot] = (found.ok, found.twist_deg)
    return path, backs


def draw(grid: dict[str, np.ndarray], path: list[PathPoint], out: Path) -> None:
    """Draw the reach grid and the plan's path to ``out`` (PNG)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    colours = ["#555555", "#f2f2f2", "#8fb8de", "#e6a157", "#5aa469"]
    labels = ["body in a plate", "neither", "floor only", "wall only", "floor and wall"]
    cmap = ListedColormap(colours)
    fig, axes = plt.subplots(2, len(PITCHES), figsize=(3.0 * len(PITCHES), 6.4), sharex=True, sharey=True)
    extent = (DISTANCES[0] - 0.025, DISTANCES[-1] + 0.025, HEIGHTS[0] - 0.025, HEIGHTS[-1] + 0.025)
    for row, leg in enumerate(("FL", "BL")):
        for col, pitch in enumerate(PITCHES):
            ax = axes[row, col]
            ax.imshow(grid[leg][col].T, origin="lower", extent=extent, cmap=cmap, vmin=0, vmax=4, aspect="auto")
            near = [p.pose for p in path if abs(p.pose.pitch_deg - pitch) <= 7.5]
            if near:
                ax.plot([p.distance for p in near], [p.height for p in near], "k*", markersize=9)
            if row == 0:
                ax.set_title(f"pitch {pitch:g}°")
            if col == 0:
                ax.set_ylabel(f"{leg} ({'FR' if leg == 'FL' else 'BR'} mirrored)\nbody height (m)")
            if row == 1:
                ax.set_xlabel("body to wall (m)")
    handles: list = [Patch(color=c, label=label) for c, label in zip(colours, labels)]
    handles.append(plt.Line2D([], [], color="k", marker="*", linestyle="", label="climb path (pitch within 7.5°)"))
    fig.legend(handles=handles, loc="lower center", ncol=6, frameon=False)
    fig.suptitle("Where a foot can be planted flat, per body pose (main_frame pitched nose-up toward the wall)")
    fig.tight_layout(rect=(0, 0.06, 1, 0.96))
    fig.savefig(out, dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    """``sally-reach``: the reachability map and the climb plan's check, drawn."""
    parser = argparse.ArgumentParser(prog="sally-reach", description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path("reach.png"), help="PNG to write (default reach.png)")
    args = parser.parse_args(argv)
    model = build_model()
    start = time.monotonic()
    path, backs = check_plan(model)
    print("climb path (the back feet stepped, then every foot held along the body's path; ee2 twist in deg):")
    for p in path:
        feet = " ".join(f"{f} {'ok' if ok else 'NO'} {p.twist_deg[f]:+4.0f}" for f, ok in p.held.items())
        print(f"  distance {p.pose.distance:.3f} m height {p.pose.height:.3f} m pitch {p.pose.pitch_deg:5.1f}: {feet}")
    for foot, (ok, twist) in backs.items():
        point = np.round(climb.plant_point(foot), 3).tolist()
        found = f"found (ee2 twist {twist:+.0f} deg)" if ok else "NOT found"
        print(f"{foot} wall plant at {point} from the climb pose: {found}")
    for margin in MARGINS:
        margin_path, margin_backs = check_plan(model, margin)
        last = max((p.pose.pitch_deg for p in margin_path if all(p.held.values())), default=0.0)
        blocked = [f"{f} at {p.pose.pitch_deg:.0f} deg" for p in margin_path for f, ok in p.held.items() if not ok][:2]
        backs_ok = [f for f, (ok, _) in margin_backs.items() if ok]
        print(
            f"with the knee, wrist and ee {margin:g} deg off their stops: every foot held up to {last:.0f} deg"
            + (f" (first lost: {', '.join(blocked)})" if blocked else "")
            + f"; back feet planted on the wall at the climb pose: {', '.join(backs_ok) or 'none'}"
        )
    grid = reach_grid(model)
    draw(grid, path, args.out)
    held = all(all(p.held.values()) for p in path) and all(ok for ok, _ in backs.values())
    print(f"wrote {args.out} in {time.monotonic() - start:.0f} s; the plan {'holds' if held else 'does NOT hold'}")
    return 0 if held else 1


if __name__ == "__main__":
    sys.exit(main())
