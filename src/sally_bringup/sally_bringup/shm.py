"""Fast DDS shared-memory segments left in /dev/shm by processes that are gone.

With loopback-only discovery rmw_fastrtps always adds its shared-memory transport, and segments
survive their processes. A live owner holds an exclusive lock on each segment's ``_el`` file;
a segment whose lock can be taken belongs to nobody and is removed with its companions. Segments
left without any ``_el`` file are removed only when no live process maps or holds them open.

Removal holds the lock while it unlinks, the ``_el`` file last: a segment found free and
unlinked after its lock was let go could by then be a new participant's (Fast DDS reuses a free
port number at once, and graphs start beside the one cleaning up), which would lose its files
while it runs.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

SHM = Path("/dev/shm")


def stale_segments(shm: Path = SHM) -> list[Path]:
    """Fast DDS shared-memory files in ``shm`` that no living process holds (their lock is free)."""
    stale: list[Path] = []
    for lock in _free_locks(shm):
        stale += _companions(shm, lock)
    return stale + _orphans(shm, stale)


def _free_locks(shm: Path) -> Iterator[Path]:
    """Each ``_el`` lock file in ``shm`` nobody holds, yielded while this process holds it."""
    for lock in sorted(shm.glob("fastdds_*_el")):
        try:
            fd = os.open(lock, os.O_RDWR)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            if os.fstat(fd).st_ino == lock.stat().st_ino:  # still the file at this path
                yield lock
        except (BlockingIOError, FileNotFoundError):
            continue  # alive, or gone
        finally:
            os.close(fd)


def _companions(shm: Path, lock: Path) -> list[Path]:
    """The segment a lock file guards, its named mutex and the lock itself (those that exist)."""
    base = lock.name[: -len("_el")]
    return [p for p in (shm / base, shm / f"sem.{base}_mutex", lock) if p.exists()]


def _orphans(shm: Path, found: list[Path]) -> list[Path]:
    """Fast DDS files without any lock file that no live process maps or holds open."""
    orphans = [
        p
        for p in [*shm.glob("fastdds_*"), *shm.glob("sem.fastdds_*")]
        if p not in found and not p.name.endswith("_el") and not (shm / f"{_base(p.name)}_el").exists()
    ]
    if not orphans:
        return []
    in_use = _paths_in_use(shm)
    return [p for p in orphans if str(p.resolve()) not in in_use]


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
    """Remove what :func:`stale_segments` finds, each locked segment while this process holds its
    lock (the lock file last); the names removed."""
    removed: list[str] = []
    for lock in _free_locks(shm):
        for path in _companions(shm, lock):
            _unlink(path, removed)
    for path in _orphans(shm, []):
        _unlink(path, removed)
    return removed


def _unlink(path: Path, removed: list[str]) -> None:
    try:
        path.unlink()
        removed.append(path.name)
    except FileNotFoundError:
        pass
