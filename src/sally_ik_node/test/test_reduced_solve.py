"""The reduced solve is mink's: along an f2w-shaped motion (a foot lifted, swung, turned to the wall,
its wrist against a stop at times) every step's velocity is :func:`mink.solve_ik`'s with the frozen
dofs as a :class:`mink.DofFreezingTask`, to 1e-9, by the direct path where no limit binds and by the
QP solver where one does."""

import math

import mink
import numpy as np

from sally_description import build_model
from sally_ik_node import reduced_solve
from sally_ik_node.whole_body_ik import StanceMode, WholeBodyIK
from sally_node_common.ik_target import IKTarget


def motion(home, hip, steps=300):
    """FL lifted 10 cm, swung 45 deg about its hip, raised and turned to face +x, every 5 ms."""
    lifted = home + [0.0, 0.0, 0.10]
    for k in range(steps):
        s = min(1.0, k / (steps / 3))
        yield IKTarget.position_only(home + s * (lifted - home))
    radial = lifted[:2] - hip[:2]
    for k in range(steps):
        a = -math.radians(45) * k / steps
        xy = hip[:2] + [
            math.cos(a) * radial[0] - math.sin(a) * radial[1],
            math.sin(a) * radial[0] + math.cos(a) * radial[1],
        ]
        yield IKTarget.position_only([xy[0], xy[1], lifted[2]])
    for k in range(steps):
        up = lifted[2] + 0.3 * k / steps
        yield IKTarget.with_orientation([xy[0], xy[1], up], [1.0, 0.0, 0.0], 1.0, 1.0)


def test_every_step_is_mink_s_own_solution(monkeypatch):
    paths, worst = {"direct": 0, "qp": 0}, 0.0
    solve_velocity, qp = reduced_solve.solve_velocity, reduced_solve._qp

    def counted_qp(*args):
        paths["qp"] += 1
        return qp(*args)

    def checked(configuration, tasks, dt, solver, damping, limits, free):
        nonlocal worst
        paths["direct"] += 1
        ours = solve_velocity(configuration, tasks, dt, solver, damping, limits, free)
        frozen = sorted(set(range(configuration.model.nv)) - set(free.tolist()))
        theirs = mink.solve_ik(
            configuration, tasks, dt, solver, damping=damping, limits=limits,
            constraints=[mink.DofFreezingTask(configuration.model, dof_indices=frozen)],
        )  # fmt: skip
        worst = max(worst, float(np.abs(ours - theirs).max() * dt))  # as a step (rad or m)
        return ours

    monkeypatch.setattr(reduced_solve, "_qp", counted_qp)
    monkeypatch.setattr("sally_ik_node.whole_body_ik.solve_velocity", checked)
    ik = WholeBodyIK(build_model())
    home = ik.foot_pose("FL").translation()
    hip = ik.configuration.get_transform_frame_to_world("hip_site_FL", "site").translation()
    ik.set_stance("FL", StanceMode.SWING)
    for target in motion(home, hip):
        ik.set_target("FL", target)
        ik.solve()
    assert worst < 1e-9, f"a step differs from mink's by {worst:.3g}"
    assert paths["direct"] - paths["qp"] > 1000 and paths["qp"] > 0, f"both paths taken: {paths}"


def test_the_free_dofs_are_those_not_frozen():
    assert reduced_solve.free_dofs(6, [1, 4]).tolist() == [0, 2, 3, 5]
    assert reduced_solve.free_dofs(3, []).tolist() == [0, 1, 2]
