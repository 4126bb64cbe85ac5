"""Fast DDS shared-memory segments left in /dev/shm by processes that are gone.

With loopback-only discovery rmw_fastrtps always adds its shared-memory transport, and segments
survive their processes. A live owner holds an exclusive lock on each segment's ``_el`` file;
a segment whose lock can be taken belongs to nobody and is removed with its companions. Segments
left without any ``_el`` file are removed only when no live process maps or holds them open.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

SHM = Path("/dev/shm")


def stale_segments(shm: Path = SHM) -> list[Path]:
    """Fast DDS shared-memory files in ``shm`` that no living process holds (their lock is free)."""
    stale: list[Path] = []
    for lock in sorted(shm.glob("fastdds_*_el")):
        try:
            fd = os.open(lock, os.O_RDWR)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            continue  # alive
        finally:
            os.close(fd)
        base = lock.name[: -len("_el")]
        stale += [p for p in (shm / base, lock, shm / f"sem.{base}_mutex") if p.exists()]
    orphans = [
        p
        for p in [*shm.glob("fastdds_*"), *shm.glob("sem.fastdds_*")]
        if p not in stale and not p.name.endswith("_el") and not (shm / f"{_base(p.name)}_el").exists()
    ]
    if orphans:
        in_use = _paths_in_use(shm)
        stale += [p for p in orphans if str(p.resolve()) not in in_use]
    return stale


def _base(name: str) -> str:
    if name.startswith("sem.") and name.endswith("_mutex"):
        return name[len("sem.") : -len("_mutex")]
    return name


def _paths_in_use(shm: Path) -> set[str]:
    """Every path under ``shm`` some live process maps or has open (named semaphores live there too)."""
    prefix = str(shm.resolve()) + "/"
    used: set[str] = set()
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            for line in (proc / "maps").read_text().splitlines():
                if prefix in line:
                    used.add(line[line.index(prefix) :].split(" (deleted)")[0])
            for fd in (proc / "fd").iterdir():
                target = os.readlink(fd)
                if target.startswith(prefix):
                    used.add(target)
        except OSError:
            continue  # gone, or not ours to read
    return used


def remove_stale_segments(shm: Path = SHM) -> list[str]:
    """Remove :func:`stale_segments`; the names removed."""
    removed = []
    for path in stale_segments(shm):
        try:
            path.unlink()
            removed.append(path.name)
        except FileNotFoundError:
            pass
    return removed
