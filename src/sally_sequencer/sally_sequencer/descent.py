"""The way back down: every foot from the wall onto the floor, after the climb onto it (``route:=floor,wall,floor``).

Planned in the climbed corner's frame, as the climb is: after ``w2c`` (``scene:=corner3
route:=wall,ceiling,wall``) its "floor" is the room's wall and its "wall" the ceiling.

After ``f2w_all`` (the body pitched 90 deg at :data:`.climb.CLIMB_BODY`, every foot planted on the
wall) the way down runs the climb's stages backwards, in the reverse order (:data:`STAGES`), each
foot landing on a designed foothold beside main_frame as the body stands when that stage begins:

* BR, then BL, from the wall onto the floor, tucked in under the body (:data:`BACK_LANDING`), each
  while the other three feet are planted on the wall, as the climb left them;
* the body back through the corner to standing level on the floor (BL and BR on the floor, FL and FR
  on the wall, as it went up);
* FR, then FL, from the wall to where they stood at the floor start (f2w backwards);
* BR, then BL, stepped back out along the floor to where they stood at the floor start, so that Sally
  ends in the stance she started the climb from.

Why the back feet land tucked in: at the climb pose a back foot stood on the floor face down only
because the floor, holding its face, twisted the passive ee2 joint as the body pitched; lifted, the
twist springs back to 0. Brought back down to the floor point it stepped from, its face stays
:data:`LANDING_FACE_OFF_DEG` deg off the floor at best (:func:`.swing_path.landing_face_off`): tried,
its housing's rim met the floor 32 mm up and its magnet never held. 12 cm in from there (y = 0.08 m
beside main_frame) the leg points the face straight down, with the hip at its -45 deg stop.

A back foot (``down_br``, ``down_bl``):
DOWN_RELEASE (1 s)  the magnet off, the foot straight off the wall to BACK_SWING's staging point
                    (:data:`.climb.BACK_STAGING` out)
DOWN_SWING (4 s)    BACK_SWING's joint-space path backwards (:class:`.swing_path.JointSwing`): the
                    knee from up to down, to :data:`.climb.BACK_LIFT` above the floor step point
DOWN_TUCK (2 s)     a joint-space path, the knee kept down, to :data:`.wall_walk.CLEARANCE` above its
                    landing point, the face turning down
DOWN_LOWER (1 s), DOWN_SEAT (1 s)  to the approach point, then straight down onto the foothold in
                    0.5 s, held there 0.3 s trimmed in the floor's plane (:mod:`.seat_trim`) but
                    :data:`TUCK_LEAD` off it (the magnet's pull slides it that far), the magnet on
                    at 0.8 s, then on the foothold; then a POSITION stance foot

The body (``body_down``):
BODY_DOWN (10 s)    every foot holds; from the climb pose to level, main_frame :data:`STAND_HEIGHT`
                    above the floor over x = 0 (sideways where it is), on one quintic
BODY_SETTLE (1 s)   held there

A front foot (``down_fr``, ``down_fl``), f2w backwards:
DOWN_RELEASE (1 s)  the magnet off, the foot straight off the wall by f2w's reach clearance (2 cm)
DOWN_AWAY (2 s)     to f2w's orient waypoint (:data:`.sequences.ORIENT_HEIGHT` above the floor, over
                    the end of f2w's swing), the face still to the wall
DOWN_TURN (3 s)     down to the swing's end, the face turning from the wall to the floor
DOWN_UNSWING (1.5 s)  the arc about the hip pivot back over the foothold
DOWN_LOWER, DOWN_SEAT  as a back foot's, without the lead, onto where it stood at the floor start

A back foot's step out (``out_br``, ``out_bl``): STEP_LIFT (1 s, 3 cm up, the magnet off), STEP_MOVE
(2 s, to above where it stood at the floor start), DOWN_SEAT.

Pure: targets in the corner's frame (world, m), times in sim seconds.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from sally_description.constants import FLOOR_Z
from sally_description.model import standing_feet
from sally_description.pose import Pose, turn_toward
from sally_node_common.ik_target import IKTarget

from .climb import (
    BACK_FLOOR_STEP,
    BACK_LIFT,
    BACK_STAGING,
    BODY_SETTLE,
    BODY_TIME,
    STANDING_Z,
    STEP_HEIGHT,
    STEP_LIFT_TIME,
    STEP_MOVE_TIME,
    body_move,
    body_settle,
    lateral,
)
from .phase import Phase, PhaseContext
from .phase_state import Move, ReachPlan, required
from .sequences import (
    FACE_FLOOR,
    FACE_WALL,
    FOOT_STANDOFF,
    LIFT_HEIGHT,
    ORIENT_HEIGHT,
    ORIENT_TIME,
    REACH_CLEARANCE,
    SWING_ANGLE_DEG,
    SWING_TIME,
    lift,
    swing_arc,
)
from .swing_path import JointSwing
from .trajectory import quintic
from .wall_walk import CLEARANCE
from .wall_walk import seat as floor_seat

STAGES = (
    ("BR", "down_br"),
    ("BL", "down_bl"),
    ("BODY", "body_down"),
    ("FR", "down_fr"),
    ("FL", "down_fl"),
    ("BR", "out_br"),
    ("BL", "out_bl"),
)
"""The way down's stages in order: the climb's after BODY_SQUARE backwards, then the back feet's
steps back out."""
SEQUENCE_FEET = {name: who for who, name in STAGES}
"""Stage name -> the foot it moves (BODY: the body, every foot holding)."""
BACK_LANDING = {"BL": (-0.20, 0.08), "BR": (-0.20, -0.08)}
"""(x, y) where a back foot's EE site lands on the floor with the body at the climb pose (m; x world,
y from main_frame's): the leg points its face straight down there, the hip at its -45 deg stop (a test
checks it, :func:`.swing_path.landing_face_off`)."""
LANDING_FACE_OFF_DEG = 61
"""deg: how far from the floor a back foot's face stays at best at its floor step point
(:data:`.climb.BACK_FLOOR_STEP`) with the body at the climb pose and ee2 at 0 (a test checks it)."""
TUCK_LEAD = np.array([-0.0015, 0.0, 0.0])
"""m: where a tucked-in back foot is held, from its foothold, until its magnet goes on. Held on the
foothold itself, the foot hovered 2.6-2.8 mm above it with its housing's rim already on the floor;
the magnet pulled the face flat about that rim and the foot came down 1.2-1.9 mm along +x (toward
the wall), so it landed 1.36-1.98 mm from the foothold (lockstep, the three ways down). Aimed off
by that slip, it lands 0.68-1.16 mm from it."""
STAND_HEIGHT = 0.1236
"""m: main_frame above the floor's face as Sally stands at the floor start (the model's floor keyframe)."""
RELEASE_TIME = 1.0
DOWN_SWING_TIME = 4.0
AWAY_TIME = 2.0
TUCK_TIME = 2.0
LOWER_TIME = 1.0
FRONT_SWING = {"FL": -SWING_ANGLE_DEG, "FR": +SWING_ANGLE_DEG}
"""deg: f2w's swing about the hip pivot, which the descent undoes."""
SEAT_MOVE, MAGNET_ON, SEAT_TIME = 0.5, 0.8, 1.0
"""s: the seat's move onto the foothold, when the magnet goes on (after 0.3 s held there: switched on
as the move ended, a back foot still 5 mm up was yanked 2 mm along the floor), the seat's end."""
SEAT_PHASE = "DOWN_SEAT"
"""The phase at whose end a foot holds the floor again."""
FIRST_PHASE = "DOWN_RELEASE"
"""The way down's first phase (BR's release): the climb before it ends there."""


DURATION = (
    2 * (RELEASE_TIME + DOWN_SWING_TIME + TUCK_TIME + LOWER_TIME + SEAT_TIME)
    + BODY_TIME
    + BODY_SETTLE
    + 2 * (RELEASE_TIME + AWAY_TIME + ORIENT_TIME + SWING_TIME + LOWER_TIME + SEAT_TIME)
    + 2 * (STEP_LIFT_TIME + STEP_MOVE_TIME + SEAT_TIME)
)
"""Sim seconds the descent's phases take (s)."""


def foothold(foot: str, body_y: float, tucked: bool = True) -> np.ndarray:
    """Where ``foot``'s EE site lands on the floor, with main_frame at world y ``body_y`` (m): where it
    stood at the floor start, or (a back foot from the wall, ``tucked``) :data:`BACK_LANDING`."""
    if tucked and foot in BACK_LANDING:
        x, y = BACK_LANDING[foot]
    else:
        x, y, _ = standing_feet()[foot]
    return np.array([x, body_y + y, FLOOR_Z + FOOT_STANDOFF])


def stand_pose(body_y: float) -> Pose:
    """main_frame standing on the floor at the floor start's x, at world y ``body_y`` (m), level."""
    return Pose(np.array([0.0, body_y, FLOOR_Z + STAND_HEIGHT]), np.array([1.0, 0.0, 0.0, 0.0]))


def release(distance: float) -> Phase:
    """DOWN_RELEASE: the magnet off, the foot straight off the wall by ``distance`` (m), face to the wall."""

    def enter(ctx: PhaseContext) -> None:
        ctx.disable_magnet()
        start = ctx.ee_pos()
        ctx.state.orient = Move(start, start - distance * FACE_WALL)

    def step(t: float, ctx: PhaseContext) -> IKTarget:
        away = required(ctx.state.orient, "DOWN_RELEASE's move")
        return IKTarget.with_orientation(away.start + quintic(t / RELEASE_TIME) * (away.end - away.start), FACE_WALL)

    return Phase(FIRST_PHASE, RELEASE_TIME, step, enter)


def seat(
    where: Callable[[PhaseContext], np.ndarray],
    move: str = "DOWN_LOWER",
    move_time: float = LOWER_TIME,
    lead: np.ndarray | None = None,
) -> list[Phase]:
    """``move`` (DOWN_LOWER), DOWN_SEAT: from where the foot is to :data:`.wall_walk.CLEARANCE` above
    the foothold ``where`` gives (world, m) over ``move_time`` s, then straight down onto it in
    :data:`SEAT_MOVE` s, held there, trimmed in the floor's plane (:mod:`.seat_trim`), until the
    magnet goes on at :data:`MAGNET_ON` s, face down throughout."""

    def move_enter(ctx: PhaseContext) -> None:
        plant = where(ctx)
        ctx.state.reach = ReachPlan(plant, plant - CLEARANCE * FACE_FLOOR)
        ctx.state.orient = Move(ctx.ee_pos(), ctx.state.reach.approach)

    def move_step(t: float, ctx: PhaseContext) -> IKTarget:
        path = required(ctx.state.orient, f"{move}'s move")
        return IKTarget.with_orientation(path.start + quintic(t / move_time) * (path.end - path.start), FACE_FLOOR)

    return [
        Phase(move, move_time, move_step, move_enter),
        floor_seat(SEAT_PHASE, FACE_FLOOR, SEAT_TIME, MAGNET_ON, SEAT_MOVE, lead),
    ]


def on_foothold(foot: str, tucked: bool = True) -> Callable[[PhaseContext], np.ndarray]:
    """``foot``'s foothold (:func:`foothold`) beside main_frame as it stands when asked."""
    return lambda ctx: foothold(foot, lateral(ctx), tucked)


def back_down(foot: str) -> list[Phase]:
    """A back foot from the wall onto the floor (``down_bl``, ``down_br``)."""

    def swing_enter(ctx: PhaseContext) -> None:
        staging = required(ctx.state.orient, "DOWN_RELEASE's move").end
        x, y = BACK_FLOOR_STEP[foot]
        lifted = np.array([x, lateral(ctx) + y, STANDING_Z + BACK_LIFT])
        ctx.state.swing_path = JointSwing(foot, ctx.body(), lifted, staging, FACE_WALL)
        ctx.state.step_point = lifted

    def swing_step(t: float, ctx: PhaseContext) -> IKTarget:
        position, face = required(ctx.state.swing_path, "DOWN_SWING's path").at(1.0 - quintic(t / DOWN_SWING_TIME))
        return IKTarget.with_orientation(position, face)

    def tuck_enter(ctx: PhaseContext) -> None:
        above = foothold(foot, lateral(ctx)) - CLEARANCE * FACE_FLOOR
        start = required(ctx.state.step_point, "DOWN_SWING's end")
        ctx.state.swing_path = JointSwing(foot, ctx.body(), start, above, FACE_FLOOR, knees=(-1.0, -1.0))

    def tuck(t: float, ctx: PhaseContext) -> IKTarget:
        position, face = required(ctx.state.swing_path, "DOWN_TUCK's path").at(quintic(t / TUCK_TIME))
        return IKTarget.with_orientation(position, face)

    return [
        release(BACK_STAGING),
        Phase("DOWN_SWING", DOWN_SWING_TIME, swing_step, swing_enter),
        Phase("DOWN_TUCK", TUCK_TIME, tuck, tuck_enter),
        *seat(on_foothold(foot), lead=TUCK_LEAD),
    ]


def front_down(foot: str) -> list[Phase]:
    """A front foot from the wall onto the floor (``down_fl``, ``down_fr``): f2w backwards."""
    angle = math.radians(FRONT_SWING[foot])

    def away_enter(ctx: PhaseContext) -> None:
        home = foothold(foot, lateral(ctx)) + [0.0, 0.0, LIFT_HEIGHT]
        pivot = ctx.hip_pivot()
        swung = swing_arc(home, pivot, angle)
        ctx.state.swing_arc = (home, pivot)
        ctx.state.swing_end = swung
        start = required(ctx.state.orient, "DOWN_RELEASE's move").end
        waypoint = np.array([swung[0], swung[1], home[2] - LIFT_HEIGHT + ORIENT_HEIGHT])
        ctx.state.orient = Move(start, waypoint)

    def away(t: float, ctx: PhaseContext) -> IKTarget:
        move = required(ctx.state.orient, "DOWN_AWAY's move")
        return IKTarget.with_orientation(move.start + quintic(t / AWAY_TIME) * (move.end - move.start), FACE_WALL)

    def turn(t: float, ctx: PhaseContext) -> IKTarget:
        waypoint, swung = required(ctx.state.orient, "DOWN_AWAY's move").end, required(ctx.state.swing_end, "the arc")
        s = quintic(t / ORIENT_TIME)
        return IKTarget.with_orientation(waypoint + s * (swung - waypoint), turn_toward(FACE_WALL, FACE_FLOOR, s))

    def unswing(t: float, ctx: PhaseContext) -> IKTarget:
        home, pivot = required(ctx.state.swing_arc, "the arc")
        return IKTarget.position_only(swing_arc(home, pivot, angle * (1.0 - quintic(t / SWING_TIME))))

    return [
        release(REACH_CLEARANCE),
        Phase("DOWN_AWAY", AWAY_TIME, away, away_enter),
        Phase("DOWN_TURN", ORIENT_TIME, turn),
        Phase("DOWN_UNSWING", SWING_TIME, unswing),
        *seat(on_foothold(foot)),
    ]


def body_down() -> list[Phase]:
    """BODY_DOWN, BODY_SETTLE: the body from the climb pose back to standing level on the floor
    (:data:`STAND_HEIGHT` up, over x = 0, sideways where it is)."""
    return [body_move(stand_pose, "BODY_DOWN"), body_settle()]


def make_descent(name: str) -> list[Phase]:
    """The phases of descent stage ``name`` (:data:`STAGES`)."""
    who = SEQUENCE_FEET[name]
    if who == "BODY":
        return body_down()
    if name.startswith("out_"):
        return [
            lift("STEP_LIFT", STEP_HEIGHT, STEP_LIFT_TIME),
            *seat(on_foothold(who, tucked=False), "STEP_MOVE", STEP_MOVE_TIME),
        ]
    return back_down(who) if who in BACK_LANDING else front_down(who)
