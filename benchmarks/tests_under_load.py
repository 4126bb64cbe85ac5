#!/usr/bin/env python3
"""Graph tests, each run several times while the machine is busy: shows whether a test is flaky.

Every repetition is a fresh ``pytest`` process (as CI runs it) over one test id, while a load runs
beside it: ``--load stress`` (``stress-ng --cpu <cores>``, Debian's stress-ng), ``--load graph``
(a lockstep f2w graph started again and again on a domain of its own) or ``--load none``. Prints
one line per test (``PASS``/``FAIL``, passes of runs, the time) and the last line
``tests_under_load passed P of N``; exit status 0 only when every run passed.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from sally_node_common.discovery import force_loopback

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_TESTS = (
    "src/sally_bringup/test/test_f2w_graph.py",
    "src/sally_testing/test/test_faults.py::test_fault_case[bad_input]",
    "src/sally_testing/test/test_faults.py::test_fault_case[bad_input_pulloff]",
    "src/sally_bringup/test/test_runner.py",
    "src/sally_testing/test/test_faults.py::test_fault_case[interrupt]",
)
"""The graph tests that failed under the full suite's load once (the f2w module, the sequencer's
bad input, Ctrl-C), their neighbours, and the runner's start-up test (``--list`` prints them; a
unit test checks that pytest finds each)."""


class Load:
    """Something that keeps the machine busy until :meth:`stop`."""

    def __init__(self, kind: str) -> None:
        self.kind, self._process, self._stopping = kind, None, False
        if kind == "stress" and shutil.which("stress-ng") is None:
            raise SystemExit("tests_under_load: --load stress needs stress-ng (apt-get install stress-ng)")

    def start(self) -> None:
        if self.kind == "stress":
            command = ["stress-ng", "--cpu", str(os.cpu_count() or 2), "--timeout", "7200"]
        elif self.kind == "graph":  # lockstep f2w graphs, one after the other, until stopped
            launch = f"{sys.executable} -m sally_bringup.cli f2w pacing:=lockstep --quiet --run-dir"
            command = ["bash", "-c", f'while true; do {launch} "$(mktemp -d)" >/dev/null 2>&1; done']
        else:
            return
        self._process = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
        )

    def stop(self) -> None:
        if self._process is None:
            return
        for sig, wait in ((signal.SIGINT, 10.0), (signal.SIGKILL, 5.0)):
            try:
                os.killpg(self._process.pid, sig)
            except ProcessLookupError:
                break
            try:
                self._process.wait(wait)
                break
            except subprocess.TimeoutExpired:
                continue
        if self.kind == "graph":
            from sally_bringup.shm import remove_stale_segments

            remove_stale_segments()


def run_once(test: str) -> tuple[bool, float, str]:
    start = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", test],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    return done.returncode == 0, time.monotonic() - start, lines[-1] if lines else done.stderr.strip()[-200:]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "tests",
        nargs="*",
        default=list(DEFAULT_TESTS),
        help="pytest ids (default: the graph tests named in the source)",
    )
    parser.add_argument("--count", type=int, default=3, help="runs of each test (default 3)")
    parser.add_argument("--list", action="store_true", help="print the test ids it would run, one a line, and stop")
    parser.add_argument(
        "--load",
        choices=("stress", "graph", "none"),
        default="stress",
        help="what keeps the machine busy (default stress)",
    )
    args = parser.parse_args(argv)
    if args.count < 1:
        parser.error("--count must be at least 1")
    if args.list:
        print("\n".join(args.tests))
        return 0
    force_loopback()  # the tests' own processes and the load graph inherit it
    load = Load(args.load)
    load.start()
    passed = total = 0
    try:
        for test in args.tests:
            results = [run_once(test) for _ in range(args.count)]
            ok = sum(r[0] for r in results)
            passed, total = passed + ok, total + len(results)
            took = " ".join(f"{r[1]:.0f}s" for r in results)
            print(
                f"{'PASS' if ok == len(results) else 'FAIL'} {test}: {ok} of {len(results)} under load {args.load} "
                f"({took})",
                flush=True,
            )
            for good, _, last in results:
                if not good:
                    print(f"    {last}", flush=True)
    finally:
        load.stop()
    print(f"tests_under_load passed {passed} of {total}")
    return 0 if passed == total else 1


if __name__ == "__main__":
    sys.exit(main())
