"""The run report from plain records: plant errors, drift, contact loss, verdict."""

import numpy as np

from sally_bringup.report import FootSample, MagnetSample, RunRecord, build_report, comparable

HOME = {"FL": [0.33, 0.28, 0.009], "FR": [0.33, -0.28, 0.009], "BL": [-0.33, 0.28, 0.009], "BR": [-0.33, -0.28, 0.009]}
PLANT = {"FL": np.array([0.492, 0.08, 0.41]), "FR": np.array([0.492, -0.08, 0.41])}


def record(fl_off=0.001, bl_drift=0.0, bl_contact=True, failed=False):
    rec = RunRecord()
    rec.phases = [
        (0.0, "FL", "SETTLE"),
        (0.5, "FL", "LIFT"),
        (8.0, "FL", "F2W_REACH"),
        (11.0, "FR", "LIFT"),
        (18.5, "FR", "F2W_REACH"),
    ]
    for foot in ("FL", "FR"):
        rec.targets.append((10.0, foot, "F2W_REACH", PLANT[foot]))
    for t in np.arange(0.0, 22.5, 0.5):
        pos = {f: np.array(p, float) for f, p in HOME.items()}
        modes = {"FL": 1, "FR": 1, "BL": 1, "BR": 1}
        if t > 20:
            pos["FL"], pos["FR"] = PLANT["FL"] + [0, 0, fl_off], PLANT["FR"].copy()
            pos["BL"] = pos["BL"] + [0, 0, bl_drift]
            modes["FL"] = modes["FR"] = 2
        rec.feet.append(FootSample(float(t), pos, modes, {f: (bl_contact or f != "BL" or t <= 20) for f in HOME}))
    rec.magnets.append(
        MagnetSample(
            22.0,
            dict.fromkeys(HOME, 800.0),
            dict.fromkeys(HOME, True),
            {"FL": "wall", "FR": "wall", "BL": "floor", "BR": "floor"},
            dict.fromkeys(HOME, True),
        )
    )
    rec.result = {"done": True, "failed": failed, "message": "ok", "t": 22.5}
    return rec


def test_a_good_run_succeeds_with_its_figures():
    report = build_report(record(), "f2w", 45.0, {"sim": 0, "sequencer": 0})
    assert report["success"], report["problems"]
    assert report["fl_plant_error_mm"] == 1.0 and report["fr_plant_error_mm"] == 0.0
    assert report["stance_drift_mm"] == 0.0 and report["sim_time_s"] == 22.5
    assert report["real_time_factor"] == 0.5
    assert comparable(report) == comparable(build_report(record(), "f2w", 30.0, {"sim": 0, "sequencer": 0}))


def test_each_failure_is_named():
    assert "FL ended 6.00 mm" in " ".join(build_report(record(fl_off=0.006), "f2w", 1.0, {})["problems"])
    problems = " ".join(build_report(record(bl_drift=0.004, bl_contact=False), "f2w", 1.0, {})["problems"])
    assert "drifted 4.00 mm" in problems and "stance contact lost: BL" in problems
    assert "the sequencer reported" in " ".join(build_report(record(failed=True), "f2w", 1.0, {})["problems"])
    assert "exit codes" in " ".join(build_report(record(), "f2w", 1.0, {"ik": -9})["problems"])
    empty = build_report(RunRecord(), "f2w", 1.0, {})
    assert not empty["success"] and empty["problems"] == ["no foot states were received"]


def test_a_record_behind_its_verdict_says_what_it_lacks():
    rec = record()  # foot states every 0.5 s to 22.0 s; the verdict stamped 22.5 s
    assert rec.behind_result() == "foot states to 22.000 s and no status, verdict at 22.500 s"
    rec.status_t = 22.5
    assert rec.behind_result() == "foot states to 22.000 s, verdict at 22.500 s"
    rec.result["t"] = 22.0  # the sequencer stamps its verdict with the foot state it decided on
    assert rec.behind_result() == ""
    assert RunRecord().behind_result() == ""  # no verdict: nothing to wait for


def test_a_divergence_after_the_verdict_does_not_undo_the_run():
    """The sim steps on between the verdict and the stop; a divergence there is noted, not counted."""
    from sally_bringup.report import build_pulloff_report

    after = record()
    after.divergence, after.divergence_t = "simulation diverged at t = 22.6000 s: a velocity of 1e5", 22.6
    report = build_report(after, "f2w", 30.0, {"sim": 3, "ik": 0})
    assert not report["diverged"] and report["diverged_after_verdict_s"] == 22.6
    assert report["success"] and report["problems"] == []  # nor does the sim's exit code 3 that came of it
    before = record()
    before.divergence, before.divergence_t = "simulation diverged at t = 12.0000 s: a velocity of 1e5", 12.0
    report = build_report(before, "f2w", 30.0, {"sim": 3})
    assert report["diverged"] and not report["success"] and "diverged_after_verdict_s" not in report
    assert report["problems"][0].startswith("the physics diverged")
    assert "node exit codes {'sim': 3}" in report["problems"]
    rig = RunRecord()
    rig.pulloff = {"held": True, "detached": False, "pulloff_force": 844.0, "message": "held", "t": 3.38}
    rig.divergence, rig.divergence_t = "simulation diverged at t = 3.3900 s", 3.39
    report = build_pulloff_report(rig, 10.0, {"sim": 3, "pulloff": 0})
    assert not report["diverged"] and report["diverged_after_verdict_s"] == 3.39 and report["success"]
