"""A slow reliable reader of /joint_states, in a process of its own (an outside client, as rviz or a
recorder on a slow disk would be): 50 ms a message. ``python -m sally_testing.faults.slow_reader``
in the graph's domain; prints ``taken N stamp_ns S`` (how many it took, the stamp of the last) once a
second and when stopped (SIGINT/SIGTERM)."""

from __future__ import annotations

import signal
import sys
import threading
import time

SLOW_READER_S = 0.05
"""The time it takes per message: 20 a second against the 200 Hz stream (a graph waiting for it would
run at 0.1 sim s a wall s, about a fourth of the slowest rate a CI machine ran the graph at alone,
0.37)."""
NODE_NAME = "sally_slow_reader"


def main() -> int:
    """Run a reader of /joint_states that takes long over each message (a slow outside client) until stopped."""
    import rclpy
    from rclpy.experimental import EventsExecutor
    from rclpy.signals import SignalHandlerOptions
    from sensor_msgs.msg import JointState

    from sally_node_common.discovery import force_loopback
    from sally_node_common.qos import RELIABLE_DEEP
    from sally_node_common.stamps import stamp_ns

    force_loopback()
    stop = threading.Event()
    for s in (signal.SIGINT, signal.SIGTERM):
        signal.signal(s, lambda *_: stop.set())
    rclpy.init(signal_handler_options=SignalHandlerOptions.NO)
    node = rclpy.create_node(NODE_NAME)
    taken = [0, 0]  # messages taken, the last one's stamp (ns)

    def slowly(msg) -> None:
        taken[0] += 1
        taken[1] = stamp_ns(msg.header.stamp)
        time.sleep(SLOW_READER_S)

    node.create_subscription(JointState, "/joint_states", slowly, RELIABLE_DEEP)
    executor = EventsExecutor()
    executor.add_node(node)
    said = time.monotonic()
    while not stop.is_set():
        executor.spin_once(timeout_sec=0.1)
        if time.monotonic() - said >= 1.0:
            said = time.monotonic()
            print(f"taken {taken[0]} stamp_ns {taken[1]}", flush=True)
    print(f"taken {taken[0]} stamp_ns {taken[1]}", flush=True)
    node.destroy_node()
    rclpy.try_shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
