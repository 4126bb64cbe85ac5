#!/usr/bin/env python3
"""The sim node's pacing, measured from outside: real-time factor, lag, /clock rate, catch-up.

Runs the sim node with an external PD controller process (sally_controller with Ki = 0) on a
leased ROS domain, loopback-only, and observes /clock from a third process-like client:

1. realtime pacing for 20 s: effective real-time factor, lag behind the wall clock (p50/p99),
   /clock rate;
2. the same with a 200 ms stall injected (SIGSTOP/SIGCONT of the sim process): the time from the
   end of the stall until the lag is back under 1 ms;
3. fast pacing and 4. lockstep pacing: the real-time factor each reaches (from the sim time the
   node reports on /diagnostics against their arrival times).

Each measurement runs twice: the sim and the PD as two processes (what a hardware swap-in
uses), and both hosted in one process (``sally_node_common.host``, what ``composed:=true`` graphs
use; this script runs that process itself with ``--hosted PACING``).

Lag, from outside: each /clock message arriving at wall time w carrying sim time s gives
lag = (w - w0) - (s - s0); the smallest value of the run is taken as zero (it carries only the
delivery delay). Last line:
``sim_node realtime_rtf X p99_lag_ms Y clock_hz Z lockstep_rtf W`` for the hosted pair (the
default host of live graphs), each figure of the two-process pair printed above it.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from diagnostic_msgs.msg import DiagnosticArray
from rosgraph_msgs.msg import Clock

from sally_bringup.environment import lease_domain
from sally_bringup.probe import Probe, ProbeTimeoutError
from sally_bringup.processes import ProcessGroup
from sally_bringup.shm import remove_stale_segments
from sally_node_common.discovery import force_loopback
from simulation_interfaces.msg import SimulationState

force_loopback()
PD = {"ki": [0.0]}  # a PD; stamp-driven, so it needs no /clock


def clock_seconds(msg) -> float:
    return msg.clock.sec + msg.clock.nanosec * 1e-9


def diag_value(recording, status_name, key):
    for msg in reversed(recording.messages):
        for status in msg.status:
            if status.name == status_name:
                return next((kv.value for kv in status.values if kv.key == key), None)
    return None


class Run:
    """One sim + controller graph, observed through /diagnostics and, when asked, /clock.

    /clock at 1 kHz costs the observer (Python) a few percent of a core on a 2-core machine, so
    it is only subscribed where it is what is measured (realtime lag and /clock rate).
    """

    def __init__(
        self, probe: Probe, group: ProcessGroup, tag: str, pacing: str, watch_clock: bool, hosted: bool
    ) -> None:
        self.probe, self.group, self.tag = probe, group, tag
        self.clock = probe.record(Clock, "/clock") if watch_clock else None
        self.diag = probe.record(DiagnosticArray, "/diagnostics")
        if hosted:
            self.sim = group.start_command(f"sim_{tag}", [sys.executable, __file__, "--hosted", pacing])
            self.names = [f"sim_{tag}"]
        else:
            self.sim = group.start(f"sim_{tag}", "sally_sim_node", {"pacing": pacing, "start_paused": True})
            group.start(f"controller_{tag}", "sally_controller", PD)
            self.names = [f"controller_{tag}", f"sim_{tag}"]
        probe.wait_for_publishers(self.diag, timeout=30.0)
        probe.set_simulation_state(SimulationState.STATE_PLAYING)
        probe.wait_for(lambda: (self.sim_time() or 0.0) > 1.0, 60.0, "1 s of sim time")

    def settle(self, timeout: float = 60.0) -> str:
        """Wait until the start-up transient (imports, first discovery) is out of the pacer's window;
        '' once it is, else what the pacer said when ``timeout`` ran out (the run is measured anyway:
        a pair that never settles is a figure too)."""

        def steady() -> bool:
            lag = diag_value(self.diag, "sally_sim: pacing", "lag_p99_ms")
            state = diag_value(self.diag, "sally_sim: pacing", "catch_up_state")
            return lag is not None and float(lag) < 2.0 and state != "degraded"

        first = len(self.diag)
        try:
            self.probe.wait_for(lambda: len(self.diag) > first + 4 and steady(), timeout, "steady realtime pacing")
        except ProbeTimeoutError:
            lag = diag_value(self.diag, "sally_sim: pacing", "lag_p99_ms")
            state = diag_value(self.diag, "sally_sim: pacing", "catch_up_state")
            return f"not steady after {timeout:g} s (the sim's lag p99 {lag} ms, state {state})"
        return ""

    def sim_time(self) -> float | None:
        value = diag_value(self.diag, "sally_sim: pacing", "sim_time")
        return None if value is None else float(value)

    def window(self, seconds: float) -> tuple[np.ndarray, np.ndarray]:
        start = len(self.clock)
        t0 = time.monotonic()
        self.probe.wait_for(lambda: time.monotonic() - t0 >= seconds, seconds + 5.0, f"{seconds} s")
        wall = np.array(self.clock.arrivals[start:])
        sim = np.array([clock_seconds(m) for m in self.clock.messages[start:]])
        return wall, sim

    def factor(self, seconds: float) -> float:
        """Sim seconds per wall second between two /diagnostics messages ``seconds`` apart."""
        first = len(self.diag)
        self.probe.wait_for_messages(self.diag, first + 1, 10.0)
        t0, s0 = self.diag.arrivals[first], self.sim_time()
        self.probe.wait_for(lambda: self.diag.arrivals[-1] - t0 >= seconds, seconds + 10.0, f"{seconds} s")
        return (self.sim_time() - s0) / (self.diag.arrivals[-1] - t0)

    def stop(self) -> None:
        for name in self.names:
            self.group.processes[name].stop()
        for rec in (self.clock, self.diag):
            if rec is not None:
                self.probe.node.destroy_subscription(rec.subscription)


def lag_ms(wall: np.ndarray, sim: np.ndarray) -> np.ndarray:
    lag = (wall - wall[0]) - (sim - sim[0])
    return (lag - lag.min()) * 1e3


def realtime(probe, group, seconds: float, hosted: bool) -> dict:
    run = Run(probe, group, "realtime" + "_hosted" * hosted, "realtime", watch_clock=True, hosted=hosted)
    try:
        unsettled = run.settle()
        wall, sim = run.window(seconds)
        lags = lag_ms(wall, sim)
        result = {
            "rtf": (sim[-1] - sim[0]) / (wall[-1] - wall[0]),
            "clock_hz": (len(wall) - 1) / (wall[-1] - wall[0]),
            "lag_p50": float(np.percentile(lags, 50)),
            "lag_p99": float(np.percentile(lags, 99)),
            "sim_lag_p99": diag_value(run.diag, "sally_sim: pacing", "lag_p99_ms"),
            "state": diag_value(run.diag, "sally_sim: pacing", "catch_up_state"),
            "unsettled": unsettled,
        }

        # a 200 ms stall: the sim process frozen by the OS, as a busy machine would
        start = len(run.clock)
        os.kill(run.sim.pid, signal.SIGSTOP)
        t_stop = time.monotonic()
        probe.wait_for(lambda: time.monotonic() - t_stop >= 0.2, 1.0, "the stall")
        os.kill(run.sim.pid, signal.SIGCONT)
        t_cont = time.monotonic()
        probe.wait_for(lambda: time.monotonic() - t_cont >= 2.0, 5.0, "the catch-up window")
        wall = np.array(run.clock.arrivals[start:])
        sim = np.array([clock_seconds(m) for m in run.clock.messages[start:]])
        lags = lag_ms(wall, sim)
        peak = int(np.argmax(lags))
        behind = np.flatnonzero(lags[peak:] < 1.0)
        result["stall_peak_lag"] = float(lags[peak])
        result["catch_up_s"] = float(wall[peak + behind[0]] - t_cont) if len(behind) else float("inf")
        result["dropped_ms"] = diag_value(run.diag, "sally_sim: pacing", "dropped_ms")
        return result
    finally:
        run.stop()


def paced_factor(probe, group, pacing: str, seconds: float, hosted: bool) -> float:
    run = Run(probe, group, pacing + "_hosted" * hosted, pacing, watch_clock=False, hosted=hosted)
    try:
        return run.factor(seconds)
    finally:
        run.stop()


def hosted_pair(pacing: str) -> int:
    """The sim and the PD hosted in this process until SIGTERM/SIGINT (the benchmark's child)."""
    import threading

    import rclpy
    from rclpy.experimental import EventsExecutor
    from rclpy.parameter import Parameter
    from rclpy.signals import SignalHandlerOptions

    from sally_controller.node import ControllerNode
    from sally_node_common.host import Host
    from sally_sim_node.node import SimNode

    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda signum, frame: stop.set())
    rclpy.init(args=[], signal_handler_options=SignalHandlerOptions.NO)
    host = Host()
    try:
        sim = host.create(
            SimNode, parameter_overrides=[Parameter("pacing", value=pacing), Parameter("start_paused", value=True)]
        )
        controller = host.create(ControllerNode, parameter_overrides=[Parameter(k, value=v) for k, v in PD.items()])
        executor = EventsExecutor()
        executor.add_node(sim)
        executor.add_node(controller)
        return sim.run(executor, stop)
    finally:
        for node in host.nodes:
            node.destroy_node()
        rclpy.try_shutdown()


def main() -> int:
    if sys.argv[1:2] == ["--hosted"]:
        return hosted_pair(sys.argv[2])
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="realtime measurement window")
    parser.add_argument("--paced-seconds", type=float, default=10.0, help="fast and lockstep windows")
    args = parser.parse_args()
    with lease_domain() as lease, tempfile.TemporaryDirectory(prefix="sally-bench-") as logs:
        group = ProcessGroup(lease.domain_id, Path(logs))
        probe = Probe(lease.domain_id, "sim_node_benchmark")
        try:
            figures = {}
            for hosted in (False, True):
                host = "hosted in one process" if hosted else "two processes"
                rt = realtime(probe, group, args.seconds, hosted)
                print(
                    f"[{host}] realtime: rtf {rt['rtf']:.4f}, /clock {rt['clock_hz']:.0f} Hz, lag p50 "
                    f"{rt['lag_p50']:.2f} ms "
                    f"p99 {rt['lag_p99']:.2f} ms (the sim's own p99 over its last ~2 s: {rt['sim_lag_p99']} ms, "
                    f"state {rt['state']})" + (f"; measured although {rt['unsettled']}" if rt["unsettled"] else ""),
                    flush=True,
                )
                print(
                    f"[{host}] 200 ms stall: peak lag {rt['stall_peak_lag']:.0f} ms, back under 1 ms "
                    f"{rt['catch_up_s'] * 1e3:.0f} ms after the stall ended, lag dropped {rt['dropped_ms']} ms",
                    flush=True,
                )
                fast = paced_factor(probe, group, "fast", args.paced_seconds, hosted)
                lockstep = paced_factor(probe, group, "lockstep", args.paced_seconds, hosted)
                print(f"[{host}] fast: rtf {fast:.2f}, lockstep: rtf {lockstep:.2f}", flush=True)
                figures[hosted] = (rt, lockstep)
            rt, lockstep = figures[True]
            print(
                f"sim_node realtime_rtf {rt['rtf']:.3f} p99_lag_ms {rt['lag_p99']:.2f} "
                f"clock_hz {rt['clock_hz']:.0f} lockstep_rtf {lockstep:.2f}"
            )
        except Exception:
            print(group.logs(), file=sys.stderr)
            raise
        finally:
            group.stop_all()
            probe.close()
            remove_stale_segments()
    return 0


if __name__ == "__main__":
    sys.exit(main())
