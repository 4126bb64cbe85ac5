"""The time contract: which targets answer a state, which states the IK solves, which solve the
sequencer's commands are for; and every node's default periods come from it."""

import pytest

from sally_node_common.time_contract import (
    CONTROL_PERIOD,
    IK_PERIOD,
    PACING_MODES,
    commands_for,
    gated,
    is_ik_tick,
    magnets_for,
    targets_for,
)

MS = 1_000_000
P = 5 * MS


@pytest.mark.parametrize(
    "state, targets",
    [(0, 0), (1 * MS, 0), (4 * MS, 0), (5 * MS, 5 * MS), (9 * MS, 5 * MS), (10 * MS, 10 * MS), (12_345 * MS,) * 2],
)
def test_a_state_is_answered_with_the_targets_of_the_latest_ik_tick_at_or_before_it(state, targets):
    assert targets_for(state, P) == targets


@pytest.mark.parametrize(
    "state, targets", [(0, -5 * MS), (4 * MS, -5 * MS), (5 * MS, 0), (9 * MS, 0), (10 * MS, 5 * MS)]
)
def test_with_an_ik_latency_a_state_is_answered_with_the_solve_one_ik_period_before(state, targets):
    assert targets_for(state, P, ik_latency=1) == targets


def test_a_magnet_command_is_stamped_for_when_the_targets_it_goes_with_act():
    assert magnets_for(5 * MS, P) == commands_for(5 * MS, P) == 10 * MS
    made = magnets_for(5 * MS, P, ik_latency=1)
    assert made == 15 * MS and targets_for(made, P, ik_latency=1) == commands_for(5 * MS, P)


def test_the_ik_solves_the_multiples_of_its_period_and_the_sequencer_commands_the_next():
    assert [t for t in range(0, 12 * MS, MS) if is_ik_tick(t, P)] == [0, 5 * MS, 10 * MS]
    assert commands_for(5 * MS, P) == 10 * MS
    assert targets_for(commands_for(5 * MS, P), P) == commands_for(5 * MS, P)  # the next solve is a tick


def test_every_node_takes_its_periods_from_the_contract():
    from sally_bringup.graphs import graph
    from sally_ik_node.node import TABLE as IK_TABLE
    from sally_ik_node.whole_body_ik import IKConfig
    from sally_sequencer.node import TABLE as SEQUENCER_TABLE
    from sally_sim_node.sim_parameters import TABLE as SIM_TABLE

    assert IK_TABLE["ik_period"].default == SEQUENCER_TABLE["ik_period"].default == IKConfig().dt == IK_PERIOD
    assert SIM_TABLE["state_rate"].default == 1.0 / CONTROL_PERIOD
    controller = next(n for n in graph("f2w", {"pacing": "lockstep", "composed": "false"}) if n.name == "controller")
    assert controller.parameters["target_period"] == IK_PERIOD


def test_the_gating_rule_is_one_and_every_pacing_list_is_its_modes():
    from sally_bringup.arguments import ARGUMENTS
    from sally_bringup.graphs import graph
    from sally_sim_node.sim_parameters import TABLE as SIM_TABLE

    assert [(m, s) for m in PACING_MODES for s in (False, True) if gated(m, s)] == [
        ("realtime", True),
        ("lockstep", False),
        ("lockstep", True),
    ]
    assert ARGUMENTS["pacing"].choices == PACING_MODES == SIM_TABLE["pacing"].choices

    def sim(**arguments: str):
        return next(n for n in graph("f2w", {"composed": "false", **arguments}) if n.name == "sim").parameters

    assert sim(pacing="realtime", sync="true", controller="pid").get("synchronous") is True  # the graph's gate
    assert "synchronous" not in sim(pacing="realtime", sync="false")
