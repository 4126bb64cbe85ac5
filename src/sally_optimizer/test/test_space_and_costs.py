"""The search space transform and the scenario costs (pure)."""

import math

import numpy as np
import pytest

from sally_bringup.run_record import FootSample, MagnetSample, RunRecord
from sally_description.params import PARAM_SPACE, PhysicsParams
from sally_optimizer import scenarios as sc
from sally_optimizer.space import decode, encode


def test_encode_decode_round_trip_and_bounds():
    p = PhysicsParams()
    x = encode(p)
    assert x.shape == (14,) and ((0 <= x) & (x <= 1)).all()
    back = decode(x)
    for dim in PARAM_SPACE:
        assert getattr(back, dim.name) == pytest.approx(getattr(p, dim.name), rel=1e-9)
    low, high = decode(np.zeros(14)), decode(np.ones(14))
    for dim in PARAM_SPACE:
        assert getattr(low, dim.name) == pytest.approx(dim.low) and getattr(high, dim.name) == pytest.approx(dim.high)
    assert isinstance(decode(np.full(14, 0.503)).noslip_iterations, int)


def test_log_dimensions_are_uniform_in_log_space():
    br = next(i for i, d in enumerate(PARAM_SPACE) if d.name == "Br")
    x = np.full(14, 0.5)
    mid = decode(x).Br
    assert mid == pytest.approx(math.sqrt(0.5 * 2.0))  # geometric mean of [0.5, 2.0]
    assert PARAM_SPACE[br].log


def test_decode_refuses_bad_points():
    with pytest.raises(ValueError, match="14 finite"):
        decode(np.full(13, 0.5))
    with pytest.raises(ValueError, match="finite"):
        decode(np.full(14, np.nan))


def test_costs_follow_the_seed_weights():
    assert sc.floor_cost({"mean_norm": 0.01, "mean_neg_z": 0.002, "zero_contact_frac": 0.5}) == pytest.approx(
        0.003 + 0.0006 + 0.2
    )
    assert sc.wall_cost({"fl_norm": 0.0, "fl_into_x": 0.01, "zero_contact_frac": 0.0}) == pytest.approx(0.003)
    assert sc.pulloff_cost({"pulloff_force": 600.0, "clip": 800.0}) == pytest.approx(0.25)
    assert sc.pulloff_cost({"pulloff_force": 900.0, "clip": 800.0}) == 0.0
    assert sc.pulloff_cost({"pulloff_force": 0.0, "clip": 800.0}) == sc.NO_ADHESION
    assert sc.combined_cost({"floor": 1.0, "wall": 2.0, "pulloff": 3.0}) == pytest.approx(0.4 + 0.8 + 0.6)


def _record(drop_fr: float, lose_contact_after: float | None):
    rec = RunRecord()
    rec.phases = [(0.0, "", "SETTLE"), (1.0, "FL", "LIFT"), (2.0, "FL", "LIFT_HOLD")]
    rec.result = {"t": 3.0, "done": True, "failed": False, "message": ""}
    home = {f: np.array([0.1 * i, 0.0, 0.0]) for i, f in enumerate(("FL", "FR", "BL", "BR"))}
    for k in range(0, 301):
        t = k * 0.01
        pos = {f: p.copy() for f, p in home.items()}
        if t >= 2.0:
            pos["FR"][2] -= drop_fr
        rec.feet.append(FootSample(t, pos, {}, {}))
        contact = lose_contact_after is None or t < lose_contact_after
        rec.magnets.append(MagnetSample(t, {}, {}, {}, {f: contact or f != "BL" for f in home}))
    return rec


def test_floor_metrics_from_a_record():
    m = sc.floor_metrics(_record(0.003, None))
    assert m["mean_norm"] == pytest.approx(0.001)  # FR drifted 3 mm, BL/BR 0: mean over the three
    assert m["mean_neg_z"] == pytest.approx(0.001)
    assert m["zero_contact_frac"] == 0.0
    m = sc.floor_metrics(_record(0.0, 2.5))
    assert m["zero_contact_frac"] == pytest.approx(0.5, abs=0.02)  # BL lost contact half-way through the hold


def test_distances_are_capped_so_a_penalty_is_the_worst_score():
    m = sc.floor_metrics(_record(5.0, None))
    assert m["mean_norm"] == sc.MAX_DISTANCE
    assert sc.floor_cost(m) <= sc.floor_cost(sc.PENALISED["floor"])


def test_a_record_without_the_hold_cannot_be_scored():
    rec = _record(0.0, None)
    rec.phases = rec.phases[:2]
    with pytest.raises(sc.MetricsError, match="LIFT_HOLD"):
        sc.floor_metrics(rec)


def test_a_node_that_failed_is_named_with_its_own_words():
    from types import SimpleNamespace

    from sally_optimizer.evaluation import broken

    refusal = "sim exited with 2: sim: cannot start: another node named /sally_sim is already running"
    report = {"exit_codes": {"sim": 2, "ik": 0}, "problems": [refusal, "FL plant 3 mm", "node exit codes {'sim': 2}"]}
    why = broken(SimpleNamespace(report=report, exit_code=1))
    assert why == f"node exit codes {{'sim': 2}}; {refusal}"
    assert broken(SimpleNamespace(report={"exit_codes": {"sim": 0}, "problems": []}, exit_code=0)) == ""
