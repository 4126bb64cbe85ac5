"""The climb's plan against the model's kinematics, and f2w_all's stages on perfectly following feet."""

import numpy as np
import pytest

from sally_description.pose import rotation
from sally_sequencer import Campaign, FootReading
from sally_sequencer.climb import BACK_LIFT_START, BACK_STAGING, plant_point
from sally_sequencer.reach_map import check_plan
from sally_sequencer.swing_path import CLEARANCE, housing_low

HOMES = {"FL": [0.33, 0.28, 0.009], "FR": [0.33, -0.28, 0.009], "BL": [-0.33, 0.28, 0.009], "BR": [-0.33, -0.28, 0.009]}
HIPS = {"FL": [0.13, 0.08, 0.12], "FR": [0.13, -0.08, 0.12], "BL": [-0.13, 0.08, 0.12], "BR": [-0.13, -0.08, 0.12]}


def test_the_plan_holds_every_foot_along_the_body_path_and_reaches_the_wall_with_the_back_feet():
    from sally_description import build_model

    path, backs = check_plan(build_model())
    assert [p.pose.pitch_deg for p in (path[0], path[-1])] == [0.0, 90.0]  # the steps went through
    assert all(all(p.held.values()) for p in path), [p.held for p in path if not all(p.held.values())]
    assert all(ok for ok, _ in backs.values())


@pytest.mark.parametrize("sequence, shift", [("f2w_all", 0.0), ("f2w_all", 0.009), ("w2c", 0.0)])
def test_f2w_all_steps_the_back_feet_moves_the_body_then_puts_bl_and_br_on_the_wall(sequence, shift):
    """Feet and body follow their targets exactly (the hips move with the body). A robot standing
    ``shift`` off y = 0 climbs there: the body keeps its y, the back feet step and plant beside it
    (a body pulled back to y = 0 dragged a wall foot against its hip stop). w2c is the same climb in
    its corner's frame."""
    campaign = Campaign(sequence, 0.5, 3.0, 1.0)
    side = np.array([0.0, shift, 0.0])
    feet = {f: np.array(p, float) + side for f, p in HOMES.items()}
    hips = {f: np.array(p, float) + side for f, p in HIPS.items()}
    t, bodies, events, swings, stepped, lifts = 0.0, [], [], {"BL": [], "BR": []}, {}, {}
    while t < 80.0 and not campaign.done:
        tick = campaign.step(t, {f: FootReading(feet[f], hips[f]) for f in feet})
        events += tick.events
        if tick.target is not None:
            feet[tick.target[0]] = tick.target[1].position.copy()
            if campaign.runner is not None and campaign.runner.phase.name == "BACK_SWING":
                swings[tick.target[0]].append(tick.target[1])
            if campaign.runner is not None and campaign.runner.phase.name == "BACK_LIFT":
                lifts.setdefault(tick.target[0], (campaign.runner.ctx.ee_home, tick.target[1].position))
        if tick.body is not None:
            bodies.append(tick.body)
            hips = {f: tick.body.position + rotation(tick.body.quat) @ (np.array(HIPS[f]) - [0, 0, 0.12]) for f in HIPS}
        for event in tick.events:
            if "stepped on the floor" in event:
                stepped[event.split()[0]] = feet[event.split()[0]].copy()
        t = round(t + 0.005, 3)
    assert campaign.done and not campaign.failed, campaign.message
    assert list(campaign.planted) == ["FL", "FR", "BL", "BR"]
    assert bodies and bodies[0].pitch_deg < 1.0 and abs(bodies[-1].pitch_deg - 90.0) < 1e-6
    assert bodies[-1].position[1] == pytest.approx(shift, abs=1e-9)  # sideways where it stood
    assert stepped["BL"][1] == pytest.approx(shift + 0.28) and stepped["BR"][1] == pytest.approx(shift - 0.28)
    order = [e for e in events if "stepped on the floor" in e or "BODY_MOVE" in e or "BACK_LIFT" in e or "planted" in e]
    assert [e.split()[0] for e in order] == ["BL", "BR", "FL", "FR", "BODY", "BL", "BL", "BR", "BR"]
    for foot, (floor, first) in lifts.items():  # a back foot's target leaves the floor at once
        assert first - floor == pytest.approx([0.0, 0.0, BACK_LIFT_START], abs=1e-6), foot
    assert sorted(lifts) == ["BL", "BR"]
    for foot, targets in swings.items():  # the joint-space swing: from the lifted foot to the staging point
        staging = plant_point(foot, shift) - [BACK_STAGING, 0.0, 0.0]
        assert targets[-1].position == pytest.approx(staging, abs=2e-3)
        assert targets[-1].face_axis == pytest.approx([1.0, 0.0, 0.0], abs=0.05)
        positions = np.array([x.position for x in targets])
        faces = np.array([x.face_axis for x in targets])
        assert housing_low(foot, positions, faces).min() >= CLEARANCE - 1e-6  # the magnet clear of the floor
        steps = [np.linalg.norm(b.position - a.position) for a, b in zip(targets, targets[1:])]
        assert max(steps) < 0.005  # no jump for the IK to chase (5 ms apart)


def turned(points, deg):
    c, s = np.cos(np.radians(deg)), np.sin(np.radians(deg))
    return {f: np.array([c * p[0] - s * p[1], s * p[0] + c * p[1], p[2]]) for f, p in points.items()}


def test_f2w_squares_a_turned_body_to_the_wall_first_and_leaves_a_square_one_alone():
    for deg, squares in ((2.0, True), (0.3, False)):
        campaign = Campaign("f2w", 0.5, 3.0, 1.0)
        feet, hips = turned(HOMES, deg), turned(HIPS, deg)
        t, bodies, events = 0.0, [], []
        while t < 4.0:
            tick = campaign.step(t, {f: FootReading(feet[f], hips[f]) for f in feet})
            events += tick.events
            if tick.body is not None:
                bodies.append(tick.body)
            t = round(t + 0.005, 3)
        assert any("BODY_SQUARE" in e for e in events) == squares, (deg, events)
        assert any("FL LIFT" in e for e in events)  # FL's f2w follows either way
        if squares:
            assert bodies[0].yaw_deg == pytest.approx(deg, abs=1e-6)
            assert bodies[-1].yaw_deg == pytest.approx(0.0, abs=1e-6)
        else:
            assert not bodies
