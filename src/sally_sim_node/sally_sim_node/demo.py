"""Headless settle + pull-off demo: the project's main job until the floor-to-wall graph lands.

Settles Sally on the floor with every magnet on and the PID holding the baked pose, prints the
settle figures, then runs the pull-off scenario on one foot and compares the detachment
force with what statics predicts (the magnet clip plus the weight that foot carries).
Exit status: 0 when both behave, 1 when a figure is out of bounds, 2 on bad input.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from sally_description import LEGS, DescriptionError, PhysicsParams
from sally_node_common.pid import HoldController, JointPID, PIDGains

from .pulloff import PullOffConfig, run_pulloff
from .simulator import Simulator

SETTLE_TOLERANCE = 1e-3
PULLOFF_TOLERANCE = 0.05


def hold_controller(sim: Simulator) -> HoldController:
    n = len(sim.actuated_joint_names)
    return HoldController(
        JointPID(PIDGains.uniform(n, effort_limit=sim.actuators.effort_limit)), np.zeros(n), sim.timestep
    )


def settle(sim: Simulator, seconds: float) -> bool:
    pid = hold_controller(sim)
    sim.step(round(1.0 / sim.timestep), pid)
    z1 = sim.body_pose()[0][2]
    sim.step(round((seconds - 1.0) / sim.timestep), pid)
    z2 = sim.body_pose()[0][2]
    print(f"settle: body height {z2 * 1e3:.2f} mm, change t=1 s..{seconds:g} s {abs(z2 - z1) * 1e3:.3f} mm")
    ok = abs(z2 - z1) < SETTLE_TOLERANCE
    for leg, r in sim.magnet_readouts().items():
        print(
            f"  {leg}: magnet {'ON ' if r.enabled else 'OFF'} {r.magnitude:7.1f} N  surface={r.surface:5s} "
            f"min_distance={r.min_distance * 1e3:+.2f} mm  contact={'yes' if r.in_contact else 'no'}  "
            f"floor reaction {sim.foot_contact_force(leg):7.1f} N"
        )
        ok &= r.in_contact and r.surface == "floor"
    return ok


def pulloff(sim: Simulator, leg: str) -> bool:
    result = run_pulloff(sim, hold_controller(sim), PullOffConfig(foot=leg))
    expected = result.clip + result.static_load
    error = (result.pulloff_force - expected) / expected
    print(
        f"pull-off ({leg} magnet only, 40 N/s ramp): detached={'yes' if result.detached else 'no'} "
        f"at {result.pulloff_force:.1f} N (t = {result.detach_time:.2f} s into the ramp)"
    )
    print(
        f"  predicted {expected:.1f} N = clip {result.clip:.1f} N + carried weight {result.static_load:.1f} N; "
        f"error {error * 100:+.2f} %"
    )
    return result.detached and abs(error) <= PULLOFF_TOLERANCE


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="sally-demo", description=__doc__.splitlines()[0])
    parser.add_argument("--params", help="physics parameter file (JSON/YAML, the optimizer's best_params.json)")
    parser.add_argument("--leg", default="FL", choices=LEGS, help="foot for the pull-off (default FL)")
    parser.add_argument("--settle", type=float, default=3.0, help="settle duration in seconds (>= 2)")
    args = parser.parse_args(argv)
    if not args.settle >= 2.0:
        parser.error("--settle must be at least 2 seconds")
    try:
        params = PhysicsParams.from_file(args.params) if args.params else PhysicsParams()
    except DescriptionError as exc:
        print(f"sally-demo: {exc}", file=sys.stderr)
        return 2
    start = time.perf_counter()
    sim = Simulator(params=params)
    settled = settle(sim, args.settle)
    detached = pulloff(sim, args.leg)
    print(f"wall time {time.perf_counter() - start:.1f} s; result: {'OK' if settled and detached else 'FAILED'}")
    return 0 if settled and detached else 1


if __name__ == "__main__":
    sys.exit(main())
