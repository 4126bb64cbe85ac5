"""The environment every process of a Sally graph runs in: loopback-only DDS, its own domain.

DDS discovery must never leave this machine: ``ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST`` is set for
every process (Kilted ignores ROS_LOCALHOST_ONLY). Concurrent graphs (tests, optimizer workers)
each lease a ``ROS_DOMAIN_ID`` in 1..101 through a lock file, so two of them never share one,
across processes; the lease ends when the lock is released or its holder dies. A domain released
less than :data:`REUSE_AFTER` s ago is taken only when no other is free: a participant killed
without a goodbye stays on its domain's graph until its lease runs out, and the next graph there
would see its node names as a running graph's. A holder killed with its lease (``kill -9``) cannot
say when it let go: its lock file still says :data:`HELD`, so the next process to find it free
marks it released then, and it rests from that moment like any other.
"""

from __future__ import annotations

import fcntl
import os
import random
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from sally_node_common.discovery import default_to_loopback
from sally_node_common.numerics import pin_blas

DOMAIN_IDS = range(1, 102)
"""Leasable domains; 0 is left to interactive runs. Domains >= 233 fail with Fast DDS here."""
REUSE_AFTER = 10.0
"""Wall seconds after its release before a domain is leased again while others are free: over the
3 s participant lease of Sally's profile (``sally_node_common.discovery``), with room for a loaded
machine."""
HELD = b"held"
"""What a lock file holds while its domain is leased (empty once released)."""


class NoFreeDomainError(RuntimeError):
    """Every ROS domain id a graph may use (0-101) is leased by another run on this machine."""

    pass


@dataclass
class DomainLease:
    """A ROS domain id held for one run (an flock on a file per id) until :meth:`release`."""

    domain_id: int
    _fd: int

    def release(self) -> None:
        """Give the domain id back (closing the lock file drops the flock); safe to call twice."""
        if self._fd >= 0:
            _mark_released(self._fd)  # released now: the next lease prefers other domains for a while
            os.close(self._fd)  # closing drops the flock
            self._fd = -1

    def __enter__(self) -> DomainLease:
        return self

    def __exit__(self, *exc) -> None:
        self.release()


def lock_dir() -> Path:
    """The folder of the per-domain lock files (``SALLY_DOMAIN_LOCK_DIR``, else under the temp dir), created."""
    path = Path(os.environ.get("SALLY_DOMAIN_LOCK_DIR", Path(tempfile.gettempdir()) / "sally-ros-domains"))
    path.mkdir(parents=True, exist_ok=True)
    return path


def lease_domain(preferred: int | None = None) -> DomainLease:
    """Lock a free domain id (``preferred`` first if given) for this process."""
    ids = list(DOMAIN_IDS)
    random.shuffle(ids)
    if preferred is not None:
        if preferred not in DOMAIN_IDS:
            raise ValueError(f"domain {preferred} is outside {DOMAIN_IDS.start}..{DOMAIN_IDS.stop - 1}")
        ids.remove(preferred)
        ids.insert(0, preferred)
    folder = lock_dir()
    now = time.time()
    rested = [d for d in ids if d == preferred or now - _released_at(folder / f"{d}.lock") >= REUSE_AFTER]
    abandoned: list[int] = []  # free, but their holder died holding them: resting from now
    for domain in [*rested, *(d for d in ids if d not in rested)]:
        fd = _lock(folder, domain)
        if fd is None:
            continue
        if domain != preferred and os.pread(fd, len(HELD), 0) == HELD:
            _mark_released(fd)
            os.close(fd)
            abandoned.append(domain)
            continue
        return _hold(domain, fd)
    for domain in abandoned:  # every other one is held: one that rests is better than none
        fd = _lock(folder, domain)
        if fd is not None:
            return _hold(domain, fd)
    raise NoFreeDomainError(f"every ROS domain in {DOMAIN_IDS.start}..{DOMAIN_IDS.stop - 1} is leased")


def _lock(folder: Path, domain: int) -> int | None:
    """The lock file of ``domain`` opened and flocked, or None while another process holds it."""
    fd = os.open(folder / f"{domain}.lock", os.O_CREAT | os.O_RDWR, 0o666)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd


def _hold(domain: int, fd: int) -> DomainLease:
    """The lease of ``domain`` on its flocked lock file ``fd``, marked :data:`HELD`."""
    os.pwrite(fd, HELD, 0)
    return DomainLease(domain, fd)


def _mark_released(fd: int) -> None:
    """Say in ``fd``'s lock file that its domain was released now (empty, its mtime now)."""
    try:
        os.ftruncate(fd, 0)
        os.utime(fd)
    except OSError:
        pass


def _released_at(lock: Path) -> float:
    """When the lease of ``lock``'s domain was last released (0: never)."""
    try:
        return lock.stat().st_mtime
    except FileNotFoundError:
        return 0.0


def graph_environment(domain_id: int, base: Mapping[str, str] | None = None) -> dict[str, str]:
    """``base`` (default: this process's environment) with loopback-only discovery, the domain and
    OpenBLAS's kernel pinned (:mod:`sally_node_common.numerics`: the same run on every CPU that can)."""
    env = dict(os.environ if base is None else base)
    default_to_loopback(env)
    pin_blas(env)
    env["ROS_DOMAIN_ID"] = str(domain_id)
    env["PYTHONUNBUFFERED"] = "1"
    return env
