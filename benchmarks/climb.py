#!/usr/bin/env python3
"""Robustness of the climb: N seeded runs of ``f2w``, of ``f2w_all``, of ``wall_walk`` (0.30 m in
each of ``--directions``, from ``start:=wall``) and of ``w2c`` (the wall to the ceiling, scene
corner3), each from a random initial pose (floor: x, y within +-1 cm, yaw within +-3 deg; wall: y and
height within +-1 cm, turned within +-3 deg about the wall's normal; a sideways walk starts 0.10 m
from the wall's centre line against its direction; w2c: the floor's draws in its corner's frame, which
are height and y within +-1 cm and a turn within +-3 deg on the room's wall) with every physics
parameter perturbed by up to +-5 % (kept inside its range; integers rounded).

Host: the optimizer's in-process backend (every node on one executor in this process, lockstep),
the fastest host that gives the multi-process graph's figures; with ``--check-host`` (the default)
the first run of each sequence also runs as processes and the two reports must agree in every
sim-time figure, else the benchmark stops. Prints each run's figures and, last:
``climb f2w_success A of N f2w_all_success B of N worst_plant_mm X worst_drift_mm Y
wall_walk_success C of N w2c_success D of N speed_mm_s V fewest_holding H``
(then ``climb_walk_success E of N``, ``climb_stand_success F of N``, ``route_success R of N``,
``route_walk_success W of N``, ``floor_walk_success G of N``, ``route_down_success U of N``,
``w2c_down_success V of N``, ``route_back_success K of N`` and ``round_trip_success T of N`` when
``--sequences`` names them)
(X: the largest plant error of any foot that reached the wall in any run, a walk's every step
included, against its plant and against the plan's foothold; Y: the largest stance drift of any
run, in mm; V: the slowest walk's mean speed, mm/s of sim time; H: the fewest magnets holding at
once, off the floor, in any climb or walk; '-' when there is none). The
in-process nodes log to stderr.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from sally_node_common.discovery import force_loopback

SEQUENCES = ("f2w", "f2w_all", "wall_walk", "w2c")
COUNTED = SEQUENCES
"""Every sequence the last line counts."""
OPTIONAL = (
    "climb_walk",
    "climb_stand",
    "route",
    "route_walk",
    "floor_walk",
    "route_down",
    "w2c_down",
    "route_back",
    "round_trip",
)
"""Sequences run only when ``--sequences`` names them, counted on the last line only then:
``climb_walk`` is ``route:=floor,wall wall_walk:=0.30`` (f2w_all, the stance spread, 0.30 m up the
wall), ``climb_stand`` ``route:=floor,wall wall_walk:=ceiling`` (f2w_all, the spread, 0.17 m up, the
stand 0.5 m below the ceiling, in the room), ``route`` ``route:=floor,wall,ceiling`` (that, then the
climb onto the ceiling: every foot on the ceiling), ``route_walk`` the route and then 0.30 m along
the ceiling (``ceiling_walk:=0.30``), all from the floor's draws; ``floor_walk`` 0.30 m back over the
floor (away from the wall), from the floor's draws; ``route_down`` ``route:=floor,wall,floor`` (f2w_all,
then the way back down to the floor start's stance), from the floor's draws; ``w2c_down``
``scene:=corner3 route:=wall,ceiling,wall`` (w2c, then the way back down onto the wall), from w2c's
draws; ``route_back`` ``route:=floor,wall,ceiling,wall`` (the route, then from the ceiling back down
onto the wall, in the room), from the floor's draws; ``round_trip``
``route:=floor,wall,ceiling,wall,floor`` (that, then the way back down the wall and onto the floor),
from the floor's draws. A stand's steps, the second climb's plants, the steps along the ceiling and
over the floor, the way down's landings and the way back's steps and landings count in the worst
plant, its drift in the worst drift."""
POSE_XY, POSE_YAW_DEG, PARAM_SPREAD = 0.01, 3.0, 0.05
WALK_DISTANCE = "0.30"
SIDE_START = 0.10
"""m: a sideways walk starts this far from the wall's centre line, against its direction. From the
centre the plate leaves 0.308 m before a magnet's face runs off its side, and a start 1 cm and 3 deg
off takes that below 0.30 m (the walk is refused before it starts)."""


def perturbed(rng: np.random.Generator):
    """Default physics parameters, each moved by up to +-PARAM_SPREAD, kept in range."""
    from sally_description import DEFAULT_PARAMS, PARAM_SPACE, PhysicsParams

    values = DEFAULT_PARAMS.as_dict()
    for dim in PARAM_SPACE:
        value = values[dim.name] * (1.0 + rng.uniform(-PARAM_SPREAD, PARAM_SPREAD))
        value = min(max(value, dim.low), dim.high)
        values[dim.name] = int(round(value)) if dim.integer else float(value)
    return PhysicsParams(**values)


def run_once(
    sequence: str, seed: int, backend: str, folder: Path, direction: str = "up", sensed: dict | None = None
) -> dict:
    from sally_bringup.arguments import resolve
    from sally_description.wall_start import WALL_STANCE
    from sally_optimizer.evaluation import run_scenario_graph
    from sally_sequencer.wall_walk import DIRECTIONS

    rng = np.random.default_rng(seed)
    pose = [float(rng.uniform(-POSE_XY, POSE_XY)), float(rng.uniform(-POSE_XY, POSE_XY))]
    pose.append(float(rng.uniform(-POSE_YAW_DEG, POSE_YAW_DEG)))
    params = perturbed(rng)
    folder.mkdir(parents=True, exist_ok=True)
    params_file = folder / "params.json"
    params_file.write_text(json.dumps(params.as_dict(), indent=2) + "\n")
    args = {"sequence": sequence, "pacing": "lockstep", "headless": "true", "params": str(params_file)}
    args.update(sensed or {})
    if "sensing" in args:
        args["sensor_seed"] = str(seed)
    if sequence == "route_down":
        args.update(sequence="route", route="floor,wall,floor")
    elif sequence == "route_back":
        args.update(sequence="route", route="floor,wall,ceiling,wall")
    elif sequence == "round_trip":
        args.update(sequence="route", route="floor,wall,ceiling,wall,floor")
    elif sequence == "w2c_down":
        args.update(sequence="route", scene="corner3", route="wall,ceiling,wall")
    elif sequence in ("route", "route_walk"):
        args.update(sequence="route", route="floor,wall,ceiling")
        if sequence == "route_walk":
            args.update(ceiling_walk=WALK_DISTANCE)
    elif sequence == "floor_walk":
        args.update(direction="back", distance=WALK_DISTANCE)
    elif sequence in OPTIONAL:
        walk = WALK_DISTANCE if sequence == "climb_walk" else "ceiling"
        args.update(sequence="route", route="floor,wall", wall_walk=walk)
    sim = {"initial_pose": pose}
    if sequence == "wall_walk":  # the same draws: y, height (about the wall start's) and the turn
        room = -SIDE_START * float(DIRECTIONS[direction][1])  # a sideways walk starts on the other side
        pose = [room + pose[0], WALL_STANCE.height + pose[1], pose[2]]
        sim = {}
        wall = ",".join(repr(float(v)) for v in pose)
        args.update(start="wall", wall_pose=wall, direction=direction, distance=WALK_DISTANCE)
    start = time.monotonic()
    overrides = {"sim": sim}
    if sim and resolve(args)["state"] == "estimated":  # the estimator is told where she was put down
        overrides["estimator"] = dict(sim)
    with open(folder / "graph.log", "w") as log:
        result = run_scenario_graph(backend, "f2w", args, overrides, folder / "run", wall_timeout=1200.0, out=log)
    report = dict(result.report or {})
    report["initial_pose"] = [round(v, 5) for v in pose]
    report["bench_wall_s"] = round(time.monotonic() - start, 1)
    return report


def figures(report: dict) -> tuple[float | None, float | None]:
    """(largest plant error of a foot that reached the wall, against its plant target and the plan's
    foothold, stance drift) in mm: a route's next climb (``then``) and its walk counted as the first's."""
    errors = _plant_errors(report) + _plant_errors(report.get("then") or {})
    back = report.get("way_back") or {}  # the way back: its stands' and walk's steps, its landings
    for part in ("leave", "walk_down", "gather"):
        errors += _plant_errors({"steps": (back.get(part) or {}).get("steps")})
    errors += _plant_errors({"way_down": back.get("way_down")})
    return (max(errors) if errors else None), report.get("stance_drift_mm")


def _plant_errors(report: dict) -> list[float]:
    """Every plant error of one climb's or walk's report (mm): its plants, its walk's steps, the
    steps of the walk after the climb (the spread's and the stand's included), the way down's landings."""
    after = report.get("walk_after_climb") or {}
    stand = after.get("stand") or {}
    found = [*(report.get("plants") or {}).values(), *(report.get("steps") or [])]
    found += [*(after.get("steps") or []), *(after.get("spread_steps") or []), *(stand.get("steps") or [])]
    found += (report.get("way_down") or {}).get("landings") or []
    return [p[key] for p in found for key in ("error_mm", "design_error_mm") if p.get(key) is not None]


def where_failed(report: dict) -> str:
    if report.get("success"):
        return ""
    problems = report.get("problems") or ["no report"]
    return "; ".join(problems)[:300]


def same_figures(a: dict, b: dict) -> list[str]:
    from sally_bringup.report import comparable

    skip = {"initial_pose", "bench_wall_s", "arguments"}  # arguments: each run's own params file path
    ca = {k: v for k, v in comparable(a).items() if k not in skip}
    cb = {k: v for k, v in comparable(b).items() if k not in skip}
    return sorted(k for k in set(ca) | set(cb) if ca.get(k) != cb.get(k))


def fmt(value: float | None) -> str:
    return "-" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.2f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=20, help="runs of each sequence (default 20)")
    parser.add_argument("--seed", type=int, default=1, help="first seed; run i uses seed + i")
    parser.add_argument(
        "--sequences",
        default=",".join(SEQUENCES),
        help=f"comma-separated of {list(SEQUENCES + OPTIONAL)} (default {','.join(SEQUENCES)})",
    )
    parser.add_argument(
        "--directions", default="up,left", help="wall_walk: the walks' directions, comma-separated (default up,left)"
    )
    parser.add_argument("--no-check-host", action="store_true", help="skip the processes-vs-in-process check")
    parser.add_argument(
        "--sensing", choices=("noisy", "ideal"), help="the sensors (default: the graph's; each run's seed seeds them)"
    )
    parser.add_argument("--state", choices=("estimated", "truth"), help="the body's state (default: the graph's)")
    parser.add_argument("--keep", type=Path, help="keep the run folders here (default: a temporary folder)")
    args = parser.parse_args()
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    sequences = [s for s in args.sequences.split(",") if s]
    unknown = sorted(set(sequences) - set(SEQUENCES + OPTIONAL))
    if unknown:
        parser.error(f"unknown sequences {unknown}; valid: {list(SEQUENCES + OPTIONAL)}")
    sensed = {k: v for k, v in (("sensing", args.sensing), ("state", args.state)) if v}
    from sally_sequencer.wall_walk import DIRECTIONS

    directions = [d for d in args.directions.split(",") if d]
    if not directions or set(directions) - set(DIRECTIONS):
        parser.error(f"--directions must name some of {sorted(DIRECTIONS)}")
    force_loopback(os.environ)
    root = args.keep or Path(tempfile.mkdtemp(prefix="sally_climb_"))
    wins = {s: 0 for s in COUNTED + OPTIONAL}
    counted = {s: 0 for s in COUNTED + OPTIONAL}
    worst_plant: float | None = None
    worst_drift: float | None = None
    speeds: list[float] = []
    holding: list[int] = []
    batches = [(s, d) for s in sequences for d in (directions if s == "wall_walk" else [""])]
    for sequence, direction in batches:
        name = f"{sequence}_{direction}" if direction else sequence
        for i in range(args.runs):
            seed = args.seed + i
            report = run_once(sequence, seed, "inprocess", root / name / f"{i:02d}", direction or "up", sensed)
            if i == 0 and not args.no_check_host:
                graph = run_once(
                    sequence, seed, "processes", root / name / f"{i:02d}_processes", direction or "up", sensed
                )
                differ = same_figures(report, graph)
                print(f"host check ({name}, seed {seed}): " + ("same figures" if not differ else f"DIFFER in {differ}"))
                if differ:
                    print("the in-process host does not give the graph's figures; stopping", file=sys.stderr)
                    return 1
            plant, drift = figures(report)
            counted[sequence] += 1
            wins[sequence] += bool(report.get("success"))
            if sequence == "wall_walk" and report.get("speed_mm_s") is not None:
                speeds.append(float(report["speed_mm_s"]))
            if report.get("min_magnets_holding") is not None:
                holding.append(int(report["min_magnets_holding"]))
            if plant is not None:
                worst_plant = plant if worst_plant is None else max(worst_plant, plant)
            if drift is not None:
                worst_drift = drift if worst_drift is None else max(worst_drift, drift)
            walked = f"speed_mm_s {fmt(report.get('speed_mm_s'))} " if sequence == "wall_walk" else ""
            stand = (report.get("walk_after_climb") or {}).get("stand")
            if stand:
                walked += f"stand_body_mm {fmt(stand['body_error_mm'])} "
            print(
                f"{name} run {i} seed {seed} pose {report['initial_pose']} {walked}"
                f"success {int(bool(report.get('success')))} "
                f"plant_mm {fmt(plant)} drift_mm {fmt(drift)} pitch_deg {fmt(report.get('body_pitch_deg'))} "
                f"sim_s {fmt(report.get('sim_time_s'))} wall_s {report['bench_wall_s']:.0f}"
                + (f" failed: {where_failed(report)}" if not report.get("success") else ""),
                flush=True,
            )
    print(f"runs in {root}")
    print(
        f"climb f2w_success {wins['f2w']} of {counted['f2w']} "
        f"f2w_all_success {wins['f2w_all']} of {counted['f2w_all']} "
        f"worst_plant_mm {fmt(worst_plant)} worst_drift_mm {fmt(worst_drift)} "
        f"wall_walk_success {wins['wall_walk']} of {counted['wall_walk']} "
        f"w2c_success {wins['w2c']} of {counted['w2c']} "
        f"speed_mm_s {fmt(min(speeds) if speeds else None)} "
        f"fewest_holding {min(holding) if holding else '-'}"
        + "".join(f" {s}_success {wins[s]} of {counted[s]}" for s in OPTIONAL if counted[s])
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
