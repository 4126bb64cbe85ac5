"""The IK with its solves in a process of its own: the same results, bit for bit, as in this process;
refused calls stay refused; a child that dies is replaced by solving here; nothing is left running."""

import dataclasses
import time

import numpy as np
import pytest

from sally_description import LEGS, build_model
from sally_description.pose import Pose
from sally_ik_node import IKError
from sally_ik_node.solve_process import SolveProcess
from sally_ik_node.whole_body_ik import IKConfig, StanceMode, WholeBodyIK
from sally_node_common.ik_target import IKTarget

MODEL = build_model()


@pytest.fixture
def remote():
    ik = SolveProcess(MODEL)
    yield ik
    ik.close()
    assert not ik._process.is_alive()


def tick(ik, qpos, commands) -> object:
    """One IK tick as the node makes it: the measured configuration, the commands, a solve."""
    ik.update(qpos)
    for name, args in commands:
        if name == "conform":
            ik.conform = args
        elif name == "config":
            ik.config = args
        else:
            getattr(ik, name)(*args)
    return ik.solve()


def script(home: dict) -> list[list[tuple]]:
    """Forty ticks of commands: FL lifted and turned to the wall, a refused target for a stance
    foot, the body moved, FL set down on the wall, the step changed."""
    ticks: list[list[tuple]] = [[("set_stance", ("FL", StanceMode.SWING))]]
    for k in range(1, 16):
        target = IKTarget.position_only(home["FL"] + [0.0, 0.0, 0.005 * k])
        ticks.append([("set_target", ("FL", target))])
    for k in range(10):
        target = IKTarget.with_orientation(home["FL"] + [0.01 * k, 0.0, 0.08], [1.0, 0.0, 0.0], 1.0, 1.0)
        ticks.append([("set_target", ("FL", target))])
    ticks.append([("set_target", ("BR", IKTarget.position_only(home["BR"])))])  # refused: BR stands
    ticks.append(
        [
            ("conform", True),
            ("set_body_target", (Pose(np.array([0.0, 0.0, 0.02]) + home["body"], np.array([1.0, 0.0, 0.0, 0.0])),)),
        ]
    )
    ticks += [[] for _ in range(6)]
    ticks.append([("set_stance", ("FL", StanceMode.POSE)), ("hold_body", ())])
    ticks.append([("config", dataclasses.replace(IKConfig(), dt=0.004, damping=0.05))])
    ticks += [[] for _ in range(4)]
    return ticks


def run(ik, seed: int) -> list:
    rng = np.random.default_rng(seed)
    local = ik._local if isinstance(ik, SolveProcess) else ik
    home = {leg: local.foot_pose(leg).translation() for leg in LEGS}
    home["body"] = local.configuration.get_transform_frame_to_world("main_frame", "body").translation()
    qpos, results = MODEL.qpos0.copy(), []
    for commands in script(home):
        try:
            result = tick(ik, qpos, commands)
        except IKError:
            result = ik.solve()  # the refused call changed nothing
        results.append(result)
        qpos = result.qpos + rng.normal(0.0, 1e-4, result.qpos.shape) * (np.arange(MODEL.nq) >= 7)
    return results


def test_solves_in_their_own_process_are_those_made_here(remote):
    here, there = run(WholeBodyIK(MODEL), 3), run(remote, 3)
    assert remote.failed is None
    assert len(here) == len(there) == 40
    for i, (a, b) in enumerate(zip(here, there)):
        assert np.array_equal(a.qpos, b.qpos), i
        assert (a.code, a.foot, a.position_error, a.orientation_error, a.message) == (
            b.code, b.foot, b.position_error, b.orientation_error, b.message
        ), i  # fmt: skip
    assert len({tuple(r.qpos) for r in there}) > 30, "the script moves the robot"


def test_a_restart_starts_over_in_the_same_process(remote):
    first = run(remote, 5)
    pid = remote._process.pid
    remote.restart(IKConfig())
    assert np.array_equal(run(remote, 5)[-1].qpos, first[-1].qpos)
    assert remote._process.pid == pid and remote._process.is_alive()


def test_the_wait_does_idle_work_until_the_result_is_in(remote):
    remote.update(MODEL.qpos0)
    remote.start_solve()
    asked = []

    def idle(until):
        asked.append(until())
        deadline = time.monotonic() + 60.0
        while not until() and time.monotonic() < deadline:
            time.sleep(0.001)
        asked.append(until())

    result = remote.finish_solve(idle)
    assert asked[-1] is True and np.isfinite(result.qpos).all()
    with pytest.raises(RuntimeError, match="no solve under way"):
        remote.finish_solve()
    remote.start_solve()
    with pytest.raises(RuntimeError, match="under way"):
        remote.start_solve()
    remote.finish_solve()


def test_a_child_that_dies_is_replaced_by_solving_here(remote):
    remote.update(MODEL.qpos0)
    expected = WholeBodyIK(MODEL)
    expected.update(MODEL.qpos0)
    remote._process.kill()
    remote._process.join(10.0)
    result = remote.solve()
    assert remote.failed is not None and "solving in this process from now on" in remote.failed
    assert str(remote._process.pid) in remote.failed
    assert np.array_equal(result.qpos, expected.solve().qpos)
    remote.update(result.qpos)
    assert np.isfinite(remote.solve().qpos).all()  # and on


def test_refused_calls_raise_here_and_are_not_passed_on(remote):
    with pytest.raises(IKError, match="only a SWING foot takes targets"):
        remote.set_target("FL", IKTarget.position_only([0.1, 0.1, 0.0]))
    with pytest.raises(IKError, match="configuration must be"):
        remote.update(np.zeros(3))
    assert remote._calls == []


def test_a_child_that_fails_a_solve_is_named_and_replaced(remote):
    remote.update(MODEL.qpos0)
    remote._calls.append(("no_such_call", ()))  # what a child that cannot make a call answers
    result = remote.solve()
    assert remote.failed is not None and "it failed: AttributeError" in remote.failed
    assert np.isfinite(result.qpos).all()
    assert not remote._process.is_alive()
