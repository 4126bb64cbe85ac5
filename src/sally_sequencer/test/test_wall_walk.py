"""The wall walk's plan and campaign on perfectly following feet and body: no MuJoCo, no ROS."""

import numpy as np
import pytest

from sally_description.pose import Pose
from sally_description.wall_start import WALL_STANCE
from sally_sequencer import Campaign, FootReading, SequenceError
from sally_sequencer.wall_stand import WallStand
from sally_sequencer.wall_walk import FOOT_ORDER, STEP, WallWalk

LEGS = ("FL", "FR", "BL", "BR")
HIP_OFFSETS = {"FL": (0.13, 0.08), "FR": (0.13, -0.08), "BL": (-0.13, 0.08), "BR": (-0.13, -0.08)}
"""The hip sites in main_frame (m): ahead and to the left."""


def hips(body: Pose) -> dict[str, np.ndarray]:
    """The hip pivots of a body at ``body`` (main_frame's x ahead, y left)."""
    return {leg: body.to_world(np.array([x, y, 0.0])) for leg, (x, y) in HIP_OFFSETS.items()}


def walk(direction: str, distance: float, planted=True, until=60.0, dt=0.005):
    """Drive a wall_walk campaign: each swing foot goes where it is told, the body where it is told.
    Returns the campaign, every tick, the feet and the body at the end."""
    feet = {leg: WALL_STANCE.foot(leg) for leg in LEGS}
    body = WALL_STANCE.body
    campaign = Campaign(
        "wall_walk", start_time=0.5, planted=dict(feet) if planted else None, walk=WallWalk(direction, distance)
    )
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
        if campaign.done:
            break
    return campaign, ticks, feet, body


@pytest.mark.parametrize("direction, unit", [("up", (0, 0, 1)), ("left", (0, 1, 0)), ("right", (0, -1, 0))])
def test_a_walk_moves_the_body_and_every_foot_its_distance(direction, unit):
    campaign, ticks, feet, body = walk(direction, 0.30)
    assert campaign.done and not campaign.failed, campaign.message
    move = 0.30 * np.array(unit, float)
    assert body.position == pytest.approx(WALL_STANCE.body.position + move, abs=1e-9)
    for leg in LEGS:
        assert feet[leg] == pytest.approx(WALL_STANCE.foot(leg) + move, abs=1e-9)
    # each of the 16 stages ends on the first 5 ms tick at or past its time: up to a tick late each
    planned = 0.5 + WallWalk(direction, 0.30).duration + campaign.timing.hold
    assert planned <= campaign.done_at <= planned + 16 * 0.005 + 1e-9


def test_one_foot_moves_at_a_time_with_its_magnet_off_and_three_hold():
    campaign, ticks, _, _ = walk("up", 0.20)
    magnets = {leg: True for leg in LEGS}
    stance = {leg: "POSE" for leg in LEGS}
    order = []
    for _, tick in ticks:
        before = dict(stance)
        magnets.update(tick.magnets)
        if tick.stance:
            stance = tick.stance
        if tick.body is not None:  # every foot holds (a shift's last target shares its tick with the next step's start)
            held = stance if all(mode == "POSE" for mode in stance.values()) else before
            assert all(mode == "POSE" for mode in held.values())
        assert sum(magnets.values()) >= 3
        swinging = [leg for leg, mode in stance.items() if mode == "SWING"]
        assert len(swinging) <= 1
        if swinging and (not order or order[-1] != swinging[0]):
            order.append(swinging[0])
        if tick.target is not None:
            assert stance[tick.target[0]] == "SWING"
    assert order == list(FOOT_ORDER["up"]) * 2
    switches = [(foot, on) for _, tick in ticks for foot, on in tick.magnets.items()]
    assert switches == [(foot, on) for foot in order for on in (False, True)]  # off to step, on to hold


def test_the_steps_split_the_distance_evenly_and_no_step_is_longer_than_the_limit():
    assert WallWalk("up", 0.30).steps() == pytest.approx([0.10] * 3)
    assert WallWalk("left", 0.25).steps() == pytest.approx([0.25 / 3] * 3)
    assert WallWalk("down", 0.05).steps() == pytest.approx([0.05])
    stages = WallWalk("up", 0.30).stages()
    shifts = [float(move[2]) for who, _, move in stages if who == "BODY"]
    assert shifts == pytest.approx([0.05, 0.10, 0.10, 0.05])
    assert all(np.linalg.norm(move) <= STEP + 1e-12 for _, _, move in stages)


@pytest.mark.parametrize(
    "direction, distance, match",
    [
        ("sideways", 0.3, "direction 'sideways'"),
        ("up", 0.0, "distance"),
        ("up", 1.5, "distance"),
        ("up", float("nan"), "distance"),
    ],
)
def test_a_bad_walk_is_refused_naming_what_is_wrong(direction, distance, match):
    with pytest.raises(SequenceError, match=match):
        WallWalk(direction, distance)


def test_a_walk_from_the_floor_fails_naming_the_start_it_needs():
    campaign, _, _, _ = walk("up", 0.30, planted=False, until=1.0)
    assert campaign.failed and "start:=wall" in campaign.message


def test_a_walk_with_only_some_feet_on_the_wall_fails_naming_them():
    feet = {leg: WALL_STANCE.foot(leg) for leg in LEGS}
    campaign = Campaign("wall_walk", planted={"FL": feet["FL"], "FR": feet["FR"]}, walk=WallWalk("up", 0.30))
    campaign.step(0.5, {f: FootReading(feet[f], hips(WALL_STANCE.body)[f]) for f in LEGS})
    assert campaign.failed and "every foot planted on the wall (start:=wall); planted: ['FL', 'FR']" in campaign.message


def test_a_walk_that_would_take_a_magnet_off_the_steel_fails_before_a_foot_moves():
    campaign, ticks, _, _ = walk("up", 0.40, until=1.0)
    assert campaign.failed and "takes FL's magnet off the wall's steel; from here at most 0.329 m" in campaign.message
    assert not any(tick.magnets or tick.target or tick.body for _, tick in ticks)


def _compressed(spacing: float) -> dict[str, np.ndarray]:
    """The wall stance with the front feet ``spacing`` m ahead of the back ones (a climb leaves 0.31)."""
    feet = {leg: WALL_STANCE.foot(leg) for leg in LEGS}
    for leg in ("FL", "FR"):
        feet[leg] = feet[leg] - np.array([0.0, 0.0, 2 * WALL_STANCE.reach - spacing])
    return feet


def test_the_spread_steps_the_leading_feet_until_the_stance_spans_the_wall_start_s():
    walk_up = WallWalk("up", 0.30)
    assert walk_up.span() == pytest.approx(2 * WALL_STANCE.reach)
    assert walk_up.spread({leg: WALL_STANCE.foot(leg) for leg in LEGS}) == pytest.approx(0.0, abs=1e-12)
    assert walk_up.spread(_compressed(0.31)) == pytest.approx(2 * WALL_STANCE.reach - 0.31)
    assert WallWalk("left", 0.1).span() == pytest.approx(2 * WALL_STANCE.side)
    stages = walk_up.spread_stages()
    assert [(who, name) for who, name, _ in stages] == [(who, "wall_spread") for who in ("FL", "FR", "BODY")]
    with pytest.raises(SequenceError, match="takes a step of 240 mm, longer than 220"):
        walk_up.spread(_compressed(0.24))


def test_a_walk_follows_only_a_climb_onto_the_surface_it_walks():
    with pytest.raises(SequenceError, match="f2w ends where no walk follows: a walk follows f2w_all, w2c"):
        Campaign("f2w", walk=WallWalk("up", 0.30))
    with pytest.raises(SequenceError, match="a stand follows a walk after a climb onto the wall"):
        Campaign("w2c", walk=WallWalk("up", 0.30), stand=WallStand())
    for climb_onto in ("f2w_all", "w2c"):  # the wall, the ceiling (the wall of corner3's frame)
        campaign = Campaign(climb_onto, walk=WallWalk("up", 0.30))
        names = [name for _, name in campaign.stages]
        climb = len(Campaign(climb_onto).stages)
        assert names[climb : climb + 3] == ["wall_spread"] * 3 and names[climb + 3] == "wall_shift"
        assert len(names) == climb + 3 + len(WallWalk("up", 0.30).stages())


def after_a_climb(walk: WallWalk, on_tick=None, stand=None, until: float = 90.0, dt: float = 0.005):
    """Drive a campaign whose climb is done (every foot planted, as a restarted sequencer finds it)
    with the back feet 0.31 m behind, then ``walk`` (and ``stand``), on perfectly following feet and
    body; ``on_tick(tick, campaign, body)`` after each step. Returns the campaign, the feet where they
    began and ended, and the body."""
    feet = _compressed(0.31)
    spread = 2 * WALL_STANCE.reach - 0.31
    body = Pose(WALL_STANCE.body.position - np.array([0.0, 0.0, spread / 2]), WALL_STANCE.body.quat)
    campaign = Campaign("f2w_all", planted=dict(feet), walk=walk, stand=stand)
    start = {leg: feet[leg].copy() for leg in LEGS}
    for k in range(round(until / dt) + 1):
        t = round(k * dt, 9)
        tick = campaign.step(t, {f: FootReading(feet[f], hips(body)[f]) for f in LEGS})
        if tick.target is not None:
            feet[tick.target[0]] = tick.target[1].position.copy()
        if tick.body is not None:
            body = tick.body
        if on_tick is not None:
            on_tick(tick, campaign, body)
        if campaign.done:
            break
    return campaign, start, feet, body


def test_after_a_climb_the_stance_is_spread_then_walked_and_the_walk_measured_from_the_spread_body():
    """The front feet step up by the spread, the body by half of it, then the walk."""
    spread = 2 * WALL_STANCE.reach - 0.31
    spread_bodies: list[np.ndarray] = []

    def note(tick, campaign, body) -> None:
        if not spread_bodies and campaign.walk_from is not None:
            spread_bodies.append(campaign.walk_from.copy())

    campaign, start, feet, body = after_a_climb(WallWalk("up", 0.20), note, until=60.0)
    spread_body = spread_bodies[0] if spread_bodies else None
    assert campaign.done and not campaign.failed, campaign.message
    up = np.array([0.0, 0.0, 1.0])
    for leg in ("FL", "FR"):
        assert feet[leg] == pytest.approx(start[leg] + (spread + 0.20) * up, abs=1e-9)
    for leg in ("BL", "BR"):
        assert feet[leg] == pytest.approx(start[leg] + 0.20 * up, abs=1e-9)
    assert spread_body == pytest.approx(WALL_STANCE.body.position, abs=1e-6)  # the spread centred the body
    assert body.position == pytest.approx(spread_body + 0.20 * up, abs=1e-9)
    phases = [phase for _, phase, _ in campaign.phase_log]
    assert phases.index("WALL_SPREAD") < phases.index("WALL_SHIFT")
