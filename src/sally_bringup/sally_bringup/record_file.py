"""A :class:`~sally_bringup.run_record.RunRecord` to and from one NumPy ``.npz`` file: the composed
container keeps the run's record where the messages are (fed by its host, nothing lost to a busy
reader) and hands it to the runner in the run folder (``record.npz``) when the graph ends.

Columns, not objects: every list of samples is stored field by field as arrays (a dict field as one
array over its keys), the few scalars as one JSON text. The record of a 22 s climb (about 4,500 foot
samples, as many poses of each kind) writes in about 0.1 s and reads back in about 0.2 s (the
poses' checks most of it); as JSON it took about 0.6 s to write and 0.5 s to read, both on the
path from the run's end to its report. Loaded with ``allow_pickle=False``: the file holds numbers,
strings and booleans only.
"""

from __future__ import annotations

import dataclasses
import json
import zipfile
from pathlib import Path

import numpy as np

from sally_description.pose import Pose

from .run_record import FootSample, MagnetSample, RunRecord

RECORD_FILE = "record.npz"

_SCALARS = (
    "result", "pacing", "pulloff", "divergence", "divergence_t", "status_t", "recording_stopped", "reset_at",
    "fallbacks",
)  # fmt: skip
"""The record's fields written as JSON (the rest are :data:`_SAMPLES`, :data:`_POSES` and ``truth_feet``)."""
_SAMPLES = {"feet": FootSample, "magnets": MagnetSample}
_TUPLES = {"targets": 4, "phases": 3}
_POSES = ("believed", "truth")


class RecordFileError(ValueError):
    """A record file that is not what :func:`write_record` writes."""


def _columns(prefix: str, samples: list, cls: type) -> dict[str, np.ndarray]:
    """``samples`` (dataclass ``cls``) field by field: a scalar field as one array; a dict field as
    its keys, one array over them (samples, keys, ...) and, when a sample lacks a key, which have it."""
    out: dict[str, np.ndarray] = {}
    for f in dataclasses.fields(cls):
        values = [getattr(s, f.name) for s in samples]
        name = f"{prefix}.{f.name}"
        if not values or not isinstance(values[0], dict):
            out[name] = np.array(values)
            continue
        keys = list(dict.fromkeys(k for v in values for k in v))
        present = np.array([[k in v for k in keys] for v in values], dtype=bool).reshape(len(values), len(keys))
        filler = next((v[k] for v in values for k in v), 0.0)
        filler = np.zeros_like(filler) if isinstance(filler, np.ndarray) else type(filler)()
        out[name] = np.array([[v.get(k, filler) for k in keys] for v in values])
        out[f"{name}.keys"] = np.array(keys, dtype=str)
        if not present.all():
            out[f"{name}.present"] = present
    return out


def _samples(data, prefix: str, cls: type) -> list:
    """The samples :func:`_columns` wrote."""
    fields, n = [], None
    for f in dataclasses.fields(cls):
        name = f"{prefix}.{f.name}"
        column = data[name]
        n = len(column) if n is None else n
        if f"{name}.keys" not in data:
            fields.append(column.tolist())
            continue
        keys = data[f"{name}.keys"].tolist()
        present = data[f"{name}.present"] if f"{name}.present" in data else None
        rows = column if column.ndim > 2 else column.tolist()  # vectors stay arrays, scalars become Python's
        fields.append(
            [
                {k: rows[i][j] for j, k in enumerate(keys) if present is None or present[i, j]}
                for i in range(len(column))
            ]
        )
    if any(len(values) != n for values in fields):
        raise RecordFileError(f"{prefix}: its columns differ in length")
    return [cls(*values) for values in zip(*fields)]


def _pose_columns(prefix: str, poses: dict[int, Pose]) -> dict[str, np.ndarray]:
    return {
        f"{prefix}.stamp": np.array(list(poses), dtype=np.int64),
        f"{prefix}.position": np.array([p.position for p in poses.values()], dtype=float).reshape(-1, 3),
        f"{prefix}.quat": np.array([p.quat for p in poses.values()], dtype=float).reshape(-1, 4),
    }


def _poses(data, prefix: str) -> dict[int, Pose]:
    stamps, positions, quats = (data[f"{prefix}.{k}"] for k in ("stamp", "position", "quat"))
    return {int(k): Pose(p, q) for k, p, q in zip(stamps.tolist(), positions, quats, strict=True)}


def record_columns(record: RunRecord) -> dict[str, np.ndarray]:
    """A run record as named arrays (what :func:`record_from_columns` reads back)."""
    columns: dict[str, np.ndarray] = {"scalars": np.array(json.dumps({k: getattr(record, k) for k in _SCALARS}))}
    for name, cls in _SAMPLES.items():
        columns.update(_columns(name, getattr(record, name), cls))
    for name, width in _TUPLES.items():
        rows = getattr(record, name)
        for i in range(width):
            columns[f"{name}.{i}"] = np.array([row[i] for row in rows])
    for name in _POSES:
        columns.update(_pose_columns(name, getattr(record, name)))
    columns["truth_feet.stamp"] = np.array(list(record.truth_feet), dtype=np.int64)
    columns["truth_feet.points"] = np.array(list(record.truth_feet.values()), dtype=float)
    mixed = [name for name, column in columns.items() if column.dtype == object]
    if mixed:  # (np.savez would pickle them, and the file would not load without pickle)
        raise RecordFileError(f"the record's {', '.join(mixed)} mix types: not storable as arrays")
    return columns


def record_from_columns(data) -> RunRecord:
    """The run record :func:`record_columns` made (``data``: its arrays by name, an open ``.npz``)."""
    record = RunRecord(**json.loads(str(data["scalars"])))
    for name, cls in _SAMPLES.items():
        setattr(record, name, _samples(data, name, cls))
    targets = [data[f"targets.{i}"] for i in range(_TUPLES["targets"])]
    record.targets = [(t, foot, phase, p) for t, foot, phase, p in zip(*(c.tolist() for c in targets[:3]), targets[3])]
    record.phases = list(zip(*(data[f"phases.{i}"].tolist() for i in range(_TUPLES["phases"]))))
    for name in _POSES:
        setattr(record, name, _poses(data, name))
    record.truth_feet = dict(zip(data["truth_feet.stamp"].tolist(), data["truth_feet.points"]))
    return record


def write_record(record: RunRecord, path: Path) -> None:
    """Write ``record`` to ``path`` whole or not at all (a temporary file renamed into place)."""
    path = Path(path)
    partial = path.with_name(path.name + ".partial")
    with open(partial, "wb") as out:
        np.savez(out, allow_pickle=False, **record_columns(record))
    partial.replace(path)


def read_record(path: Path) -> RunRecord:
    """The run record saved at ``path``; :class:`RecordFileError` (a ValueError) for a file that is
    not one (empty, cut short, another file's arrays, pickled objects), naming what is wrong."""
    try:
        with np.load(Path(path), allow_pickle=False) as data:
            return record_from_columns(data)
    except RecordFileError:
        raise
    except (KeyError, TypeError, IndexError, ValueError, EOFError, zipfile.BadZipFile) as exc:
        raise RecordFileError(f"{path} is not a run record: {type(exc).__name__}: {exc}") from None
