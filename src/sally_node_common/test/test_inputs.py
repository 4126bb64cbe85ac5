"""The input checks and the input-health bookkeeping every node shares (pure)."""

import math

import numpy as np
import pytest

from sally_node_common.input_health import InputHealth
from sally_node_common.inputs import InputError, StampOrder, joint_arrays, numbers, unit_quaternion

NAMES = ("a", "b", "c")


@pytest.mark.parametrize(
    "names, position, velocity, reason",
    [
        (["a", "b", "c"], [0.0, math.nan, 0.0], [], "non_finite"),
        (["a", "b", "c"], [0.0, 0.0, 0.0], [0.0, math.inf, 0.0], "non_finite"),
        (["a", "b", "c"], [0.0, 1e12, 0.0], [], "out_of_range"),
        (["a", "b", "c"], [0.0, 0.0], [], "length"),
        (["a", "b", "x"], [0.0, 0.0, 0.0], [], "unknown"),
        (["a", "b", "c", "extra"], [0.0, 0.0, 0.0, math.nan], [], "non_finite"),  # extra joints are checked too
    ],
)
def test_joint_arrays_refuse_with_a_reason(names, position, velocity, reason):
    with pytest.raises(InputError) as info:
        joint_arrays(names, position, velocity, NAMES)
    assert info.value.reason == reason


def test_joint_arrays_reorder_and_default_velocities():
    q, qdot = joint_arrays(["c", "x", "a", "b"], [3.0, 9.0, 1.0, 2.0], [], NAMES)
    assert q.tolist() == [1.0, 2.0, 3.0] and qdot.tolist() == [0.0, 0.0, 0.0]


def test_numbers_and_quaternions():
    assert numbers((1.0, -2.0), 10.0, "x").tolist() == [1.0, -2.0]
    with pytest.raises(InputError, match="beyond the plausible"):
        numbers((1.0, 11.0), 10.0, "x")
    with pytest.raises(InputError, match="not a unit quaternion"):
        unit_quaternion((1.0, 1.0, 0.0, 0.0), "q")


def test_stamp_order_refuses_older_stamps_and_accepts_repeats():
    now = [0.0]
    order = StampOrder("state", gap=1.0, clock=lambda: now[0])
    assert order.admit(5) is False and order.admit(5) is False and order.admit(6) is False
    with pytest.raises(InputError) as info:
        order.admit(4)
    assert info.value.reason == "out_of_order"
    assert order.latest == 6  # a refused stamp does not move the order


def test_a_state_stream_starts_a_new_time_line_only_after_a_silence():
    now = [0.0]
    order = StampOrder("state", gap=1.0, clock=lambda: now[0])
    order.admit(10_000)
    now[0] = 0.5
    with pytest.raises(InputError):
        order.admit(1)
    now[0] = 2.0  # silent for 1.5 s (0.5 s after the last good message... 1.5 > gap)
    assert order.admit(1) is True
    assert order.latest == 1


def test_a_replayed_history_after_a_silence_is_out_of_order_not_a_new_time_line():
    now = [0.0]
    order = StampOrder("state", gap=1.0, clock=lambda: now[0], back_ns=500_000_000)  # a kept history's span
    order.admit(14_385_000_000)
    now[0] = 10.0  # silent far longer than the gap (a hung reader, a lockstep graph waiting)
    with pytest.raises(InputError) as info:  # the kept writer's history: 30 ms back
        order.admit(14_355_000_000)
    assert info.value.reason == "out_of_order"
    with pytest.raises(InputError):  # as far back as the history reaches
        order.admit(14_385_000_000 - 500_000_000)
    assert order.admit(14_385_000_000 - 500_000_001) is True  # further back: a new sim
    assert order.latest == 14_385_000_000 - 500_000_001


def test_a_command_stream_never_starts_over_by_itself():
    now = [0.0]
    order = StampOrder("command", gap=None, clock=lambda: now[0])
    order.admit(10)
    now[0] = 100.0
    with pytest.raises(InputError):
        order.admit(1)
    order.restart()
    assert order.admit(1) is False


def test_input_health_counts_logs_each_kind_and_throttles():
    now, lines = [0.0], []
    health = InputHealth(lines.append, watched=("/s",), stale_after=1.0, log_every=1.0, clock=lambda: now[0])
    for _ in range(5):
        health.reject("/s", "non_finite", "NaN in position")
    health.reject("/s", "length", "2 names, 1 position")
    assert health.total == 6
    assert lines == ["rejected /s (non_finite): NaN in position", "rejected /s (length): 2 names, 1 position"]
    now[0] = 1.5
    health.reject("/s", "non_finite", "NaN again")
    assert lines[-1] == "rejected /s (non_finite): NaN again (4 more since the last line)"
    values = health.values()
    assert values["rejected /s non_finite"] == 6 and values["rejected /s length"] == 1
    assert health.stale() == {"/s": 1.5} and "(never heard)" in health.summary()
    health.heard("/s")
    health.heard("/t")
    assert health.stale() == {} and health.summary() == "7 rejected"
    now[0] = 3.0
    assert set(health.stale()) == {"/s", "/t"}
    assert np.isclose(health.ages()["/t"], 1.5)


def test_old_history_of_a_kept_topic_is_counted_apart_not_logged():
    lines = []
    health = InputHealth(lines.append)
    assert health.reject("/t", "out_of_order", "old", replayed=True) is False
    assert health.reject("/t", "non_finite", "NaN", replayed=True) is True  # only old stamps are history
    assert health.total == 1 and health.values()["replayed history skipped /t"] == 1
    assert lines == ["rejected /t (non_finite): NaN"]
