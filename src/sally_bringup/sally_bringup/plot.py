"""The end-of-run figure: foot trajectories, the body's path and pitch, and per-foot magnet forces
over sim time (PNG)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np

from sally_description import LEGS
from sally_description.pose import body_axes_from_hips
from sally_description.scene import CEILING_HEIGHT, room_from, scene

from .run_record import RunRecord

COLOURS = {"FL": "tab:blue", "FR": "tab:orange", "BL": "tab:green", "BR": "tab:red"}
RUN_MARGINS = {"left": 0.06, "right": 0.97, "bottom": 0.06, "top": 0.92, "wspace": 0.3, "hspace": 0.25}
FORCES_MARGINS = {"left": 0.08, "right": 0.98, "bottom": 0.06, "top": 0.95, "hspace": 0.12}
"""The figures' margins, fixed: matplotlib's constrained layout measured every label to place them
and took half of the figures' drawing time (about 0.8 s of 1.6 at the end of every run)."""


def _pyplot():
    import matplotlib

    if matplotlib.get_backend().lower() != "agg" and not _display():
        matplotlib.use("Agg")  # headless: no display is needed (or used)
    import matplotlib.pyplot as plt

    return plt


def preload() -> None:
    """Import matplotlib (and choose its backend) now, so that drawing later does not wait for it."""
    _pyplot()


def _display() -> bool:
    import os

    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def plot_leg_forces(record: RunRecord, report: dict, path: Path, show: bool = False) -> Path | None:
    """One panel per leg: its magnet force and the plates' contact force on it over sim time (the
    pull-off graph adds the rig's threshold and the pull-off force). None without telemetry."""
    if not record.magnets:
        return None
    plt = _pyplot()
    t = np.array([m.t for m in record.magnets])
    fig, axes = plt.subplots(4, 1, figsize=(11, 10), sharex=True)
    fig.subplots_adjust(**FORCES_MARGINS)
    for ax, (foot, colour) in zip(axes, COLOURS.items()):
        ax.plot(t, [m.force.get(foot, 0.0) for m in record.magnets], color=colour, label="magnet force")
        ax.plot(
            t,
            [m.contact_force.get(foot, 0.0) for m in record.magnets],
            color="k",
            alpha=0.5,
            linewidth=0.8,
            label="contact force",
        )
        pulloff = record.pulloff
        if pulloff and pulloff.get("foot") == foot:
            ax.axhline(pulloff["detach_threshold"], color="grey", linestyle=":", label="detach threshold")
            ax.axhline(
                pulloff["pulloff_force"],
                color="m",
                linestyle="--",
                label=f"pull-off force {pulloff['pulloff_force']:.0f} N",
            )
        ax.set(ylabel=f"{foot} (N)")
        ax.grid(alpha=0.3)
        ax.legend(loc="upper right", fontsize=7)
    axes[-1].set(xlabel="sim time (s)")
    fig.suptitle(f"Sally {report.get('sequence', '')}: forces per leg")
    path = Path(path)
    fig.savefig(path, dpi=100)
    if show and _display():
        plt.show()
    plt.close(fig)
    return path


def plot_run(record: RunRecord, report: dict, path: Path) -> Path | None:
    """Write the figure to ``path``; None when there is nothing to plot."""
    if not record.feet:
        return None
    plt = _pyplot()
    fig, axes = plt.subplots(2, 2, figsize=(13, 8.5))
    fig.subplots_adjust(**RUN_MARGINS)
    side, top, heights, forces = axes[0, 0], axes[0, 1], axes[1, 0], axes[1, 1]
    turned = report.get("scene")  # a corner simulated in its own frame: drawn in the room's
    room = scene(turned["name"]).to_room if turned else (lambda points: np.asarray(points, dtype=float))
    if report.get("then"):  # a route over two corners, each climb in its own frame: all in the room's
        record, turned = _in_room(record), {"name": "room"}
    facing = turned is not None or report.get("steps") is not None  # the top view becomes the wall's own view
    _draw_feet(side, top, heights, record, report, room, facing)
    _draw_body(side, top, heights, record, room, facing, turned is not None and not report.get("then"))
    _dress_views(side, top, heights, {**report, "scene": turned}, facing)
    _draw_forces(forces, record)
    for ax in (heights, forces):
        for start, foot, phase in record.phases:
            if phase in ("LIFT", "F2W_REACH", "WALL_RELEASE", "FLOOR_RELEASE"):
                ax.axvline(start, color=COLOURS.get(foot, "k"), linestyle="--", alpha=0.4)
    verdict = "success" if report.get("success") else "FAILED"
    name = report.get("sequence", "") + (f" then {report['then'].get('sequence', '')}" if report.get("then") else "")
    name += " and the way down" if "way_down" in {**report, **(report.get("then") or {})} else ""
    name += ", then the way back" if report.get("way_back") else ""
    fig.suptitle(f"Sally {name}: {verdict}, {report.get('sim_time_s', 0):.2f} s of sim time")
    path = Path(path)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _in_room(record: RunRecord) -> RunRecord:
    """The record's foot samples (positions, hip pivots) in the room's frame, each from its own."""
    feet = []
    for sample in record.feet:
        pose = room_from(sample.frame)
        moved = {foot: pose.to_world(p) for foot, p in sample.position.items()}
        hips = {foot: pose.to_world(p) for foot, p in sample.hips.items()}
        feet.append(replace(sample, position=moved, hips=hips, frame="world"))
    return replace(record, feet=feet)


def _draw_feet(side, top, heights, record: RunRecord, report: dict, room, facing: bool) -> None:
    """Each foot's path in the side and top (or wall) views, its height and x over time, its plant
    target, (a walk) each step's plant and (the way down) each landing's foothold."""
    t = np.array([s.t for s in record.feet])
    steps = report.get("steps")  # a walk over the wall
    for foot, colour in COLOURS.items():
        xyz = room([s.position[foot] for s in record.feet])
        side.plot(xyz[:, 0], xyz[:, 2], color=colour, label=foot)
        if not facing:
            top.plot(xyz[:, 0], xyz[:, 1], color=colour, label=foot)
        else:
            top.plot(xyz[:, 1], xyz[:, 2], color=colour, label=foot)
        if steps is not None:
            plants = np.array([step["plant"] for step in steps if step["foot"] == foot]).reshape(-1, 3)
            top.plot(plants[:, 1], plants[:, 2], linestyle="none", marker="x", color=colour, markersize=8)
        heights.plot(t, xyz[:, 2], color=colour, label=f"{foot} z")
        heights.plot(t, xyz[:, 0], color=colour, linestyle=":", label=f"{foot} x")
        plant = report.get("plants", {}).get(foot)
        if plant:
            target = room(plant["target"])
            side.plot(target[0], target[2], marker="x", color=colour, markersize=10)
            top.plot(*(target[1:] if facing else target[:2]), marker="x", color=colour, markersize=10)
        landings = [  # the way down's footholds (the way back's, onto the floor, too)
            *((report.get("way_down") or {}).get("landings") or []),
            *(((report.get("way_back") or {}).get("way_down") or {}).get("landings") or []),
        ]
        for landing in (landing for landing in landings if landing["foot"] == foot):
            target = room(landing["designed"])
            side.plot(target[0], target[2], marker="v", color=colour, markersize=8)
            top.plot(*(target[1:] if facing else target[:2]), marker="v", color=colour, markersize=8)


def _draw_body(side, top, heights, record: RunRecord, room, facing: bool, turned: bool) -> None:
    """main_frame's path, its x axis every 10 deg of pitch, and its pitch over time (none without hips)."""
    bodies = _body_path(record)
    if bodies is None:
        return
    bt, origin, nose, pitch = bodies
    origin, nose = room(origin), room(origin + nose) - room(origin)
    side.plot(origin[:, 0], origin[:, 2], color="k", linewidth=1.5, label="body (main_frame)")
    last = None
    for i in range(len(bt)):  # the body's x axis at the start and every 10 deg of pitch
        if last is not None and abs(pitch[i] - last) < 10.0 and i != len(bt) - 1:
            continue
        last, tip = pitch[i], origin[i] + 0.1 * nose[i]
        side.plot([origin[i, 0], tip[0]], [origin[i, 2], tip[2]], color="k", linewidth=0.8, alpha=0.6)
    if facing:
        top.plot(origin[:, 1], origin[:, 2], color="k", linewidth=1.5, label="body (main_frame)")
    pitch_axis = heights.twinx()
    # a turned corner's world is the room pitched 90 deg nose-up: its level body stands on the room's wall
    pitch_axis.plot(bt, pitch + (90.0 if turned else 0.0), color="k", linewidth=1.2, label="body pitch")
    pitch_axis.set_ylabel("body pitch in the room (deg, black)" if turned else "body pitch (deg, black)")


def _dress_views(side, top, heights, report: dict, facing: bool) -> None:
    """The views' surfaces, titles, axes and legends."""
    turned = report.get("scene") is not None
    for ax in (side, top):
        if ax is side or not facing:
            ax.axvline(0.5, color="grey", linewidth=3, alpha=0.5)  # the wall's face
        if turned:
            ax.axhline(CEILING_HEIGHT, color="grey", linewidth=3, alpha=0.5)  # the ceiling's face
        ax.set_aspect("equal", adjustable="datalim")
        ax.grid(alpha=0.3)
        ax.legend(loc="best", fontsize=8)
    side.set(
        title="Side view: feet, body with its x axis (x: plant targets, v: landings; grey: wall)",
        xlabel="x (m)",
        ylabel="z (m)",
    )
    if turned:
        side.set(title="Side view, room frame: feet, body, its x axis (x: plants; grey: wall, ceiling)")
        top.set(title="Facing the wall (room frame): feet, body", xlabel="y (m)", ylabel="z (m)")
    elif report.get("steps") is None:
        top.set(title="Foot trajectories, top view", xlabel="x (m)", ylabel="y (m)")
    else:
        top.set(title="On the wall (from behind it): feet, each step's plant (x), body", xlabel="y (m)", ylabel="z (m)")
        top.invert_xaxis()  # seen from behind the wall, through it: the robot's left on the left
    heights.set(title="Foot x (dotted) and z over time", xlabel="sim time (s)", ylabel="m")
    heights.grid(alpha=0.3)
    heights.legend(loc="upper left", fontsize=7, ncol=2)


def _draw_forces(forces, record: RunRecord) -> None:
    """Each foot's magnet force over time."""
    if record.magnets:
        mt = np.array([m.t for m in record.magnets])
        for foot, colour in COLOURS.items():
            forces.plot(mt, [m.force.get(foot, 0.0) for m in record.magnets], color=colour, label=foot)
    forces.set(title="Magnet force per foot", xlabel="sim time (s)", ylabel="N")
    forces.grid(alpha=0.3)
    forces.legend(loc="best", fontsize=8)


def _body_path(record: RunRecord) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """(t, main_frame origin, its x axis, its pitch in deg) read off the hips; None without hips."""
    samples = [s for s in record.feet if len(s.hips) == 4]
    if not samples:
        return None
    origin, nose = body_axes_from_hips(np.array([[s.hips[leg] for leg in LEGS] for s in samples]))
    return np.array([s.t for s in samples]), origin, nose, np.degrees(np.arcsin(np.clip(nose[:, 2], -1.0, 1.0)))
