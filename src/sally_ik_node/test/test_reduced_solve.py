"""The direct solve is mink's: along an f2w-shaped motion (a foot lifted, swung, turned to the wall,
its wrist against a stop at times) every step's velocity is :func:`mink.solve_ik`'s to 1e-9, by the
direct path where no limit binds and by the QP solver where one does."""

import math

import mink
import numpy as np
import pytest

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
    direct = reduced_solve._direct

    def checked(configuration, tasks, dt, solver, damping, limits, constraints):
        nonlocal worst
        problem = mink.build_ik(configuration, tasks, dt, damping, limits, constraints)
        paths["direct" if direct(problem) is not None else "qp"] += 1
        ours = solve_velocity(configuration, tasks, dt, solver, damping, limits, constraints)
        theirs = mink.solve_ik(
            configuration, tasks, dt, solver, damping=damping, limits=limits, constraints=constraints
        )
        worst = max(worst, float(np.abs(ours - theirs).max() * dt))  # as a step (rad or m)
        return ours

    solve_velocity = reduced_solve.solve_velocity
    monkeypatch.setattr("sally_ik_node.whole_body_ik.solve_velocity", checked)
    ik = WholeBodyIK(build_model())
    home = ik.foot_pose("FL").translation()
    hip = ik.configuration.get_transform_frame_to_world("hip_site_FL", "site").translation()
    ik.set_stance("FL", StanceMode.SWING)
    for target in motion(home, hip):
        ik.set_target("FL", target)
        ik.solve()
    assert worst < 1e-9, f"a step differs from mink's by {worst:.3g}"
    assert paths["direct"] > 1000 and paths["qp"] > 0, f"both paths taken: {paths}"


def test_a_problem_whose_constraints_do_not_only_freeze_dofs_goes_to_the_qp_solver():
    ik = WholeBodyIK(build_model())
    task = mink.FrameTask("main_frame", "body", position_cost=1.0, orientation_cost=1.0)
    task.set_target(ik.configuration.get_transform_frame_to_world("main_frame", "body"))
    problem = mink.build_ik(ik.configuration, [ik.posture_task], 0.005, 1e-3, [], [task])
    assert reduced_solve._direct(problem) is None
    velocity = reduced_solve.solve_velocity(ik.configuration, [ik.posture_task], 0.005, "daqp", 1e-3, [], [task])
    assert velocity == pytest.approx(
        mink.solve_ik(ik.configuration, [ik.posture_task], 0.005, "daqp", damping=1e-3, limits=[], constraints=[task]),
        abs=1e-9,
    )
