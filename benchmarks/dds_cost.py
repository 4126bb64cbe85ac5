#!/usr/bin/env python3
"""What one message costs to cross a process boundary with this rclpy and Fast DDS, against handing
it over inside one process: the figure that decides where Sally's nodes can run.

A writer process publishes at about 1 kHz (a sleep between messages) to one reader process on the
same leased domain, loopback only, Sally's participant profile; each side measures its own CPU:

* ``joint_states``: a ``sensor_msgs/JointState`` of Sally's joints (as the sim publishes it),
  taken by a typed subscription (deserialized to a Python message, as a node takes it);
* ``joint_states raw``: the same, taken as bytes (as the run's recording takes it);
* ``clock``: ``rosgraph_msgs/Clock``, taken by a node with ``use_sim_time`` and no subscription of
  its own (what every node of a graph pays for sim time; the reader looks at its clock after each
  event, a few µs of its own included).

* ``pipe``: the same JointState without DDS, for comparison: serialized (``serialize_message``),
  written length-prefixed to a pipe, read by a reader process blocked on it and deserialized to a
  Python message (what a channel of our own between two of Sally's processes would cost).

Each case prints the writer's wall time inside ``publish`` and CPU per message (the loop's own
sleeping, measured alone, taken off), the reader's CPU per message, and the writer's time per
``publish`` when the same number go back to back (no sleep between: caches and threads warm, as in
a lockstep graph that never waits). For comparison, in this
process: ``serialize_message`` of the JointState and one hosted delivery
(:class:`sally_node_common.host.Host`: the object handed to a hosted reader's callback).

Last line: ``dds_cost publish_us A take_us B take_raw_us C clock_take_us D burst_publish_us E
serialize_us F hosted_us G pipe_send_us H pipe_take_us I`` (microseconds per message; A the writer's
CPU per JointState sent at 1 kHz, B/C/D the reader's CPU per message taken, E a JointState sent back
to back, H/I the writer's and the reader's CPU per JointState through a pipe at 1 kHz).
"""

from __future__ import annotations

import argparse
import json
import os
import select
import subprocess
import sys
import time
import timeit
from collections.abc import Callable

from sally_node_common.discovery import default_to_loopback, force_loopback

CASES = {"joint_states": ("joint_states", False), "joint_states raw": ("joint_states", True), "clock": ("clock", False)}
"""Case -> (topic kind, raw reader)."""
PERIOD = 0.001
"""Wall seconds between two messages (about: a sleep of this less the publish's own time)."""


def joint_state():
    from sensor_msgs.msg import JointState

    from sally_description import JOINT_NAMES

    n = len(JOINT_NAMES)
    msg = JointState(name=list(JOINT_NAMES))
    msg.position, msg.velocity, msg.effort = [0.1] * n, [0.0] * n, [0.0] * n
    return msg


def read(kind: str, raw: bool, count: int, timeout: float) -> None:
    """The reader process: take ``count`` messages (or stop after ``timeout`` s); print its CPU per
    message as JSON, counted from the first message taken."""
    import rclpy
    from rclpy.experimental import EventsExecutor
    from rclpy.node import Node
    from rclpy.parameter import Parameter
    from sensor_msgs.msg import JointState

    rclpy.init()
    taken = [0]
    if kind == "clock":  # no subscription of its own: the node's time source takes /clock
        node = Node("sally_dds_cost_reader", parameter_overrides=[Parameter("use_sim_time", value=True)])
        clock = node.get_clock()

        def count_taken() -> int:  # the writer stamps message i with i + 1 ms
            return clock.now().nanoseconds // 1_000_000
    else:
        node = Node("sally_dds_cost_reader")
        node.create_subscription(
            JointState, "/sally_dds_cost/joint_states", lambda _msg: taken.__setitem__(0, taken[0] + 1), 100, raw=raw
        )

        def count_taken() -> int:
            return taken[0]

    executor = EventsExecutor()
    executor.add_node(node)
    first = cpu0 = result = None
    end = time.monotonic() + timeout
    while time.monotonic() < end and not select.select([sys.stdin], [], [], 0)[0]:  # the writer is done: EOF
        executor.spin_once(timeout_sec=0.1)
        now = count_taken()
        if first is None and now:
            first, cpu0 = now, time.process_time()
        if result is None and first is not None and now - first >= count:  # measured; take the rest unmeasured
            result = {"taken": now - first, "cpu_us": (time.process_time() - cpu0) / (now - first) * 1e6}
    print(json.dumps(result or {"taken": 0, "cpu_us": float("nan")}), flush=True)
    executor.shutdown()
    rclpy.shutdown()


def write(kind: str, raw: bool, count: int, domain: int) -> dict:
    """Start a reader of ``kind``, publish ``count`` messages to it about :data:`PERIOD` apart, then
    ``count`` more back to back; both sides' costs."""
    import rclpy
    from rclpy.node import Node
    from rosgraph_msgs.msg import Clock
    from sensor_msgs.msg import JointState

    reader = subprocess.Popen(
        [sys.executable, __file__, "--read", kind, "--count", str(count)] + (["--raw"] if raw else []),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "ROS_DOMAIN_ID": str(domain)},
    )
    try:
        context = rclpy.Context()
        rclpy.init(context=context, domain_id=domain)
        node = Node("sally_dds_cost_writer", context=context)
        if kind == "clock":
            publisher, msg = node.create_publisher(Clock, "/clock", 10), Clock()
        else:
            publisher, msg = node.create_publisher(JointState, "/sally_dds_cost/joint_states", 100), joint_state()
        deadline = time.monotonic() + 30.0
        while publisher.get_subscription_count() < 1:
            if time.monotonic() > deadline:
                raise RuntimeError("the reader process did not match the writer within 30 s")
            time.sleep(0.01)
        time.sleep(0.5)  # the reader's first take starts its clock: let it spin first

        def stamp(i: int) -> None:
            if kind == "clock":  # message i says i + 1 ms: the reader counts by its clock
                msg.clock.sec, msg.clock.nanosec = divmod((i + 1) * 1_000_000, 1_000_000_000)

        result = _measure(lambda: publisher.publish(msg), count, reader, stamp)
        node.destroy_node()
        rclpy.shutdown(context=context)
    finally:
        if reader.poll() is None:
            reader.kill()
            reader.wait()
    return result


def read_pipe(count: int) -> None:
    """The pipe's reader process: take length-prefixed serialized JointStates from stdin until EOF,
    deserializing each; print its CPU per message as JSON, counted from the first message."""
    import struct

    from rclpy.serialization import deserialize_message
    from sensor_msgs.msg import JointState

    fd, taken, cpu0, result = sys.stdin.fileno(), 0, None, None

    def exactly(n: int) -> bytes:
        chunks = []
        while n:
            chunk = os.read(fd, n)
            if not chunk:
                raise EOFError
            chunks.append(chunk)
            n -= len(chunk)
        return b"".join(chunks)

    try:
        while True:
            (size,) = struct.unpack("<I", exactly(4))
            deserialize_message(exactly(size), JointState)
            taken += 1
            if cpu0 is None:
                cpu0 = time.process_time()
            elif result is None and taken - 1 >= count:
                result = {"taken": taken - 1, "cpu_us": (time.process_time() - cpu0) / (taken - 1) * 1e6}
    except EOFError:
        pass
    print(json.dumps(result or {"taken": taken, "cpu_us": float("nan")}), flush=True)


def write_pipe(count: int) -> dict:
    """Send ``count`` serialized JointStates through a pipe to a reader process about
    :data:`PERIOD` apart, then ``count`` more back to back; both sides' costs."""
    import struct

    from rclpy.serialization import serialize_message

    reader = subprocess.Popen(
        [sys.executable, __file__, "--read-pipe", "--count", str(count)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        fd, msg = reader.stdin.fileno(), joint_state()

        def send() -> None:
            data = serialize_message(msg)
            os.write(fd, struct.pack("<I", len(data)) + data)

        send()
        time.sleep(0.5)  # the reader's interpreter is up and blocked on the pipe
        result = _measure(send, count, reader)
    finally:
        if reader.poll() is None:
            reader.kill()
            reader.wait()
    return result


def _measure(send: Callable[[], None], count: int, reader: subprocess.Popen, before=lambda i: None) -> dict:
    """Send ``count`` messages (and a few more: the reader starts counting at its first) about
    :data:`PERIOD` apart, ``before(i)`` ahead of each (untimed), then ``count`` back to back; then
    close the reader's stdin and read its report. Both sides' costs in µs."""
    sleeping = _sleep_cost(count // 4)
    inside, cpu0 = 0.0, time.process_time()
    for i in range(count + 20):
        before(i)
        t0 = time.perf_counter()
        send()
        inside += time.perf_counter() - t0
        time.sleep(PERIOD)
    cpu = (time.process_time() - cpu0) / (count + 20) - sleeping
    t0 = time.perf_counter()  # the same messages back to back (the reader, measured already, takes what it can)
    for _ in range(count):
        send()
    burst = (time.perf_counter() - t0) / count
    out, _ = reader.communicate(timeout=60)  # closes its stdin: it reports and ends
    taken = json.loads(out.strip().splitlines()[-1])
    return {"publish_wall_us": inside / (count + 20) * 1e6, "publish_cpu_us": cpu * 1e6, "take_cpu_us": taken["cpu_us"],
            "taken": taken["taken"], "burst_us": burst * 1e6}  # fmt: skip


def _sleep_cost(n: int) -> float:
    """CPU seconds one ``time.sleep(PERIOD)`` of the writer's loop costs by itself."""
    cpu0 = time.process_time()
    for _ in range(n):
        time.sleep(PERIOD)
    return (time.process_time() - cpu0) / n


def in_process() -> tuple[float, float]:
    """``serialize_message`` of the JointState, and one hosted delivery of it, in microseconds."""
    from rclpy.serialization import serialize_message

    from sally_node_common.host import Host, _Reader
    from sally_node_common.qos import RELIABLE_DEEP

    msg, n = joint_state(), 20000
    serialize = timeit.timeit(lambda: serialize_message(msg), number=n) / n * 1e6
    host, taken = Host(), []
    readers = [_Reader(None, taken.append, RELIABLE_DEEP)]
    hosted = timeit.timeit(lambda: host.deliver(readers, msg), number=n) / n * 1e6
    return serialize, hosted


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=5000, help="messages per case")
    parser.add_argument("--read", choices=("joint_states", "clock"), help=argparse.SUPPRESS)
    parser.add_argument("--raw", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--read-pipe", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.read_pipe:
        return read_pipe(args.count)
    if args.read:
        force_loopback()
        default_to_loopback()
        return read(args.read, args.raw, args.count, timeout=120.0)
    force_loopback()
    default_to_loopback()  # Sally's participant profile, as every Sally process has it
    from sally_bringup.environment import lease_domain

    figures = {}
    with lease_domain() as lease:
        for case, (kind, raw) in CASES.items():
            figures[case] = result = write(kind, raw, args.count, lease.domain_id)
            print(
                f"{case}: publish {result['publish_wall_us']:.1f} us wall inside publish(), "
                f"{result['publish_cpu_us']:.1f} us CPU per message (writer; back to back "
                f"{result['burst_us']:.1f} us); "
                f"{result['take_cpu_us']:.1f} us CPU per message taken (reader, {result['taken']} taken)",
                flush=True,
            )
    figures["pipe"] = result = write_pipe(args.count)
    print(
        f"pipe: send {result['publish_wall_us']:.1f} us wall, {result['publish_cpu_us']:.1f} us CPU per message "
        f"(writer; back to back {result['burst_us']:.1f} us); {result['take_cpu_us']:.1f} us CPU per message "
        f"taken (reader, {result['taken']} taken)",
        flush=True,
    )
    serialize, hosted = in_process()
    print(f"in one process: serialize_message {serialize:.1f} us, a hosted delivery {hosted:.2f} us")
    print(
        f"dds_cost publish_us {figures['joint_states']['publish_cpu_us']:.0f} "
        f"take_us {figures['joint_states']['take_cpu_us']:.0f} "
        f"take_raw_us {figures['joint_states raw']['take_cpu_us']:.0f} "
        f"clock_take_us {figures['clock']['take_cpu_us']:.0f} "
        f"burst_publish_us {figures['joint_states']['burst_us']:.1f} "
        f"serialize_us {serialize:.1f} hosted_us {hosted:.2f} "
        f"pipe_send_us {figures['pipe']['publish_cpu_us']:.0f} pipe_take_us {figures['pipe']['take_cpu_us']:.0f}"
    )


if __name__ == "__main__":
    main()
