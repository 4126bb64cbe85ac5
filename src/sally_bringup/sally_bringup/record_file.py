"""A :class:`~sally_bringup.run_record.RunRecord` to and from JSON: the composed container keeps the
run's record where the messages are (fed by its host, nothing lost to a busy reader) and hands it
to the runner in the run folder (``record.json``) when the graph ends."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from sally_description.pose import Pose

from .run_record import FootSample, MagnetSample, RunRecord

RECORD_FILE = "record.json"


def _vectors(values: dict[str, np.ndarray]) -> dict[str, list[float]]:
    return {k: [float(x) for x in v] for k, v in values.items()}


def _arrays(values: dict[str, list[float]]) -> dict[str, np.ndarray]:
    return {k: np.array(v, dtype=float) for k, v in values.items()}


def record_to_dict(record: RunRecord) -> dict[str, Any]:
    """A run record as plain JSON-able data (what :func:`record_from_dict` reads back)."""
    return {
        "feet": [[s.t, _vectors(s.position), s.mode, s.in_contact, _vectors(s.hips), s.frame] for s in record.feet],
        "magnets": [[s.t, s.force, s.enabled, s.surface, s.in_contact, s.contact_force] for s in record.magnets],
        "targets": [[t, foot, phase, [float(x) for x in position]] for t, foot, phase, position in record.targets],
        "phases": [list(p) for p in record.phases],
        "result": record.result,
        "pacing": record.pacing,
        "pulloff": record.pulloff,
        "divergence": record.divergence,
        "divergence_t": record.divergence_t,
        "status_t": record.status_t,
        "recording_stopped": record.recording_stopped,
        "reset_at": record.reset_at,
        "believed": _poses(record.believed),
        "truth": _poses(record.truth),
        "truth_feet": [[k, [[float(x) for x in p] for p in points]] for k, points in record.truth_feet.items()],
    }


def _poses(poses: dict[int, Pose]) -> list[list]:
    return [[k, [float(x) for x in p.position], [float(x) for x in p.quat]] for k, p in poses.items()]


def _unposes(rows: list[list]) -> dict[int, Pose]:
    return {int(k): Pose(np.array(position), np.array(quat)) for k, position, quat in rows}


def record_from_dict(data: dict[str, Any]) -> RunRecord:
    """The run record :func:`record_to_dict` wrote."""
    return RunRecord(
        feet=[
            FootSample(t, _arrays(p), dict(m), dict(c), _arrays(h), *frame) for t, p, m, c, h, *frame in data["feet"]
        ],
        magnets=[MagnetSample(t, dict(f), dict(e), dict(s), dict(c), dict(n)) for t, f, e, s, c, n in data["magnets"]],
        targets=[(t, foot, phase, np.array(p, dtype=float)) for t, foot, phase, p in data["targets"]],
        phases=[(t, foot, phase) for t, foot, phase in data["phases"]],
        result=data["result"],
        pacing=dict(data["pacing"]),
        pulloff=data["pulloff"],
        divergence=data["divergence"],
        divergence_t=data.get("divergence_t"),
        status_t=data["status_t"],
        recording_stopped=data["recording_stopped"],
        reset_at=data.get("reset_at"),
        believed=_unposes(data.get("believed", [])),
        truth=_unposes(data.get("truth", [])),
        truth_feet={int(k): np.array(points, dtype=float) for k, points in data.get("truth_feet", [])},
    )


def write_record(record: RunRecord, path: Path) -> None:
    """Write ``record`` to ``path`` whole or not at all (a temporary file renamed into place)."""
    path = Path(path)
    partial = path.with_suffix(".partial")
    partial.write_text(json.dumps(record_to_dict(record)))
    partial.replace(path)


def read_record(path: Path) -> RunRecord:
    """The run record saved at ``path``."""
    return record_from_dict(json.loads(Path(path).read_text()))
