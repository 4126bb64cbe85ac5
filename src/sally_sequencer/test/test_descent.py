"""The way back down (route:=floor,wall,floor): its landing points against the model's kinematics,
and f2w_all with ``down`` on perfectly following feet."""

import mujoco
import numpy as np
import pytest

from sally_description import build_model
from sally_description.constants import ROOT_BODY
from sally_description.pose import rotation
from sally_description.reachability import CornerPose
from sally_sequencer import Campaign, FootReading
from sally_sequencer.climb import BACK_FLOOR_STEP, CLIMB_BODY, STANDING_Z
from sally_sequencer.descent import (
    BACK_LANDING,
    LANDING_FACE_OFF_DEG,
    SEAT_PHASE,
    STAGES,
    STAND_HEIGHT,
    TUCK_LEAD,
    foothold,
)
from sally_sequencer.errors import SequenceError
from sally_sequencer.sequences import FACE_FLOOR
from sally_sequencer.swing_path import landing_face_off
from sally_sequencer.wall_walk import WallWalk

HOMES = {"FL": [0.33, 0.28, 0.009], "FR": [0.33, -0.28, 0.009], "BL": [-0.33, 0.28, 0.009], "BR": [-0.33, -0.28, 0.009]}
HIPS = {"FL": [0.13, 0.08, 0.12], "FR": [0.13, -0.08, 0.12], "BL": [-0.13, 0.08, 0.12], "BR": [-0.13, -0.08, 0.12]}
LEVEL = CornerPose(0.5, 0.12365, 0.0).pose


@pytest.mark.parametrize("leg", ["BL", "BR"])
def test_a_back_foot_faces_the_floor_tucked_in_not_where_it_stepped_from(leg):
    """At the climb pose, with the passive twist at 0 (a lifted foot), the leg cannot point its face
    at the floor where the foot stepped from (it stood there face down only while the floor twisted
    it), and points it straight down at its landing point."""
    x, y = BACK_FLOOR_STEP[leg]
    step = np.array([x, y, STANDING_Z])
    assert landing_face_off(leg, LEVEL, step, FACE_FLOOR) < 1.0  # the body level: face down there
    assert abs(landing_face_off(leg, CLIMB_BODY, step, FACE_FLOOR) - LANDING_FACE_OFF_DEG) < 1.0
    x, y = BACK_LANDING[leg]
    assert landing_face_off(leg, CLIMB_BODY, np.array([x, y, STANDING_Z]), FACE_FLOOR) < 1.0


def test_the_stand_height_is_the_models_floor_start():
    model = build_model()
    data = mujoco.MjData(model)
    mujoco.mj_kinematics(model, data)
    assert STAND_HEIGHT == pytest.approx(float(data.body(ROOT_BODY).xpos[2]), abs=1e-4)


def drive(campaign: Campaign, shift: float = 0.0, until: float = 200.0, on_tick=None):
    """Step ``campaign`` with feet and body that follow their targets exactly (the hips move with
    the body); returns the feet, the body targets, the events and the fewest magnets on at once
    after the climb (every magnet on at the start). ``on_tick(tick, campaign)`` after each step."""
    side = np.array([0.0, shift, 0.0])
    feet = {f: np.array(p, float) + side for f, p in HOMES.items()}
    hips = {f: np.array(p, float) + side for f, p in HIPS.items()}
    magnets = dict.fromkeys(HOMES, True)
    t, bodies, events, fewest = 0.0, [], [], 4
    while t < until and not campaign.done:
        tick = campaign.step(t, {f: FootReading(feet[f], hips[f]) for f in feet})
        if on_tick is not None:
            on_tick(tick, campaign)
        events += tick.events
        magnets.update(tick.magnets)
        if any("DOWN_RELEASE" in e for e in events):
            fewest = min(fewest, sum(magnets.values()))
        if tick.target is not None:
            feet[tick.target[0]] = tick.target[1].position.copy()
        if tick.body is not None:
            bodies.append(tick.body)
            hips = {f: tick.body.position + rotation(tick.body.quat) @ (np.array(HIPS[f]) - [0, 0, 0.12]) for f in HIPS}
        t = round(t + 0.005, 3)
    return feet, bodies, events, fewest


@pytest.mark.parametrize(("sequence", "shift"), [("f2w_all", 0.0), ("f2w_all", 0.009), ("w2c", 0.0)])
def test_the_way_down_lands_every_foot_on_its_foothold_and_ends_standing_where_the_climb_began(sequence, shift):
    """w2c's is the same in its corner's frame: back onto the wall from the ceiling."""
    campaign = Campaign(sequence, 0.5, 3.0, 1.0, down=True)
    assert campaign.stages[-len(STAGES) :] == STAGES
    feet, bodies, events, fewest = drive(campaign, shift)
    assert campaign.done and not campaign.failed, campaign.message
    assert campaign.planted == {} and set(campaign.stance.values()) == {"POSITION"}
    assert fewest == 3  # one foot off a plate at a time, from the first release on
    down = events[next(i for i, e in enumerate(events) if "DOWN_RELEASE" in e) :]
    assert [e.split()[0] for e in down if "stepped on the floor" in e] == ["BR", "BL", "FR", "FL", "BR", "BL"]
    assert abs(bodies[-1].pitch_deg) < 1e-6 and bodies[-1].position == pytest.approx([0.0, shift, STAND_HEIGHT])
    for leg, home in HOMES.items():  # where the feet stood at the floor start (the model's, to 1 mm)
        assert feet[leg][:2] == pytest.approx(np.array(home[:2]) + [0.0, shift], abs=1e-3), leg
    for leg in ("BL", "BR"):  # each back foot landed tucked in first
        landed = [e for e in down if e.startswith(f"{leg} stepped")]
        assert len(landed) == 2
    assert foothold("BL", shift)[1] == pytest.approx(shift + 0.08)


@pytest.mark.parametrize("sequence", ["f2w_all", "w2c"])  # w2c: the then climb of floor,wall,ceiling,wall too
def test_a_restarted_sequencer_with_feet_on_the_wall_does_not_resume_the_way_down(sequence):
    """The climb and the way down pass through the same stances: a sequencer started again with feet
    planted cannot tell which it was in, and stops without sending anything."""
    campaign = Campaign(sequence, 0.5, 3.0, 1.0, planted={"FL": np.zeros(3)}, down=True)
    assert campaign.failed and "does not resume" in campaign.message
    tick = campaign.step(1.0, {f: FootReading(np.array(p), np.array(HIPS[f])) for f, p in HOMES.items()})
    assert tick.target is None and tick.body is None and not tick.magnets


@pytest.mark.parametrize(
    "sequence, walk", [("f2w", None), ("f2w_all", WallWalk()), ("w2c", WallWalk()), ("wall_walk", WallWalk())]
)
def test_the_way_down_follows_only_a_climb_with_all_four_feet(sequence, walk):
    with pytest.raises(
        SequenceError, match=r"^the climb back down follows a climb with all four feet \(f2w_all, w2c\)"
    ):
        Campaign(sequence, walk=walk, down=True)


def test_the_climb_before_the_way_down_is_f2w_all_stage_for_stage():
    """BODY_SQUARE included, which f2w_all always runs (it puts the IK's stance faces flat from the
    first tick): the way down appends stages, it does not change the climb's."""
    down = Campaign("f2w_all", down=True)
    assert down.stages[: -len(STAGES)] == Campaign("f2w_all").stages
    _, _, events, _ = drive(down, until=1.0)
    assert any("BODY_SQUARE" in e for e in events)


def test_a_tucked_in_back_foot_is_held_aimed_off_its_foothold_until_its_magnet_pulls_it_on():
    """The magnet pulls a tucked-in foot's face flat about the rim that touched first, 1.2-1.9 mm
    along x: the seat holds it TUCK_LEAD off until the magnet is on, then targets the foothold."""
    seats: dict[str, list[tuple[bool, np.ndarray]]] = {"BR": [], "BL": []}
    on: dict[str, bool] = {}

    def note(tick, campaign) -> None:
        on.update(tick.magnets)
        if tick.target is None or campaign.runner is None or campaign.runner.phase.name != SEAT_PHASE:
            return
        foot, target = tick.target
        name = campaign.stages[campaign.stage][1]
        if name in ("down_br", "down_bl"):
            seats[foot].append((on.get(foot, False), target.position.copy()))

    campaign = Campaign("f2w_all", 0.5, 3.0, 1.0, down=True)
    drive(campaign, on_tick=note)
    assert campaign.done and not campaign.failed, campaign.message
    for foot, targets in seats.items():
        before = [target for magnet, target in targets if not magnet]
        after = [target for magnet, target in targets if magnet]
        assert before and after, foot
        assert after[-1] == pytest.approx(foothold(foot, 0.0), abs=1e-9)  # the plan's foothold, judged
        assert before[-1] == pytest.approx(foothold(foot, 0.0) + TUCK_LEAD, abs=1e-9)  # aimed off
        assert np.linalg.norm(before[-1] - after[-1]) == pytest.approx(0.0015, abs=1e-9)
