"""The run record the composed container hands the runner round-trips through its file."""

import json

import numpy as np

from sally_bringup.record_file import read_record, record_from_dict, record_to_dict, write_record
from sally_bringup.report import build_report
from sally_bringup.run_record import FootSample, MagnetSample, RunRecord


def sample_record() -> RunRecord:
    rng = np.random.default_rng(7)
    feet = ("FL", "FR", "BL", "BR")
    record = RunRecord()
    for i in range(5):
        record.feet.append(
            FootSample(
                0.005 * i,
                {f: rng.normal(size=3) for f in feet},
                {f: (i + k) % 3 for k, f in enumerate(feet)},
                {f: bool((i + k) % 2) for k, f in enumerate(feet)},
                {f: rng.normal(size=3) for f in feet},
            )
        )
        record.magnets.append(
            MagnetSample(
                0.02 * i,
                {f: float(rng.uniform(0, 800)) for f in feet},
                {f: True for f in feet},
                {f: "wall" if f == "FL" else "floor" for f in feet},
                {f: i > 2 for f in feet},
                {f: float(rng.uniform(0, 50)) for f in feet},
            )
        )
    record.targets = [(0.1, "FL", "F2W_REACH", rng.normal(size=3))]
    record.phases = [(0.005, "BL", "SETTLE"), (0.5, "FL", "LIFT")]
    record.result = {"done": True, "failed": False, "message": "f2w done: FL, FR planted", "t": 0.02}
    record.pacing = {"effective_factor": 1.0}
    record.divergence, record.divergence_t = "simulation diverged at t = 0.0300 s: a velocity of 1e5", 0.03
    record.status_t = 0.02
    record.recording_stopped = "disk full"
    record.reset_at = 3.0
    return record


def test_a_record_round_trips_through_json(tmp_path):
    record = sample_record()
    path = tmp_path / "record.json"
    write_record(record, path)
    back = read_record(path)
    assert json.dumps(record_to_dict(back)) == json.dumps(record_to_dict(record))
    assert not list(tmp_path.glob("*.partial"))
    for a, b in zip(record.feet, back.feet, strict=True):
        assert a.t == b.t and a.mode == b.mode and a.in_contact == b.in_contact
        assert all(
            np.array_equal(a.position[f], b.position[f]) and np.array_equal(a.hips[f], b.hips[f]) for f in a.position
        )
    assert np.array_equal(back.targets[0][3], record.targets[0][3])
    assert build_report(back, "f2w", 1.0, {}) == build_report(record, "f2w", 1.0, {})


def test_an_empty_record_round_trips():
    assert record_to_dict(record_from_dict(record_to_dict(RunRecord()))) == record_to_dict(RunRecord())
