"""SeatTrim alone and in F2W_REACH, on a foot that lands beside wherever it is sent: no MuJoCo, no ROS."""

import numpy as np
import pytest

from sally_sequencer import PhaseContext, SequenceError, SequenceRunner, make_sequence
from sally_sequencer.phase_state import Move
from sally_sequencer.seat_trim import TRIM_LIMIT, SeatTrim
from sally_sequencer.sequences import FACE_WALL, REACH_TIME, SEAT_SETTLE, SEAT_TIME

BIAS = np.array([0.0, -0.004, 0.001])
"""Where a lagging leg puts the foot relative to its target: 4 mm along the wall, 1 mm low."""


def follow(trim, nominal, times, bias=BIAS, along=(0.0, 0.0, 0.0)):
    """The foot goes where it was last sent, plus ``bias`` and ``along``; returns it at the end."""
    along = np.asarray(along)
    foot = nominal + bias + along
    for t in times:
        foot = trim.update(t, nominal, foot) + bias + along
    return foot


def test_a_constant_lag_in_the_plate_plane_is_closed():
    nominal = np.array([0.49, 0.22, 0.10])
    foot = follow(SeatTrim(FACE_WALL), nominal, np.arange(0.0, 2.0, 0.005))
    assert np.linalg.norm(foot - nominal) < 1e-4  # 4.1 mm off without the trim


def test_the_normal_is_left_to_the_plate():
    """The plate stops the foot along its normal: an error there is not chased (it would wind up)."""
    trim = SeatTrim(np.array([2.0, 0.0, 0.0]))  # any length
    nominal = np.array([0.49, 0.22, 0.10])
    foot = follow(trim, nominal, np.arange(0.0, 2.0, 0.005), along=np.array([-0.003, 0.0, 0.0]))
    assert trim.offset[0] == 0.0
    assert foot - nominal == pytest.approx([-0.003, 0.0, 0.0], abs=1e-4)


def test_the_trim_is_bounded():
    trim = SeatTrim(FACE_WALL)
    nominal = np.array([0.49, 0.22, 0.10])
    for t in np.arange(0.0, 5.0, 0.005):  # a foot that never moves: 5 cm off, nothing a trim can close
        trim.update(t, nominal, nominal + [0.0, 0.05, 0.0])
    assert np.linalg.norm(trim.offset) == pytest.approx(TRIM_LIMIT)


def test_bad_arguments_are_refused():
    with pytest.raises(SequenceError, match="normal must be a finite non-zero 3-vector"):
        SeatTrim(np.zeros(3))
    with pytest.raises(SequenceError, match="rate and limit must be non-negative"):
        SeatTrim(FACE_WALL, rate=-1.0)
    trim = SeatTrim(FACE_WALL)
    trim.update(1.0, np.zeros(3), np.zeros(3))
    with pytest.raises(SequenceError, match="time went back"):
        trim.update(0.5, np.zeros(3), np.zeros(3))


def test_reach_seats_a_lagging_foot_on_its_plant_point_and_then_asks_for_the_plan():
    """F2W_REACH trims until the magnet goes on; from then on its target is the plant point itself
    (the magnet holds the foot where it landed, and the report measures against the plan)."""
    ee = np.array([0.33, 0.28, 0.4])
    magnet = []
    ctx = PhaseContext(
        foot="FL",
        ee_home=ee.copy(),
        ee_pos_fn=lambda: ee.copy(),
        hip_pivot_fn=lambda: np.array([0.13, 0.08, 0.12]),
        enable_magnet=lambda: magnet.append("on"),
        disable_magnet=lambda: magnet.append("off"),
    )
    phases = make_sequence("f2w")[3:]  # F2W_MEASURE, F2W_REACH from a foot already facing the wall
    ctx.state.orient = Move(ee.copy(), ee.copy())
    runner = SequenceRunner(phases, ctx, 0.0)
    on = REACH_TIME + SEAT_TIME + SEAT_SETTLE
    seated = None
    for t in np.arange(0.0, on + 1.0, 0.005):
        t = round(float(t), 9)
        target = runner.step(t)
        if magnet and seated is None:
            seated = ee.copy()  # where the magnet found the foot
        if not magnet:
            ee[:] = target.position + BIAS
    plant = ctx.state.reach.plant
    assert magnet == ["on"]
    assert np.linalg.norm(seated - plant) < 2e-4
    assert target.position == pytest.approx(plant)
