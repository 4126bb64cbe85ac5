#!/usr/bin/env python3
"""The floor-to-wall graph end to end, against its own physics, part by part.

For each host (composed by default: every node in one process, messages handed over as Python
objects; ``--hosts processes composed`` adds one process per node), three runs:

* realtime, recording on (the graph's own ``run.mcap``), while an outside client in its own process
  subscribes to /clock and /joint_states at their full rate (what ``sally-launch`` gives a user
  watching in rviz or Foxglove);
* lockstep, recording off;
* the main job, as ``scripts/main.sh`` runs it (``headless:=true pacing:=lockstep``, the rest the
  defaults: composed, recording on), with the CPU of every process it takes (the runner's included).

Then the main job once more as a user runs it, in a process of its own, timed from the command to
its exit by stretch (the runner's imports, start-up, the run, the graph's exit, the report and plots).
Then the physics alone (Simulator: its servos and magnets, :mod:`physics_speed`'s full step) on the main
run's sim seconds, in this process. Each composed run is sampled with py-spy (100 Hz, a thread on the
CPU) and its CPU is printed as ms per ms of sim time for each part (:mod:`sally_testing.cpu_parts`).

Last line, for the default host: ``f2w success S fl_mm X fr_mm Y drift_mm Z realtime_rtf R
lockstep_rtf L main_rtf M physics_rtf P cpu_ratio C startup_s U``: S X Y Z of the realtime run; R, L,
M sim time over wall time from unpause to end; P the physics alone; C the main run's CPU (every
process) over the physics' CPU for the same sim seconds; U the main run's start-up, wall seconds from
the run's start to sim time's (the report's ``startup_s``).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from sally_node_common.discovery import force_loopback

HOSTS = {"processes": "false", "composed": "true"}


SAMPLE_HZ = 100
"""py-spy's sampling rate."""
MAIN_JOB = {"headless": "true", "pacing": "lockstep"}
"""scripts/main.sh's arguments (the rest are the graph's defaults)."""


def observe(domain: int, seconds: float, out: Path) -> None:
    """The outside client, until SIGINT or ``seconds``: messages per topic to ``out``."""
    from collections import Counter

    from rclpy.qos import QoSProfile, ReliabilityPolicy

    from sally_bringup.probe import Probe
    from sally_testing.faults.nan_watch import TOPICS

    stop = []
    signal.signal(signal.SIGINT, lambda *_: stop.append(1))
    probe = Probe(domain, name="sally_observer")
    counts: Counter[str] = Counter()
    deep = QoSProfile(depth=1000, reliability=ReliabilityPolicy.RELIABLE)
    for topic in ("/clock", "/joint_states"):  # converted messages, as rviz takes them
        probe.record(TOPICS[topic], topic, deep, on_message=lambda m, t=topic: counts.update([t])).keep = False
    end = time.monotonic() + seconds
    while not stop and time.monotonic() < end:
        time.sleep(0.05)
    probe.close()
    out.write_text(json.dumps(counts))


class Profiler:
    """py-spy on the composed container of ``backend`` once it starts, until it exits."""

    def __init__(self, backend, out: Path) -> None:
        self.out, self.rusage = out, None
        self._thread = threading.Thread(target=self._run, args=(backend,), daemon=True)
        self._done = threading.Event()
        self._thread.start()

    def _run(self, backend) -> None:
        pyspy = Path(sys.executable).with_name("py-spy")
        while not self._done.is_set():
            process = backend.processes.get("graph")
            if process is not None and process.popen is not None:
                command = [str(pyspy), "record", "-p", str(process.popen.pid), "-r", str(SAMPLE_HZ), "-f", "raw"]
                command += ["-o", str(self.out), "--nonblocking", "--threads"]
                spy = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                _, _, self.rusage = os.wait4(spy.pid, 0)  # its own CPU, to leave out of the graph's
                spy.returncode = 0
                return
            self._done.wait(0.01)

    def join(self) -> dict[str, float] | None:
        """Samples per part, or None without a profile."""
        from sally_testing.cpu_parts import samples_by_part

        self._done.set()
        self._thread.join(30)
        if not self.out.exists():
            return None
        return dict(samples_by_part(self.out.read_text().splitlines()))


def cpu_seconds(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def run(host: str, pacing: str, folder: Path, observed: bool, extra: dict | None = None, label: str = "") -> dict:
    """One f2w run; its report, with ``observed`` (the outside client's counts), ``cpu_s`` (every
    process's CPU, py-spy's left out) and ``parts`` (samples per part) added."""
    from sally_bringup.environment import lease_domain
    from sally_bringup.node_backends import ProcessBackend
    from sally_bringup.runner import run_graph

    label = label or f"{host}_{pacing}"
    with lease_domain() as lease:
        watcher = None
        if observed:
            counts = folder / f"{label}_observed.json"
            command = [sys.executable, __file__, "--observe", str(lease.domain_id), "--counts", str(counts)]
            watcher = subprocess.Popen(command, start_new_session=True)
        backend = ProcessBackend()
        profiler = Profiler(backend, folder / f"{label}.pyspy") if host == "composed" else None
        cpu = cpu_seconds(resource.RUSAGE_SELF) + cpu_seconds(resource.RUSAGE_CHILDREN)
        try:
            arguments = {"pacing": pacing, "composed": HOSTS[host], "record": "false", **(extra or {})}
            result = run_graph(
                "f2w", arguments, run_dir=folder / label, domain_id=lease.domain_id, out=None, wall_timeout=600,
                backend=backend,
            )  # fmt: skip
        finally:
            if watcher is not None:
                os.killpg(watcher.pid, signal.SIGINT)
                watcher.wait(30)
        parts = profiler.join() if profiler is not None else None
        report = dict(result.report or {})
        report["cpu_s"] = cpu_seconds(resource.RUSAGE_SELF) + cpu_seconds(resource.RUSAGE_CHILDREN) - cpu
        if profiler is not None and profiler.rusage is not None:
            report["cpu_s"] -= profiler.rusage.ru_utime + profiler.rusage.ru_stime
        if observed and counts.exists():
            report["observed"] = json.loads(counts.read_text())
            report["cpu_s"] = None  # the outside client's process is not the graph's
        report["parts"] = parts
        return report


def physics_alone(sim_seconds: float) -> tuple[float, float]:
    """(wall s, CPU s) of the physics with its servos and magnets stepping ``sim_seconds`` from the
    settled start pose, in this thread (:mod:`physics_speed`'s full step)."""
    from physics_speed import settled  # beside this script

    sim = settled()
    steps = round(sim_seconds / sim.timestep)
    wall, cpu = time.perf_counter(), time.thread_time()
    for done in range(0, steps, 1000):
        sim.step(min(1000, steps - done))
    return time.perf_counter() - wall, time.thread_time() - cpu


WAIT_MARKS = {
    "imports": "[runner] graph f2w",
    "startup": "every node is up: sim time starts",
    "run": "run succeeded",
    "graph_exit": "[runner] graph exited",
    "report": "[runner] run folder",
}
"""The main job's output lines that end each stretch of the user's wait (the first in order)."""


def user_wait(folder: Path, domain: int) -> dict[str, float] | None:
    """The main job as a user runs it (``sally-launch f2w headless:=true pacing:=lockstep``, its own
    process), from the command to its exit: wall seconds by stretch (:data:`WAIT_MARKS`, each from
    the one before: the runner's imports, start-up, the run, the graph's exit, the report and plots;
    ``exit`` after the last line) and ``total``. None if a mark never came."""
    command = [
        str(Path(sys.executable).with_name("sally-launch")), "f2w", *(f"{k}:={v}" for k, v in MAIN_JOB.items()),
        "--run-dir", str(folder / "user_wait"), "--domain", str(domain),
    ]  # fmt: skip
    begun = time.monotonic()
    seen: dict[str, float] = {}
    pending = list(WAIT_MARKS.items())  # the marks still to come, in order
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) as job:
        assert job.stdout is not None
        for line in job.stdout:
            if pending and pending[0][1] in line:
                seen[pending.pop(0)[0]] = time.monotonic() - begun
    total = time.monotonic() - begun
    if len(seen) != len(WAIT_MARKS) or job.returncode != 0:
        return None
    ends = list(seen.values())
    wait = {stretch: end - start for stretch, start, end in zip(seen, [0.0, *ends], ends)}
    return {**wait, "exit": total - ends[-1], "total": total}


def print_run(name: str, report: dict) -> None:
    from sally_testing.cpu_parts import cpu_ms_per_sim_ms

    pacing_figures = report.get("sim_pacing") or {}
    print(
        f"{name}: success {report.get('success')} fl_mm {report.get('fl_plant_error_mm')} "
        f"fr_mm {report.get('fr_plant_error_mm')} drift_mm {report.get('stance_drift_mm')} sim_s "
        f"{report.get('sim_time_s')} rtf {report.get('real_time_factor')} lag_max_ms "
        f"{pacing_figures.get('max_lag_ms')} problems {report.get('problems')}",
        flush=True,
    )
    observed = report.get("observed")
    if observed is not None:
        wall = report.get("wall_time_s") or float("nan")
        clock = observed.get("/clock", 0)
        print(
            f"    outside client: /clock {clock} messages ({clock / wall:.0f} Hz of wall time), /joint_states "
            f"{observed.get('/joint_states', 0)}",
            flush=True,
        )
    if report.get("parts") and report.get("sim_time_s"):
        figures = cpu_ms_per_sim_ms(report["parts"], SAMPLE_HZ, report["sim_time_s"])
        total = sum(figures.values())
        print(
            "    CPU ms per sim ms (py-spy, the container): "
            + " ".join(f"{part} {value:.3f}" for part, value in figures.items())
            + f" total {total:.3f}",
            flush=True,
        )


def main() -> int:
    force_loopback()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run-dir", type=Path, default=None)
    parser.add_argument("--hosts", nargs="+", choices=sorted(HOSTS), default=["composed"])
    parser.add_argument(
        "--control-latency", choices=("0", "1"), default=None, help="the graphs' control_latency (default: theirs)"
    )
    parser.add_argument(
        "--ik-latency", choices=("0", "1"), default=None, help="the graphs' ik_latency (default: theirs)"
    )
    parser.add_argument(
        "--apart", default=None, help="composed hosts: nodes in processes of their own beside the container (apart:=)"
    )
    parser.add_argument(
        "--ik-process", choices=("true", "false"), default=None, help="the graphs' ik_process (default: theirs)"
    )
    parser.add_argument("--observe", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--counts", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.observe is not None:
        observe(args.observe, 900.0, args.counts)
        return 0
    from sally_bringup.arguments import ARGUMENTS

    folder = args.run_dir or Path(tempfile.mkdtemp(prefix="sally-f2w-bench-"))
    default = next(h for h, value in HOSTS.items() if value == ARGUMENTS["composed"].default)
    runs: dict[tuple[str, str], dict] = {}
    given = {
        "control_latency": args.control_latency,
        "ik_latency": args.ik_latency,
        "apart": args.apart,
        "ik_process": args.ik_process,
    }
    chosen = {name: value for name, value in given.items() if value is not None}  # else the graphs' defaults
    for host in args.hosts:
        runs[host, "realtime"] = run(host, "realtime", folder, observed=True, extra={"record": "true", **chosen})
        print_run(f"{host} realtime, outside client, recording", runs[host, "realtime"])
        runs[host, "lockstep"] = run(host, "lockstep", folder, observed=False, extra=chosen)
        print_run(f"{host} lockstep", runs[host, "lockstep"])
    main_run = run(
        default, "lockstep", folder, observed=False, extra={**MAIN_JOB, "record": "true", **chosen}, label="main"
    )
    print_run("main job (scripts/main.sh)", main_run)
    from sally_bringup.environment import lease_domain

    with lease_domain() as lease:
        wait = user_wait(folder, lease.domain_id)
    print(
        "the main job as a user waits for it (its own process, command to exit): "
        + (" ".join(f"{k} {v:.2f}" for k, v in wait.items()) if wait else "did not finish")
        + " s",
        flush=True,
    )
    sim_s = main_run.get("sim_time_s") or 0.0
    physics_wall, physics_cpu = physics_alone(sim_s) if sim_s else (float("nan"), float("nan"))
    physics_rtf = sim_s / physics_wall if sim_s else None
    cpu_ratio = main_run["cpu_s"] / physics_cpu if sim_s and main_run.get("cpu_s") else None
    print(
        f"physics alone (servos + magnets) on the main run's {sim_s:.1f} sim s: {physics_wall:.1f} s wall, "
        f"{physics_cpu:.1f} s CPU; the main run took {main_run.get('cpu_s') or float('nan'):.1f} s CPU in all its "
        f"processes and {main_run.get('wall_time_s')} s wall",
        flush=True,
    )
    fmt = lambda v: "nan" if v is None else f"{v:.2f}"  # noqa: E731
    pick = default if default in args.hosts else args.hosts[0]
    rt, lock = runs[pick, "realtime"], runs.get((pick, "lockstep"), {})
    main_rtf = main_run.get("real_time_factor")
    if main_rtf is not None and physics_rtf:
        print(f"main_rtf / physics_rtf {main_rtf / physics_rtf:.2f} (goal >= 0.8)")
    print(f"default host: {pick}")
    print(
        f"f2w success {int(bool(rt.get('success')))} fl_mm {fmt(rt.get('fl_plant_error_mm'))} fr_mm "
        f"{fmt(rt.get('fr_plant_error_mm'))} "
        f"drift_mm {fmt(rt.get('stance_drift_mm'))} realtime_rtf {fmt(rt.get('real_time_factor'))} lockstep_rtf "
        f"{fmt(lock.get('real_time_factor'))} main_rtf {fmt(main_rtf)} physics_rtf {fmt(physics_rtf)} "
        f"cpu_ratio {fmt(cpu_ratio)} startup_s {fmt(main_run.get('startup_s'))}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
