"""mink's differential IK step with some dofs frozen, solved on the free dofs alone, directly when
no limit binds: the velocity :func:`mink.solve_ik` gives with a :class:`mink.DofFreezingTask` of
those dofs as its constraint, most ticks without the QP solver.

mink builds the problem (:func:`mink.build_ik`): minimise ``1/2 x'Hx + c'x`` subject to the limits
``G x <= h``. A :class:`mink.DofFreezingTask` constraint holds its dofs at zero velocity, and the
remaining dofs solve the same problem as if the frozen ones were deleted (mink's own derivation):
``H_ff x_f = -c_f`` with the limits ``G_f x_f <= h``. With no limit active the optimum is the
solution of that one dense linear system (a convex QP whose unconstrained optimum is feasible has it
as its solution); when a limit binds (a joint at its stop) the reduced problem goes to the QP
solver. Either way the result is mink's to the solver's tolerance (tested to 1e-9 against
:func:`mink.solve_ik`). The frozen dofs here are the passive joints, and for the swing leg's own
step every dof but its four motors (a 4-dof problem instead of 30).

The direct path saves the QP solver's call (its problem checks and conversions, ~0.1-0.2 ms a solve
here); the reduced one, the equality constraints' rows (mink builds each one's Jacobian every step).
"""

from __future__ import annotations

from collections.abc import Sequence

import mink
import numpy as np
import qpsolvers

FEASIBILITY_TOLERANCE = 1e-12
"""How far (in the limits' own units, rad over the step) ``G x`` may exceed ``h`` and still count as
within the limits: rounding, not a binding limit."""


def free_dofs(nv: int, frozen: Sequence[int]) -> np.ndarray:
    """The dofs of ``nv`` not in ``frozen``, ascending (compute once per set of frozen dofs)."""
    mask = np.ones(nv, dtype=bool)
    mask[np.asarray(frozen, dtype=int)] = False
    return np.flatnonzero(mask)


def solve_velocity(
    configuration: mink.Configuration,
    tasks: Sequence,
    dt: float,
    solver: str,
    damping: float,
    limits: Sequence,
    free: np.ndarray,
) -> np.ndarray:
    """The velocity :func:`mink.solve_ik` returns for these arguments with the dofs not in ``free``
    frozen (raises :class:`mink.NoSolutionFound` as it does)."""
    configuration.check_limits(safety_break=False)
    problem = mink.build_ik(configuration, tasks, dt, damping, limits)
    hessian = problem.P[np.ix_(free, free)]
    c = problem.q[free]
    x = np.zeros(len(problem.q))
    try:
        x[free] = np.linalg.solve(hessian, -c)
    except np.linalg.LinAlgError:
        x[free] = _qp(hessian, c, problem, free, solver)
        return x / dt
    if problem.G is not None and problem.h is not None and (problem.G @ x > problem.h + FEASIBILITY_TOLERANCE).any():
        x[free] = _qp(hessian, c, problem, free, solver)  # a limit binds
    return x / dt


def _qp(hessian: np.ndarray, c: np.ndarray, problem: qpsolvers.Problem, free: np.ndarray, solver: str) -> np.ndarray:
    """The reduced problem's optimum from the QP solver."""
    limits = None if problem.G is None else problem.G[:, free]
    result = qpsolvers.solve_problem(qpsolvers.Problem(hessian, c, limits, problem.h), solver=solver)
    if not result.found or result.x is None:
        raise mink.NoSolutionFound(solver)
    return result.x
