#!/usr/bin/env python3
"""Physics step speed: bare mj_step against the sim's full step (the servos, the magnetics, in one
compiled call), on the settled model.

The servos (MuJoCo's pid actuators, holding the start pose) close their loops inside both. Both
are measured in the same run, in short interleaved blocks from the same settled state (short, so
that the bare steps, which hold the settled magnet wrenches without feedback, stay on the same
trajectory), and the medians are compared: the ratio holds on a noisy machine.
Printed for the default parameters (49 noslip iterations) and for noslip off, where the
bare step is cheapest and our overhead weighs most. Last line: ``physics_overhead_ratio X``, X =
full step rate / bare step rate, the lower (worse) of the two configurations.
"""

from __future__ import annotations

import argparse
import statistics
import time

import mujoco

from sally_description import PhysicsParams
from sally_sim_node import Simulator


def settled(params: PhysicsParams | None = None) -> Simulator:
    """The sim with its magnets and its servos holding the start pose, after 1 s of sim time (settled
    on its feet, the kernels compiled): what every physics-alone figure times."""
    sim = Simulator(params=params or PhysicsParams())
    sim.step(round(1.0 / sim.timestep))
    return sim


def measure(params: PhysicsParams, steps: int, rounds: int) -> tuple[float, float]:
    sim = settled(params)
    qpos, qvel = sim.get_state()
    act = sim.data.act.copy()  # the servos' integrals
    bare, full = [], []
    for _ in range(rounds):
        sim.set_state(qpos, qvel)
        sim.data.act[:] = act
        t0 = time.perf_counter()
        for _ in range(steps):
            mujoco.mj_step(sim.model, sim.data)
        bare.append(steps / (time.perf_counter() - t0))

        sim.set_state(qpos, qvel)
        sim.data.act[:] = act
        t0 = time.perf_counter()
        sim.step(steps)
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
