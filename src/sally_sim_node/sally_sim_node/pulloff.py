"""The pull-off scenario run directly on a :class:`Simulator` (no ROS).

Two-stage settle with the servos holding the start pose throughout (gravity only, then gravity and
the one magnet), then a vertical pull on the magnet body rising at ``rate`` N/s. What to pull and
when the magnet counts as detached is :class:`~sally_sim_node.pulloff_rig.PullOffRig`, the same
rules the pull-off rig node applies over the sim's topics: detached once the magnet force stays
below ``detach_fraction`` x max_force_per_wheel for ``detach_hold`` s; while it is below, the pull
is the robot's weight (a released robot drifts instead of being flung), and a magnet that grabs
again resumes the ramp from where it was.
"""

from __future__ import annotations

from dataclasses import dataclass

import mujoco
import numpy as np

from sally_description import LEGS
from sally_description.constants import magnet_body

from .pulloff_rig import PullOffRig, RigConfig
from .simulator import Simulator


@dataclass(frozen=True)
class PullOffConfig(RigConfig):
    """The pull-off test's settings: the rig's, and how often the pull is updated."""

    sample_every: int = 10
    """Physics steps between pull updates and trace samples."""


@dataclass(frozen=True)
class PullOffResult:
    """A pull-off test's outcome: whether and at what pull the magnet came off, and its trace."""

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


def run_pulloff(sim: Simulator, config: PullOffConfig = PullOffConfig()) -> PullOffResult:
    """Run the scenario on ``sim`` (reset first: its servos hold the start pose) and return the
    detachment figures and traces."""
    leg = config.foot
    sim.reset()
    sim.magnets.set_enabled(False)
    sim.step(round(config.gravity_settle / sim.timestep))
    sim.set_magnet(leg, True)
    sim.step(round(config.magnet_settle / sim.timestep))

    i = LEGS.index(leg)
    static_load = sim.foot_contact_force(leg) - float(np.linalg.norm(sim.magnets.force[i]))
    weight = float(mujoco.mj_getTotalmass(sim.model) * -sim.model.opt.gravity[2])
    rig = PullOffRig(config, sim.magnets.model_params.max_force, weight)
    body = magnet_body(leg)
    t0 = sim.time
    trace: list[tuple[float, float, float, float]] = []
    while True:
        magnet = float(np.linalg.norm(sim.magnets.force[i]))
        before = rig.pull.at(sim.time)
        rig.feed(sim.time, magnet)
        pull = before if rig.verdict is not None else rig.pull.at(sim.time)  # the last sample: what was pulling
        trace.append((sim.time - t0, pull, magnet, float(sim.ee_position(leg)[2])))
        if rig.verdict is not None:
            break
        sim.apply_external_force(body, (0.0, 0.0, pull))
        sim.step(config.sample_every)
    sim.clear_external_forces()
    verdict = rig.verdict
    t, applied, magnet_force, foot_z = (np.array(col) for col in zip(*trace))
    return PullOffResult(
        detached=verdict.detached,
        pulloff_force=verdict.pulloff_force,
        detach_time=verdict.detach_time,
        clip=rig.clip,
        static_load=static_load,
        time=t,
        applied=applied,
        magnet_force=magnet_force,
        foot_z=foot_z,
    )
