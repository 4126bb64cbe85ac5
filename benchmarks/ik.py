#!/usr/bin/env python3
"""The IK: its solve on an f2w-shaped workload, its whole tick as the main job hosts it, and the
controller's state-to-command latency.

1. The whole-body IK (in process, as the IK node runs it) follows FL through the floor-to-wall
   motion of the f2w sequence, one solve per 5 ms: lift 10 cm (3 s), swing -45 deg about the hip (1.5 s),
   rise to 40 cm above home while turning the magnet face to the wall (3 s), reach toward the wall
   (2 s). Each step is also solved by :func:`mink.solve_ik` (the QP solver alone): the largest
   difference between the two is printed (the IK solves directly where no limit binds,
   :mod:`sally_ik_node.reduced_solve`).
2. The IK node's tick as the main job hosts it: the main job (``scripts/main.sh``'s graph, lockstep,
   composed) runs once with its recording (or ``--mcap`` gives a run's ``run.mcap``), then every
   message the IK read in it (joint states, odometry, the sequencer's targets and stances) is handed,
   in the order it was published, to an IK node on a :class:`~sally_node_common.host.Host` of its
   own, as the container hands them; a tick is the CPU of all the deliveries from one solve's
   output to the next (its inputs' checks and conversions, the solve, the foot states, targets and
   status built and published). The targets it publishes must be the run's, bit for bit.
3. The controller node as a process: the probe publishes joint states every 5 ms of wall time and
   times each until the servo command with the same stamp comes back (DDS both ways plus the node's
   work).

Last line: ``ik p99_ms X controller_p99_us Y tick_ms T`` (T: the median tick).
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
from sally_interfaces.msg import ServoCommand
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


def ik_times() -> tuple[np.ndarray, float, float]:
    """Each solve's time, the worst FL error, and the largest difference of a step from mink's own
    QP solution (rad or m)."""
    import mink

    import sally_ik_node.whole_body_ik as wbik
    from sally_ik_node.reduced_solve import solve_velocity

    apart = 0.0

    def compared(configuration, tasks, dt, solver, damping, limits, free):
        nonlocal apart
        frozen = sorted(set(range(configuration.model.nv)) - set(free.tolist()))
        constraints = [mink.DofFreezingTask(configuration.model, dof_indices=frozen)]
        theirs = mink.solve_ik(
            configuration, tasks, dt, solver, damping=damping, limits=limits, constraints=constraints
        )
        ours = solve_velocity(configuration, tasks, dt, solver, damping, limits, free)
        apart = max(apart, float(np.abs(ours - theirs).max()) * dt)
        return ours

    model = build_model()
    ik = WholeBodyIK(model)
    home = ik.foot_pose("FL").translation()
    hip = ik.configuration.get_transform_frame_to_world("hip_site_FL", "site").translation()
    ik.set_stance("FL", StanceMode.SWING)
    times, worst = [], 0.0
    targets = list(f2w_targets(home, hip))
    for target in targets:
        ik.set_target("FL", target)
        result = ik.solve()
        times.append(result.solve_time)
        worst = max(worst, result.position_error)
    ik = WholeBodyIK(model)  # again, each step beside mink's own solution (not timed)
    ik.set_stance("FL", StanceMode.SWING)
    wbik.solve_velocity = compared
    try:
        for target in targets:
            ik.set_target("FL", target)
            ik.solve()
    finally:
        wbik.solve_velocity = solve_velocity
    return np.array(times), worst, apart


IK_INPUTS = ("/joint_states", "/sally/odom", "/sally/ik_target")


def main_job_mcap(folder: Path) -> Path:
    """The main job's recording, from a run made now (lockstep, composed, as scripts/main.sh)."""
    from sally_bringup.runner import run_graph

    with lease_domain() as lease:
        result = run_graph(
            "f2w", {"headless": "true", "pacing": "lockstep"}, run_dir=folder, domain_id=lease.domain_id, out=None,
            wall_timeout=600,
        )  # fmt: skip
    if not (result.report or {}).get("success"):
        raise SystemExit(f"the main job failed; its run folder: {folder}")
    return folder / "run.mcap"


def tick_times(mcap: Path) -> tuple[np.ndarray, int, int]:
    """The hosted IK node's ticks (s of CPU) on ``mcap``'s inputs; how many of the run's targets
    it published again, of how many."""
    import rclpy
    from mcap.reader import make_reader
    from nav_msgs.msg import Odometry
    from rclpy.node import Node
    from rclpy.parameter import Parameter
    from rclpy.serialization import deserialize_message

    from sally_bringup.config_files import defaults_file
    from sally_ik_node.node import IKNode
    from sally_interfaces.msg import IKTarget as IKTargetMsg
    from sally_node_common.host import Host
    from sally_node_common.qos import KEPT, RELIABLE_DEEP
    from sally_node_common.stamps import stamp_ns

    kinds = {
        "/joint_states": (JointState, RELIABLE_DEEP),
        "/sally/odom": (Odometry, RELIABLE_DEEP),
        "/sally/ik_target": (IKTargetMsg, KEPT),
    }
    inputs, recorded = [], {}
    with open(mcap, "rb") as stream:
        for _, channel, message in make_reader(stream).iter_messages(topics=[*kinds, "/sally/joint_targets"]):
            if channel.topic == "/sally/joint_targets":
                targets = deserialize_message(message.data, JointState)
                recorded[stamp_ns(targets.header.stamp)] = tuple(targets.position)
            else:
                inputs.append((channel.topic, deserialize_message(message.data, kinds[channel.topic][0])))
    with lease_domain() as lease:
        context = rclpy.Context()
        rclpy.init(context=context, domain_id=lease.domain_id)
        try:
            host = Host()
            overrides = [Parameter("target_sync", value=True)]
            params = ["--ros-args", "--params-file", str(defaults_file("sally_ik_node", "ik.yaml"))]
            host.create(IKNode, context=context, parameter_overrides=overrides, cli_args=params)
            feeder = host.create(Node, "ik_benchmark_feeder", context=context)
            publishers = {topic: feeder.create_publisher(kind, topic, qos) for topic, (kind, qos) in kinds.items()}
            solved: dict[int, tuple] = {}

            def on_targets(msg) -> None:
                solved[stamp_ns(msg.header.stamp)] = tuple(msg.position)

            feeder.create_subscription(JointState, "/sally/joint_targets", on_targets, KEPT)
            ticks, tick = [], 0
            for topic, msg in inputs:
                before, count = time.thread_time_ns(), len(solved)
                publishers[topic].publish(msg)
                tick += time.thread_time_ns() - before
                if len(solved) != count:
                    ticks.append(tick * 1e-9)
                    tick = 0
        finally:
            rclpy.shutdown(context=context)
            remove_stale_segments()
    same = sum(solved.get(stamp) == targets for stamp, targets in recorded.items())
    return np.array(ticks), same, len(recorded)


def controller_latency(seconds: float) -> np.ndarray:
    """Round trips (s) from a joint state to the controller's servo command of its stamp."""
    with lease_domain() as lease, tempfile.TemporaryDirectory(prefix="sally-bench-") as logs:
        group = ProcessGroup(lease.domain_id, Path(logs))
        probe = Probe(lease.domain_id, "ik_benchmark")
        sent: dict[int, float] = {}
        latencies: list[float] = []

        def on_command(msg) -> None:
            stamp = msg.header.stamp.sec * 1_000_000_000 + msg.header.stamp.nanosec
            t0 = sent.pop(stamp, None)
            if t0 is not None:
                latencies.append(time.perf_counter() - t0)

        try:
            commands = probe.record(ServoCommand, "/sally/servo_commands", on_message=on_command)
            pub = probe.publisher(JointState, "/joint_states")
            group.start("controller", "sally_controller")
            probe.wait_for_subscribers(pub, timeout=30.0)
            probe.wait_for_publishers(commands, timeout=30.0)
            state = JointState(name=list(JOINT_NAMES), position=[0.0] * 24, velocity=[0.0] * 24, effort=[0.0] * 24)
            k = 0

            def send() -> None:
                nonlocal k
                k += 1
                state.header.stamp.sec, state.header.stamp.nanosec = divmod(k * 5_000_000, 1_000_000_000)
                sent[k * 5_000_000] = time.perf_counter()
                pub.publish(state)

            # warm-up: until answers come back, the reply path may not have discovered us yet
            warm_until = time.perf_counter() + 30.0
            while len(latencies) < 100 and time.perf_counter() < warm_until:
                send()
                time.sleep(0.005)
            sent.clear()
            latencies.clear()
            start = time.perf_counter()
            first = k
            while time.perf_counter() - start < seconds:
                send()
                next_at = start + (k - first) * DT
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
    parser.add_argument("--mcap", type=Path, help="a main job's run.mcap to replay (default: run the main job now)")
    args = parser.parse_args()
    times, worst, apart = ik_times()
    ik_p50, ik_p99 = np.percentile(times, [50, 99]) * 1e3
    print(f"ik: {len(times)} solves along the f2w motion, p50 {ik_p50:.3f} ms p99 {ik_p99:.3f} ms, "
          f"max {times.max() * 1e3:.3f} ms; worst FL error {worst * 1e3:.2f} mm; "
          f"each step within {apart:.1e} of mink.solve_ik's")  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="sally-ik-bench-") as folder:
        mcap = args.mcap or main_job_mcap(Path(folder) / "main")
        ticks, same, recorded = tick_times(mcap)
    tick_p50, tick_p99 = np.percentile(ticks, [50, 99]) * 1e3
    print(
        f"ik tick as hosted: {len(ticks)} ticks of the main job, median {tick_p50:.3f} ms p99 {tick_p99:.3f} ms, "
        f"mean {ticks.mean() * 1e3:.3f} ms; the run's targets again {same} of {recorded}"
    )
    if same != recorded:
        print("the replayed IK did not publish the run's targets: the figures are not the main job's", file=sys.stderr)
        return 1
    lat = controller_latency(args.seconds)
    c_p50, c_p99 = np.percentile(lat, [50, 99]) * 1e6
    print(f"controller: {len(lat)} states answered, state-to-command round trip p50 {c_p50:.0f} us p99 {c_p99:.0f} us")
    print(f"ik p99_ms {ik_p99:.3f} controller_p99_us {c_p99:.0f} tick_ms {tick_p50:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
