#!/usr/bin/env python3
"""Rewrite the reference reports the lockstep graph tests hold their runs to
(``src/sally_bringup/test/reference/<case>.json``, :mod:`sally_testing.reference`).

Run it when a change is meant to move a run's figures, and say in the commit why they moved.
``scripts/write_references.py`` runs every case (two at a time, composed, without a recording, each
on its own leased ROS domain, loopback only); ``scripts/write_references.py f2w w2c`` only those.
A case whose run fails is not written (the run's problems are printed) and the exit status is 1.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from sally_node_common.discovery import force_loopback


def main() -> int:
    from sally_testing.reference import CASES

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases", nargs="*", help=f"the cases to run (default: all): {', '.join(CASES)}")
    parser.add_argument(
        "--at-once", type=int, default=2, help="runs side by side (lockstep: the figures do not change)"
    )
    args = parser.parse_args()
    unknown = [name for name in args.cases if name not in CASES]
    if unknown:
        parser.error(f"no such case {unknown}; the cases: {', '.join(CASES)}")
    force_loopback()

    from sally_bringup.environment import lease_domain
    from sally_bringup.runner import run_graph
    from sally_testing import reference
    from sally_testing.side_by_side import side_by_side

    names = args.cases or list(CASES)
    tmp = Path(tempfile.mkdtemp(prefix="sally_references_"))

    def run(name: str) -> tuple[str, dict]:
        case = CASES[name]
        with lease_domain() as lease:
            run_graph(
                case.graph,
                case.run_arguments(composed="true", record="false"),
                run_dir=tmp / name,
                domain_id=lease.domain_id,
                out=None,
                wall_timeout=900,
            )
        return name, json.loads((tmp / name / "report.json").read_text())

    failed = 0
    for name, report in side_by_side([lambda n=n: run(n) for n in names], at_once=args.at_once):
        if not report.get("success"):
            print(f"{name}: the run failed, reference not written: {report.get('problems')}")
            failed += 1
            continue
        old = reference.path_of(name)
        moved = reference.differences(report, reference.load(name), CASES[name].spread) if old.exists() else None
        path = reference.write(name, report)
        print(f"{name}: {path} ({'new' if moved is None else f'{len(moved)} figures out of their bands before'})")
        for line in (moved or [])[:20]:
            print(f"  {line}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
