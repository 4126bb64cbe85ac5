"""Magnet switches and external forces applied at the step their stamp names, on a real Simulator
(no ROS): ahead, past due, unstamped, out of order, from a time line a reset ended, a force's ramp."""

from collections import Counter

import numpy as np
import pytest

from sally_description.constants import magnet_body
from sally_node_common.external_force_msg import ExternalLoad
from sally_node_common.inputs import InputError
from sally_sim_node import Simulator
from sally_sim_node.sim_clock import SimClock
from sally_sim_node.stamped_commands import StampedCommands

MS = 1_000_000


@pytest.fixture
def rig():
    sim = Simulator(magnets_on={"FL": False})
    clock = SimClock(round(sim.timestep * 1e9))
    counts, warnings = Counter(), []
    return sim, clock, counts, warnings, StampedCommands(sim, clock, counts, warnings.append)


def step(sim, clock, commands, steps):
    """The sim loop's part: take what is due, step that far, until ``steps`` are taken; the runs."""
    runs = []
    while steps:
        run = commands.due(steps)
        sim.step(run)
        clock.advance(run)
        steps -= run
        runs.append(run)
    return runs


def test_a_magnet_command_ahead_waits_for_its_step(rig):
    sim, clock, counts, warnings, commands = rig
    assert commands.magnets(3 * MS, {"FL": True})
    assert step(sim, clock, commands, 4) == [4] and not sim.magnet_enabled("FL")  # 2 ms in: not yet
    assert step(sim, clock, commands, 4) == [2, 2]  # the run stops at 3 ms, where it applies
    assert sim.magnet_enabled("FL")
    assert counts == Counter(magnet_commands=1) and warnings == []


def test_with_a_control_latency_a_stamped_command_applies_that_much_after_its_stamp(rig):
    sim, clock, counts, warnings, commands = rig
    commands.latency_ns = 1 * MS  # one control period, as the efforts answering a state
    assert commands.magnets(3 * MS, {"FL": True})
    assert step(sim, clock, commands, 8) == [8] and not sim.magnet_enabled("FL")  # 4 ms in: just now due
    assert step(sim, clock, commands, 1) == [1] and sim.magnet_enabled("FL")
    step(sim, clock, commands, 2)  # 5.5 ms
    assert commands.magnets(4 * MS, {"FL": False})  # for 5 ms: past due
    assert counts["magnet_commands_past_due"] == 1 and "for 0.0050 s came at 0.0055 s" in warnings[0]
    step(sim, clock, commands, 1)
    assert not sim.magnet_enabled("FL")


def test_a_command_past_due_or_unstamped_applies_before_the_next_step(rig):
    sim, clock, counts, warnings, commands = rig
    step(sim, clock, commands, 10)  # 5 ms
    assert commands.magnets(2 * MS, {"FL": True})
    assert counts["magnet_commands_past_due"] == 1 and "for 0.0020 s came at 0.0050 s" in warnings[0]
    step(sim, clock, commands, 1)
    assert sim.magnet_enabled("FL")
    assert commands.magnets(0, {"FL": False})  # unstamped: outside the order, counted as on time
    step(sim, clock, commands, 1)
    assert not sim.magnet_enabled("FL") and counts["magnet_commands_past_due"] == 1


def test_a_stamp_older_than_the_last_is_refused(rig):
    sim, clock, counts, _, commands = rig
    commands.magnets(4 * MS, {"FL": True})
    with pytest.raises(InputError) as refused:
        commands.magnets(3 * MS, {"FL": False})
    assert refused.value.reason == "out_of_order" and counts["magnet_commands"] == 1
    commands.force(ExternalLoad("FL", 4 * MS, np.zeros(3), np.zeros(3)))  # forces keep their own order
    with pytest.raises(InputError):
        commands.force(ExternalLoad("FL", 1 * MS, np.zeros(3), np.zeros(3)))


def test_commands_for_a_time_line_a_reset_ended_are_dropped(rig):
    sim, clock, counts, _, commands = rig
    commands.magnets(50 * MS, {"FL": True})
    commands.force(ExternalLoad("FL", 60 * MS, np.array([0.0, 0.0, 5.0]), np.zeros(3)))
    step(sim, clock, commands, 2)
    clock.start_over()  # the reset: a new time line from 1 s
    commands.clear()
    assert not commands.magnets(40 * MS, {"FL": True})  # in flight when the reset came
    assert counts["commands_before_reset"] == 1 and commands.loaded_feet == []
    step(sim, clock, commands, 200)
    assert not sim.magnet_enabled("FL")  # the ended line's command went with it


def test_a_force_ramps_from_its_stamp_until_removed(rig):
    sim, clock, counts, _, commands = rig
    body = sim.model.body(magnet_body("FL")).id
    commands.force(ExternalLoad("FL", 2 * MS, np.array([0.0, 0.0, 10.0]), np.array([0.0, 0.0, 1000.0])))
    step(sim, clock, commands, 4)  # to 2 ms: due before the next step, not yet applied
    assert commands.loaded_feet == []
    step(sim, clock, commands, 2)  # 2-3 ms: on, at its value at 2 ms
    assert commands.loaded_feet == ["FL"] and sim.data.xfrc_applied[body][2] == pytest.approx(10.0)
    step(sim, clock, commands, 2)  # 3-4 ms: 10 N + 1000 N/s x 1 ms, set before the run
    assert sim.data.xfrc_applied[body][2] == pytest.approx(11.0)
    commands.force(ExternalLoad("FL", 0, np.zeros(3), np.zeros(3)))  # zero force and rate: removed
    step(sim, clock, commands, 1)
    assert commands.loaded_feet == [] and not sim.data.xfrc_applied[body].any()
    assert counts["external_forces"] == 2


def test_a_force_past_due_applies_before_the_next_step_and_is_counted(rig):
    """A rig's answer that comes after the step its stamp names (a rig in another process, which
    nothing in lockstep waits for) applies at once, is counted and said: that run depends on delivery."""
    sim, clock, counts, warnings, commands = rig
    body = sim.model.body(magnet_body("FL")).id
    commands.latency_ns = 1 * MS
    step(sim, clock, commands, 10)  # 5 ms
    commands.force(ExternalLoad("FL", 4 * MS, np.array([0.0, 0.0, 10.0]), np.zeros(3)))  # due at 5 ms: on time
    assert counts["external_forces_past_due"] == 0 and warnings == []
    step(sim, clock, commands, 2)  # 6 ms
    commands.force(ExternalLoad("FL", 4500000, np.array([0.0, 0.0, 30.0]), np.zeros(3)))  # due 5.5 ms
    assert counts["external_forces_past_due"] == 1
    assert "external force on FL for 0.0055 s came at 0.0060 s" in warnings[0]
    step(sim, clock, commands, 1)
    assert sim.data.xfrc_applied[body][2] == pytest.approx(30.0)
