"""The two bench tests on :mod:`.rig`, pure (mujoco and numpy).

The tests:

* **pull-off**: a vertical pull through the face centre, rising at ``rate`` N/s;
* **peel**: the same pull at a lever ``lever`` m off the axis (on an arm at the housing's top),
  which tips the magnet about the far rim of its face.

The magnet settles on the plate for ``settle`` s first (on, no pull). Detachment: the pull point
has risen ``detach_lift`` above where it started; the detach force is the pull at that moment.
Each step applies the legged sim's dipole-dipole model (:class:`~sally_sim_node.magnets.MagnetArray`,
8 spheres against the plate, the clip).

What the datasheet predicts (:func:`datasheet_force`): a rigid magnet whose hold ``H`` acts at its
centre, pulled at ``lever`` from the centre, tips about the far rim (``RADIUS`` from the centre)
when F (RADIUS + lever) = H RADIUS: F = H RADIUS / (RADIUS + lever), H itself at lever 0.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import mujoco
import numpy as np

from sally_description import PhysicsParams
from sally_description.constants import RATED_HOLD_FORCE
from sally_sim_node.magnet_model import MagnetModel
from sally_sim_node.magnets import MagnetArray, MagnetLayout

from . import rig

TESTS = ("pulloff", "peel")


@dataclass(frozen=True)
class BenchConfig:
    """The bench test's timing and pull: settle, pull rate, how long a drop must last to count as detached."""

    settle: float = 0.3
    """s with the magnet on and no pull."""
    rate: float = 400.0
    """N/s."""
    detach_lift: float = 0.002
    """m the pull point must rise for the magnet to count as detached."""
    give_up: float = 3000.0
    """N: a magnet still held at this pull is reported held (no detach force)."""
    sample_every: int = 10
    """Physics steps between pull updates and trace samples."""

    def __post_init__(self) -> None:
        if not (self.settle >= 0 and self.rate > 0 and self.detach_lift > 0 and self.give_up > 0):
            raise ValueError(f"bench config needs settle >= 0 and a positive rate, lift and give-up force: {self}")


@dataclass
class BenchResult:
    """One bench test's outcome: whether and at what pull the magnet came off."""

    test: str
    lever: float
    detached: bool
    detach_force: float
    """N; 0 when the magnet never let go below ``give_up``."""
    clip: float
    time: np.ndarray = field(default_factory=lambda: np.zeros(0))
    applied: np.ndarray = field(default_factory=lambda: np.zeros(0))
    lift: np.ndarray = field(default_factory=lambda: np.zeros(0))
    """m the pull point has risen."""
    magnet_force: np.ndarray = field(default_factory=lambda: np.zeros(0))


def datasheet_force(lever: float, hold: float = RATED_HOLD_FORCE) -> float:
    """The pull (N) at which a magnet of hold ``hold`` lets go, pulled ``lever`` m off its axis."""
    return hold * rig.RADIUS / (rig.RADIUS + lever)


def lever_of(test: str, lever: float | None = None) -> float:
    """The test's lever (m): 0 for pull-off, the housing radius (a rim pull) for peel by default."""
    if test not in TESTS:
        raise ValueError(f"unknown bench test {test!r}; valid: {list(TESTS)}")
    if test == "pulloff":
        if lever not in (None, 0.0):
            raise ValueError("the pull-off test pulls through the centre: no lever")
        return 0.0
    lever = rig.RADIUS if lever is None else float(lever)
    if not 0.0 < lever <= 0.5:
        raise ValueError(f"a peel lever is in (0, 0.5] m, got {lever}")
    return lever


def run_test(
    test: str,
    magnet: MagnetModel,
    lever: float | None = None,
    params: PhysicsParams | None = None,
    config: BenchConfig | None = None,
) -> BenchResult:
    """Seat the magnet, then pull until it lets go (or ``give_up``)."""
    lever, config = lever_of(test, lever), config or BenchConfig()
    model = rig.build_model(params)
    data = mujoco.MjData(model)
    layout = MagnetLayout((rig.MAGNET,), (rig.MAGNET,), (rig.sphere_names(),), {"floor": rig.PLATE}, kind="magnet")
    magnets = MagnetArray(model, layout=layout, magnet=magnet)
    external = np.zeros((model.nbody, 6))
    body = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, rig.MAGNET)
    point_local = np.array([lever, 0.0, 2 * rig.HALF_HEIGHT])  # on the arm at the housing's top

    def step(n: int, pull: float) -> None:
        for _ in range(n):
            mujoco.mj_step1(model, data)
            magnets.apply(data, external)
            data.qfrc_applied[:] = 0.0
            if pull:
                point = data.xpos[body] + data.xmat[body].reshape(3, 3) @ point_local
                mujoco.mj_applyFT(model, data, np.array([0.0, 0.0, pull]), np.zeros(3), point, body, data.qfrc_applied)
            mujoco.mj_step2(model, data)

    def height() -> float:
        return float((data.xpos[body] + data.xmat[body].reshape(3, 3) @ point_local)[2])

    step(round(config.settle / model.opt.timestep), 0.0)
    start, t0 = height(), data.time
    samples = []
    detached, force = False, 0.0
    while True:
        pull = config.rate * (data.time - t0)
        lift = height() - start
        samples.append((data.time - t0, pull, lift, float(np.linalg.norm(magnets.force[0]))))
        if lift >= config.detach_lift:
            detached, force = True, pull
            break
        if pull >= config.give_up or not np.isfinite(data.qpos).all():
            break
        step(config.sample_every, pull)
    t, applied, lifted, magnet_force = (np.array(c) for c in zip(*samples))
    return BenchResult(test, lever, detached, force, magnet.max_force, t, applied, lifted, magnet_force)
