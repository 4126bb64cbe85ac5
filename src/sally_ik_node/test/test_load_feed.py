"""The stance load by stamp: once per period while the stance feet stay, at once when they change."""

import mujoco
import numpy as np

from sally_description import LEGS, build_model
from sally_description.stance_load import StanceLoad
from sally_ik_node.load_feed import LoadFeed


class Counting(StanceLoad):
    def __init__(self, model):
        super().__init__(model)
        self.calls = 0

    def torques(self, qpos, stance):
        self.calls += 1
        return super().torques(qpos, stance)


def test_the_load_is_recomputed_per_period_and_when_a_foot_lets_go():
    model = build_model()
    data = mujoco.MjData(model)
    load = Counting(model)
    feed = LoadFeed(load, period_ns=10_000_000)
    four = feed.torques(0, data.qpos, LEGS)
    moved = data.qpos.copy()
    moved[7:] += 0.05
    assert feed.torques(5_000_000, moved, LEGS) is four and load.calls == 1  # within the period: kept
    assert not np.array_equal(feed.torques(10_000_000, moved, LEGS), four) and load.calls == 2
    three = feed.torques(15_000_000, moved, ("FR", "BL", "BR"))  # FL lets go: at once
    assert load.calls == 3 and not three[:4].any()
    feed.torques(5_000_000, moved, ("FR", "BL", "BR"))  # an older stamp: a new run
    assert load.calls == 4
    feed.clear()
    feed.torques(5_000_000, moved, ("FR", "BL", "BR"))
    assert load.calls == 5
