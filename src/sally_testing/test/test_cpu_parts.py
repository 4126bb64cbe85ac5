"""benchmarks/f2w.py's split of a profile into parts."""

import pytest

from sally_testing.cpu_parts import PARTS, cpu_ms_per_sim_ms, part_of, samples_by_part

SIM = "thread (1): MainThread;run (sally_sim_node/node.py:253);_advance (sally_sim_node/node.py:288)"


@pytest.mark.parametrize(
    ("stack", "part"),
    [
        (f"{SIM};step (sally_sim_node/simulator.py:114)", "physics"),
        (f"{SIM};step (sally_sim_node/simulator.py:114);apply (sally_sim_node/magnets.py:136)", "magnets"),
        (
            f"{SIM};publish (sally_node_common/host.py:125);deliver (sally_node_common/host.py:204);"
            "_on_state (sally_controller/node.py:231)",
            "controller",
        ),
        (
            f"{SIM};deliver (sally_node_common/host.py:204);_solve (sally_ik_node/node.py:385);"
            "solve_ik (mink/solve_ik.py:182);daqp_solve_problem (qpsolvers/solvers/daqp_.py:122)",
            "ik",
        ),
        (f"{SIM};_solve (sally_ik_node/node.py:385);publish (rclpy/publisher.py:74)", "dds"),
        (
            f"{SIM};deliver (sally_node_common/host.py:204);_on_state (sally_state_estimator/node.py:210);"
            "_fit (sally_state_estimator/estimator.py:257);svd (numpy/linalg/_linalg.py:1667)",
            "estimator",
        ),
        (
            "thread (3): sally recording;_write (sally_bringup/host_recording.py:60);serialize_message "
            "(rclpy/serialization.py:30)",
            "recording",
        ),  # fmt: skip
        ("thread (2): executor;spin_until_shutdown (sally_node_common/node_main.py:82)", "dds"),
        (f"{SIM};_publish_tf (sally_sim_node/node.py:726)", "sim"),
        ("thread (5): sally_sim physics;Thread.run (threading.py:982)", "physics"),
        (f"{SIM};finish_steps (sally_sim_node/simulator.py:190);join (sally_sim_node/physics_thread.py:1)", "physics"),
        (f"{SIM};deliver (sally_node_common/host.py:204)", "delivery"),
        ("thread (1): MainThread;<module> (x:1)", "other"),
        (
            "thread (4): sally recording;_send (sally_bringup/host_recording.py:112);wait (threading.py:629);"
            "wait (threading.py:331)",
            "idle",
        ),  # fmt: skip
    ],
)
def test_each_stack_goes_to_its_innermost_part(stack, part):
    assert part_of(stack) == part


def test_counts_become_cpu_ms_per_sim_ms():
    lines = [f"{SIM};step (sally_sim_node/simulator.py:114) 300\n", "thread (2): x;spin_until_shutdown (a) 100\n"]
    lines.append("thread (3): y;wait (threading.py:331) 50\n")  # blocked: in no part
    lines.append("bad")
    samples = samples_by_part(lines)
    assert samples == {"physics": 300, "dds": 100, "idle": 50}
    figures = cpu_ms_per_sim_ms(samples, 100.0, 2.0)  # 3 CPU s of physics over 2 s of sim
    assert set(figures) == set(PARTS)
    assert figures["physics"] == pytest.approx(1.5) and figures["dds"] == pytest.approx(0.5)
    assert figures["ik"] == 0.0


def test_a_run_of_no_sim_time_is_refused():
    with pytest.raises(ValueError, match="sim_seconds must be > 0"):
        cpu_ms_per_sim_ms(samples_by_part([]), 100.0, 0.0)
