"""The end-of-run report of a sequence graph, computed from what the graph published: its figures,
goals and problems (its text for a terminal: :mod:`.report_text`). Pure.

Inputs are plain records (:mod:`.run_record`, built from /sally/foot_states, /sally/ground_truth/magnets,
/sally/ik_target and /sally/sequence_status messages by :mod:`.recording`); everything is keyed by sim-time
stamps, so two lockstep runs give the same figures. Wall-clock figures (``real_time_factor``,
``wall_time_s``: from the sim's start to the graph's end, its teardown apart, ``teardown_s``, and its
start-up before it, ``startup_s``: from the run's start to sim time's) are the only ones that differ
from run to run.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path

import numpy as np

from sally_description.constants import LEGS
from sally_description.pose import pose_from_hips
from sally_description.scene import Scene, scene
from sally_node_common.stance import HELD
from sally_sequencer.climb import BACK_STAGING, MIN_PITCH_DEG
from sally_sequencer.descent import FIRST_PHASE as DESCENT_START
from sally_sequencer.descent import SEAT_PHASE as DESCENT_SEAT
from sally_sequencer.plan_catalogue import scene_of, spec
from sally_sequencer.route_run import RoutePlan
from sally_sequencer.sequences import FACE_WALL
from sally_sequencer.verdict import feet_to_plant, held_on, level, pitched_enough, walk_shortfall
from sally_sequencer.wall_stand import APPROACH_PHASE, WallStand
from sally_sequencer.wall_walk import (
    RELEASE_PHASES,
    SEAT_PHASES,
    SHIFT_PHASES,
    SHIFT_TIME,
    SPREAD_PHASE,
    STEP_PHASES,
    WallWalk,
)
from sally_sequencer.way_back import GATHER, LEAVE, WALK_DOWN

from .run_record import FootSample, RunRecord

PLANT_LIMIT_MM = 5.0
DRIFT_LIMIT_MM = 3.0
WALK_PHASES = ("WALL_RELEASE", "WALL_SHIFT", SPREAD_PHASE)
"""A walk after a climb: the climb ended where the first of these began (its feet judged there)."""
AFTER_SHIFT = "WALL_SHIFT"
"""The body shift of a walk after a climb (over the surface climbed onto: its corner's wall)."""
MIN_HOLDING = 3
"""A climb or a walk: never fewer magnets than this holding at once (one foot moves at a time)."""
PLANTED_DRIFT_LIMIT_MM = 2.0
"""A climb: no foot may move more than this while it holds (POSITION or POSE) and others move."""
PLANT_GOAL_MM = 2.0
"""The goal for every plant error (f2w and the climb), met from perturbed starts
(``benchmarks/climb.py``); a run counts as a success up to :data:`PLANT_LIMIT_MM`."""
DRIFT_GOAL_MM = 1.0
"""The goal for the stance drift (f2w: BL/BR; a climb: the largest move of a holding foot); a run
counts as a success up to :data:`DRIFT_LIMIT_MM` (a climb: :data:`PLANTED_DRIFT_LIMIT_MM`)."""
PITCH_GOAL_DEG = 88.0
"""The goal for a climb's final body pitch: within 2 deg of the wall's plane (success needs
:data:`MIN_PITCH_DEG`)."""
STANCE_FEET = ("BL", "BR")
WALL_TIMING_KEYS = ("real_time_factor", "wall_time_s", "teardown_s", "startup_s", "sim_pacing", "recording")


def build_report(record: RunRecord, plan: RoutePlan, wall_time_s: float, exit_codes: dict[str, int | None]) -> dict:
    """The report of a run of ``plan`` (:class:`sally_sequencer.route_run.RoutePlan`: the campaign, what
    comes with it, the route's next climb and the way back), judged through it: :func:`_build_report`
    of ``record`` judged by the truth (:meth:`RunRecord.judged_by_truth`: each foot where it really
    was, not where the estimate put it), with the estimate's error against the truth (``estimate``)
    when the graph ran on an estimate. ``wall_time_s``: the run's wall time; ``exit_codes``: each
    process's."""
    first, then = plan.first, plan.then
    down = then.down if then is not None else first.down  # the way down follows the route's last climb
    return _judged_report(
        record,
        first.sequence,
        wall_time_s,
        exit_codes,
        first.walk,
        first.stand,
        then.sequence if then is not None else "",
        then.walk if then is not None else None,
        first.before,
        down,
        plan.back,
    )


def _judged_report(record: RunRecord, sequence: str, *args, **kwargs) -> dict:
    """:func:`_build_report` of ``record`` judged by the truth, with the estimate's error."""
    estimate = record.estimate_error()
    report = _build_report(record.judged_by_truth(), sequence, *args, **kwargs)
    if estimate is not None:
        report["estimate"] = estimate
    return report


def _build_report(
    record: RunRecord,
    sequence: str,
    wall_time_s: float,
    exit_codes: dict[str, int | None],
    walk: WallWalk | None = None,
    stand: WallStand | None = None,
    then: str = "",
    then_walk: WallWalk | None = None,
    before: WallWalk | None = None,
    down: bool = False,
    back: bool = False,
) -> dict:
    """The report of a run of ``sequence``: plants, drift, verdict and the problems found, as a
    JSON-able dict. ``walk``: a wall walk's plan, or the walk's after the climb (its designed
    footholds are judged against it); ``stand``: the stance a walk after the climb ends in (its
    footholds and body judged); ``then``: the climb a route runs after it, ``then_walk`` the walk
    after that one (:func:`_route_report`); ``before``: the walk over the floor before the climb
    (``walk_before_climb``, judged as a walk); ``down``: the climb back down after the last climb
    (``way_down``: :func:`_way_down`; that climb is judged where the way down began); ``back``: after
    ``then``'s way down, the way back down the wall and onto the floor (``way_back``: :func:`_way_back`)."""
    if then:
        return _route_report(
            record, sequence, wall_time_s, exit_codes, walk, stand, then, then_walk, before, down, back
        )
    problems: list[str] = []
    result = record.result or {}
    record = _up_to_the_verdict(record)
    if not record.feet:
        problems.append("no foot states were received")
        return _finish({"sequence": sequence, "success": False}, problems, wall_time_s, 0.0, record)
    end, base = record.feet[-1], _base(record)
    report: dict = {"sequence": sequence}
    room, entry = scene(scene_of(sequence)), spec(sequence)
    if room.turned:  # positions stay in the corner's frame (the graph's world); the room's are added
        report["scene"] = scene_figures(room)
    walk_start, climb_end = _climb_end(record, entry.walks, walk, down)
    climbed = _up_to(record, climb_end) if climb_end is not None else record
    plants = _plants(climbed, room, report, problems)  # a climb's plants where the climb ended
    if entry.walks:  # judged per step (:func:`_wall_steps`) and by the magnets holding
        report.update(_walk_figures(record, base.t, problems, walk))
    elif walk is not None:  # the walk after the climb
        _walk_after_climb(report, record, walk, stand, walk_start, climb_end, problems)
    for foot in () if entry.walks else feet_to_plant(sequence):
        if foot not in plants:
            problems.append(f"{foot} never reached F2W_REACH")
            report[f"{foot.lower()}_plant_error_mm"] = None
    if entry.climbs:  # a walk counts them with its other figures
        report["min_magnets_holding"] = _fewest_holding(record, base.t, problems)
    drift = _drift(record, sequence, base, problems)
    report["stance_drift_mm"] = max(d["max_mm"] for d in drift.values())
    pitched = climbed.feet[-1] if down and climbed.feet else end  # the way down: where the climb ended
    _judge_pitch(report, pitched, entry.ends_on_wall, problems)
    lost = _contact_losses(record, base.t, problems)
    if result.get("failed", True):
        problems.append(f"the sequencer reported: {result.get('message', 'no final status')}")
    _around_the_climb(report, record, room, walk, stand, before, down, problems)
    report.update(_run_figures(record, result, plants, drift, lost))
    return _finish(report, problems, wall_time_s, report["sim_time_s"], record, result.get("t"), exit_codes)


def _base(record: RunRecord) -> FootSample:
    """The foot sample the sequence's figures start from: the first at or after its start."""
    start = _sequence_start(record)
    return next((s for s in record.feet if s.t >= start), record.feet[0])


def _run_figures(record: RunRecord, result: dict, plants: dict, drift: dict, lost: dict[str, float]) -> dict:
    """The run's figures after the verdict's own: its sim time, phases, plants, drift, contacts, the
    sequencer's message and the sim's pacing."""
    end = record.feet[-1]
    figures = {
        "sim_time_s": round(float(result.get("t", end.t)), 4),
        "phases": _phase_table(record),
        "plants": plants,
        "stance_drift": drift,
        "stance_contact_lost": {f: round(t, 4) for f, t in lost.items()},
        "contacts_at_end": {f: bool(end.in_contact[f]) for f in end.in_contact},
        "sequencer_message": result.get("message", ""),
    }
    if record.pacing:
        figures["sim_pacing"] = {k: round(v, 3) for k, v in record.pacing.items()}
    return figures


def _climb_end(record: RunRecord, walks: bool, walk: WallWalk | None, down: bool) -> tuple[float | None, float | None]:
    """Where the walk after a climb began and where the climb ended (the first walk phase, or the
    way down's start), each None where there is none (a walk sequence walks no walk after a climb)."""
    after_climb = walk is not None and not walks
    walk_start = _walk_start(record) if after_climb else None
    climb_end = next((t for t, _, phase in record.phases if phase in WALK_PHASES), None) if after_climb else None
    if down:  # the climb ended where the way down began
        climb_end = next((t for t, _, phase in record.phases if phase == DESCENT_START), None)
    return walk_start, climb_end


def _walk_after_climb(
    report: dict,
    record: RunRecord,
    walk: WallWalk,
    stand: WallStand | None,
    walk_start: float | None,
    climb_end: float | None,
    problems: list[str],
) -> None:
    """The walk after the climb judged into ``report`` (its steps, the spread before it, the stand
    after it), or the problem that it never started."""
    if walk_start is None:
        problems.append("the walk after the climb never started")
        return
    stand_start = _stand_start(record) if stand is not None else math.inf
    figures = _walk_figures(record, walk_start, problems, walk, until=stand_start)
    if stand is not None:
        figures["stand"] = _stand_figures(record, stand_start, stand, problems)
    spread = _wall_steps(record, climb_end or walk_start, None, until=walk_start)
    figures["spread_steps"] = spread
    _judge_steps(spread, problems, lambda step: f"{step['foot']}'s step spreading the stance")
    report["walk_after_climb"] = figures


def _judge_pitch(report: dict, pitched: FootSample, on_wall: bool, problems: list[str]) -> None:
    """The body's pitch at sample ``pitched`` (read off its hips) into ``report``; a run whose feet
    all end on the wall (``on_wall``) must be pitched enough."""
    if not pitched.hips:
        return
    pitch = pose_from_hips(pitched.hips).pitch_deg
    report["body_pitch_deg"] = round(pitch, 2)
    if on_wall and not pitched_enough(pitch):
        problems.append(f"the body ended pitched {pitch:.1f} deg (at least {MIN_PITCH_DEG:g} needed)")


def _around_the_climb(
    report: dict,
    record: RunRecord,
    room: Scene,
    walk: WallWalk | None,
    stand: WallStand | None,
    before: WallWalk | None,
    down: bool,
    problems: list[str],
) -> None:
    """What the plan ran around its sequence, into ``report``: the walk over the floor before the
    climb, the way down after it, and the walk's plan (with its stand)."""
    if before is not None:
        report["walk_before_climb"] = _before_climb(record, before, problems)
    if down:
        report["way_down"] = _way_down(record, room.stood_on, problems)
    if walk is not None:
        report["walk"] = {"direction": walk.direction, "distance": walk.distance}
        if walk.surface != "wall":  # (a walk over the wall says nothing more, as before the floor walk)
            report["walk"]["surface"] = walk.surface
        if stand is not None:
            report["walk"]["stand"] = True  # then the stand under the ceiling


def _route_report(
    record: RunRecord,
    sequence: str,
    wall_time_s: float,
    exit_codes: dict[str, int | None],
    walk: WallWalk | None,
    stand: WallStand | None,
    then: str,
    then_walk: WallWalk | None = None,
    before: WallWalk | None = None,
    down: bool = False,
    back: bool = False,
) -> dict:
    """A route of two climbs: the first (with its walk and stand) judged on the record up to where
    the foot states move to the next climb's frame (the IK plans there from then on), the next one
    (with ``then_walk``, or the way back down: ``down``) on the rest, as a run of it alone (under
    ``then``, its positions in its own corner's frame), up to where the foot states come back to the
    first one's frame with ``back`` (the way back after it: ``way_back``, :func:`_way_back`);
    a success when every part is. A route that never got to its next climb is the first one's report
    with that problem added."""
    frames = [sample.frame for sample in record.feet]
    switch = next((s.t for s in record.feet if s.frame != frames[0]), None) if frames else None
    if switch is None:
        report = _judged_report(record, sequence, wall_time_s, exit_codes, walk, stand, before=before)
        report["problems"].append(f"the {then} climb never started")
        report["success"], report["then"] = False, None
        return report
    ended = [s.t for s in record.feet if s.t < switch][-1]
    first = _between(record, -math.inf, switch)
    first.result = {"done": True, "failed": False, "message": f"{sequence} done", "t": ended}
    report = _judged_report(first, sequence, 0.0, {}, walk, stand, before=before)
    returned = next((s.t for s in record.feet if s.t > switch and s.frame == frames[0]), math.inf)
    middle = _between(record, switch, returned)
    if back and returned < math.inf:  # the climb ended where the way back began
        ended = [s.t for s in record.feet if s.t < returned][-1]
        middle.result = {"done": True, "failed": False, "message": f"{then} done", "t": ended}
    timing = (0.0, {}) if back else (wall_time_s, exit_codes)  # the way back's run ends the route
    second = _judged_report(middle, then, *timing, then_walk, down=down)
    report["problems"] += [f"{then}: {problem}" for problem in second["problems"]]
    report["then"] = {key: value for key, value in second.items() if key not in WALL_TIMING_KEYS}
    last = second
    if back:
        report["way_back"] = _way_back(_between(record, returned, math.inf), report["problems"])
        last = _route_end(record, wall_time_s, exit_codes, report["problems"])
        for figure in ("min_magnets_holding", "stance_drift_mm"):
            last[figure] = report["way_back"][figure]
    for key in ("sim_time_s", "wall_time_s", "real_time_factor", "wall_clock_fallbacks", "sequencer_message"):
        report[key] = last.get(key)
    for figures in (second, last):
        report["min_magnets_holding"] = min(report["min_magnets_holding"], figures["min_magnets_holding"])
        report["stance_drift_mm"] = max(report["stance_drift_mm"], figures["stance_drift_mm"] or 0.0)
    report["success"] = not report["problems"]
    return report


def _route_end(record: RunRecord, wall_time_s: float, exit_codes: dict[str, int | None], problems: list[str]) -> dict:
    """How a route that ran its way back ended: the sequencer's verdict (``problems`` gains it when
    it failed), the run's sim and wall times, and how the graph stopped."""
    result = record.result or {}
    said = f"the sequencer reported: {result.get('message', 'no final status')}"
    if result.get("failed", True) and not any(problem.endswith(said) for problem in problems):
        problems.append(said)  # (the climb's report has it already when the route stopped there)
    sim = round(float(result.get("t", record.feet[-1].t if record.feet else 0.0)), 4)
    end = _finish({"sim_time_s": sim}, problems, wall_time_s, sim, record, result.get("t"), exit_codes)
    end["sequencer_message"] = result.get("message", "")
    return end


def _between(record: RunRecord, start: float, end: float) -> RunRecord:
    """The record's feet, magnets, targets and phases from sim time ``start`` to before ``end``."""
    return replace(
        record,
        feet=[s for s in record.feet if start <= s.t < end],
        magnets=[s for s in record.magnets if start <= s.t < end],
        targets=[row for row in record.targets if start <= row[0] < end],
        phases=[row for row in record.phases if start <= row[0] < end],
    )


def _up_to_the_verdict(record: RunRecord) -> RunRecord:
    """The record judged at the sequencer's verdict: how many steps ran after it, until the graph
    stopped, is the OS's."""
    verdict = (record.result or {}).get("t")
    return record if verdict is None else _up_to(record, verdict)


def _up_to(record: RunRecord, t: float) -> RunRecord:
    """The record's feet and magnets up to sim time ``t``."""
    return replace(record, feet=[s for s in record.feet if s.t <= t], magnets=[s for s in record.magnets if s.t <= t])


def _stand_start(record: RunRecord) -> float:
    """When a stand after a walk began: its first phase, the one after the walk's last body shift
    (a walk ends with one); inf when none came."""
    shifts = [i for i, (_, _, phase) in enumerate(record.phases) if phase == AFTER_SHIFT]
    after = shifts[-1] + 1 if shifts else len(record.phases)
    return record.phases[after][0] if after < len(record.phases) else math.inf


def _walk_start(record: RunRecord) -> float | None:
    """When a walk's first body shift began (None: no walk began)."""
    return next((t for t, _, phase in record.phases if phase == AFTER_SHIFT), None)


def _plants(record: RunRecord, room: Scene, report: dict, problems: list[str]) -> dict[str, dict]:
    """Each planted foot (one that reached F2W_REACH) against its plant target, its magnet held on
    the wall, and (the climb's back feet) against the plan's designed foothold (both within
    PLANT_LIMIT_MM); each foot's
    ``<foot>_plant_error_mm`` into ``report``, what misses a goal into ``problems``."""
    end = record.feet[-1]
    goal = room.climbed_onto
    last_magnet = record.magnets[-1] if record.magnets else None
    plants = {}
    for foot in ("FL", "FR", "BL", "BR"):
        reach = [(t, pos) for t, f, phase, pos in record.targets if f == foot and phase == "F2W_REACH"]
        if not reach:
            continue
        target = reach[-1][1]
        error = float(np.linalg.norm(end.position[foot] - target)) * 1e3
        held = last_magnet is not None and held_on(
            bool(last_magnet.enabled.get(foot)),
            last_magnet.surface.get(foot, "none"),
            bool(last_magnet.in_contact.get(foot)),
            goal,
        )
        plants[foot] = {
            "target": [round(float(v), 6) for v in target],
            "final": [round(float(v), 6) for v in end.position[foot]],
            "error_mm": round(error, 3),
            "magnet_on_wall": held,
        }
        swing = [pos for _, f, phase, pos in record.targets if f == foot and phase == "BACK_SWING"]
        if swing:  # the climb's plan designs the back feet's footholds: BACK_SWING stages in front of them
            designed = swing[-1] + BACK_STAGING * FACE_WALL
            plants[foot]["designed"] = [round(float(v), 6) for v in designed]
            design_error = float(np.linalg.norm(end.position[foot] - designed)) * 1e3
            plants[foot]["design_error_mm"] = round(design_error, 3)
            if design_error >= PLANT_LIMIT_MM:
                problems.append(
                    f"{foot} ended {design_error:.2f} mm from the plan's foothold (limit {PLANT_LIMIT_MM} mm)"
                )
        if room.turned:
            plants[foot]["final_in_room"] = [round(float(v), 6) for v in room.to_room(end.position[foot])]
        report[f"{foot.lower()}_plant_error_mm"] = round(error, 3)
        if error >= PLANT_LIMIT_MM:
            problems.append(f"{foot} ended {error:.2f} mm from its plant target (limit {PLANT_LIMIT_MM} mm)")
        if not held:
            problems.append(f"{foot} is not held on the {goal} by its magnet")
    return plants


def _drift(record: RunRecord, sequence: str, base: FootSample, problems: list[str]) -> dict[str, dict]:
    """How far the feet moved while they held, from ``base`` (the sequence's start): in a climb or a
    walk each foot while it was planted, else the stance feet (:data:`STANCE_FEET`) throughout;
    what misses the limit into ``problems``."""
    if spec(sequence).ends_on_wall or spec(sequence).walks:
        return _held_drift(record, base.t, problems)
    drift = {}
    for foot in STANCE_FEET:
        track = [
            float(np.linalg.norm(s.position[foot] - base.position[foot])) * 1e3 for s in record.feet if s.t >= base.t
        ]
        drift[foot] = {"max_mm": round(max(track), 3), "final_mm": round(track[-1], 3)}
    worst = max(d["max_mm"] for d in drift.values())
    if worst >= DRIFT_LIMIT_MM:
        problems.append(f"stance feet drifted {worst:.2f} mm (limit {DRIFT_LIMIT_MM} mm)")
    return drift


def _held_drift(record: RunRecord, since: float, problems: list[str]) -> dict[str, dict]:
    """Each foot's largest move while it held, from ``since`` (:func:`_planted_drift`); the worst
    into ``problems`` when it reaches :data:`PLANTED_DRIFT_LIMIT_MM`, with when and in which phase."""
    drift = _planted_drift(record, since)
    worst = max(d["max_mm"] for d in drift.values())
    if worst >= PLANTED_DRIFT_LIMIT_MM:
        moved = max(drift, key=lambda f: drift[f]["max_mm"])
        problems.append(
            f"{moved} moved {worst:.2f} mm while it held (limit {PLANTED_DRIFT_LIMIT_MM} mm), "
            f"at {drift[moved]['at_s']:.2f} s in {_phase_at(record, drift[moved]['at_s'])}"
        )
    return drift


def scene_figures(room: Scene) -> dict:
    """A turned scene in a report: its name, what each plate of the corner's frame is in the room,
    and where that frame (the graph's ``world``, every position of the report) sits in the room."""
    return {
        "name": room.name,
        "surfaces": room.roles,
        "world_in_room": {
            "position": [round(float(v), 6) for v in room.room_from_world.position],
            "quat_wxyz": [round(float(v), 6) for v in room.room_from_world.quat],
        },
    }


def build_pulloff_report(record: RunRecord, wall_time_s: float, exit_codes: dict[str, int | None]) -> dict:
    """The pull-off graph's report: the rig's verdict, with the magnet force trace's summary."""
    problems: list[str] = []
    result = record.pulloff
    report: dict = {"sequence": "pulloff"}
    if result is None:
        problems.append("the pull-off rig published no result")
        sim_time = record.magnets[-1].t if record.magnets else 0.0
    else:
        report.update({k: (round(v, 4) if isinstance(v, float) else v) for k, v in result.items() if k != "t"})
        sim_time = result["t"]
        if not result["held"]:
            problems.append(f"no adhesion: {result['message']}")
    report["sim_time_s"] = round(float(sim_time), 4)
    if record.pacing:
        report["sim_pacing"] = {k: round(v, 3) for k, v in record.pacing.items()}
    verdict_t = result["t"] if result else None
    return _finish(report, problems, wall_time_s, report["sim_time_s"], record, verdict_t, exit_codes)


def _finish(
    report: dict,
    problems: list[str],
    wall_time_s: float,
    sim_time_s: float,
    record: RunRecord | None = None,
    verdict_t: float | None = None,
    exit_codes: dict[str, int | None] | None = None,
) -> dict:
    after = diverged_after(record, verdict_t)
    bad_exits = counted_exits(exit_codes or {}, after is not None)
    if bad_exits:
        problems.append(f"node exit codes {bad_exits}")
    if after is not None:  # the run was judged first; how far the sim stepped past it is the OS's
        report["diverged_after_verdict_s"] = round(after, 4)
    elif record is not None and record.divergence:
        problems.insert(0, f"the physics diverged: {record.divergence}")
    report["diverged"] = bool(record is not None and record.divergence) and after is None
    report["wall_clock_fallbacks"] = dict(sorted(record.fallbacks.items())) if record is not None else {}
    report["success"] = not problems
    report["problems"] = problems
    report["wall_time_s"] = round(wall_time_s, 2)
    report["real_time_factor"] = round(sim_time_s / wall_time_s, 3) if wall_time_s > 0 else None
    return report


def diverged_after(record: RunRecord | None, verdict_t: float | None) -> float | None:
    """The sim time of a divergence that came after the run's verdict (at ``verdict_t``), else None.

    Once the sequencer or the pull-off rig has given its verdict the runner stops the graph, but the
    sim steps on until the stop reaches it: how far is the machine's timing, not the run's. A
    physics that diverges in those steps says nothing about the run, and counting it would make the
    same run penalised or not by chance (seen with a candidate on the edge of divergence)."""
    if record is None or not record.divergence or verdict_t is None or record.divergence_t is None:
        return None
    return record.divergence_t if record.divergence_t > verdict_t else None


def counted_exits(exit_codes: dict[str, int | None], diverged_after_verdict: bool) -> dict[str, int]:
    """The nodes' non-zero exit codes that say something about the run: all of them but the sim's
    3 for a divergence after the verdict (:func:`diverged_after`)."""
    return {
        name: code
        for name, code in exit_codes.items()
        if code is not None and code != 0 and not (diverged_after_verdict and name == "sim" and code == 3)
    }


def _fewest_holding(record: RunRecord, since: float, problems: list[str]) -> int:
    """The fewest magnets holding at once since ``since`` (on and against a plate, from the sim's
    telemetry); ``problems`` gains it when it is below :data:`MIN_HOLDING`."""
    holding = [
        (sum(bool(s.enabled[f] and s.in_contact[f]) for f in s.enabled), s.t) for s in record.magnets if s.t >= since
    ]
    fewest, fewest_at = min(holding) if holding else (0, since)
    if fewest < MIN_HOLDING:
        problems.append(f"only {fewest} magnets held at {fewest_at:.3f} s (at least {MIN_HOLDING})")
    return fewest


def _judge_steps(steps: list[dict], problems: list[str], named: Callable[[dict], str]) -> None:
    """Into ``problems``, each step (:func:`_wall_steps`) never held after its seat or landed
    :data:`PLANT_LIMIT_MM` or more from its plant, by ``named(step)``."""
    for step in steps:
        if step["error_mm"] is None:
            problems.append(f"{named(step)} was never held after its seat")
        elif step["error_mm"] >= PLANT_LIMIT_MM:
            problems.append(
                f"{named(step)} landed {step['error_mm']:.2f} mm from its plant (limit {PLANT_LIMIT_MM} mm)"
            )


def _walk_figures(
    record: RunRecord, since: float, problems: list[str], walk: WallWalk | None, until: float = math.inf
) -> dict:
    """A walk's figures (up to ``until``, where a stand begins): every step's plant error, the fewest
    magnets holding at once (to the run's end), how far the body went and how fast (sim time);
    ``problems`` gains what misses its limit."""
    fewest = _fewest_holding(record, since, problems)
    shifts = [t for t, _, phase in record.phases if phase in SHIFT_PHASES and since <= t < until]
    walk_start = shifts[0] if shifts else since
    steps = _wall_steps(record, walk_start, walk, until=until)
    _judge_steps(steps, problems, lambda step: f"{step['foot']} step {step['step']}")
    first = next(s for s in record.feet if s.t >= walk_start)
    last = [s for s in record.feet if s.t <= until][-1]
    travel = pose_from_hips(last.hips).position - pose_from_hips(first.hips).position if first.hips else np.zeros(3)
    walked = (shifts[-1] + SHIFT_TIME - shifts[0]) if shifts else 0.0  # from the first shift to the last one's end
    distance = float(np.linalg.norm(travel))
    return {
        "steps": steps,
        "worst_step_plant_mm": _worst(s["error_mm"] for s in steps),
        "worst_step_design_mm": _worst(s["design_error_mm"] for s in steps),
        "min_magnets_holding": fewest,
        "distance_m": round(distance, 4),
        "travel_m": [round(float(v), 4) for v in travel],
        "speed_mm_s": round(distance * 1e3 / walked, 2) if walked > 0 else None,
    }


def _way_down(record: RunRecord, goal: str, problems: list[str]) -> dict | None:
    """The climb back down (:mod:`sally_sequencer.descent`) onto surface ``goal`` (the corner's floor
    plate: the room's floor, or its wall after w2c): each landing (the foot where its hold began
    against the plan's foothold, its seat's target once the magnet is on), the fewest magnets holding
    from its start, every foot held on ``goal`` and the body level at the end; ``problems`` gains
    what misses."""
    start = next((t for t, _, phase in record.phases if phase == DESCENT_START), None)
    if start is None:
        problems.append("the climb back down never started")
        return None
    seats: list[tuple[str, float, np.ndarray]] = []
    for t, foot, phase, pos in record.targets:
        if t < start or phase != DESCENT_SEAT:
            continue
        if seats and seats[-1][0] == foot:
            seats[-1] = (foot, t, pos)
        else:
            seats.append((foot, t, pos))
    landings = []
    for foot, t, designed in seats:
        held = next((s for s in record.feet if s.t > t and s.mode.get(foot) in HELD), None)
        error = float(np.linalg.norm(held.position[foot] - designed)) * 1e3 if held is not None else None
        landings.append(
            {
                "foot": foot,
                "designed": [round(float(v), 6) for v in designed],
                "at_s": round(held.t, 4) if held is not None else None,
                "error_mm": round(error, 3) if error is not None else None,
            }
        )
        if error is None:
            problems.append(f"{foot}'s landing on the {goal} was never held")
        elif error >= PLANT_LIMIT_MM:
            problems.append(f"{foot} landed {error:.2f} mm from its foothold (limit {PLANT_LIMIT_MM} mm)")
    fewest = _fewest_holding(record, start, problems)
    last_magnet = record.magnets[-1] if record.magnets else None
    for foot in LEGS:
        if last_magnet is None or not held_on(
            bool(last_magnet.enabled.get(foot)),
            last_magnet.surface.get(foot, "none"),
            bool(last_magnet.in_contact.get(foot)),
            goal,
        ):
            problems.append(f"{foot} is not held on the {goal} after the way down")
    end = record.feet[-1]
    pitch = pose_from_hips(end.hips).pitch_deg if end.hips else None
    if not level(pitch):
        problems.append(f"the body ended pitched {pitch or 0.0:.1f} deg after the way down, not level")
    return {
        "landings": landings,
        "worst_landing_mm": _worst(landing["error_mm"] for landing in landings),
        "min_magnets_holding": fewest,
        "body_pitch_deg": round(pitch, 2) if pitch is not None else None,
        "sim_time_s": round(end.t - start, 3),
    }


def _way_back(record: RunRecord, problems: list[str]) -> dict:
    """The way back (:mod:`sally_sequencer.way_back`) on ``record``, from where the foot states came
    back to the first climb's frame to the run's end: the stand undone (``leave``) and the spread
    undone (``gather``), judged as the stand is; the walk down the wall, as a walk; the climb's way
    down onto the floor (:func:`_way_down`); how far a holding foot moved and the fewest magnets
    holding, throughout. ``problems`` gains what misses, each named ``the way back: ...``."""
    own: list[str] = []
    out: dict = {"min_magnets_holding": 0, "stance_drift_mm": None}
    if not record.feet:
        problems.append("the way back never started")
        return out
    start = record.feet[0].t
    walk_start = next((t for t, _, phase in record.phases if phase in SHIFT_PHASES), None)
    if walk_start is None:
        problems.append("the way back: the walk down the wall never started")
        return out
    gather = next((t for t, _, phase in record.phases if phase == APPROACH_PHASE and t > walk_start), math.inf)
    descent = next((t for t, _, phase in record.phases if phase == DESCENT_START), math.inf)
    out["leave"] = _stand_figures(record, start, LEAVE, own, until=walk_start)
    out["walk_down"] = _walk_figures(record, walk_start, own, WALK_DOWN, until=gather)
    short = walk_shortfall(WALK_DOWN, np.array(out["walk_down"]["travel_m"]))
    if short:
        own.append(f"the walk down the wall: {short}")
    if gather < math.inf:
        out["gather"] = _stand_figures(record, gather, GATHER, own, until=descent)
    else:
        own.append("the spread was never undone")
    out["way_down"] = _way_down(record, "floor", own)
    drift = _held_drift(record, start, own)
    _contact_losses(record, start, own)
    out["min_magnets_holding"] = _fewest_holding(record, start, own)
    out["stance_drift_mm"] = max(d["max_mm"] for d in drift.values())
    out["stance_drift"] = drift
    out["sim_time_s"] = round(record.feet[-1].t - start, 3)
    problems += [f"the way back: {problem}" for problem in own]
    return out


def _before_climb(record: RunRecord, before: WallWalk, problems: list[str]) -> dict | None:
    """The walk over the floor before the climb: a walk's figures from its first body shift to the
    climb's first phase, its plan, and whether it went its distance (``problems`` gains what not)."""
    own = {before.plate.phase(kind) for kind in ("SHIFT", "RELEASE", "MOVE", "SEAT")}
    start = next((t for t, _, phase in record.phases if phase == before.plate.phase("SHIFT")), None)
    if start is None:
        problems.append("the walk over the floor before the climb never started")
        return None
    end = next((t for t, _, phase in record.phases if t > start and phase not in own), math.inf)
    figures = _walk_figures(record, start, problems, before, until=end)
    short = walk_shortfall(before, np.array(figures["travel_m"]))
    if short:
        problems.append(f"the walk over the floor before the climb: {short}")
    return {"direction": before.direction, "distance": before.distance, **figures}


def _wall_steps(
    record: RunRecord,
    since: float,
    walk: WallWalk | None,
    until: float = math.inf,
    footholds: Mapping[str, np.ndarray] | None = None,
) -> list[dict]:
    """Every wall step: the foot, its count, its plant (where the sequencer put it, its last
    WALL_SEAT target) and its designed foothold (where ``walk``'s plan puts it: the foot where the
    walk began, at ``since``, plus every step of it so far; ``footholds``' where given, a stand's;
    without either, its plant), and how far the foot stood from each when its hold began (the first
    foot state back in stance after the seat)."""
    steps: list[dict] = []
    previous: tuple[float, str, str] | None = None
    for t, foot, phase, pos in record.targets:
        if not (phase.startswith("WALL_") or phase in STEP_PHASES):
            previous = None
            continue
        if phase in RELEASE_PHASES and (previous is None or previous[1] != foot or previous[2] != phase):
            steps.append({"foot": foot, "began": t})
        if steps and steps[-1]["foot"] == foot and phase in SEAT_PHASES:
            steps[-1]["seat"] = (t, pos)
        previous = (t, foot, phase)
    steps = [step for step in steps if since <= step["began"] < until]  # a walk after a climb: its spread's before
    first = next(s for s in record.feet if s.t >= since)
    designed = {foot: first.position[foot].copy() for foot in first.position}
    lengths = walk.steps() if walk is not None else []  # a foot's k-th step is in the walk's cycle k
    count: dict[str, int] = {}
    out = []
    for step in steps:
        foot = step["foot"]
        count[foot] = count.get(foot, 0) + 1
        if "seat" not in step:
            continue  # the run ended before this step seated: no plant to judge
        t, plant = step["seat"]
        if footholds is not None:
            designed[foot] = np.asarray(footholds[foot], float)
        elif walk is None or count[foot] > len(lengths):  # no plan for this step: its plant is all there is
            designed[foot] = plant.copy()
        else:
            designed[foot] = designed[foot] + lengths[count[foot] - 1] * walk.unit
        held = next((s for s in record.feet if s.t > t and s.mode.get(foot) in HELD), None)
        where = held.position[foot] if held is not None else None
        out.append(
            {
                "foot": foot,
                "step": count[foot],
                "plant": [round(float(v), 6) for v in plant],
                "designed": [round(float(v), 6) for v in designed[foot]],
                "at_s": round(held.t, 4) if held is not None else None,
                "error_mm": round(float(np.linalg.norm(where - plant)) * 1e3, 3) if where is not None else None,
                "design_error_mm": (
                    round(float(np.linalg.norm(where - designed[foot])) * 1e3, 3) if where is not None else None
                ),
            }
        )
    return out


def _stand_figures(
    record: RunRecord, since: float, stand: WallStand, problems: list[str], until: float = math.inf
) -> dict:
    """A stand's figures from ``since`` to ``until``: each foot's step against its plant and the
    stance's foothold, and where main_frame stood at ``until`` (the record's end) against the
    stance's (``problems`` gains a step or a body off its limit)."""
    footholds = {foot: stand.goal.foot(foot) for foot in stand.order}
    steps = _wall_steps(record, since, None, until=until, footholds=footholds)
    _judge_steps(steps, problems, lambda step: f"{step['foot']}'s step to the stance")
    for step in steps:
        if step["design_error_mm"] is not None and step["design_error_mm"] >= PLANT_LIMIT_MM:
            problems.append(
                f"{step['foot']} stands {step['design_error_mm']:.2f} mm from the stance's foothold "
                f"(limit {PLANT_LIMIT_MM} mm)"
            )
    body = pose_from_hips([s for s in record.feet if s.t <= until][-1].hips)
    short = stand.shortfall(body)
    if short:
        problems.append(short)
    offset = body.position - stand.goal.body.position
    return {
        "steps": steps,
        "worst_step_plant_mm": _worst(s["error_mm"] for s in steps),
        "worst_step_design_mm": _worst(s["design_error_mm"] for s in steps),
        "body_error_mm": round(float(np.linalg.norm(offset)) * 1e3, 2),
        "body_offset_mm": [round(float(v) * 1e3, 2) for v in offset],
        "body_pitch_deg": round(body.pitch_deg, 2),
    }


def _worst(errors) -> float | None:
    """The largest of ``errors`` (mm); None when there is none, or one is unknown (a foot never held)."""
    values = list(errors)
    return None if not values or None in values else max(values)


def _sequence_start(record: RunRecord) -> float:
    started = [t for t, foot, phase in record.phases if phase not in ("", "SETTLE")]
    return started[0] if started else record.feet[0].t


def _contact_losses(record: RunRecord, since: float, problems: list[str]) -> dict[str, float]:
    """Stance feet (POSITION or POSE in the IK's view) out of contact: the first time for each, said
    in ``problems``."""
    lost: dict[str, float] = {}
    for sample in record.feet:
        if sample.t < since:
            continue
        for foot, mode in sample.mode.items():
            if mode in HELD and not sample.in_contact[foot] and foot not in lost:
                lost[foot] = sample.t
    if lost:
        problems.append("stance contact lost: " + ", ".join(f"{f} at {t:.3f} s" for f, t in lost.items()))
    return lost


def _planted_drift(record: RunRecord, since: float) -> dict[str, dict]:
    """Per foot: the most it moved while holding (POSITION or POSE in the IK's view) from where each
    hold began, when, and where it ended up relative to that."""
    out: dict[str, dict] = {}
    for foot in ("FL", "FR", "BL", "BR"):
        worst, at, start, final = 0.0, since, None, 0.0
        for sample in record.feet:
            if sample.t < since:
                continue
            if sample.mode.get(foot) not in HELD:
                start = None
                continue
            if start is None:
                start = sample.position[foot]
            final = float(np.linalg.norm(sample.position[foot] - start)) * 1e3
            if final > worst:
                worst, at = final, sample.t
        out[foot] = {"max_mm": round(worst, 3), "final_mm": round(final, 3), "at_s": round(at, 4)}
    return out


def _phase_at(record: RunRecord, t: float) -> str:
    """'FOOT/PHASE' the sequence was in at ``t``."""
    current = "SETTLE"
    for start, foot, phase in record.phases:
        if start > t:
            break
        current = f"{foot}/{phase}"
    return current


def _phase_table(record: RunRecord) -> list[dict]:
    rows = []
    for i, (t, foot, phase) in enumerate(record.phases):
        end = record.phases[i + 1][0] if i + 1 < len(record.phases) else (record.result or {}).get("t", t)
        rows.append({"foot": foot, "phase": phase, "start_s": round(t, 4), "duration_s": round(end - t, 4)})
    return rows


def comparable(report: dict) -> dict:
    """The report without its wall-clock figures (what two lockstep runs must agree on)."""
    return {k: v for k, v in report.items() if k not in WALL_TIMING_KEYS}


HOSTING_KEYS = ("arguments", "exit_codes")
"""What a report says of how its graph was hosted (the arguments, each process's exit code)."""


def host_differences(report: dict, other: dict) -> list[str]:
    """The keys in which two lockstep reports of one run differ, but for the wall-clock figures and
    :data:`HOSTING_KEYS`: empty when another host (composed, processes, nodes apart) gave the same run."""
    a, b = comparable(report), comparable(other)
    return sorted(k for k in set(a) | set(b) if k not in HOSTING_KEYS and a.get(k) != b.get(k))


def write_report(report: dict, run_dir: Path) -> Path:
    """Write ``report`` to ``run_dir/report.json``; its path."""
    path = Path(run_dir) / "report.json"
    path.write_text(json.dumps(report, indent=2, sort_keys=False, default=_json_default) + "\n")
    return path


def _json_default(value):
    if isinstance(value, (np.floating, np.integer)):
        return value.item()
    raise TypeError(f"not JSON: {value!r}")
