"""A results folder's files, written so that a kill -9 loses nothing completed: CSV rows are
flushed and fsynced as they are added, JSON and state files are replaced atomically."""

from __future__ import annotations

import csv
import os
from collections.abc import Sequence
from pathlib import Path


def append_row(path: Path, columns: Sequence[str], row: dict) -> None:
    """Append ``row`` (missing columns empty) to the CSV at ``path``, its header first if new."""
    new = not path.exists() or path.stat().st_size == 0
    with open(path, "a", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(columns))
        if new:
            writer.writeheader()
        writer.writerow({k: row.get(k, "") for k in columns})
        f.flush()
        os.fsync(f.fileno())


def read_rows(path: Path) -> list[dict[str, str]]:
    """The complete rows of a CSV (a line cut short by a kill is dropped)."""
    if not path.exists():
        return []
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    return [r for r in rows if None not in r.values() and None not in r]


def write_atomic(path: Path, data: str | bytes, binary: bool = False) -> None:
    """Replace ``path`` with ``data`` in one step (a reader sees the old file or the new one)."""
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb" if binary else "w") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
