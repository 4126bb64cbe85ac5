"""Reference reports: what a lockstep run must give, committed, and held to a band that survives a
change of CPU.

A lockstep run is bit-identical on one machine but not across CPUs (the same commit planted FR
0.868 mm on one 2-core machine and 0.832 mm on another), so a test that held a run to the goals
alone (plants under 2 mm) would pass a regression to 1.9 mm. Each case here has a reference report
in ``src/sally_bringup/test/reference/<case>.json`` (its :func:`figures`), and :func:`differences`
lists every figure of a new report that left the reference's band (:data:`BANDS`, by the figure's
unit). ``scripts/write_references.py`` runs the cases and rewrites the files when a change is meant
to move them (its commit says why).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REFERENCE_DIR = Path(__file__).resolve().parents[2] / "sally_bringup" / "test" / "reference"
"""Where the reference reports are committed (beside the graph tests that read them)."""


@dataclass(frozen=True)
class Case:
    """One lockstep run whose report has a reference: the graph and the arguments that decide its
    figures (a test may add the host's: ``composed``, ``record``, ``ik_process``, which must not
    change them)."""

    graph: str
    arguments: Mapping[str, str] = field(default_factory=dict)
    spread: float = 1.0
    """How many times :data:`BANDS` the case's figures may move: more for a run whose figures part
    more between CPUs (:data:`LONG_RUN_SPREAD`)."""

    def run_arguments(self, **host: str) -> dict[str, str]:
        """The case's arguments, lockstep, with the host's added."""
        return {"pacing": "lockstep", **self.arguments, **host}


LONG_RUN_SPREAD = 3.0
"""The bands of the routes over two corners, 200-320 s of sim time each. Two CPUs part their figures
more the longer a run goes: the same commit put the route's footholds along the ceiling (walked from
190 s of sim time on) 0.47 mm apart and one of its steps' errors 0.25 mm, where every shorter case
stayed within 0.12 mm."""

CASES: dict[str, Case] = {
    "f2w": Case("f2w"),
    "f2w_effort": Case("f2w", {"command": "effort"}),
    "f2w_all": Case("f2w", {"sequence": "f2w_all"}),
    "w2c": Case("f2w", {"sequence": "w2c"}),
    "wall_walk_up": Case("f2w", {"sequence": "wall_walk", "start": "wall", "direction": "up", "distance": "0.30"}),
    "wall_walk_left": Case("f2w", {"sequence": "wall_walk", "start": "wall", "direction": "left", "distance": "0.30"}),
    "route": Case("f2w", {"sequence": "route", "route": "floor,wall,ceiling", "ceiling_walk": "0.30"}, LONG_RUN_SPREAD),
    "route_down": Case("f2w", {"sequence": "route", "route": "floor,wall,floor"}),
    "w2c_down": Case("f2w", {"sequence": "route", "scene": "corner3", "route": "wall,ceiling,wall"}),
    "route_back": Case("f2w", {"sequence": "route", "route": "floor,wall,ceiling,wall"}, LONG_RUN_SPREAD),
    "round_trip": Case("f2w", {"sequence": "route", "route": "floor,wall,ceiling,wall,floor"}, LONG_RUN_SPREAD),
}
"""Every case with a reference report, by the name of its file."""

LEFT_OUT = frozenset(
    {
        "arguments",  # the host's among them; the figures' arguments are the case's
        "exit_codes",  # one per process: the host's
        "recording",  # message counts: how long a graph runs on after its verdict depends on the OS
        "wall_time_s",
        "real_time_factor",
        "teardown_s",
        "startup_s",
        "at_s",  # when a holding foot moved most: two near-equal maxima may swap between CPUs
    }
)
"""Report keys that are not figures of the run."""

BANDS: tuple[tuple[str, float], ...] = (
    ("_mm_s", 0.1),  # mm/s of sim time
    ("_mm", 0.1),  # plants, drift, steps: mm
    ("_deg", 0.2),  # the body's pitch
    ("_s", 0.05),  # sim time: a phase that ends on a condition may end a few control periods apart
    ("_m", 2e-4),  # distances, travel (rounded to 0.1 mm: one rounding step apart on two CPUs)
)
"""How far a figure may be from its reference, by the ending of its key (first match)."""
POSITION_KEYS = frozenset({"final", "target", "final_in_room", "began", "designed", "position", "plant"})
"""Keys whose values are positions in m: held to 0.2 mm each."""
POSITION_BAND = 2e-4
"""m: two CPUs put f2w_all's BR 0.115 mm apart on the wall (the same commit, lockstep both)."""
QUATERNION_BAND = 1e-3


def band(key: str) -> float:
    """The band for a number under ``key`` (0: it must be equal)."""
    if key in POSITION_KEYS:
        return POSITION_BAND
    if key == "quat_wxyz":
        return QUATERNION_BAND
    for ending, width in BANDS:
        if key.endswith(ending):
            return width
    return 0.0


def figures(report: Mapping[str, Any]) -> dict[str, Any]:
    """The report's figures: every key but :data:`LEFT_OUT`, at any depth."""
    return _without(report)


def _without(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _without(v) for k, v in value.items() if k not in LEFT_OUT}
    if isinstance(value, list):
        return [_without(v) for v in value]
    return value


def differences(report: Mapping[str, Any], reference: Mapping[str, Any], spread: float = 1.0) -> list[str]:
    """Every figure of ``report`` outside its band (times ``spread``) around ``reference`` (both
    reports or their :func:`figures`), one line each naming where it is: empty when the run is the
    reference's."""
    return list(_compare(figures(report), figures(reference), "", "", spread))


def _compare(new: Any, old: Any, where: str, key: str, spread: float = 1.0) -> Iterator[str]:
    if isinstance(old, Mapping) and isinstance(new, Mapping):
        for k in sorted(set(old) | set(new)):
            path = f"{where}.{k}" if where else k
            if k not in new:
                yield f"{path}: missing (reference {old[k]!r})"
            elif k not in old:
                yield f"{path}: {new[k]!r} is not in the reference"
            else:
                yield from _compare(new[k], old[k], path, k, spread)
        return
    if isinstance(old, list) and isinstance(new, list):
        if len(old) != len(new):
            yield f"{where}: {len(new)} items, the reference {len(old)}"
            return
        for i, (n, o) in enumerate(zip(new, old, strict=True)):
            yield from _compare(n, o, f"{where}[{i}]", key, spread)
        return
    if _number(old) and _number(new):
        width = band(key) * spread
        if not (math.isfinite(new) and abs(new - old) <= width + 1e-12):
            yield f"{where}: {new!r}, the reference {old!r} (band +-{width:g})"
        return
    if new != old:
        yield f"{where}: {new!r}, the reference {old!r}"


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def path_of(case: str, directory: Path = REFERENCE_DIR) -> Path:
    """The reference file of ``case``."""
    if case not in CASES:
        raise KeyError(f"no reference case {case!r}; the cases: {sorted(CASES)}")
    return directory / f"{case}.json"


def load(case: str, directory: Path = REFERENCE_DIR) -> dict[str, Any]:
    """The committed reference of ``case``; a missing file names the script that writes it."""
    path = path_of(case, directory)
    if not path.exists():
        raise FileNotFoundError(f"{path} is missing: write it with scripts/write_references.py {case}")
    return json.loads(path.read_text())


def write(case: str, report: Mapping[str, Any], directory: Path = REFERENCE_DIR) -> Path:
    """Write ``report``'s figures as the reference of ``case``; the file's path."""
    path = path_of(case, directory)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(figures(report), indent=1) + "\n")
    return path


def assert_matches(report: Mapping[str, Any], case: str) -> None:
    """Fail with every figure out of its band when ``report`` is not the run of ``case``'s reference."""
    found = differences(report, load(case), CASES[case].spread)
    assert not found, (
        f"the {case} run left its reference ({path_of(case)}; scripts/write_references.py {case} "
        "rewrites it when a change is meant to move it):\n  " + "\n  ".join(found)
    )
