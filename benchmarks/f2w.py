#!/usr/bin/env python3
"""The floor-to-wall graph end to end: a realtime-paced run (what `ros2 launch` gives a user), and a
lockstep run for the figures. Four node processes share this machine's cores.

Last line: ``f2w success S fl_mm X fr_mm Y drift_mm Z realtime_rtf R`` (S, X, Y, Z of the realtime
run; R its sim time over wall time from unpause to end). The realtime run's lag behind the wall
clock (worst reported lag and p99, and the sim's last effective factor, from its /diagnostics) is
printed on the line before.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from sally_node_common.discovery import set_loopback_only
from sally_bringup.runner import run_graph


def main() -> int:
    set_loopback_only()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run-dir", type=Path, default=Path(tempfile.mkdtemp(prefix="sally-f2w-bench-")))
    parser.add_argument("--skip-lockstep", action="store_true")
    args = parser.parse_args()
    runs = {}
    for pacing in ("realtime",) + (() if args.skip_lockstep else ("lockstep",)):
        result = run_graph("f2w", {"pacing": pacing}, run_dir=args.run_dir / pacing, out=None, wall_timeout=600)
        report = result.report or {}
        runs[pacing] = report
        print(
            f"{pacing}: success {report.get('success')} fl_mm {report.get('fl_plant_error_mm')} fr_mm {report.get('fr_plant_error_mm')} "
            f"drift_mm {report.get('stance_drift_mm')} sim_s {report.get('sim_time_s')} rtf {report.get('real_time_factor')} "
            f"sim_pacing {report.get('sim_pacing')} problems {report.get('problems')} ({args.run_dir / pacing})",
            flush=True,
        )
    rt = runs["realtime"]
    pacing = rt.get("sim_pacing") or {}
    print(
        f"realtime lag: max {pacing.get('max_lag_ms', float('nan')):.1f} ms, worst p99 {pacing.get('max_lag_p99_ms', float('nan')):.1f} ms, "
        f"effective factor {pacing.get('effective_factor', float('nan')):.2f}"
    )
    fmt = lambda v: "nan" if v is None else f"{v:.2f}"  # noqa: E731
    print(
        f"f2w success {int(bool(rt.get('success')))} fl_mm {fmt(rt.get('fl_plant_error_mm'))} fr_mm {fmt(rt.get('fr_plant_error_mm'))} "
        f"drift_mm {fmt(rt.get('stance_drift_mm'))} realtime_rtf {fmt(rt.get('real_time_factor'))}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
