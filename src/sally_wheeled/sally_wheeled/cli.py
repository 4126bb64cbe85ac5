"""``sally-wheeled``: run the wheeled platform, in the viewer or headless; ``sally-wheeled-tune``:
its Gaussian-process tuning.

Headless (``--headless``, or no display): runs ``--mode`` from the wall and prints its figures;
the last line is ``wheeled <mode> cost <c> <metric> <value> ...``. With a display: the viewer,
``S`` toggling the mode's drive (``--drive`` starts it driving), Space pausing. ``--rank K``
replays the K-th best parameters of the newest tuning run of ``--mode`` under ``--results``
(or of ``--run FOLDER``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from sally_description.errors import ParameterError

from .model import STARTS, Start
from .modes import MODES, ModeConfig, command, run_mode
from .params import WheeledParams
from .platform import WheeledSim
from .tuning import TuneSettings, latest_run, ranked, run_config, tune


def parse(argv: list[str] | None) -> argparse.Namespace:
    """``sally-wheeled``'s command line."""
    parser = argparse.ArgumentParser(prog="sally-wheeled", description=__doc__.split("\n\n")[0])
    parser.add_argument("--mode", choices=MODES, default="drive_up", help="behaviour (default drive_up)")
    parser.add_argument("--headless", action="store_true", help="no viewer: run the mode and print its figures")
    parser.add_argument("--start", choices=STARTS, default="wall", help="viewer only: start on the wall or floor")
    parser.add_argument("--duration", type=float, help="s of sim time (headless default 2, viewer: until closed)")
    parser.add_argument("--speed", type=float, default=0.05, help="drive speed (m/s)")
    parser.add_argument("--params", help="a tuning run's best_params.json (or any flat JSON of parameters)")
    parser.add_argument("--rank", type=int, help="replay the rank-th best evaluation of a tuning run of --mode")
    parser.add_argument("--run", type=Path, help="with --rank: this run folder (default: the newest under --results)")
    parser.add_argument("--results", type=Path, default=Path("results"), help="parent of the tuning run folders")
    parser.add_argument("--magnets-off", action="store_true", help="viewer only: start with the magnets off")
    parser.add_argument("--drive", action="store_true", help="viewer only: start driving")
    parser.add_argument("--snapshot", type=Path, help="headless: render the end of the run to this PNG (needs GL)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """``sally-wheeled``: run a mode of the wheeled platform in the viewer, or headless with its figures."""
    args = parse(argv)
    try:
        params = WheeledParams.from_file(args.params) if args.params else WheeledParams()
        if args.rank is not None:
            if args.params:
                raise ValueError("give --params or --rank, not both")
            folder = args.run or latest_run(args.results, args.mode)
            params, row = ranked(folder, args.rank)
            print(f"rank {args.rank} of {folder}: evaluation {row['eval']}, cost {float(row['cost']):.6g}")
            tuned = run_config(folder)  # scored as it was tuned, unless told otherwise
            config = ModeConfig(tuned.settle, args.duration or tuned.duration, tuned.speed)
        else:
            config = ModeConfig(duration=args.duration if args.duration else 2.0, speed=args.speed)
    except (ParameterError, ValueError, FileNotFoundError) as exc:
        print(f"sally-wheeled: {exc}", file=sys.stderr)
        return 2
    from sally_sim_node.viewer_bridge import display_available

    from .viewer import run_viewer

    if args.headless or not display_available():
        if not args.headless:
            print("sally-wheeled: no display; running headless", file=sys.stderr)
        result = run_mode(args.mode, params, config, keep=args.snapshot is not None)
        if args.snapshot is not None and result.sim is not None:
            from .viewer import snapshot

            print(f"snapshot: {snapshot(result.sim, args.snapshot)}")
        figures = " ".join(f"{k} {v:.6g}" for k, v in result.metrics.items())
        print(f"wheeled {args.mode} cost {result.cost:.6g} {figures}")
        return 0
    start = Start(args.start)
    sim = WheeledSim(params, start, magnets_on=not args.magnets_off)
    drive = command(args.mode, args.speed) if start.surface == "wall" else (args.speed, 0.0)
    run_viewer(sim, drive, args.duration, driving=args.drive)
    return 0


def tune_main(argv: list[str] | None = None) -> int:
    """``sally-wheeled-tune``: Gaussian-process tuning of the wheeled platform for one mode."""
    parser = argparse.ArgumentParser(
        prog="sally-wheeled-tune", description="Gaussian-process tuning of the wheeled platform for one mode."
    )
    parser.add_argument("--mode", choices=MODES, required=True)
    parser.add_argument("--n-calls", type=int, default=40, help="evaluations (default 40)")
    parser.add_argument("--n-initial-points", type=int, default=10, help="random evaluations first (default 10)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--results", type=Path, default=Path("results"), help="parent of the run folders")
    parser.add_argument("--tiny", action="store_true", help="shortened runs (0.2 s settle, 0.6 s mode): tests")
    args = parser.parse_args(argv)
    try:
        settings = TuneSettings(args.mode, args.n_calls, args.n_initial_points, args.seed)
    except ValueError as exc:
        print(f"sally-wheeled-tune: {exc}", file=sys.stderr)
        return 2
    tune(settings, args.results, ModeConfig(settle=0.2, duration=0.6) if args.tiny else ModeConfig())
    return 0


if __name__ == "__main__":
    sys.exit(main())
