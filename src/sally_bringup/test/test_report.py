"""The run report from plain records: plant errors, drift, contact loss, verdict."""

import numpy as np

from sally_bringup.report import build_report, comparable
from sally_bringup.run_record import FootSample, MagnetSample, RunRecord
from sally_sequencer.route_run import route_plan

F2W, UP_01 = route_plan("f2w"), route_plan("wall_walk", "up", 0.1)
"""The plans of an f2w run and of a 0.1 m walk up the wall."""
HOME = {"FL": [0.33, 0.28, 0.009], "FR": [0.33, -0.28, 0.009], "BL": [-0.33, 0.28, 0.009], "BR": [-0.33, -0.28, 0.009]}
PLANT = {"FL": np.array([0.492, 0.08, 0.41]), "FR": np.array([0.492, -0.08, 0.41])}
HIPS = {"FL": (0.13, 0.08), "FR": (0.13, -0.08), "BL": (-0.13, 0.08), "BR": (-0.13, -0.08)}
"""The hip sites in main_frame (m)."""


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
    report = build_report(record(), F2W, 45.0, {"sim": 0, "sequencer": 0})
    assert report["success"], report["problems"]
    assert report["fl_plant_error_mm"] == 1.0 and report["fr_plant_error_mm"] == 0.0
    assert report["stance_drift_mm"] == 0.0 and report["sim_time_s"] == 22.5
    assert report["real_time_factor"] == 0.5
    assert comparable(report) == comparable(build_report(record(), F2W, 30.0, {"sim": 0, "sequencer": 0}))


def test_each_failure_is_named():
    assert "FL ended 6.00 mm" in " ".join(build_report(record(fl_off=0.006), F2W, 1.0, {})["problems"])
    problems = " ".join(build_report(record(bl_drift=0.004, bl_contact=False), F2W, 1.0, {})["problems"])
    assert "drifted 4.00 mm" in problems and "stance contact lost: BL" in problems
    assert "the sequencer reported" in " ".join(build_report(record(failed=True), F2W, 1.0, {})["problems"])
    assert "exit codes" in " ".join(build_report(record(), F2W, 1.0, {"ik": -9})["problems"])


def test_a_foot_planted_beside_the_plans_foothold_is_named():
    """A foot whose plan designed its foothold (a BACK_SWING staged in front of it) is held to it too."""
    from sally_sequencer.climb import BACK_STAGING
    from sally_sequencer.sequences import FACE_WALL

    rec = record()
    rec.targets.append((9.0, "FR", "BACK_SWING", PLANT["FR"] - BACK_STAGING * FACE_WALL))
    rec.targets.append((9.5, "FL", "BACK_SWING", PLANT["FL"] - BACK_STAGING * FACE_WALL + [0.0, 0.019, 0.0]))
    report = build_report(rec, F2W, 1.0, {})
    assert report["plants"]["FR"]["design_error_mm"] == 0.0 and report["plants"]["FL"]["design_error_mm"] > 19.0
    problems = " ".join(report["problems"])
    assert "FL ended 19.03 mm from the plan's foothold (limit 5.0 mm)" in problems and "FR ended" not in problems
    empty = build_report(RunRecord(), F2W, 1.0, {})
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
    report = build_report(after, F2W, 30.0, {"sim": 3, "ik": 0})
    assert not report["diverged"] and report["diverged_after_verdict_s"] == 22.6
    assert report["success"] and report["problems"] == []  # nor does the sim's exit code 3 that came of it
    before = record()
    before.divergence, before.divergence_t = "simulation diverged at t = 12.0000 s: a velocity of 1e5", 12.0
    report = build_report(before, F2W, 30.0, {"sim": 3})
    assert report["diverged"] and not report["success"] and "diverged_after_verdict_s" not in report
    assert report["problems"][0].startswith("the physics diverged")
    assert "node exit codes {'sim': 3}" in report["problems"]
    rig = RunRecord()
    rig.pulloff = {"held": True, "detached": False, "pulloff_force": 844.0, "message": "held", "t": 3.38}
    rig.divergence, rig.divergence_t = "simulation diverged at t = 3.3900 s", 3.39
    report = build_pulloff_report(rig, 10.0, {"sim": 3, "pulloff": 0})
    assert not report["diverged"] and report["diverged_after_verdict_s"] == 3.39 and report["success"]


def walk_record(fl_miss=0.0003, fl_held=True, magnets_off=1):
    """A wall walk up 0.10 m: every foot steps 0.10 m once (FL lands ``fl_miss`` m to the side), the
    body rises between; ``magnets_off`` magnets are off while a foot steps."""
    from sally_description.wall_start import WALL_STANCE

    rec = RunRecord()
    up = np.array([0.0, 0.0, 0.10])
    feet = {f: WALL_STANCE.foot(f) for f in HOME}
    hips = {f: WALL_STANCE.body.to_world(np.array([x, y, 0.0])) for f, (x, y) in HIPS.items()}
    rec.phases = [(0.0, "BODY", "SETTLE"), (0.5, "BODY", "WALL_SHIFT")]
    t = 2.0
    for foot in ("FL", "FR", "BL", "BR"):
        rec.phases += [(t, foot, "WALL_RELEASE"), (t + 1.2, foot, "WALL_SEAT")]
        rec.targets += [(t, foot, "WALL_RELEASE", feet[foot]), (t + 1.2, foot, "WALL_SEAT", feet[foot] + up)]
        t += 1.8
    rec.phases.append((t, "BODY", "WALL_SHIFT"))
    for k in range(int((t + 2.0) / 0.05)):
        now = round(k * 0.05, 3)
        stepping = next(
            (f for i, f in enumerate(("FL", "FR", "BL", "BR")) if 2.0 + 1.8 * i <= now < 3.8 + 1.8 * i), None
        )
        done = {f for i, f in enumerate(("FL", "FR", "BL", "BR")) if now >= 3.8 + 1.8 * i}
        position = {f: feet[f] + (up if f in done else 0.0) for f in HOME}
        if "FL" in done:
            position["FL"] = position["FL"] + [0.0, fl_miss, 0.0]
        modes = {f: (0 if f == stepping or (f == "FL" and "FL" in done and not fl_held) else 2) for f in HOME}
        lift = up * (now >= t)  # the body's last shift
        rec.feet.append(
            FootSample(now, position, modes, dict.fromkeys(HOME, True), {f: h + lift for f, h in hips.items()})
        )
        on = {f: f != stepping for f in HOME}
        if stepping and magnets_off == 2:  # another foot let go as well
            on["BR" if stepping != "BR" else "BL"] = False
        rec.magnets.append(MagnetSample(now, {}, on, dict.fromkeys(HOME, "wall"), dict.fromkeys(HOME, True)))
    rec.result = {"done": True, "failed": False, "message": "ok", "t": rec.feet[-1].t}
    return rec


def test_a_walk_is_judged_step_by_step_against_its_plants_and_the_plan():

    report = build_report(walk_record(), route_plan("wall_walk", "up", 0.10), 10.0, {})
    assert report["success"], report["problems"]
    assert [(s["foot"], s["step"]) for s in report["steps"]] == [("FL", 1), ("FR", 1), ("BL", 1), ("BR", 1)]
    assert report["steps"][0]["error_mm"] == 0.3 and report["steps"][0]["design_error_mm"] == 0.3
    assert report["worst_step_plant_mm"] == 0.3 and report["min_magnets_holding"] == 3
    assert report["travel_m"] == [0.0, 0.0, 0.1] and report["walk"] == {"direction": "up", "distance": 0.1}
    problems = " ".join(build_report(walk_record(fl_miss=0.006), UP_01, 1.0, {})["problems"])
    assert "FL step 1 landed 6.00 mm from its plant" in problems
    problems = " ".join(build_report(walk_record(magnets_off=2), UP_01, 1.0, {})["problems"])
    assert "only 2 magnets held at 2.000 s (at least 3)" in problems
    never = build_report(walk_record(fl_held=False), UP_01, 1.0, {})
    assert never["steps"][0]["error_mm"] is None and never["worst_step_plant_mm"] is None
    assert "FL step 1 was never held after its seat" in " ".join(never["problems"])


def test_a_ceiling_climb_reports_its_corner_in_the_room():
    """w2c runs in corner3's turned frame: its report keeps that frame's positions and says so, adds
    each plant's place in the room, and names the ceiling (the frame's wall) in its words."""
    from sally_bringup.report_text import summary
    from sally_description.scene import CEILING_HEIGHT

    rec = record()
    rec.magnets[-1].enabled["FR"] = False
    rec.magnets[-1].surface.update(FL="ceiling", FR="ceiling", BL="wall", BR="wall")  # named as the room has them
    report = build_report(rec, route_plan("w2c"), 45.0, {})
    assert report["scene"]["name"] == "corner3"
    assert report["scene"]["surfaces"] == {"floor": "wall", "wall": "ceiling"}
    final = report["plants"]["FL"]["final_in_room"]  # on the ceiling's face, 0.41 m out from the wall
    np.testing.assert_allclose(final, [0.5 - 0.41 - 0.001, 0.08, CEILING_HEIGHT - 0.008], atol=1e-9)
    problems = " ".join(report["problems"])
    assert "FR is not held on the ceiling by its magnet" in problems
    assert "BL never reached F2W_REACH" in problems  # a climb plants all four feet
    text = summary(report)
    assert "FL plant error 1.00 mm, magnet on the ceiling" in text and "room's ceiling" in text
    assert "scene" not in build_report(record(), F2W, 45.0, {})  # the room's own frame: nothing to say
    assert report["min_magnets_holding"] == 3 and "at least 3 magnets holding at every instant" in text
    rec.magnets[-1].enabled["BL"] = False  # two feet off at once: a climb moves one foot at a time
    assert (
        "only 2 magnets held at 22.000 s (at least 3)" in build_report(rec, route_plan("f2w_all"), 45.0, {})["problems"]
    )


def test_the_summary_tells_the_way_down_onto_the_surface_climbed_from():
    from sally_bringup.report_text import summary

    landings = [{"foot": "BR", "error_mm": 1.37}, {"foot": "BL", "error_mm": None}]
    down = {"landings": landings, "min_magnets_holding": 3, "body_pitch_deg": 0.04, "sim_time_s": 57.0}
    report = {
        "sequence": "w2c",
        "success": False,
        "scene": {"name": "corner3", "surfaces": {"floor": "wall", "wall": "ceiling"}},
        "way_down": down,
    }
    text = summary({"sequence": "f2w_all", "success": False, "then": report})
    assert "then BR came down onto the wall: 1.37 mm from its foothold" in text
    assert "then BL came down onto the wall: never held" in text
    assert "the way down: at least 3 magnets holding, the body 0.04 deg from level at the end" in text
    alone = summary({"sequence": "f2w_all", "success": True, "way_down": down})
    assert "then BR came down onto the floor: 1.37 mm" in alone


def test_the_summary_tells_the_way_back_down_the_wall_and_onto_the_floor():
    from sally_bringup.report_text import summary

    stand = {"body_error_mm": 1.6, "body_pitch_deg": 89.85, "steps": [{}] * 4, "worst_step_design_mm": 0.58}
    walk = {"distance_m": 0.1682, "steps": [{}] * 8, "worst_step_plant_mm": 0.54}
    down = {"landings": [{"foot": "BR", "error_mm": 1.9}], "min_magnets_holding": 3, "body_pitch_deg": 0.04}
    back = {
        "leave": stand,
        "walk_down": walk,
        "gather": {**stand, "steps": [{}] * 2, "worst_step_design_mm": None},
        "way_down": down,
        "min_magnets_holding": 3,
        "stance_drift_mm": 0.74,
    }
    text = summary({"sequence": "f2w_all", "success": True, "then": {"sequence": "w2c"}, "way_back": back})
    assert "then the way back down the wall and onto the floor:" in text
    assert "backed out from the wall to the walk's stance: main_frame 1.6 mm from the stance's" in text
    assert "then walked 168.2 mm down the wall in 8 steps: worst plant 0.54 mm" in text
    gathered = "gathered the stance the climb left: main_frame 1.6 mm from the stance's, pitched 89.85 deg"
    assert f"{gathered}; 2 steps, worst never held" in text
    assert "then BR came down onto the floor: 1.90 mm from its foothold" in text
    assert "the way back: at least 3 magnets holding, a holding foot moved at most 0.74 mm" in text
