"""The run record the composed container hands the runner round-trips through its file, every
field of it."""

import dataclasses

import numpy as np
import pytest

from sally_bringup.record_file import RecordFileError, read_record, write_record
from sally_bringup.report import build_report
from sally_bringup.run_record import FootSample, MagnetSample, RunRecord
from sally_description.pose import Pose
from sally_sequencer.route_run import route_plan


def sample_record(n: int = 5) -> RunRecord:
    """A record with every field away from its default."""
    rng = np.random.default_rng(7)
    feet = ("FL", "FR", "BL", "BR")
    record = RunRecord()
    for i in range(n):
        record.feet.append(
            FootSample(
                0.005 * i,
                {f: rng.normal(size=3) for f in feet},
                {f: (i + k) % 3 for k, f in enumerate(feet)},
                {f: bool((i + k) % 2) for k, f in enumerate(feet)},
                {f: rng.normal(size=3) for f in feet},
                "corner" if i > 2 else "world",
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
        stamp = 5_000_000 * i
        record.believed[stamp] = Pose(rng.normal(size=3), [1.0, 0.0, 0.0, 0.0])
        record.truth[stamp] = Pose(rng.normal(size=3), [0.0, 1.0, 0.0, 0.0])
        record.truth_feet[stamp] = rng.normal(size=(8, 3))
    record.targets = [(0.1, "FL", "F2W_REACH", rng.normal(size=3)), (0.2, "FR", "LIFT", rng.normal(size=3))]
    record.phases = [(0.005, "BL", "SETTLE"), (0.5, "FL", "LIFT")]
    record.result = {"done": True, "failed": False, "message": "f2w done: FL, FR planted", "t": 0.02}
    record.pacing = {"effective_factor": 1.0}
    record.pulloff = {"foot": "FL", "pulloff_force": 612.5, "detach_threshold": 5.0}
    record.divergence, record.divergence_t = "simulation diverged at t = 0.0300 s: a velocity of 1e5", 0.03
    record.status_t = 0.02
    record.recording_stopped = "disk full"
    record.reset_at = 3.0
    record.fallbacks = {"sally_sim: lockstep_timeouts": 2}
    return record


def same(a, b) -> bool:
    """Equal all the way down, arrays by value, and of the same kinds (a Python float stays one)."""
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        return type(a) is type(b) and all(same(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a))
    if isinstance(a, Pose):
        return isinstance(b, Pose) and same(a.position, b.position) and same(a.quat, b.quat)
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and a.dtype == b.dtype and np.array_equal(a, b)
    if isinstance(a, dict):
        return isinstance(b, dict) and list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def test_every_field_of_a_record_round_trips(tmp_path):
    record = sample_record()
    defaults = RunRecord()
    assert all(not same(getattr(record, f.name), getattr(defaults, f.name)) for f in dataclasses.fields(RunRecord))
    path = tmp_path / "record.npz"
    write_record(record, path)
    back = read_record(path)
    assert same(back, record)
    assert not list(tmp_path.glob("*.partial"))
    assert build_report(back, route_plan("f2w"), 1.0, {}) == build_report(record, route_plan("f2w"), 1.0, {})


def test_the_checker_tells_a_lost_field():
    """``same`` is what the round trip is held to: a field the file dropped (the wall-clock
    fallbacks once were), or a float come back as a NumPy scalar, is told."""
    record = sample_record()
    assert not same(dataclasses.replace(record, fallbacks={}), record)
    feet = [dataclasses.replace(record.feet[0], t=np.float64(record.feet[0].t)), *record.feet[1:]]
    assert not same(dataclasses.replace(record, feet=feet), record)


def test_an_empty_record_round_trips(tmp_path):
    write_record(RunRecord(), tmp_path / "record.npz")
    assert same(read_record(tmp_path / "record.npz"), RunRecord())


def test_a_foot_sample_without_its_hips_keeps_them_missing(tmp_path):
    """Samples need not carry the same keys: one without hip pivots comes back without them."""
    record = sample_record(3)
    record.feet[1] = dataclasses.replace(record.feet[1], hips={})
    write_record(record, tmp_path / "record.npz")
    back = read_record(tmp_path / "record.npz")
    assert back.feet[1].hips == {} and same(back.feet[2], record.feet[2])


@pytest.mark.parametrize("content", [b"", b"not a zip file at all", b"PK\x03\x04cut short"])
def test_a_file_that_is_not_a_record_is_refused_by_name(tmp_path, content):
    path = tmp_path / "record.npz"
    path.write_bytes(content)
    with pytest.raises(RecordFileError, match="is not a run record"):
        read_record(path)


def test_an_npz_of_other_arrays_is_refused_naming_what_is_missing(tmp_path):
    path = tmp_path / "record.npz"
    np.savez(path, something=np.arange(3))
    with pytest.raises(RecordFileError, match="is not a run record.*scalars"):
        read_record(path)


def test_pickled_objects_are_not_loaded(tmp_path):
    """The file is numbers, strings and booleans: an array of objects in it is refused, not unpickled."""
    path = tmp_path / "record.npz"
    np.savez(path, scalars=np.array([{"a": 1}], dtype=object))
    with pytest.raises(RecordFileError, match="pickled"):
        read_record(path)
