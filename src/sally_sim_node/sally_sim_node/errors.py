"""The one exception family of sally_sim_node."""

from __future__ import annotations


class SimulationError(RuntimeError):
    """Something the simulator cannot do or continue with; the message says what and why."""


class DivergenceError(SimulationError):
    """The physics went unstable: MuJoCo flagged bad accelerations or the state is non-finite.

    MuJoCo resets the state silently when this happens; the simulator refuses to step on until
    :meth:`Simulator.reset` is called.
    """

    def __init__(self, time: float, reason: str) -> None:
        super().__init__(f"simulation diverged at t = {time:.4f} s: {reason}")
        self.time = time
        self.reason = reason
