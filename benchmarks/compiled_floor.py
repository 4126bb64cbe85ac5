#!/usr/bin/env python3
"""The floor of Sally's 1 kHz round trip, in Python and compiled: what the speed goals are up against.

Every control period of a lockstep graph is one round trip: the sim publishes a ``JointState`` of
Sally's joints, the controller takes it and publishes efforts, the sim takes them, and the run's
recording serializes both. This script times the thinnest form of that round trip, in the same
invocation (ratios hold on a noisy machine):

* **python hosted**: two minimal rclpy nodes on one :class:`sally_node_common.host.Host` (the
  composed container's hand-over: no DDS), the sim's side building its message from numpy arrays,
  the controller's a PD law on numpy arrays, a tap serializing both messages (the recording). No
  node logic, no checks: below what any real Python node pays.
* **compiled, one process**: the same in C against rcl's C API (``benchmarks/compiled_floor.c``),
  built here against the venv's ROS 2 wheels: rcl, rmw, Fast DDS and the C type support are all in
  them (there is no rclcpp wheel; a compiled node needs none). Two nodes in one thread, the
  messages through Fast DDS's intra-process delivery, both serialized once more for the recording.
* **compiled, two processes**: the sim's and the controller's sides in processes of their own over
  DDS (loopback), each side's CPU per round trip.

CPU per round trip is the process CPU clock over the round trips (one thread each; the middleware's
own threads included). For scale: the physics with PID and magnets takes ~0.4 ms of CPU per ms of
sim here, and C <= 1.5 leaves ~0.2 ms per ms for everything else, the IK's solve (~0.13) included.

Needs a C compiler (``cc``). Last line:
``compiled_floor python_us P compiled_us C ratio R two_process_sim_us S two_process_ctrl_us T``
(CPU microseconds per round trip; R = P / C).
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

from sally_node_common.discovery import force_loopback

SOURCE = Path(__file__).with_name("compiled_floor.c")
LIBRARIES = (
    "rcl",
    "rcutils",
    "rmw",
    "rmw_fastrtps_cpp",  # rmw_serialize: the recording's serializer (Fast DDS is the middleware here)
    "rosidl_runtime_c",
    "sensor_msgs__rosidl_generator_c",
    "sensor_msgs__rosidl_typesupport_c",
)


def library_path() -> str:
    """Where the wheels' shared libraries are: the venv's lib, the wheels' vendored ``*.libs``, and
    libpython (some of the wheels' C libraries link their Python bindings' symbols)."""
    site = sysconfig.get_paths()["purelib"]
    dirs = [os.path.join(sys.prefix, "lib"), *sorted(glob.glob(os.path.join(site, "*.libs")))]
    return os.pathsep.join([*dirs, sysconfig.get_config_var("LIBDIR")])


def build(work: Path) -> Path:
    """Compile ``compiled_floor.c`` against the venv's ROS 2 headers and libraries; the binary."""
    cc = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc")
    if cc is None:
        raise SystemExit("compiled_floor: no C compiler (set CC, or install gcc)")
    include = os.path.join(sys.prefix, "include")
    if not os.path.isfile(os.path.join(include, "rcl", "rcl", "rcl.h")):
        raise SystemExit(f"compiled_floor: no rcl headers under {include} (run scripts/bootstrap.sh)")
    python_lib = sysconfig.get_config_var("LDLIBRARY") or ""
    python = python_lib.removeprefix("lib").split(".so")[0]
    binary = work / "compiled_floor"
    command = [
        cc,
        "-O2",
        "-Wall",
        "-o",
        str(binary),
        str(SOURCE),
        f"-I{include}",
        *(f"-I{d}" for d in sorted(glob.glob(os.path.join(include, "*", "")))),
        f"-L{os.path.join(sys.prefix, 'lib')}",
        f"-L{sysconfig.get_config_var('LIBDIR')}",
        "-Wl,--allow-shlib-undefined",
        "-Wl,--no-as-needed",
        *([f"-l{python}"] if python else []),
        *(f"-l{lib}" for lib in LIBRARIES),
    ]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"compiled_floor: building failed:\n{' '.join(command)}\n{done.stderr}")
    return binary


def compiled(binary: Path, mode: str, joints: int, rounds: int, env: dict) -> dict:
    """One run of the compiled binary; its JSON line."""
    done = subprocess.run(
        [str(binary), mode, str(joints), str(rounds)], capture_output=True, text=True, env=env, timeout=300
    )
    if done.returncode != 0:
        raise SystemExit(f"compiled_floor {mode} failed ({done.returncode}): {done.stderr.strip()}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def two_processes(binary: Path, joints: int, rounds: int, env: dict) -> tuple[dict, dict]:
    """The sim's side here and the controller's in a process of its own, over DDS."""
    ctrl = subprocess.Popen(
        [str(binary), "ctrl", str(joints)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )
    try:
        sim = compiled(binary, "sim", joints, rounds, env)
        out, err = ctrl.communicate(timeout=60)  # it answers until nothing comes for 5 s
    finally:
        if ctrl.poll() is None:
            ctrl.kill()
            ctrl.wait()
    if ctrl.returncode != 0:
        raise SystemExit(f"compiled_floor ctrl failed ({ctrl.returncode}): {err.strip()}")
    return sim, json.loads(out.strip().splitlines()[-1])


def python_hosted(joints: int, rounds: int, domain_id: int) -> float:
    """CPU microseconds per round trip of two minimal hosted rclpy nodes (see the module's text)."""
    import numpy as np
    import rclpy
    from rclpy.node import Node
    from sensor_msgs.msg import JointState

    from sally_node_common.host import Host

    names = [f"joint_{i:02d}" for i in range(joints)]
    recorded = [0]

    class Sim(Node):
        def __init__(self, context) -> None:
            super().__init__("compiled_floor_sim", context=context)
            self.states = self.create_publisher(JointState, "/compiled_floor/states", 100)
            self.create_subscription(JointState, "/compiled_floor/efforts", self.on_efforts, 100)
            self.efforts = np.zeros(joints)

        def publish(self, k: int) -> None:
            msg = JointState(name=names)
            msg.header.stamp.sec, msg.header.stamp.nanosec = k // 1000, (k % 1000) * 1_000_000
            msg.position = (1e-3 * k + np.arange(joints, dtype=float)).tolist()
            msg.velocity = np.zeros(joints).tolist()
            self.states.publish(msg)

        def on_efforts(self, msg: JointState) -> None:
            self.efforts = np.asarray(msg.effort)

    class Controller(Node):
        def __init__(self, context) -> None:
            super().__init__("compiled_floor_ctrl", context=context)
            self.efforts = self.create_publisher(JointState, "/compiled_floor/efforts", 100)
            self.create_subscription(JointState, "/compiled_floor/states", self.on_state, 100)

        def on_state(self, msg: JointState) -> None:
            effort = -500.0 * np.asarray(msg.position) - 30.0 * np.asarray(msg.velocity)
            self.efforts.publish(JointState(header=msg.header, name=names, effort=effort.tolist()))

    def record(topic: str, data: bytes, now: int) -> None:
        recorded[0] += len(data)

    context = rclpy.Context()
    rclpy.init(args=[], context=context, domain_id=domain_id)
    try:
        host = Host()
        host.tap(record, ("/compiled_floor/states", "/compiled_floor/efforts"), serialized=True)
        sim = host.create(Sim, context)
        host.create(Controller, context)
        for k in range(200):  # warm
            sim.publish(k)
        assert recorded[0] > 0 and sim.efforts.any(), "the hosted round trip did not happen"
        start = time.process_time()
        for k in range(rounds):
            sim.publish(k)
        cpu = time.process_time() - start
        for node in host.nodes:
            node.destroy_node()
    finally:
        context.try_shutdown()
    return cpu / rounds * 1e6


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20000, help="round trips per case (default 20000)")
    parser.add_argument("--joints", type=int, default=24, help="joints in each JointState (default 24: Sally's)")
    parser.add_argument("--domain", type=int, default=int(os.environ.get("ROS_DOMAIN_ID", "43")))
    args = parser.parse_args(argv)
    if args.rounds < 100 or args.joints < 1:
        parser.error("--rounds must be at least 100 and --joints at least 1")
    force_loopback()
    env = {
        **os.environ,
        "ROS_DOMAIN_ID": str(args.domain),
        "LD_LIBRARY_PATH": os.pathsep.join(p for p in (library_path(), os.environ.get("LD_LIBRARY_PATH")) if p),
    }
    with tempfile.TemporaryDirectory(prefix="sally_compiled_floor_") as work:
        binary = build(Path(work))
        python = python_hosted(args.joints, args.rounds, args.domain)
        one = compiled(binary, "one", args.joints, args.rounds, env)
        sim, ctrl = two_processes(binary, args.joints, args.rounds, env)
    print(f"python, hosted (no DDS), a tap serializing both: {python:.1f} us of CPU a round trip")
    print(f"compiled, one process (Fast DDS intra-process), both serialized again: {one['cpu_us']:.1f} us")
    print(f"compiled, two processes over DDS: sim {sim['cpu_us']:.1f} us, controller {ctrl['cpu_us']:.1f} us")
    print(
        f"compiled_floor python_us {python:.1f} compiled_us {one['cpu_us']:.1f} ratio {python / one['cpu_us']:.1f} "
        f"two_process_sim_us {sim['cpu_us']:.1f} two_process_ctrl_us {ctrl['cpu_us']:.1f}"
    )


if __name__ == "__main__":
    main()
