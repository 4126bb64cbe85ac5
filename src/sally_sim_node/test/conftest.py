import numpy as np
import pytest

from sally_node_common.pid import HoldController, JointPID, PIDGains


@pytest.fixture
def hold():
    """PID (the controller's default gains, the model's effort limits) holding a simulator's baked pose."""

    def make(sim):
        gains = PIDGains.uniform(len(sim.actuated_joint_names), effort_limit=sim.actuators.effort_limit)
        return HoldController(JointPID(gains), np.zeros(len(sim.actuated_joint_names)), sim.timestep)

    return make
