"""``sally-optimize`` and ``sally-replay``: the combined optimizer and its viewer."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from sally_description import DescriptionError
from sally_node_common.discovery import default_to_loopback

from .evaluation import BACKENDS
from .replay import MODES, replay
from .results import BEST_PARAMS, last_best
from .scenarios import ScenarioConfig


def _environment() -> None:
    os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"  # every graph it starts inherits it


def _optimize_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sally-optimize", description="CMA-ES over the floor-lift, wall-hold and pull-off graphs."
    )
    parser.add_argument("--n-calls", type=int, help="evaluations in all (default 300; when resuming, the run's own)")
    parser.add_argument("--suffix", default="combined", help="run folder name suffix")
    parser.add_argument(
        "--workers", type=int, default=os.cpu_count() or 1, help="parallel evaluations (default: the cores)"
    )
    parser.add_argument(
        "--scheduler",
        help="evaluate on Dask: local:N (a cluster of N worker processes on this machine) or tcp://HOST:PORT "
        "(a running `dask scheduler`; its workers need this project's environment); default: this machine's "
        "pool of --workers processes. A resumed run uses the one given now",
    )
    parser.add_argument("--resume-from", type=Path, help="continue this run folder from its exact CMA-ES state")
    parser.add_argument("--warm-start-from", type=Path, help="x0 from this run folder's last best, fresh CMA-ES")
    parser.add_argument("--popsize", type=int, default=16)
    parser.add_argument("--sigma0", type=float, default=0.3)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument(
        "--backend",
        choices=BACKENDS,
        default="inprocess",
        help="inprocess (default: hosted nodes, checked against processes at x0) or processes",
    )
    parser.add_argument("--results", type=Path, default=Path("results"), help="parent of the run folders")
    parser.add_argument("--tiny", action="store_true", help="shortened scenarios (tests, smoke runs)")
    parser.add_argument("--no-replay", action="store_true", help="do not replay the best at the end")
    parser.add_argument(
        "--no-backend-check",
        action="store_true",
        help="skip the in-process backend's check against the multi-process graph at x0 (only where that "
        "check already passed for this code, e.g. a resume or a test not about it)",
    )
    return parser


def _optimize(args: argparse.Namespace) -> tuple[Path, float]:
    """Run (or resume) the optimization ``args`` ask for: its run folder and best cost."""
    from . import optimizer

    if args.resume_from:
        best = optimizer.resume(
            args.resume_from,
            n_calls=args.n_calls,
            workers=args.workers,
            check_backend=not args.no_backend_check,
            scheduler=args.scheduler,
        )
        return args.resume_from, best
    n_calls = 300 if args.n_calls is None else args.n_calls
    settings = optimizer.Settings(
        n_calls, args.popsize, args.sigma0, args.seed, args.workers, args.backend, args.scheduler
    )
    config = ScenarioConfig.tiny() if args.tiny else ScenarioConfig()
    x0, origin = None, {"x0": "defaults"}
    if args.warm_start_from:
        x0, origin = last_best(args.warm_start_from), {"warm_start_from": str(args.warm_start_from)}
    folder = args.results / f"{time.strftime('%Y%m%dT%H%M%S')}_{args.suffix}"
    return folder, optimizer.start(folder, settings, config, x0, origin, check_backend=not args.no_backend_check)


def optimize_main(argv: list[str] | None = None) -> int:
    """``sally-optimize``: CMA-ES over headless graphs (or ``--resume-from`` a run folder)."""
    from . import optimizer

    default_to_loopback()  # the workers and every graph they start inherit it
    args = _optimize_parser().parse_args(argv)
    _environment()
    try:
        folder, best = _optimize(args)
        saved = json.loads((folder / "config.json").read_text())
    except (ValueError, FileNotFoundError, KeyError, DescriptionError) as exc:
        print(f"sally-optimize: {exc}", file=sys.stderr)
        return 2
    except optimizer.BackendMismatchError as exc:
        print(f"sally-optimize: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("sally-optimize: interrupted; resume with --resume-from", file=sys.stderr)
        return 130
    print(f"best combined cost {best:.6g}; parameters in {folder / BEST_PARAMS}")
    if not args.no_replay and (folder / BEST_PARAMS).exists():
        # the end of a run: its best replayed headless (plots written, not shown)
        replay(
            folder / BEST_PARAMS,
            "all",
            folder / "replay",
            ScenarioConfig(**saved["scenarios"]),
            saved["settings"]["backend"],
        )
    return 0


def replay_main(argv: list[str] | None = None) -> int:
    """``sally-replay PARAMS``: run the scenarios with a parameter file and plot each leg's forces."""
    default_to_loopback()
    parser = argparse.ArgumentParser(
        prog="sally-replay", description="Replay scenarios with a parameter file; per-leg force plots."
    )
    parser.add_argument("--params", type=Path, required=True, help="a best_params.json (or any physics parameter file)")
    parser.add_argument("--mode", choices=sorted(MODES), default="all")
    parser.add_argument("--out", type=Path, help="output folder (default: replays/<time>_<mode>)")
    parser.add_argument("--backend", choices=BACKENDS, default="processes")
    parser.add_argument("--tiny", action="store_true", help="shortened scenarios")
    parser.add_argument("--headless", action="store_true", help="never show the plots")
    args = parser.parse_args(argv)
    _environment()
    out = args.out or Path("replays") / f"{time.strftime('%Y%m%dT%H%M%S')}_{args.mode}"
    try:
        replay(
            args.params,
            args.mode,
            out,
            ScenarioConfig.tiny() if args.tiny else None,
            args.backend,
            show=not args.headless,
        )
    except (ValueError, DescriptionError) as exc:
        print(f"sally-replay: {exc}", file=sys.stderr)
        return 2
    return 0
