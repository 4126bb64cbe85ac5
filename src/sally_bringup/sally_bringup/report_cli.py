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
    from .plot import plot_leg_forces, plot_run
    from .recording import record_from_mcap
    from .report import build_pulloff_report, build_report, write_report
    from .report_text import summary

    live_path = mcap.parent / "report.json"
    try:  # (a JSONDecodeError or UnicodeDecodeError is a ValueError)
        live = _LiveReport(json.loads(live_path.read_text()) if live_path.is_file() else {})
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        print(f"sally-report: {live_path} is not a run's report ({type(exc).__name__}: {exc})", file=sys.stderr)
        return 2
    try:
        record = record_from_mcap(mcap)
    except Exception as exc:  # noqa: BLE001 - a damaged or foreign file: say so in one line
        print(f"sally-report: cannot read {mcap}: {exc}", file=sys.stderr)
        return 2
    if live.pulloff:
        report = build_pulloff_report(record, live.wall, live.codes)
    else:
        report = build_report(record, live.plan, live.wall, live.codes)
    out = args.out or mcap.parent / "from_mcap"
    out.mkdir(parents=True, exist_ok=True)
    path = write_report(report, out)
    plot_run(record, report, out / "run.png")
    plot_leg_forces(record, report, out / "forces.png")
    print(summary(report))
    print(f"report: {path}")
    return 0 if report.get("success") else 1


class _LiveReport:
    """What a run's live ``report.json`` tells of the run that its recording does not: the graph,
    the sequence and its plan (the walk, the stand, the second climb and its walk, the walk before,
    the ways down and back: the :class:`~sally_sequencer.route_run.RoutePlan` the report judges it
    through), the wall time and the exit codes. Raises KeyError, TypeError or ValueError when
    ``live`` is not a run's report."""

    def __init__(self, live) -> None:
        from sally_sequencer.plan import CampaignPlan
        from sally_sequencer.route_run import RoutePlan
        from sally_sequencer.wall_stand import WallStand

        if not isinstance(live, dict):
            raise TypeError(f"a report is a JSON object, not {type(live).__name__}")
        self.pulloff = live.get("graph") == "pulloff"
        self.sequence, self.codes = live.get("sequence", "f2w"), live.get("exit_codes", {})
        self.wall = float(live.get("wall_time_s", 0.0))
        if not isinstance(self.sequence, str) or not isinstance(self.codes, dict):
            raise TypeError("its sequence must be a name and its exit_codes an object")
        walk, then, first = live.get("walk"), live.get("then") or {}, live.get("walk_before_climb")
        after, then_name = then.get("walk"), then.get("sequence", "")
        down = "way_down" in live or "way_down" in then
        self.plan = RoutePlan(
            CampaignPlan(
                self.sequence,
                _walk(walk, walk.get("surface", "wall") if walk else "wall"),
                WallStand() if walk and walk.get("stand") else None,
                _walk(first, "floor"),
                down and not then_name,
            ),
            CampaignPlan(then_name, _walk(after), down=down) if then_name else None,
            "way_back" in live,
        )


def _walk(figures: dict | None, surface: str = "wall"):
    """The walk a report's figures (its direction and distance) describe, over ``surface``; None without."""
    from sally_sequencer.wall_walk import WallWalk

    return WallWalk(figures["direction"], float(figures["distance"]), surface) if figures else None


if __name__ == "__main__":
    sys.exit(main())
