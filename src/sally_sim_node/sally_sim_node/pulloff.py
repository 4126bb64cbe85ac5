"""The pull-off scenario of seed 000: one magnet on the floor, pulled straight up on a force ramp.

Two-stage settle with the controller holding the pose throughout (gravity only, then gravity and
the one magnet), then a vertical pull on the magnet body rising at ``rate`` N/s. Detachment follows
:class:`DetachmentDetector` with threshold ``detach_fraction`` x max_force_per_wheel. While the
magnet force is below that threshold the rig stops pulling harder: the pull is reduced to the
robot's weight so that a released robot drifts instead of being flung, and a magnet that grabs
again resumes the ramp from where it was.
"""

from __future__ import annotations

from dataclasses import dataclass

import mujoco
import numpy as np
from sally_description import LEGS
from sally_description.constants import magnet_body

from .detachment import DetachmentDetector
from .simulator import EffortFn, Simulator


@dataclass(frozen=True)
class PullOffConfig:
    leg: str = "FL"
    rate: float = 40.0
    """Pull ramp (N/s)."""
    detach_fraction: float = 0.5
    detach_hold: float = 1.0
    gravity_settle: float = 1.0
    magnet_settle: float = 1.0
    start_force: float = 0.0
    """Pull at the start of the ramp (N)."""
    max_ramp_time: float = 60.0
    sample_every: int = 10
    """Physics steps between pull updates and trace samples."""


@dataclass(frozen=True)
class PullOffResult:
    detached: bool
    pulloff_force: float
    """Applied pull at the start of the sustained drop (N); 0 if the magnet never held."""
    detach_time: float
    clip: float
    static_load: float
    """Floor reaction on the foot beyond the magnet force just before the ramp: the weight it carries (N)."""
    time: np.ndarray
    applied: np.ndarray
    magnet_force: np.ndarray
    foot_z: np.ndarray


def run_pulloff(sim: Simulator, controller: EffortFn, config: PullOffConfig = PullOffConfig()) -> PullOffResult:
    """Run the scenario on ``sim`` (reset first) and return the detachment figures and traces."""
    leg = config.leg
    sim.reset()
    sim.magnets.set_enabled(False)
    n_gravity = round(config.gravity_settle / sim.timestep)
    n_magnet = round(config.magnet_settle / sim.timestep)
    sim.step(n_gravity, controller)
    sim.set_magnet(leg, True)
    sim.step(n_magnet, controller)

    i = LEGS.index(leg)
    clip = sim.magnets.model_params.max_force
    static_load = sim.foot_contact_force(leg) - float(np.linalg.norm(sim.magnets.force[i]))
    weight = float(mujoco.mj_getTotalmass(sim.model) * -sim.model.opt.gravity[2])
    detector = DetachmentDetector(config.detach_fraction * clip, config.detach_hold)
    body = magnet_body(leg)
    ramp, dt = config.start_force, config.sample_every * sim.timestep
    t0 = sim.time
    trace: list[tuple[float, float, float, float]] = []
    held = False
    while sim.time - t0 < config.max_ramp_time:
        magnet = float(np.linalg.norm(sim.magnets.force[i]))
        held = held or magnet >= detector.threshold
        pull = weight if detector.dropping and held else ramp
        trace.append((sim.time - t0, pull, magnet, float(sim.ee_position(leg)[2])))
        if held and detector.update(sim.time - t0, magnet, ramp):
            break
        sim.apply_external_force(body, (0.0, 0.0, pull))
        sim.step(config.sample_every, controller)
        if not detector.dropping:
            ramp += config.rate * dt
    sim.clear_external_forces()
    t, applied, magnet_force, foot_z = (np.array(col) for col in zip(*trace))
    return PullOffResult(
        detached=detector.detached,
        pulloff_force=detector.force_at_drop if held else 0.0,
        detach_time=(detector.drop_start or 0.0),
        clip=clip,
        static_load=static_load,
        time=t,
        applied=applied,
        magnet_force=magnet_force,
        foot_z=foot_z,
    )
