#!/usr/bin/env python3
"""The floor-to-wall graph end to end, on both hosts: one process per node, and composed (every node
in one process, messages handed over as Python objects).

For each host: a realtime-paced run (what `ros2 launch` gives a user) while an outside client in its
own process subscribes to /clock and /joint_states at their full rate and a recorder takes every
topic of the graph (raw, as a bag recorder does), then a lockstep run. Prints each run's figures,
what the observer received, and the last line for the default host:
``f2w success S fl_mm X fr_mm Y drift_mm Z realtime_rtf R lockstep_rtf L`` (S, X, Y, Z of the
realtime run; R and L sim time over wall time from unpause to end).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from sally_node_common.discovery import force_loopback

HOSTS = {"processes": "false", "composed": "true"}


def observe(domain: int, seconds: float, out: Path) -> None:
    """The outside client and the recorder, until SIGINT or ``seconds``: counts per topic to ``out``."""
    from collections import Counter

    from rclpy.qos import QoSProfile, ReliabilityPolicy

    from sally_bringup.probe import Probe
    from sally_testing.faults.nan_watch import TOPICS

    stop = []
    signal.signal(signal.SIGINT, lambda *_: stop.append(1))
    probe = Probe(domain, name="sally_observer")
    counts: Counter[str] = Counter()
    deep = QoSProfile(depth=1000, reliability=ReliabilityPolicy.RELIABLE)
    for topic in ("/clock", "/joint_states"):  # the client: converted messages, as rviz takes them
        probe.record(
            TOPICS[topic], topic, deep, on_message=lambda m, t=f"client {topic}": counts.update([t])
        ).keep = False
    for topic, kind in TOPICS.items():  # the recorder: serialized, every topic
        probe.node.create_subscription(kind, topic, lambda m, t=f"recorder {topic}": counts.update([t]), deep, raw=True)
    end = time.monotonic() + seconds
    while not stop and time.monotonic() < end:
        time.sleep(0.05)
    probe.close()
    out.write_text(json.dumps(counts))


def run(host: str, pacing: str, folder: Path, observed: bool) -> dict:
    from sally_bringup.environment import lease_domain
    from sally_bringup.runner import run_graph

    with lease_domain() as lease:
        watcher = None
        if observed:
            counts = folder / f"{host}_{pacing}_observed.json"
            command = [sys.executable, __file__, "--observe", str(lease.domain_id), "--counts", str(counts)]
            watcher = subprocess.Popen(command, start_new_session=True)
        try:
            arguments = {"pacing": pacing, "composed": HOSTS[host], "record": "false"}  # its own recorder watches
            result = run_graph(
                "f2w",
                arguments,
                run_dir=folder / f"{host}_{pacing}",
                domain_id=lease.domain_id,
                out=None,
                wall_timeout=600,
            )
        finally:
            if watcher is not None:
                os.killpg(watcher.pid, signal.SIGINT)
                watcher.wait(30)
        report = dict(result.report or {})
        if observed and counts.exists():
            report["observed"] = json.loads(counts.read_text())
        return report


def main() -> int:
    force_loopback()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run-dir", type=Path, default=None)
    parser.add_argument("--hosts", nargs="+", choices=sorted(HOSTS), default=sorted(HOSTS))
    parser.add_argument("--skip-lockstep", action="store_true")
    parser.add_argument("--observe", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--counts", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.observe is not None:
        observe(args.observe, 900.0, args.counts)
        return 0
    from sally_bringup.graphs import ARGUMENTS

    folder = args.run_dir or Path(tempfile.mkdtemp(prefix="sally-f2w-bench-"))
    default = next(h for h, value in HOSTS.items() if value == ARGUMENTS["composed"].default)
    runs: dict[tuple[str, str], dict] = {}
    for host in args.hosts:
        for pacing in ("realtime",) + (() if args.skip_lockstep else ("lockstep",)):
            report = runs[host, pacing] = run(host, pacing, folder, observed=pacing == "realtime")
            pacing_figures = report.get("sim_pacing") or {}
            print(
                f"{host} {pacing}: success {report.get('success')} fl_mm {report.get('fl_plant_error_mm')} "
                f"fr_mm {report.get('fr_plant_error_mm')} drift_mm {report.get('stance_drift_mm')} sim_s "
                f"{report.get('sim_time_s')} "
                f"rtf {report.get('real_time_factor')} lag_max_ms {pacing_figures.get('max_lag_ms')} problems "
                f"{report.get('problems')}",
                flush=True,
            )
            observed = report.get("observed")
            if observed is not None:
                wall = report.get("wall_time_s") or float("nan")
                clock = observed.get("client /clock", 0)
                print(
                    f"    outside client: /clock {clock} messages ({clock / wall:.0f} Hz of wall time), /joint_states "
                    f"{observed.get('client /joint_states', 0)}; recorder: "
                    f"{sum(v for k, v in observed.items() if k.startswith('recorder'))} "
                    f"messages on {sum(1 for k in observed if k.startswith('recorder'))} topics",
                    flush=True,
                )
    fmt = lambda v: "nan" if v is None else f"{v:.2f}"  # noqa: E731
    pick = default if default in args.hosts else args.hosts[0]
    rt, lock = runs[pick, "realtime"], runs.get((pick, "lockstep"), {})
    print(f"default host: {pick}")
    print(
        f"f2w success {int(bool(rt.get('success')))} fl_mm {fmt(rt.get('fl_plant_error_mm'))} fr_mm "
        f"{fmt(rt.get('fr_plant_error_mm'))} "
        f"drift_mm {fmt(rt.get('stance_drift_mm'))} realtime_rtf {fmt(rt.get('real_time_factor'))} lockstep_rtf "
        f"{fmt(lock.get('real_time_factor'))}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
