#!/usr/bin/env python3
"""IK solve time on an f2w-shaped workload, and the controller's state-to-effort latency.

1. The whole-body IK (in process, as the IK node runs it) follows FL through the floor-to-wall
   motion of the f2w sequence, one solve per 5 ms: lift 10 cm (3 s), swing -45 deg about the hip (1.5 s),
   rise to 40 cm above home while turning the magnet face to the wall (3 s), reach toward the wall
   (2 s). Until the sequencer lands, the trajectory is built here from those phase definitions.
2. The controller node as a process: the probe publishes joint states at 1 kHz and times each until
   the effort message with the same stamp comes back (DDS both ways plus the node's work).

Last line: ``ik p99_ms X controller_p99_us Y``.
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from sensor_msgs.msg import JointState

from sally_bringup.environment import lease_domain
from sally_bringup.probe import Probe
from sally_bringup.processes import ProcessGroup
from sally_bringup.shm import remove_stale_segments
from sally_description import JOINT_NAMES, WALL_X, build_model
from sally_ik_node import StanceMode, WholeBodyIK
from sally_node_common.discovery import force_loopback
from sally_sequencer import IKTarget

force_loopback()
DT = 0.005


def smooth(s: float) -> float:
    s = min(max(s, 0.0), 1.0)
    return s**3 * (10 - 15 * s + 6 * s**2)


def f2w_targets(home: np.ndarray, hip: np.ndarray):
    """FL's targets every 5 ms through lift, swing, orient and reach."""
    lifted = home + [0.0, 0.0, 0.10]
    for k in range(round(3.0 / DT)):
        yield IKTarget.position_only(home + smooth(k * DT / 3.0) * (lifted - home))
    radial = lifted[:2] - hip[:2]
    for k in range(round(1.5 / DT)):
        a = -math.radians(45) * smooth(k * DT / 1.5)
        c, s = math.cos(a), math.sin(a)
        xy = hip[:2] + [c * radial[0] - s * radial[1], s * radial[0] + c * radial[1]]
        yield IKTarget.position_only([xy[0], xy[1], lifted[2]])
    swung = np.array([xy[0], xy[1], lifted[2]])
    waypoint = np.array([swung[0], swung[1], home[2] + 0.40])
    for k in range(round(3.0 / DT)):
        p = swung + smooth(k * DT / 3.0) * (waypoint - swung)
        yield IKTarget.with_orientation(p, [1.0, 0.0, 0.0], 1.0, 1.0)
    reach = np.array([WALL_X - 0.008 - 0.020, waypoint[1], waypoint[2]])
    for k in range(round(2.0 / DT)):
        yield IKTarget.with_orientation(waypoint + smooth(k * DT / 2.0) * (reach - waypoint), [1.0, 0.0, 0.0], 1.0, 1.0)


def ik_times() -> tuple[np.ndarray, float]:
    model = build_model()
    ik = WholeBodyIK(model)
    home = ik.foot_pose("FL").translation()
    hip = ik.configuration.get_transform_frame_to_world("hip_site_FL", "site").translation()
    ik.set_stance("FL", StanceMode.SWING)
    times, worst = [], 0.0
    for target in f2w_targets(home, hip):
        ik.set_target("FL", target)
        result = ik.solve()
        times.append(result.solve_time)
        worst = max(worst, result.position_error)
    return np.array(times), worst


def controller_latency(seconds: float) -> np.ndarray:
    with lease_domain() as lease, tempfile.TemporaryDirectory(prefix="sally-bench-") as logs:
        group = ProcessGroup(lease.domain_id, Path(logs))
        probe = Probe(lease.domain_id, "ik_benchmark")
        sent: dict[int, float] = {}
        latencies: list[float] = []

        def on_effort(msg) -> None:
            stamp = msg.header.stamp.sec * 1_000_000_000 + msg.header.stamp.nanosec
            t0 = sent.pop(stamp, None)
            if t0 is not None:
                latencies.append(time.perf_counter() - t0)

        try:
            efforts = probe.record(JointState, "/sally/joint_efforts", on_message=on_effort)
            pub = probe.publisher(JointState, "/joint_states")
            group.start("controller", "sally_controller")
            probe.wait_for_subscribers(pub, timeout=30.0)
            probe.wait_for_publishers(efforts, timeout=30.0)
            state = JointState(name=list(JOINT_NAMES), position=[0.0] * 24, velocity=[0.0] * 24, effort=[0.0] * 24)
            k = 0

            def send() -> None:
                nonlocal k
                k += 1
                state.header.stamp.sec, state.header.stamp.nanosec = divmod(k * 1_000_000, 1_000_000_000)
                sent[k * 1_000_000] = time.perf_counter()
                pub.publish(state)

            # warm-up: until answers come back, the reply path may not have discovered us yet
            warm_until = time.perf_counter() + 30.0
            while len(latencies) < 100 and time.perf_counter() < warm_until:
                send()
                time.sleep(0.002)
            sent.clear()
            latencies.clear()
            start = time.perf_counter()
            first = k
            while time.perf_counter() - start < seconds:
                send()
                next_at = start + (k - first) * 0.001
                while time.perf_counter() < next_at:
                    time.sleep(0.0002)
            probe.wait_for(lambda: not sent, 5.0, f"the last answers ({len(sent)} of {k - first} unanswered)")
            return np.array(latencies)
        finally:
            group.stop_all()
            probe.close()
            remove_stale_segments()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="controller latency window")
    args = parser.parse_args()
    times, worst = ik_times()
    ik_p50, ik_p99 = np.percentile(times, [50, 99]) * 1e3
    print(f"ik: {len(times)} solves along the f2w motion, p50 {ik_p50:.3f} ms p99 {ik_p99:.3f} ms, "
          f"max {times.max() * 1e3:.3f} ms; worst FL error {worst * 1e3:.2f} mm")  # fmt: skip
    lat = controller_latency(args.seconds)
    c_p50, c_p99 = np.percentile(lat, [50, 99]) * 1e6
    print(f"controller: {len(lat)} states answered, state-to-effort round trip p50 {c_p50:.0f} us p99 {c_p99:.0f} us")
    print(f"ik p99_ms {ik_p99:.3f} controller_p99_us {c_p99:.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
