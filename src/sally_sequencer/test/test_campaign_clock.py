"""Campaign time on the foot states' stamps: sim time from the run's start, standing still while
the sim holds, never jumping over a gap; and the stamps of a step's commands."""

import pytest

from sally_sequencer.campaign_clock import MAX_STEP_NS, CampaignClock

MS = 1_000_000


def test_campaign_time_is_sim_time_from_the_next_solve():
    clock = CampaignClock(5 * MS, 25_000 * MS, ik_latency=1)
    assert clock.step(0) == (5 * MS, 0.005)  # commands for the next solve, campaign time at it
    assert clock.step(5 * MS) == (10 * MS, 0.010)
    assert clock.magnets_stamp(5 * MS) == 15 * MS  # when that solve's targets act, one IK period later


def test_it_stands_still_while_the_sim_holds_and_adds_one_period_over_an_outage():
    clock = CampaignClock(5 * MS, 25_000 * MS)
    clock.step(0)
    clock.holding = True
    assert clock.step(5 * MS)[1] == pytest.approx(0.005)
    clock.holding = False
    assert clock.step(10 * MS)[1] == pytest.approx(0.010)
    assert clock.step(10 * MS + 5_000 * MS)[1] == pytest.approx(0.015)  # an outage: one period on
    assert clock.step(5_010 * MS + MAX_STEP_NS)[1] == pytest.approx(0.015 + MAX_STEP_NS * 1e-9)  # a lost message


def test_a_reset_starts_the_run_again_from_its_stamp():
    clock = CampaignClock(5 * MS, 1_000 * MS, telemetry_ns=500 * MS)
    clock.step(0)
    assert clock.telemetry_due(0) and not clock.telemetry_due(5 * MS) and clock.telemetry_due(500 * MS)
    clock.reset_ns = 2_000 * MS
    clock.restart(reset_ns=2_000 * MS)
    assert clock.reset_ns is None and clock.last_stamp == -1
    assert clock.step(2_000 * MS) == (2_005 * MS, 0.005)
    assert not clock.over(2_995 * MS) and clock.over(3_000 * MS)  # the duration counts from the reset
    assert clock.telemetry_due(2_000 * MS)


def test_a_period_or_duration_that_is_not_positive_is_refused():
    with pytest.raises(ValueError, match="must be positive"):
        CampaignClock(0, 1)
