"""The walk over the floor: the wall walk's plan on the floor's plane (forward toward the wall, back,
left, right), on perfectly following feet and body: no MuJoCo, no ROS."""

import numpy as np
import pytest

from sally_description.model import standing_feet
from sally_description.pose import Pose
from sally_sequencer import Campaign, FootReading, SequenceError
from sally_sequencer.wall_walk import SURFACES, WallWalk

LEGS = ("FL", "FR", "BL", "BR")
BODY = Pose(np.array([0.0, 0.0, 0.124]), np.array([1.0, 0.0, 0.0, 0.0]))
HIPS = {"FL": (0.13, 0.08), "FR": (0.13, -0.08), "BL": (-0.13, 0.08), "BR": (-0.13, -0.08)}


def hips(body: Pose) -> dict[str, np.ndarray]:
    return {leg: body.to_world(np.array([x, y, 0.0])) for leg, (x, y) in HIPS.items()}


def drive(campaign, feet, body, until=60.0, dt=0.005, stop=lambda campaign: campaign.done):
    """Step ``campaign`` on feet and a body that go where they are told, from ``feet`` and ``body``,
    until ``stop(campaign)`` or ``until`` s: its ticks, the feet and the body at the end."""
    ticks = []
    for k in range(round(until / dt) + 1):
        t = round(k * dt, 9)
        tick = campaign.step(t, {f: FootReading(feet[f], hips(body)[f]) for f in LEGS})
        if tick.target is not None:
            foot, target = tick.target
            feet[foot] = target.position.copy()
        if tick.body is not None:
            body = tick.body
        ticks.append((t, tick))
        if stop(campaign):
            break
    return ticks, feet, body


def floor_walk(direction: str, distance: float, planted=None, until=60.0):
    """A floor_walk campaign driven from the floor start: the campaign, its ticks, the feet and the body."""
    feet = {leg: np.array(standing_feet()[leg]) for leg in LEGS}
    campaign = Campaign("floor_walk", start_time=0.5, planted=planted, walk=WallWalk(direction, distance, "floor"))
    return campaign, *drive(campaign, feet, BODY, until)


@pytest.mark.parametrize("direction, unit", [("back", (-1, 0, 0)), ("forward", (1, 0, 0)), ("left", (0, 1, 0))])
def test_a_floor_walk_moves_the_body_and_every_foot_over_the_floor(direction, unit):
    campaign, ticks, feet, body = floor_walk(direction, 0.10)
    assert campaign.done and not campaign.failed, campaign.message
    move = 0.10 * np.array(unit, float)
    assert body.position == pytest.approx(BODY.position + move, abs=1e-9)
    for leg in LEGS:  # each foot a whole walk along, on the floor as it stood (its height kept)
        assert feet[leg] == pytest.approx(np.array(standing_feet()[leg]) + move, abs=1e-9)
    assert not campaign.planted and set(campaign.stance.values()) == {"POSITION"}  # nothing planted on the wall
    assert not campaign.moves_body  # it is not judged by a pitch to the wall


def test_a_floor_step_lifts_its_foot_off_the_floor_face_down_with_its_magnet_off_and_three_hold():
    campaign, ticks, _, _ = floor_walk("back", 0.10)
    magnets = {leg: True for leg in LEGS}
    names = [name for _, name, _ in campaign.phase_log]
    assert {"FLOOR_SHIFT", "FLOOR_RELEASE", "FLOOR_MOVE", "FLOOR_SEAT"} <= set(names)
    assert not any(name.startswith("WALL_") for name in names)
    lifted = []
    for _, tick in ticks:
        magnets.update(tick.magnets)
        assert sum(magnets.values()) >= 3
        if tick.target is not None:
            foot, target = tick.target
            assert target.face_axis == pytest.approx([0.0, 0.0, -1.0])  # the face down, onto the floor
            lifted.append(target.position[2] - standing_feet()[foot][2])
    assert max(lifted) == pytest.approx(0.02, abs=1e-9)  # CLEARANCE straight off the floor


def test_the_floor_has_its_own_directions_and_refuses_the_wall_s():
    assert sorted(SURFACES["floor"].directions) == ["back", "forward", "left", "right"]
    with pytest.raises(SequenceError, match=r"direction 'up' is not one of \['back', 'forward', 'left', 'right'\]"):
        WallWalk("up", 0.30, "floor")
    with pytest.raises(SequenceError, match="over one of"):
        WallWalk("up", 0.30, "ceiling")
    with pytest.raises(SequenceError, match="floor_walk walks over the floor, not the wall"):
        Campaign("floor_walk", walk=WallWalk("up", 0.30))


def test_a_floor_walk_into_the_wall_is_refused_naming_how_far_it_can_go():
    feet = {leg: np.array(standing_feet()[leg]) for leg in LEGS}
    assert WallWalk("forward", 0.30, "floor").off_plate(feet) == (
        "walking 0.3 m forward takes FL's magnet off the floor's steel; from here at most 0.138 m"
    )
    assert WallWalk("back", 1.0, "floor").off_plate(feet) == ""  # 2.5 m of steel behind


def test_a_floor_walk_with_a_foot_on_the_wall_fails_naming_it():
    campaign, _, _, _ = floor_walk("back", 0.10, planted={"FL": np.array([0.49, 0.08, 0.2])}, until=1.0)
    assert campaign.failed and "floor_walk starts with every foot on the floor; planted on the wall: ['FL']" in (
        campaign.message
    )


def test_a_walk_before_the_climb_steps_every_foot_to_the_climb_s_start_then_the_climb_begins():
    """f2w_all from 0.10 m farther back: the floor walk's stages come first, then the climb's, from
    where the walk put the feet (the climb's first stage squares the body)."""
    start = {leg: np.array(standing_feet()[leg]) - [0.10, 0.0, 0.0] for leg in LEGS}
    feet, body = dict(start), Pose(BODY.position - [0.10, 0.0, 0.0], BODY.quat)
    campaign = Campaign("f2w_all", start_time=0.5, before=WallWalk("forward", 0.10, "floor"))
    assert campaign.stages[0] == ("BODY", "floor_shift") and campaign.stages[-1] == ("BR", "b2w_br")
    assert campaign.stages[campaign.stages.index(("BODY", "body_square")) - 1] == ("BODY", "floor_shift")
    squaring = lambda campaign: campaign.phase_log and campaign.phase_log[-1][1] == "BODY_SQUARE"  # noqa: E731
    _, feet, body = drive(campaign, feet, body, until=30.0, stop=squaring)
    assert campaign.phase_log[-1][1] == "BODY_SQUARE" and not campaign.failed, campaign.message
    for leg in LEGS:
        assert feet[leg] == pytest.approx(start[leg] + [0.10, 0.0, 0.0], abs=1e-9)
    assert body.position == pytest.approx(BODY.position, abs=1e-9)
    assert campaign.walk_from is None  # a walk after the climb would be measured from its own start


def test_a_walk_before_the_climb_is_only_over_the_floor_before_f2w_all_and_not_run_again_once_a_foot_is_planted():
    with pytest.raises(SequenceError, match="a walk over the floor comes before the climb from the floor"):
        Campaign("w2c", before=WallWalk("forward", 0.10, "floor"))
    with pytest.raises(SequenceError, match="not a walk over the wall before f2w_all"):
        Campaign("f2w_all", before=WallWalk("up", 0.10))
    fl = {"FL": np.array([0.49, 0.08, 0.42])}
    resumed = Campaign("f2w_all", planted=fl, before=WallWalk("forward", 0.1, "floor"))
    assert resumed.before is None and not any(name.startswith("floor_") for _, name in resumed.stages)
