"""The phases of ``orient``, ``f2w`` (FL floor to wall) and ``f2w_fr`` (its FR mirror); the climb
(:mod:`.climb`) builds on them; :mod:`.catalogue` names every sequence.

f2w phases:
  LIFT (3.0 s)        quintic raise of the EE by 10 cm from its home; the swing magnet off on entry
  SWING (1.5 s)       arc of the EE about the hip pivot by -45 deg (FL; +45 deg for FR) in the XY plane
  F2W_ORIENT (3.0 s)  to a waypoint 40 cm above ee_home's z (not the swing height, so a sagged body
                      does not lower it), turning the magnet face from the floor (down) to the wall
                      (-wall normal = +x) on the same quintic as the position (asking for the final
                      face at once gave a 62 mm transient with the ee joint at its stop)
  F2W_MEASURE (0 s)   EE-to-wall distance from the foot's range sensor (its face turned to the wall:
                      along the wall normal), or by projection on the map's wall where the runner
                      reads no range; the plant target is the
                      point where the face touches the wall along the leg (:func:`reach_direction`),
                      or the plan's foothold where an earlier phase set one (the climb's back
                      feet); the reach target the point 20 mm straight out from it
  F2W_REACH (2.0 s, unbounded)  smooth step to the reach target, then (our addition) a 0.5 s seat
                      from there onto the plant target with the magnet still off, 0.25 s held there,
                      then the magnet on. From the reach target until the magnet goes on the target
                      is trimmed in the wall's plane by the measured error (:mod:`.seat_trim`): the
                      joints track 0.5-1 deg behind and put the back feet 4 mm beside their points.
                      Switched on 20 mm out, an 800 N magnet yanks the foot in
                      within 50 ms and the 40 N m joints yield along the leg's arc: it landed ~19 mm
                      low on the wall. Switched on as the seat motion ends, the foot still trailed it
                      by 2.4 mm and landed 3.6 mm low; after the 0.25 s it lands 1.5 mm from the
                      plant target. The 20 mm stop is kept as the staging point.

lift (the optimizer's floor-lift scenario): LIFT, then LIFT_HOLD at the lifted height forever.

orient: LIFT, SWING, then the orient phase held forever (the face turned to the wall;
"facing global -X" names the wall normal the face is turned against).
"""

from __future__ import annotations

import math

import numpy as np

from sally_description.constants import CLAMP_SINK, FOOT_STANDOFF, WALL_X
from sally_description.pose import turn_toward
from sally_node_common.ik_target import IKTarget

from .errors import SequenceError
from .phase import Ending, Phase, PhaseContext
from .phase_state import Move, ReachPlan, Seating, required
from .seat_trim import SeatTrim
from .trajectory import quintic

WALL_NORMAL = np.array([-1.0, 0.0, 0.0])
"""Outward normal of the wall's inner face."""
FACE_WALL = -WALL_NORMAL
FACE_FLOOR = np.array([0.0, 0.0, -1.0])
"""The magnet face of a foot standing on the floor points down."""
REACH_CLEARANCE = 0.020
LIFT_HEIGHT, LIFT_TIME = 0.10, 3.0
SWING_ANGLE_DEG, SWING_TIME = 45.0, 1.5
ORIENT_HEIGHT, ORIENT_TIME = 0.40, 3.0
REACH_TIME = 2.0
SEAT_TIME = 0.5
SEAT_SETTLE = 0.25
SEAT_PRESS = 0.004
"""m: with a contact sensor, how far past its plant the seat goes on pressing, slowly, until the
sensor says contact (the face stopped by a surface a few mm off the map or the range)."""
CREEP_RATE = 0.008
"""m/s: how fast the seat presses on past its plant (slow: the contact reading comes 25-45 ms late)."""
CONTACT_WAIT = 1.0 + SEAT_PRESS / CREEP_RATE
"""s after the seat's motion ends without the contact sensor saying contact: the seat fails."""


def wall_distance(point: np.ndarray) -> float:
    """Distance from ``point`` to the wall's inner face along the wall normal (analytic)."""
    return float((np.array([WALL_X, 0.0, 0.0]) - np.asarray(point, float)) @ FACE_WALL)


def lift(name: str = "LIFT", height: float = LIFT_HEIGHT, duration: float = LIFT_TIME, start: float = 0.0) -> Phase:
    """The magnet off, the EE target raised straight up from ``start`` to ``height`` (m) above its
    home over ``duration`` (s)."""

    def enter(ctx: PhaseContext) -> None:
        ctx.disable_magnet()

    def step(t: float, ctx: PhaseContext) -> IKTarget:
        return IKTarget.position_only(ctx.ee_home + [0.0, 0.0, start + (height - start) * quintic(t / duration)])

    return Phase(name, duration, step, enter)


def lift_hold() -> Phase:
    """Hold the EE where LIFT ended (unbounded: whoever runs it decides how long)."""

    def step(t: float, ctx: PhaseContext) -> IKTarget:
        return IKTarget.position_only(ctx.ee_home + [0.0, 0.0, LIFT_HEIGHT])

    return Phase("LIFT_HOLD", 0.0, step, unbounded=True, ends=Ending.HOLDS)


def swing(angle_deg: float) -> Phase:
    """Arc about the hip pivot; positive angles turn counter-clockwise seen from above."""

    def enter(ctx: PhaseContext) -> None:
        start = ctx.ee_home + [0.0, 0.0, LIFT_HEIGHT]
        pivot = ctx.hip_pivot()
        ctx.state.swing_arc = (start, pivot)
        ctx.state.swing_end = swing_arc(start, pivot, math.radians(angle_deg))

    def step(t: float, ctx: PhaseContext) -> IKTarget:
        start, pivot = required(ctx.state.swing_arc, "SWING's arc")
        return IKTarget.position_only(swing_arc(start, pivot, math.radians(angle_deg) * quintic(t / SWING_TIME)))

    return Phase("SWING", SWING_TIME, step, enter)


def swing_arc(start: np.ndarray, pivot: np.ndarray, angle: float) -> np.ndarray:
    """``start`` turned by ``angle`` (rad, counter-clockwise seen from above) about the vertical through ``pivot``."""
    c, s = math.cos(angle), math.sin(angle)
    dx, dy = start[0] - pivot[0], start[1] - pivot[1]
    return np.array([pivot[0] + c * dx - s * dy, pivot[1] + s * dx + c * dy, start[2]])


def orient(name: str = "F2W_ORIENT", unbounded: bool = False) -> Phase:
    """ORIENT: the foot rises to its orient height and turns its face to the wall; ``unbounded``: then
    held there, ending the campaign (:attr:`.phase.Ending.HOLDS`)."""

    def enter(ctx: PhaseContext) -> None:
        start = ctx.state.swing_end if ctx.state.swing_end is not None else ctx.ee_pos()
        ctx.state.orient = Move(start, np.array([start[0], start[1], ctx.ee_home[2] + ORIENT_HEIGHT]))

    def step(t: float, ctx: PhaseContext) -> IKTarget:
        move = required(ctx.state.orient, "the orient move")
        start, waypoint = move.start, move.end
        s = quintic(t / ORIENT_TIME)
        return IKTarget.with_orientation(start + s * (waypoint - start), turn_toward(FACE_FLOOR, FACE_WALL, s))

    return Phase(name, ORIENT_TIME, step, enter, unbounded, Ending.HOLDS if unbounded else None)


def measure() -> Phase:
    """MEASURE: the foot stops; the wall's distance is measured and the plant chosen from it."""

    def enter(ctx: PhaseContext) -> None:
        here = ctx.ee_pos()
        sensed = ctx.range_fn() if ctx.range_fn is not None else math.nan
        if math.isfinite(sensed):  # the foot's range sensor: from its face, along its normal (the wall's)
            distance = sensed + FOOT_STANDOFF
        else:
            distance = ctx.wall_dist_fn(here) if ctx.wall_dist_fn is not None else wall_distance(here)
        if not math.isfinite(distance) or distance <= 0:
            raise SequenceError(f"F2W_MEASURE: the EE is not in front of the wall (distance {distance!r} m)")
        direction = reach_direction(here, ctx.hip_pivot())
        along = float(direction @ FACE_WALL)  # m toward the wall per m along the direction
        plant = here + (distance - FOOT_STANDOFF) / along * direction
        if ctx.state.foothold is not None:  # a planned foothold (the climb's back feet): that one
            plant = ctx.state.foothold.copy()
        # the seat's last 2 cm go straight along the wall normal: a foot that moves along the plate
        # as its face touches is held there by friction, trailing its target (4 mm for the back feet)
        ctx.state.reach = ReachPlan(plant, plant - REACH_CLEARANCE * FACE_WALL)

    def step(t: float, ctx: PhaseContext) -> IKTarget:
        return IKTarget.with_orientation(required(ctx.state.orient, "the staging point").end, FACE_WALL)

    return Phase("F2W_MEASURE", 0.0, step, enter)


def _seat_on_contact(
    t: float, ctx: PhaseContext, seating: Seating, target: np.ndarray, plant: np.ndarray
) -> np.ndarray:
    """The seat with a contact sensor: onto the plant, then on past it at :data:`CREEP_RATE` (at most
    :data:`SEAT_PRESS`) until the sensor says contact; from then on the plant's depth is where the
    foot touched and the clamp will sink it (:data:`~sally_description.constants.CLAMP_SINK` past
    it; its place in the surface's plane still the plan's, trimmed), and the magnet comes on
    :data:`SEAT_SETTLE` later."""
    s = quintic((t - REACH_TIME) / SEAT_TIME)
    if seating.touched is None:
        if ctx.contact_fn is not None and ctx.contact_fn():  # held where the clamp will seat it
            seating.touched = (t, float(ctx.ee_pos() @ FACE_WALL) + CLAMP_SINK)
        elif t > REACH_TIME + SEAT_TIME + CONTACT_WAIT:
            raise SequenceError(
                f"F2W_REACH: no contact sensed {CONTACT_WAIT:g} s after the seat, "
                f"{SEAT_PRESS * 1e3:g} mm past the measured surface"
            )
        else:
            press = min(SEAT_PRESS, CREEP_RATE * max(0.0, t - REACH_TIME - SEAT_TIME))
            return seating.trim.update(t, target + s * (plant - target) + press * FACE_WALL, ctx.ee_pos())
    touched_at, depth = seating.touched
    seat = target + s * (plant - target)
    seat = seat + (depth - float(seat @ FACE_WALL)) * FACE_WALL  # as deep as the foot touched
    if t >= touched_at + SEAT_SETTLE and not seating.magnet_on:
        ctx.enable_magnet()
        seating.magnet_on = True
    return seat if seating.magnet_on else seating.trim.update(t, seat, ctx.ee_pos())


REACH_MAX_ANGLE = 30.0
"""deg: a leg heading further than this from the wall normal reaches straight along the normal."""


def reach_direction(ee: np.ndarray, hip_pivot: np.ndarray) -> np.ndarray:
    """The horizontal direction from the hip pivot through the EE (unit): reaching along it moves
    the foot straight out along its leg, so the hip's yaw joint does not turn. f2w's swing ends
    with the leg heading at the wall and the hip at its stop; on a body yawed a few degrees, a reach
    straight along the wall normal asks the hip past its stop (design notes, "Why these values").
    Along the wall normal when the leg heads more than :data:`REACH_MAX_ANGLE` off it."""
    d = np.asarray(ee, float) - np.asarray(hip_pivot, float)
    d[2] = 0.0
    norm = float(np.linalg.norm(d))
    if norm < 1e-6 or float(d @ FACE_WALL) < norm * math.cos(math.radians(REACH_MAX_ANGLE)):
        return FACE_WALL.copy()
    return d / norm


def reach() -> Phase:
    """REACH: the foot goes to its approach point, then seats on its plant and its magnet comes on."""

    def enter(ctx: PhaseContext) -> None:
        ctx.state.seating = Seating(ctx.ee_pos(), SeatTrim(FACE_WALL))

    def step(t: float, ctx: PhaseContext) -> IKTarget:
        seating, plan = (
            required(ctx.state.seating, "the reach's start"),
            required(ctx.state.reach, "F2W_MEASURE's plan"),
        )
        start, target, plant = seating.start, plan.approach, plan.plant
        if t < REACH_TIME:  # untrimmed: moving, the foot trails its target, a lag a trim would wind up
            return IKTarget.with_orientation(start + quintic(t / REACH_TIME) * (target - start), FACE_WALL)
        if ctx.contact_fn is not None:
            return IKTarget.with_orientation(_seat_on_contact(t, ctx, seating, target, plant), FACE_WALL)
        if t >= REACH_TIME + SEAT_TIME + SEAT_SETTLE and not seating.magnet_on:
            ctx.enable_magnet()
            seating.magnet_on = True
        seat = target + quintic((t - REACH_TIME) / SEAT_TIME) * (plant - target)
        if seating.magnet_on:  # the magnet holds the foot where it landed: the plan again
            return IKTarget.with_orientation(seat, FACE_WALL)
        return IKTarget.with_orientation(seating.trim.update(t, seat, ctx.ee_pos()), FACE_WALL)

    return Phase("F2W_REACH", REACH_TIME, step, enter, unbounded=True, ends=Ending.PLANTED_AFTER_DWELL)
