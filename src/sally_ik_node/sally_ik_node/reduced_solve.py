"""mink's differential IK step, solved directly when no limit binds: the same velocity as
:func:`mink.solve_ik`, most ticks without the QP solver.

mink builds the problem (:func:`mink.build_ik`): minimise ``1/2 x'Hx + c'x`` subject to the
limits ``G x <= h`` and the equality constraints ``A x = b``. The constraints here are
:class:`mink.DofFreezingTask` s (the passive joints, and for the swing leg's own step every dof but
its four motors): their rows select dofs and hold them at zero velocity, so the remaining dofs solve
the same problem as if the frozen ones were deleted (mink's own derivation). With the frozen dofs
deleted and no limit active, the optimum is the solution of one dense linear system,
``H_ff x_f = -c_f``; a convex QP whose unconstrained optimum is feasible has that optimum as its
solution, so when ``G x <= h`` holds the result is the QP's (to the solver's tolerance, tested to
1e-9 against :func:`mink.solve_ik`). When a limit binds (a joint at its stop), or the constraints
are of another kind, the problem goes to the QP solver as mink would send it.

The direct path saves the QP solver's call (its problem checks and conversions: ~0.1-0.2 ms a
solve here, two solves an IK tick).
"""

from __future__ import annotations

from collections.abc import Sequence

import mink
import numpy as np
import qpsolvers

FEASIBILITY_TOLERANCE = 1e-12
"""How far (in the limits' own units, rad over the step) ``G x`` may exceed ``h`` and still count as
within the limits: rounding, not a binding limit."""


def solve_velocity(
    configuration: mink.Configuration,
    tasks: Sequence,
    dt: float,
    solver: str,
    damping: float,
    limits: Sequence,
    constraints: Sequence,
) -> np.ndarray:
    """The velocity :func:`mink.solve_ik` returns for these arguments (raises
    :class:`mink.NoSolutionFound` as it does)."""
    configuration.check_limits(safety_break=False)
    problem = mink.build_ik(configuration, tasks, dt, damping, limits, constraints)
    x = _direct(problem)
    if x is None:
        result = qpsolvers.solve_problem(problem, solver=solver)
        if not result.found or result.x is None:
            raise mink.NoSolutionFound(solver)
        x = result.x
    return x / dt


def _direct(problem: qpsolvers.Problem) -> np.ndarray | None:
    """The optimum of ``problem`` with its frozen dofs deleted, if no limit binds it (else None: the
    QP solver decides)."""
    hessian, c, limits, h, equalities, b = problem.P, problem.q, problem.G, problem.h, problem.A, problem.b
    n = len(c)
    frozen = np.zeros(n, dtype=bool)
    if equalities is not None:
        if b is None or b.any() or not _selects(equalities):
            return None  # not only dofs held at zero velocity
        frozen = np.asarray(equalities.any(axis=0), dtype=bool)
    free = np.flatnonzero(~frozen)
    x = np.zeros(n)
    try:
        x[free] = np.linalg.solve(hessian[np.ix_(free, free)], -c[free])
    except np.linalg.LinAlgError:
        return None
    if limits is not None and h is not None and (limits @ x > h + FEASIBILITY_TOLERANCE).any():
        return None
    return x


def _selects(rows: np.ndarray) -> bool:
    """Whether each of ``rows`` picks one dof (a single 1, zeros elsewhere)."""
    return bool(((rows == 0.0) | (rows == 1.0)).all() and (rows.sum(axis=1) == 1.0).all())
