#!/usr/bin/env python3
"""A long realtime run: the graph's memory, its lag behind the wall clock and its recording, over
``--minutes`` of sim time.

``sally-launch hold pacing:=realtime`` (the sim and the controller holding Sally's start pose,
composed, the recording on, as a user starts a sim to drive) runs for ``--minutes`` (default 30) of
sim time while a client in this process, outside the graph as rviz would be, takes /clock and
/joint_states at their full rates and watches every topic the graph publishes for non-finite
numbers (the fault matrix's NaN watch, which turns the TF, markers and wrenches on). Every
``--sample`` wall seconds the resident memory of every process of the graph (the runner, the
container, the recording's outlet) is summed. At the end the runner is stopped with SIGINT, as a
user stops it; its MCAP file must be whole (the summary read back, a count for every stream).

Lag: the sim's own, as its pacer measures it against the wall clock and says on /diagnostics
(``sally_sim: pacing``, ``lag_ms``, about once a second); the lag it gave up (``dropped_ms``, a stall
beyond its catch-up budget or a lowered factor) is printed beside it. Not the client's delivery:
this process takes ~1,800 messages a second in Python beside the graph on two cores, and its own
queue (1,000 /clock deep) fills, so what it receives runs up to a second late (an earlier version
measured that and reported it as the graph's lag).

Last line: ``soak sim_s S rss_growth_mb G lag_p99_ms L mcap_complete C nonfinite N``: G the
graph's memory at the end over its memory after the first minute, L the lag's p99 over the last 5
minutes (the first 5 minutes' is printed above it), C 1 when the file is whole, N the messages with
a NaN or inf. Goals: G <= 50, L no more than the first 5 minutes' p99 + 1 ms, C 1, N 0.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from array import array
from pathlib import Path

import numpy as np

from sally_node_common.discovery import force_loopback

WINDOW_S = 300.0
"""The first and last stretch of sim time whose lag p99 are compared (s)."""
RSS_GOAL_MB = 50.0
LAG_GROWTH_GOAL_MS = 1.0
PACING_STATUS = "sally_sim: pacing"
"""The sim's /diagnostics status that carries its pacer's lag."""


def graph_rss(pid: int) -> int:
    """Resident bytes of process ``pid`` and all its descendants (0 once it is gone)."""
    import psutil

    try:
        root = psutil.Process(pid)
        processes = [root, *root.children(recursive=True)]
    except psutil.NoSuchProcess:
        return 0
    total = 0
    for process in processes:
        try:
            total += process.memory_info().rss
        except psutil.NoSuchProcess:
            pass
    return total


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=30.0, help="sim minutes to run (default 30)")
    parser.add_argument("--sample", type=float, default=10.0, help="wall seconds between memory samples")
    parser.add_argument("--keep", type=Path, help="keep the run folder here (default: a temporary one)")
    parser.add_argument("--window", type=float, default=WINDOW_S, help="sim seconds of the first and last stretch")
    args = parser.parse_args()
    if args.minutes * 60 < 2 * args.window:
        parser.error(f"--minutes must hold two windows of {args.window:g} s: at least {2 * args.window / 60:g}")
    force_loopback()

    from diagnostic_msgs.msg import DiagnosticArray
    from rosgraph_msgs.msg import Clock
    from sensor_msgs.msg import JointState

    from sally_bringup.environment import lease_domain
    from sally_bringup.mcap_recording import message_counts
    from sally_bringup.probe import Probe
    from sally_bringup.processes import wait_until
    from sally_node_common.stamps import stamp_ns
    from sally_testing.faults.nan_watch import NaNWatch

    run_dir = args.keep or Path(tempfile.mkdtemp(prefix="sally_soak_"))
    run_dir.mkdir(parents=True, exist_ok=True)
    end_s = args.minutes * 60.0
    clock_sim = array("d")
    states = [0]
    pacing: list[tuple[float, float, float, int]] = []  # (sim s, lag ms, dropped ms, degradations)

    def on_diagnostics(msg) -> None:
        for status in msg.status:
            if status.name == PACING_STATUS:
                values = {kv.key: kv.value for kv in status.values}
                stamp = stamp_ns(msg.header.stamp) * 1e-9
                sim_s = float(values.get("sim_time", stamp))
                lag, dropped = float(values["lag_ms"]), float(values["dropped_ms"])
                pacing.append((sim_s, lag, dropped, int(values["degradations"])))

    def on_clock(msg) -> None:
        clock_sim.append(stamp_ns(msg.clock) * 1e-9)

    with lease_domain() as lease, open(run_dir / "soak.log", "wb") as log:
        probe = Probe(lease.domain_id, name="sally_soak")
        command = [
            str(Path(sys.executable).with_name("sally-launch")),
            "hold",
            "pacing:=realtime",
            "--run-dir",
            str(run_dir / "run"),
            "--domain",
            str(lease.domain_id),
            "--quiet",
            "--wall-timeout",
            str(end_s * 3 + 300),
        ]
        rss: list[tuple[float, float, int]] = []  # (wall s, sim s, bytes)
        launch = None
        try:
            probe.record(Clock, "/clock", 1000, on_message=on_clock).keep = False
            count = lambda _: states.__setitem__(0, states[0] + 1)  # noqa: E731
            probe.record(JointState, "/joint_states", 1000, on_message=count).keep = False
            probe.record(DiagnosticArray, "/diagnostics", 1000, on_message=on_diagnostics).keep = False
            watch = NaNWatch(probe)
            launch = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
            started = time.monotonic()
            if not wait_until(lambda: len(clock_sim) > 0, 120.0, 0.1):
                print(f"soak: the graph published no /clock in 120 s (its output: {run_dir / 'soak.log'})")
                return 1
            print(f"soak: running {args.minutes:g} min of sim time in realtime; the run folder {run_dir}", flush=True)
            next_sample = time.monotonic()
            while clock_sim[-1] < end_s:
                if launch.poll() is not None:
                    print(f"soak: the graph ended at {clock_sim[-1]:.1f} s of sim time (exit {launch.returncode})")
                    return 1
                if time.monotonic() >= next_sample:
                    rss.append((time.monotonic() - started, clock_sim[-1], graph_rss(launch.pid)))
                    if len(rss) % 30 == 1:
                        wall_s, sim_s, size = rss[-1]
                        print(f"  {sim_s:7.1f} s of sim, {wall_s:7.1f} s of wall: {size / 2**20:.1f} MB", flush=True)
                    next_sample += args.sample
                time.sleep(0.2)
            rss.append((time.monotonic() - started, clock_sim[-1], graph_rss(launch.pid)))
        finally:
            if launch is not None and launch.poll() is None:
                os.killpg(launch.pid, signal.SIGINT)  # as Ctrl-C in the terminal reaches the whole group
                try:
                    launch.wait(timeout=120)
                except subprocess.TimeoutExpired:
                    os.killpg(launch.pid, signal.SIGKILL)
                    launch.wait()
            probe.close()

    sim = np.frombuffer(clock_sim, dtype=float)
    if len(pacing) < 10:
        print(f"soak: the sim said its pacing {len(pacing)} times on /diagnostics: no lag to judge")
        return 1
    at, lags = np.array([p[0] for p in pacing]), np.array([p[1] for p in pacing])
    first = lags[at <= at[0] + args.window]
    last = lags[at >= at[-1] - args.window]
    first_p99, last_p99 = float(np.percentile(first, 99)), float(np.percentile(last, 99))
    dropped_ms, degradations = pacing[-1][2], pacing[-1][3]
    baseline = next((size for wall_s, _, size in rss if wall_s >= 60.0), rss[0][2])
    growth_mb = (rss[-1][2] - baseline) / 2**20
    mcap = run_dir / "run" / "run.mcap"
    try:
        counts = message_counts(mcap)
        from mcap.reader import make_reader

        with open(mcap, "rb") as stream:
            complete = make_reader(stream).get_summary() is not None and counts.get("/clock", 0) > 0
    except Exception as exc:  # noqa: BLE001 - a file that does not read back is what is measured
        print(f"soak: {mcap} does not read back: {exc}")
        counts, complete = {}, False
    nonfinite = sum(watch.bad.values())
    span = sim[-1] - sim[0]
    print(f"runner exit {launch.returncode}; {len(sim)} /clock and {states[0]} /joint_states taken outside")
    print(f"memory: {baseline / 2**20:.1f} MB after the first minute, {rss[-1][2] / 2**20:.1f} MB at the end")
    print(
        f"the sim's lag p99: the first {args.window:g} s {first_p99:.2f} ms, the last {args.window:g} s "
        f"{last_p99:.2f} ms ({len(pacing)} samples); given up: {dropped_ms:.0f} ms in all "
        f"({degradations} lowered factors), {dropped_ms / 10 / span:.4f} % of the sim time"
    )
    print(f"the MCAP holds {sum(counts.values())} messages")
    if nonfinite:
        print(f"non-finite messages: {dict(watch.bad)}")
    met = growth_mb <= RSS_GOAL_MB and last_p99 <= first_p99 + LAG_GROWTH_GOAL_MS and complete and not nonfinite
    print("goals " + ("met" if met else "NOT met"))
    print(
        f"soak sim_s {span:.0f} rss_growth_mb {growth_mb:.1f} lag_p99_ms {last_p99:.2f} "
        f"mcap_complete {int(complete)} nonfinite {nonfinite}"
    )
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
