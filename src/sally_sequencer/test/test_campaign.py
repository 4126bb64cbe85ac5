"""The dual-foot campaign on perfectly following feet: no MuJoCo, no ROS."""

import numpy as np
import pytest

from sally_description.constants import FOOT_STANDOFF
from sally_sequencer import Campaign, FootReading, SequenceError
from sally_sequencer.sequences import WALL_X

HOMES = {"FL": [0.33, 0.28, 0.009], "FR": [0.33, -0.28, 0.009], "BL": [-0.33, 0.28, 0.009], "BR": [-0.33, -0.28, 0.009]}
HIPS = {"FL": [0.13, 0.08, 0.12], "FR": [0.13, -0.08, 0.12], "BL": [-0.13, 0.08, 0.12], "BR": [-0.13, -0.08, 0.12]}


def drive(campaign, until, dt=0.005):
    """Step every dt; the swing foot goes exactly where it is told. Returns every tick."""
    feet = {f: np.array(p, float) for f, p in HOMES.items()}
    ticks = []
    for k in range(round(until / dt) + 1):
        t = round(k * dt, 9)
        tick = campaign.step(t, {f: FootReading(feet[f], np.array(HIPS[f])) for f in feet})
        if tick.target is not None:
            foot, target = tick.target
            feet[foot] = target.position.copy()
        ticks.append((t, tick))
    return ticks, feet


def test_f2w_plants_fl_then_fr_with_the_dwell_handoff():
    campaign = Campaign("f2w", start_time=0.5)
    ticks, feet = drive(campaign, 23.0)
    assert campaign.done and not campaign.failed
    stances = [(t, tick.stance) for t, tick in ticks if tick.stance]
    assert stances[0] == (0.5, {"FL": "SWING", "FR": "POSITION", "BL": "POSITION", "BR": "POSITION"})
    # FL: 3 + 1.5 + 3 s to F2W_REACH at 8.0 s, planted after 3 s there; FR starts at once
    assert stances[1] == (pytest.approx(11.0), {"FL": "POSE", "FR": "SWING", "BL": "POSITION", "BR": "POSITION"})
    assert stances[2] == (pytest.approx(21.5), {"FL": "POSE", "FR": "POSE", "BL": "POSITION", "BR": "POSITION"})
    assert campaign.planted == pytest.approx({"FL": 11.0, "FR": 21.5})
    assert campaign.done_at == pytest.approx(22.5)
    magnets = [(t, foot, on) for t, tick in ticks for foot, on in tick.magnets.items()]
    assert magnets == [
        (0.5, "FL", False),
        (pytest.approx(10.75), "FL", True),
        (11.0, "FR", False),
        (pytest.approx(21.25), "FR", True),
    ]
    for foot in ("FL", "FR"):
        assert campaign.plant_targets[foot][0] == pytest.approx(WALL_X - FOOT_STANDOFF)
        assert feet[foot] == pytest.approx(campaign.plant_targets[foot])
    assert feet["BL"] == pytest.approx(HOMES["BL"]) and feet["BR"] == pytest.approx(HOMES["BR"])
    phases = [(foot, phase) for foot, phase, _ in campaign.phase_log]
    assert phases == [(f, p) for f in ("FL", "FR") for p in ("LIFT", "SWING", "F2W_ORIENT", "F2W_MEASURE", "F2W_REACH")]
    # after done, nothing more is sent
    assert all(tick.target is None for t, tick in ticks if t > 22.5)


def test_orient_is_done_after_its_hold():
    campaign = Campaign("orient", start_time=0.0, hold=0.5)
    drive(campaign, 9.0)
    assert campaign.done_at == pytest.approx(4.5 + 3.0 + 0.5)


def test_a_foot_behind_the_wall_fails_the_campaign_with_the_reason():
    campaign = Campaign("f2w_fr", start_time=0.0)
    feet = {f: FootReading(np.array(p, float), np.array(HIPS[f])) for f, p in HOMES.items()}
    campaign.step(0.0, feet)
    behind = dict(feet, FR=FootReading(np.array([0.7, 0.0, 0.4]), np.array(HIPS["FR"])))
    campaign.step(7.6, behind)
    assert campaign.failed and "not in front of the wall" in campaign.message


@pytest.mark.parametrize(
    "make, match",
    [
        (lambda: Campaign("w2f"), "unknown sequence 'w2f'"),
        (lambda: Campaign("f2w", dwell=float("nan")), "dwell"),
        (lambda: Campaign("f2w", start_time=-1.0), "start_time"),
    ],
)
def test_bad_settings_are_refused(make, match):
    with pytest.raises(SequenceError, match=match):
        make()


def test_time_going_back_or_missing_feet_is_refused():
    campaign = Campaign("f2w")
    feet = {f: FootReading(np.array(p, float), np.array(HIPS[f])) for f, p in HOMES.items()}
    campaign.step(1.0, feet)
    with pytest.raises(SequenceError, match="non-decreasing"):
        campaign.step(0.5, feet)
    with pytest.raises(SequenceError, match="lack"):
        campaign.step(2.0, {"FL": feet["FL"]})


def test_a_resumed_campaign_skips_the_planted_feet():
    wall = np.array([0.5, 0.28, 0.2])
    campaign = Campaign("f2w", start_time=0.5, planted={"FL": wall})
    ticks, _ = drive(campaign, 12.0)
    stances = [tick.stance for _, tick in ticks if tick.stance]
    # FR at once, FL stays locked
    assert stances[0] == {"FL": "POSE", "FR": "SWING", "BL": "POSITION", "BR": "POSITION"}
    assert campaign.planted["FL"] == 0.5 and np.array_equal(campaign.plant_targets["FL"], wall)
    assert campaign.done and "FR" in campaign.planted
    assert all(tick.target is None or tick.target[0] == "FR" for _, tick in ticks)


def test_a_climb_resumed_with_a_front_foot_planted_goes_on_from_the_next_foot():
    """f2w_all found with FL on the wall (a sequencer restarted there): the body's squaring and the
    back feet's floor steps came before FL's climb and were done; FR's climb is next."""
    campaign = Campaign("f2w_all", start_time=0.5, planted={"FL": np.array([0.5, 0.08, 0.2])})
    ticks, _ = drive(campaign, 3.0)
    stances = [tick.stance for _, tick in ticks if tick.stance]
    assert stances[0] == {"FL": "POSE", "FR": "SWING", "BL": "POSITION", "BR": "POSITION"}
    assert {tick.target[0] for _, tick in ticks if tick.target is not None} == {"FR"}


def test_a_campaign_whose_feet_are_all_planted_holds_then_is_done():
    campaign = Campaign("wall_hold", start_time=0.5, hold=1.0, planted={"FL": np.zeros(3)})
    drive(campaign, 1.6)
    assert campaign.done and not campaign.failed and campaign.done_at == pytest.approx(1.5)
    with pytest.raises(SequenceError, match="not feet"):
        Campaign("f2w", planted={"XL": np.zeros(3)})
