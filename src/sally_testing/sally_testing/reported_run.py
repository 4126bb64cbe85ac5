"""One graph run to its end and its report: what the acceptance tests of the sequences share."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def reported_run(
    graph: str, arguments: dict[str, str], run_dir: Path, domain_id: int, wall_timeout: float
) -> tuple[Any, dict]:
    """Run ``graph`` with ``arguments`` in ``run_dir`` on ``domain_id`` (quietly, at most
    ``wall_timeout`` s): the runner's result and the run's ``report.json``, which it also prints
    (but its phase table), so that a failing test shows it."""
    from sally_bringup.runner import run_graph

    result = run_graph(graph, arguments, run_dir=run_dir, domain_id=domain_id, out=None, wall_timeout=wall_timeout)
    report = json.loads((Path(run_dir) / "report.json").read_text())
    print(json.dumps({k: v for k, v in report.items() if k != "phases"}, indent=1))
    return result, report
