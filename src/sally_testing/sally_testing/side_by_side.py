"""Lockstep graph runs side by side, on fewer cores than they ask for, and a small volume that
fills up: what the graph tests share.

A lockstep run's figures do not depend on how the machine shares its time (the sim waits for every
answer it is owed), so independent lockstep runs can go at once, one ROS domain each, and use
both cores where one run after the other would leave one idle. Runs paced to the wall clock
(realtime) are never started this way: they are about time.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any


def side_by_side(
    calls: Sequence[Callable[[], Any]], at_once: int | None = None, return_exceptions: bool = False
) -> list[Any]:
    """Run the calls in threads, ``at_once`` at a time (default: all), each next one starting as
    one ends; their results in order. The first exception any of them raised is raised (after all
    have ended), or with ``return_exceptions`` stands in its place among the results."""
    results: list[Any] = [None] * len(calls)
    errors: list[BaseException | None] = [None] * len(calls)
    queue = list(range(len(calls)))
    lock = threading.Lock()

    def worker() -> None:
        while True:
            with lock:
                if not queue:
                    return
                i = queue.pop(0)
            try:
                results[i] = calls[i]()
            except BaseException as exc:  # noqa: BLE001 - handed to the caller below
                errors[i] = exc

    threads = [
        threading.Thread(target=worker, name=f"side by side {n}") for n in range(min(at_once or len(calls), len(calls)))
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if return_exceptions:
        return [error if error is not None else result for result, error in zip(results, errors)]
    for error in errors:
        if error is not None:
            raise error
    return results


@contextmanager
def small_volume(path: Path, size: str = "3m") -> Iterator[Path | None]:
    """A tmpfs of ``size`` mounted at ``path`` (a disk that fills up), unmounted at the end; None
    where mounting is not allowed (not root, or a container without the capability)."""
    path.mkdir(parents=True, exist_ok=True)
    mount = shutil.which("mount")
    done = mount and subprocess.run(
        [mount, "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)], capture_output=True
    )
    if not done or done.returncode != 0:
        yield None
        return
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], capture_output=True)


@contextmanager
def on_cores(count: int) -> Iterator[set[int]]:
    """The calling thread, and the threads and processes it starts meanwhile, on ``count`` of the
    cores it may use (all of them where it has fewer); yields those cores. Graphs started inside run
    on fewer cores than they ask for wherever the tests run, as on a loaded machine."""
    before = os.sched_getaffinity(0)
    cores = set(sorted(before)[:count])
    os.sched_setaffinity(0, cores)
    try:
        yield cores
    finally:
        os.sched_setaffinity(0, before)
