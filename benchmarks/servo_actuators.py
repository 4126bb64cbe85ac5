#!/usr/bin/env python3
"""Which MuJoCo actuator makes Sally's joint servo: the ``pid`` actuator (inputs position, velocity
and feed-forward; the model's) against a ``position`` actuator plus a ``motor`` for the feed-forward.

Both variants are built in memory from the model (``MjSpec``: the pid actuators deleted, a position
actuator with the same kp and kv and a motor added per joint, each limited to the motor's
+-40 N m), settle 1 s holding the start pose (no magnets: bare ``mj_step``), and are timed in
interleaved blocks from the same settled state (so the ratio holds on a noisy machine); then each
holds 3 s more. Last line: ``servo_actuators pid_us A position_us B pid_hold_mrad C
position_hold_mrad D`` (µs a step, medians; the largest joint error after the hold).
"""

from __future__ import annotations

import argparse
import statistics
import time

import mujoco
import numpy as np

from sally_description.model import build_spec

KP, KV, LIMIT = 500.0, 30.0, 40.0


def variant(kind: str) -> tuple[mujoco.MjModel, mujoco.MjData]:
    """The model with its pid servos (``pid``) or with position actuators and feed-forward motors."""
    spec = build_spec()
    if kind == "position":
        joints = [(a.name, a.target) for a in spec.actuators]
        for actuator in list(spec.actuators):
            spec.delete(actuator)
        for name, joint in joints:
            servo = spec.add_actuator(name=name, target=joint, trntype=mujoco.mjtTrn.mjTRN_JOINT)
            servo.set_to_position(kp=KP, kv=KV)
            servo.dyntype, servo.ctrlspec, servo.actdim = mujoco.mjtDyn.mjDYN_NONE, 1, 0  # not the pid default's
            servo.forcelimited, servo.forcerange = 1, [-LIMIT, LIMIT]
        for name, joint in joints:
            ff = spec.add_actuator(name=f"{name}_ff", target=joint, trntype=mujoco.mjtTrn.mjTRN_JOINT)
            ff.set_to_motor()
            ff.dyntype, ff.ctrlspec, ff.actdim = mujoco.mjtDyn.mjDYN_NONE, 1, 0
            ff.forcelimited, ff.forcerange = 1, [-LIMIT, LIMIT]
    model = spec.compile()
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    return model, data


def joint_positions(model: mujoco.MjModel, data: mujoco.MjData, count: int) -> np.ndarray:
    return np.array([data.qpos[model.jnt_qposadr[model.actuator_trnid[a, 0]]] for a in range(count)])


def hold_start(model: mujoco.MjModel, data: mujoco.MjData, kind: str, motors: int) -> np.ndarray:
    """Set the controls to hold the current pose; that pose."""
    q = joint_positions(model, data, motors)
    data.ctrl[:] = 0.0
    if kind == "pid":
        data.ctrl[model.actuator_ctrladr[:motors]] = q  # each pid's first input: its position
    else:
        data.ctrl[:motors] = q
    return q


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=500, help="physics steps per timed block")
    parser.add_argument("--rounds", type=int, default=21, help="interleaved blocks of each")
    args = parser.parse_args()
    setups = {}
    for kind in ("pid", "position"):
        model, data = variant(kind)
        motors = 16
        start = hold_start(model, data, kind, motors)
        for _ in range(round(1.0 / model.opt.timestep)):
            mujoco.mj_step(model, data)
        setups[kind] = (model, data, start, data.qpos.copy(), data.qvel.copy(), data.act.copy())
        print(f"{kind}: {model.nu} controls, {model.na} activations")
    timings: dict[str, list[float]] = {kind: [] for kind in setups}
    for _ in range(args.rounds):
        for kind, (model, data, _, qpos, qvel, act) in setups.items():
            data.qpos[:], data.qvel[:], data.act[:] = qpos, qvel, act
            t0 = time.perf_counter()
            for _ in range(args.steps):
                mujoco.mj_step(model, data)
            timings[kind].append((time.perf_counter() - t0) / args.steps * 1e6)
    held = {}
    for kind, (model, data, start, qpos, qvel, act) in setups.items():
        data.qpos[:], data.qvel[:], data.act[:] = qpos, qvel, act
        for _ in range(round(3.0 / model.opt.timestep)):
            mujoco.mj_step(model, data)
        held[kind] = float(np.abs(joint_positions(model, data, 16) - start).max() * 1e3)
        print(f"{kind}: {statistics.median(timings[kind]):.1f} us a step, within {held[kind]:.2f} mrad after 3 s more")
    print(
        f"servo_actuators pid_us {statistics.median(timings['pid']):.1f} "
        f"position_us {statistics.median(timings['position']):.1f} "
        f"pid_hold_mrad {held['pid']:.2f} position_hold_mrad {held['position']:.2f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
