"""``sally-magnet-bench``: one bench test; ``sally-magnet-bench-fit``: the CMA-ES clip fit.

``sally-magnet-bench peel --lever 0.05 --plot peel.png`` prints the test's figures; the last line
is ``bench <test> lever_m <m> detach_force_n <N> clip_n <N> datasheet_n <N>``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from sally_description import PhysicsParams

from .bench import TESTS, BenchConfig, datasheet_force, run_test
from .fit import FIT_SPACE, FitSettings, fit, magnet
from .plots import plot_force_displacement


def main(argv: list[str] | None = None) -> int:
    """``sally-magnet-bench TEST``: one bench test of the EML63mm-12, its figures printed."""
    parser = argparse.ArgumentParser(prog="sally-magnet-bench", description="One EML63mm-12 bench test.")
    parser.add_argument("test", choices=TESTS)
    parser.add_argument("--lever", type=float, help="peel: m off the axis (default: the housing radius, a rim pull)")
    parser.add_argument(
        "--clip", type=float, default=PhysicsParams().max_force_per_wheel, help="max_force_per_wheel (N)"
    )
    parser.add_argument("--rate", type=float, default=BenchConfig().rate, help="pull ramp (N/s)")
    parser.add_argument("--plot", type=Path, help="force versus displacement to this PNG")
    args = parser.parse_args(argv)
    try:
        FIT_SPACE[0].check(args.clip)
        result = run_test(args.test, magnet(args.clip), args.lever, config=BenchConfig(rate=args.rate))
    except ValueError as exc:  # ParameterError is one
        print(f"sally-magnet-bench: {exc}", file=sys.stderr)
        return 2
    target = datasheet_force(result.lever)
    if args.plot:
        print(f"plot: {plot_force_displacement([(f'clip {args.clip:.1f} N', result)], args.plot, target)}")
    if not result.detached:
        print(f"still held at {result.applied[-1]:.0f} N (the bench gives up there)")
    print(
        f"bench {args.test} lever_m {result.lever:.4f} detach_force_n {result.detach_force:.1f} "
        f"clip_n {args.clip:.1f} datasheet_n {target:.1f}"
    )
    return 0


def fit_main(argv: list[str] | None = None) -> int:
    """``sally-magnet-bench-fit TEST``: CMA-ES fit of the magnet's clip to the datasheet hold."""
    parser = argparse.ArgumentParser(
        prog="sally-magnet-bench-fit", description="CMA-ES fit of the magnet's clip to the datasheet hold (956.37 N)."
    )
    parser.add_argument("test", choices=TESTS)
    parser.add_argument("--lever", type=float, help="peel: m off the axis (default: the housing radius)")
    parser.add_argument("--n-calls", type=int, default=30)
    parser.add_argument("--popsize", type=int, default=6)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--results", type=Path, default=Path("results"), help="parent of the run folders")
    parser.add_argument("--warm-start-from", type=Path, help="x0 = that run folder's best clip")
    args = parser.parse_args(argv)
    try:
        settings = FitSettings(args.test, args.lever, args.n_calls, args.popsize, seed=args.seed)
        fit(settings, args.results, warm_start=args.warm_start_from)
    except (ValueError, FileNotFoundError) as exc:
        print(f"sally-magnet-bench-fit: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
