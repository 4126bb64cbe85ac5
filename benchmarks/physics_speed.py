#!/usr/bin/env python3
"""Physics step speed: bare mj_step against step + PID + magnetics, on the settled model.

Both are measured in the same run, in short interleaved blocks from the same settled state (short,
so that the bare steps, which hold the settled efforts and magnet wrenches without feedback, stay
on the same trajectory), and the medians are compared: the ratio holds on a noisy machine.
Printed for the default parameters (49 noslip iterations) and for noslip off, where the
bare step is cheapest and our overhead weighs most. Last line: ``physics_overhead_ratio X``, X =
full step rate / bare step rate, the lower (worse) of the two configurations.
"""

from __future__ import annotations

import argparse
import statistics
import time

import mujoco
import numpy as np

from sally_description import PhysicsParams
from sally_node_common.pid import HoldController, JointPID, PIDGains
from sally_sim_node import Simulator


def settled(params: PhysicsParams | None = None) -> tuple[Simulator, HoldController]:
    """The full step's pieces, the sim with magnets and the PID holding the start pose, after 1 s of
    sim time (settled on its feet, the kernels compiled): what every physics-alone figure times."""
    sim = Simulator(params=params or PhysicsParams())
    pid = HoldController(
        JointPID(PIDGains.uniform(len(sim.actuated_joint_names), effort_limit=sim.actuators.effort_limit)),
        np.zeros(len(sim.actuated_joint_names)),
        sim.timestep,
    )
    sim.step(round(1.0 / sim.timestep), pid)
    return sim, pid


def measure(params: PhysicsParams, steps: int, rounds: int) -> tuple[float, float]:
    sim, pid = settled(params)
    qpos, qvel = sim.get_state()
    ctrl, integral = sim.data.ctrl.copy(), pid.pid.integral.copy()
    bare, full = [], []
    for _ in range(rounds):
        sim.set_state(qpos, qvel)
        sim.data.ctrl[:] = ctrl
        t0 = time.perf_counter()
        for _ in range(steps):
            mujoco.mj_step(sim.model, sim.data)
        bare.append(steps / (time.perf_counter() - t0))

        sim.set_state(qpos, qvel)
        pid.pid.integral[:] = integral
        t0 = time.perf_counter()
        sim.step(steps, pid)
        full.append(steps / (time.perf_counter() - t0))
    return statistics.median(bare), statistics.median(full)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=500, help="physics steps per timed block")
    parser.add_argument("--rounds", type=int, default=21, help="interleaved bare/full blocks")
    args = parser.parse_args()
    results = {}
    for label, params in (("noslip_off", PhysicsParams(noslip_iterations=0)), ("default", PhysicsParams())):
        bare, full = measure(params, args.steps, args.rounds)
        results[label] = full / bare
        print(
            f"{label:10s} bare {bare:8.0f} steps/s ({1e6 / bare:5.1f} us, {bare * 0.0005:4.1f}x real time)  "
            f"full {full:8.0f} steps/s ({1e6 / full:5.1f} us, {full * 0.0005:4.1f}x real time)  "
            f"ratio {full / bare:.3f}"
        )
    print(f"physics_overhead_ratio {min(results.values()):.3f}")


if __name__ == "__main__":
    main()
