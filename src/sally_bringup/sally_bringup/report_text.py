"""A run's report (:mod:`.report`) as text for a terminal. Pure."""

from __future__ import annotations

from sally_sequencer.plan_catalogue import SEQUENCES

OVER = {"wall": "up the wall", "ceiling": "along the ceiling"}
"""Where the walk after a climb went, by the surface the climb climbed onto."""


def _over(sequence: str) -> str:
    """Where the walk after climb ``sequence`` went ('on' for a name the catalogue has no climb for)."""
    entry = SEQUENCES.get(sequence)
    return OVER.get(entry.corner[1], "on") if entry is not None and entry.corner is not None else "on"


def summary(report: dict) -> str:
    """The report for a terminal: the verdict, what the run did, how it ran, its problems."""
    then = report.get("then")
    name = report.get("sequence", "?") + (f" then {then.get('sequence', '?')}" if then else "")
    lines = [
        f"{'SUCCESS' if report['success'] else 'FAILED'}: {name} in {report.get('sim_time_s', 0):.2f} s of sim time",
        *_what_it_did(report),
    ]
    if then:  # a route's next climb, judged on its own
        lines.append(f"  then {then.get('sequence', '?')}, in its own corner's frame:")
        lines += ["  " + line for line in _what_it_did(then)]
    back = report.get("way_back")
    if back:  # then all the way back, in the first climb's frame
        lines.append("  then the way back down the wall and onto the floor:")
        lines += ["  " + line for line in _way_back(back)]
    lines += _how_it_ran(report)
    lines += [f"  problem: {problem}" for problem in report.get("problems", [])]
    return "\n".join(lines)


def _what_it_did(report: dict) -> list[str]:
    """The scene, the pull-off, the phases, the plants, the steps, the walk, the drift, the contacts."""
    lines = []
    if "scene" in report:
        surfaces = report["scene"]["surfaces"]
        lines.append(
            f"  scene {report['scene']['name']}: positions in the climbed corner's frame, whose floor is the room's "
            f"{surfaces['floor']} and whose wall is the room's {surfaces['wall']}"
        )
    if "pulloff_force" in report:
        lines.append(
            f"  {report['foot']} pull-off force {report['pulloff_force']:.1f} N (clip {report['clip']:.1f} N, "
            f"{'detached' if report['detached'] else 'not detached'}): {report['message']}"
        )
    for row in report.get("phases", []):
        lines.append(
            f"  {row['foot']:>2} {row['phase']:<12} from {row['start_s']:7.3f} s for {row['duration_s']:6.3f} s"
        )
    goal = (report.get("scene") or {}).get("surfaces", {}).get("wall", "wall")
    for foot, plant in report.get("plants", {}).items():
        designed = f" ({plant['design_error_mm']:.2f} mm from the plan's foothold)" if "designed" in plant else ""
        lines.append(
            f"  {foot} plant error {plant['error_mm']:.2f} mm{designed}, magnet "
            f"{f'on the {goal}' if plant['magnet_on_wall'] else 'NOT holding'}"
        )
    for step in report.get("steps", []):
        if step["error_mm"] is None:
            lines.append(f"  {step['foot']} step {step['step']} never held after its seat")
            continue
        lines.append(
            f"  {step['foot']} step {step['step']} plant error {step['error_mm']:.2f} mm "
            f"({step['design_error_mm']:.2f} mm from the plan's foothold)"
        )
    if "distance_m" in report:
        lines.append(
            f"  walked {report['distance_m'] * 1e3:.1f} mm at {report['speed_mm_s'] or 0.0:.2f} mm/s of sim time, "
            f"at least {report['min_magnets_holding']} magnets holding"
        )
    after = report.get("walk_after_climb")
    if after:  # the walk over the surface the climb reached
        lines += _walk_after_climb(after, report.get("sequence", ""))
    down = report.get("way_down")
    if down:  # the climb back down, onto the surface it climbed from
        lines += _way_down(down, (report.get("scene") or {}).get("surfaces", {}).get("floor", "floor"))
    if "min_magnets_holding" in report and "distance_m" not in report:
        lines.append(f"  at least {report['min_magnets_holding']} magnets holding at every instant")
    for foot, d in report.get("stance_drift", {}).items():
        lines.append(f"  {foot} stance drift max {d['max_mm']:.3f} mm, final {d['final_mm']:.3f} mm")
    contacts = report.get("contacts_at_end", {})
    if contacts:
        lines.append("  contact at end: " + " ".join(f"{f}={'yes' if c else 'NO'}" for f, c in contacts.items()))
    return lines


def _walk_after_climb(after: dict, sequence: str) -> list[str]:
    """The walk after climb ``sequence``: the steps that spread the stance, the walk, the stand."""
    lines = []
    for step in after.get("spread_steps", []):
        error = "never held" if step["error_mm"] is None else f"plant error {step['error_mm']:.2f} mm"
        lines.append(f"  then {step['foot']} stepped up to spread the stance: {error}")
    lines.append(
        f"  then walked {after['distance_m'] * 1e3:.1f} mm {_over(sequence)} at "
        f"{after['speed_mm_s'] or 0.0:.2f} mm/s of "
        f"sim time in {len(after['steps'])} steps: worst plant {after['worst_step_plant_mm']:.2f} mm "
        f"({after['worst_step_design_mm']:.2f} mm from the plan's footholds)"
    )
    stand = after.get("stand")
    if stand:
        lines.append(_stand_line(stand, "stood as on the floor under the ceiling"))
    return lines


def _stand_line(stand: dict, what: str) -> str:
    """A stand's figures in one line: where main_frame ended against the stance's, its worst step."""
    worst = stand["worst_step_design_mm"]
    return (
        f"  then {what}: main_frame {stand['body_error_mm']:.1f} mm from the stance's, pitched "
        f"{stand['body_pitch_deg']:.2f} deg; {len(stand['steps'])} steps, worst "
        + ("never held" if worst is None else f"{worst:.2f} mm from the stance's footholds")
    )


def _way_down(down: dict, onto: str) -> list[str]:
    """The climb back down onto surface ``onto``: each landing, the fewest magnets, the body at the end."""
    lines = []
    for landing in down.get("landings", []):
        error = landing["error_mm"]
        held = "never held" if error is None else f"{error:.2f} mm from its foothold"
        lines.append(f"  then {landing['foot']} came down onto the {onto}: {held}")
    pitch = down.get("body_pitch_deg")
    lines.append(
        f"  the way down: at least {down.get('min_magnets_holding')} magnets holding, the body "
        + ("of unknown pitch" if pitch is None else f"{pitch:.2f} deg from level")
        + f" at the end, {down.get('sim_time_s', 0.0):.1f} s of sim time"
    )
    return lines


def _way_back(back: dict) -> list[str]:
    """The way back (``report["way_back"]``): the stand undone, the walk down, the spread undone, the
    way down onto the floor, the fewest magnets and the largest move of a holding foot."""
    lines = []
    if "leave" in back:
        lines.append(_stand_line(back["leave"], "backed out from the wall to the walk's stance"))
    walk = back.get("walk_down")
    if walk:
        worst = walk["worst_step_plant_mm"]
        lines.append(
            f"  then walked {walk['distance_m'] * 1e3:.1f} mm down the wall in {len(walk['steps'])} steps: worst plant "
            + ("never held" if worst is None else f"{worst:.2f} mm")
        )
    if "gather" in back:
        lines.append(_stand_line(back["gather"], "gathered the stance the climb left"))
    if back.get("way_down"):
        lines += _way_down(back["way_down"], "floor")
    drift = back.get("stance_drift_mm")
    lines.append(
        f"  the way back: at least {back.get('min_magnets_holding')} magnets holding, a holding foot moved at most "
        + ("an unknown distance" if drift is None else f"{drift:.2f} mm")
    )
    return lines


def _how_it_ran(report: dict) -> list[str]:
    """The wall time, the sim's pacing, the wall-clock fallbacks, a recording that stopped."""
    rtf = report.get("real_time_factor")
    startup = report.get("startup_s")
    lines = [
        f"  wall time {report.get('wall_time_s', 0):.1f} s, real-time factor "
        f"{rtf if rtf is not None else float('nan'):.3f}"
        + (f" (after {startup:.1f} s of start-up)" if startup is not None else "")
    ]
    pacing = report.get("sim_pacing")
    if pacing:
        lines.append("  sim pacing: " + ", ".join(f"{k} {v:g}" for k, v in pacing.items()))
    fallbacks = report.get("wall_clock_fallbacks")
    if fallbacks:
        lines.append(
            "  went on without an answer it waits for (not the lockstep run): "
            + ", ".join(f"{k} {v}" for k, v in fallbacks.items())
        )
    stopped = (report.get("recording") or {}).get("stopped")
    if stopped:
        lines.append(f"  the recording stopped early: {stopped}")
    return lines
