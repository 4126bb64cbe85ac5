"""``sally-report RUN`` : a recorded run's report and plots, computed again from its ``run.mcap``.

RUN is a run folder or its ``run.mcap``. The record is rebuilt from the file with the same
handlers the live runner uses (:func:`~sally_bringup.recording.record_from_mcap`); the graph,
sequence, wall time and exit codes come from the run's ``report.json`` when it is there. Writes
``report.json``, ``run.png`` and ``forces.png`` into ``--out`` (default ``<run>/from_mcap``) and
prints the summary; the exit code is 0 when the run succeeded, 1 when not, 2 for a bad argument.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    """``sally-report RUN``: the report and plots of a recorded run, from its MCAP."""
    parser = argparse.ArgumentParser(prog="sally-report", description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path, help="a run folder or its run.mcap")
    parser.add_argument("--out", type=Path, help="where the report and plots go (default <run>/from_mcap)")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    mcap = args.run / "run.mcap" if args.run.is_dir() else args.run
    if not mcap.is_file():
        print(f"sally-report: no recording at {mcap} (runs with record:=false have none)", file=sys.stderr)
        return 2
    from sally_sequencer.wall_stand import WallStand
    from sally_sequencer.wall_walk import WallWalk

    from .plot import plot_leg_forces, plot_run
    from .recording import record_from_mcap
    from .report import build_pulloff_report, build_report, write_report
    from .report_text import summary

    live_path = mcap.parent / "report.json"
    live = json.loads(live_path.read_text()) if live_path.is_file() else {}
    try:
        record = record_from_mcap(mcap)
    except Exception as exc:  # noqa: BLE001 - a damaged or foreign file: say so in one line
        print(f"sally-report: cannot read {mcap}: {exc}", file=sys.stderr)
        return 2
    wall, codes = float(live.get("wall_time_s", 0.0)), live.get("exit_codes", {})
    if live.get("graph") == "pulloff":
        report = build_pulloff_report(record, wall, codes)
    else:
        walk = live.get("walk")
        plan = WallWalk(walk["direction"], walk["distance"], walk.get("surface", "wall")) if walk else None
        stand = WallStand() if walk and walk.get("stand") else None
        then = (live.get("then") or {}).get("sequence", "")
        after = (live.get("then") or {}).get("walk")
        then_plan = WallWalk(after["direction"], after["distance"]) if after else None
        first = live.get("walk_before_climb")
        before = WallWalk(first["direction"], first["distance"], "floor") if first else None
        down = "way_down" in live or "way_down" in (live.get("then") or {})
        back = "way_back" in live
        report = build_report(
            record, live.get("sequence", "f2w"), wall, codes, plan, stand, then, then_plan, before, down, back
        )
    out = args.out or mcap.parent / "from_mcap"
    out.mkdir(parents=True, exist_ok=True)
    path = write_report(report, out)
    plot_run(record, report, out / "run.png")
    plot_leg_forces(record, report, out / "forces.png")
    print(summary(report))
    print(f"report: {path}")
    return 0 if report.get("success") else 1


if __name__ == "__main__":
    sys.exit(main())
