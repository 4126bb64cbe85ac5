#!/usr/bin/env python3
"""The state estimator against the ground truth over the round trip.

Runs ``route:=floor,wall,ceiling,wall,floor`` (lockstep, composed, no recording) with the sensed
graph: ``sensing:=noisy state:=estimated`` by default, one graph argument ``name:=value`` per
``--arg`` added (e.g. ``--arg sensor_seed:=3``), and reads the report's ``estimate``: every /sally/odom
the estimator published against /sally/ground_truth/odom of its stamp. Prints the run's verdict and,
last: ``estimation pos_rmse_mm A pos_max_mm B tilt_max_deg C yaw_max_deg D`` (the position's rms and
largest error, the largest tilt and heading errors).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from sally_node_common.discovery import force_loopback

ROUND_TRIP = {"sequence": "route", "route": "floor,wall,ceiling,wall,floor"}
SENSED = {"sensing": "noisy", "state": "estimated"}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arg", action="append", default=[], help="a graph argument name:=value (repeatable)")
    parser.add_argument("--route", default=ROUND_TRIP["route"], help="the route (default the round trip)")
    parser.add_argument("--keep", type=Path, help="keep the run folder here (default: a temporary folder)")
    args = parser.parse_args()
    extra = {}
    for item in args.arg:
        name, sep, value = item.partition(":=")
        if not sep or not name:
            parser.error(f"--arg {item!r} is not name:=value")
        extra[name] = value
    force_loopback()

    from sally_bringup.environment import lease_domain
    from sally_bringup.runner import run_graph

    arguments = {**ROUND_TRIP, "route": args.route, **SENSED, "pacing": "lockstep", "record": "false", **extra}
    folder = args.keep or Path(tempfile.mkdtemp(prefix="sally_estimation_"))
    with lease_domain() as lease:
        run_graph("f2w", arguments, run_dir=folder / "run", domain_id=lease.domain_id, out=None, wall_timeout=3600)
    report = json.loads((folder / "run" / "report.json").read_text())
    estimate = report.get("estimate")
    print(f"route {arguments['route']} success {int(bool(report.get('success')))} problems {report.get('problems')}")
    print(f"run in {folder / 'run'}")
    if estimate is None:
        print("estimation: the run published no estimate to judge (state:=truth?)", file=sys.stderr)
        return 1
    print(
        f"estimation pos_rmse_mm {estimate['pos_rmse_mm']:.3f} pos_max_mm {estimate['pos_max_mm']:.3f} "
        f"tilt_max_deg {estimate['tilt_max_deg']:.3f} yaw_max_deg {estimate['yaw_max_deg']:.3f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
