#!/usr/bin/env python3
"""The fault matrix: real node processes on loopback DDS, killed, fed bad input on every topic,
given bad parameters and absurd physics, interrupted with Ctrl-C.

Prints one line per case (PASS/FAIL, what happened); ``--case NAME`` runs only the named cases and
``-v`` also prints every check each case made. Last line: ``faults passed N of M``. Exit status 0
only when every case passed. ``--hold`` trims how long a killed node stays down (sim seconds).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from sally_node_common.discovery import force_loopback


def main(argv: list[str] | None = None) -> int:
    from sally_testing.faults.cases import CASES, CaseResult

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", action="append", choices=sorted(CASES), help="run only this case (repeatable)")
    parser.add_argument("--hold", type=float, default=10.0, help="sim seconds a killed node stays down (default 10)")
    parser.add_argument(
        "--work", type=Path, default=None, help="folder for the cases' logs and runs (default: a temporary one)"
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="print every check of every case")
    args = parser.parse_args(argv)
    if not args.hold > 0:
        parser.error("--hold must be positive")
    work = args.work or Path(tempfile.mkdtemp(prefix="sally_faults_"))
    names = args.case or list(CASES)
    results: list[CaseResult] = []
    for name in names:
        start = time.monotonic()
        try:
            found = CASES[name](work, {"hold": args.hold})
        except Exception as exc:  # noqa: BLE001 - a crashed case is a failed case, and the matrix goes on
            found = [CaseResult(name, False, f"the case itself crashed: {type(exc).__name__}: {exc}")]
        for result in found:
            print(f"{result.line()} ({time.monotonic() - start:.0f} s)", flush=True)
            if args.verbose or not result.passed:
                for detail in result.details:
                    print(f"    {detail}", flush=True)
        results.extend(found)
    passed = sum(r.passed for r in results)
    print(f"logs: {work}")
    print(f"faults passed {passed} of {len(results)}")
    return 0 if passed == len(results) else 1


if __name__ == "__main__":
    force_loopback()
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
