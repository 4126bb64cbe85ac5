"""The climb: the back feet's floor steps, the body through the corner, then BL and BR onto the wall.

``f2w_all`` runs, in order (:data:`.plan_catalogue.CLIMB`): BODY_SQUARE (always: it also puts the IK
in its conform mode, every stance face held flat, from the first tick), BL's then BR's floor step,
f2w (FL, then FR on the wall), the body move, then BL's and BR's way to the wall:

first BL, then BR (``step_bl`` / ``step_br``), a floor step toward the corner while the other three
feet stand on the floor:
STEP_LIFT (1 s)    the magnet off, the foot raised 3 cm
STEP_MOVE (2 s)    to above :data:`BACK_FLOOR_STEP` (EE site 0.15 m behind main_frame's start,
                   0.28 m beside main_frame), face down
STEP_LOWER (1 s)   down onto the floor, face down
STEP_SEAT (1 s)    the magnet on, held; then the foot is a POSITION stance foot again
then f2w's FL and FR, then
BODY_MOVE (10 s)   every foot holds; the body goes from where it stands to :data:`CLIMB_BODY`
                   (origin 0.35 m from the wall, 0.25 m up, pitched 90 deg nose-up: belly to the
                   wall; sideways it stays where it is), position straight and orientation by
                   slerp, on one quintic
BODY_SETTLE (1 s)  the body held there
then for BL, then BR (``b2w_bl`` / ``b2w_br``):
BACK_LIFT (1 s)    the magnet off, the foot raised 5 cm off the floor (its target from 5 mm up at once)
BACK_SWING (4 s)   to a staging point 6 cm off the wall in front of its plant point, along a path
                   planned in joint space (:class:`.swing_path.JointSwing`): the leg stands
                   knee-down and reaches the wall knee-up, a flip the differential IK cannot make
F2W_MEASURE, F2W_REACH  as in f2w (2 cm clearance, the seat, the magnet on, planted after the dwell),
                   but onto the plan's foothold: the swing ends 19-21 mm beside its staging point
                   (sideways), and a plant measured from there (f2w's) landed that far from the
                   foothold; reaching for the foothold itself lands within 1 mm of it

Why the steps come first: with FL and FR on the wall (0.16 m apart) and one back foot on the floor,
lifting the other leaves the body hanging off the wall feet; the front joints saturate at 40 N m and
the body sagged 4.5 cm, rocking the floor foot off its face. Four feet on the floor carry a step.

Why the step, this body pose and these points (``sally-reach``, README "Reaching the wall"): a
planted leg keeps its solution branch (its knee cannot flip while the foot holds). From where
they stand (0.33 m behind main_frame) the back legs' wrists reach their -90 deg stop at about 60
deg of pitch on the straight body path to this pose (of 30 straight paths to 90 deg tried, the best
held to 84 deg; the IK, and the graph's slipping floor feet, showed the same); stepped to 0.15 m
behind, they follow the body to 90 deg. The back feet reach
the wall only with the body near 90 deg, and then low: EE site 0.06-0.10 m up. :func:`plan_checks`
lists these claims for :mod:`.reach_map` and a test to verify with the model's kinematics.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from sally_description.constants import FOOT_STANDOFF, WALL_X
from sally_description.pose import Pose
from sally_description.reachability import CornerPose
from sally_node_common.ik_target import IKTarget

from .phase import Ending, Phase, PhaseContext
from .phase_state import BodyMove, Move, required
from .sequences import FACE_FLOOR, FACE_WALL, lift, measure, reach
from .swing_path import JointSwing
from .trajectory import quintic

CLIMB_POSE = CornerPose(distance=0.35, height=0.25, pitch_deg=90.0)
"""The body pose the back feet step to the wall from (m from the wall, m up, deg nose-up)."""
CLIMB_BODY = CLIMB_POSE.pose
BODY_TIME, BODY_SETTLE = 10.0, 1.0
BACK_LIFT, BACK_LIFT_TIME = 0.05, 1.0
"""m, s. The sooner a released foot is off its surface the less the body sags onto the others: on the
ceiling (w2c), with the body hanging from FL and FR, BL's lift moved FL by 5.3 mm over 4 s, up to
1.56 mm over 2 s (2 of 20 perturbed runs over the 1 mm goal) and 0.65 mm over 1 s."""
BACK_LIFT_START = 0.005
"""m: the back lift's target starts this far above the floor. A swing foot still touching the floor
pushes on it to stay at its world target while the body moves: from the floor, the quintic kept BL
within 1 mm of it for 0.3 s while its leg pushed the body up 13 mm (63-77 N on the floor with the
magnet off) and FL peeled 1.0 mm; from 5 mm up it leaves at once and FL moves 0.57 mm."""
BACK_SWING_TIME = 4.0
BACK_STAGING = 0.06
"""How far off the wall (m, EE site) BACK_SWING ends; F2W_REACH then closes to 2 cm and seats."""
BACK_PLANT = {"BL": (0.22, 0.10), "BR": (-0.22, 0.10)}
"""(y, z) of each back foot's EE site on the wall (m; y from main_frame's, z world)."""
BACK_FLOOR_STEP = {"BL": (-0.15, 0.28), "BR": (-0.15, -0.28)}
"""(x, y) of each back foot's EE site after its floor step (m; x world, main_frame starts at x = 0;
y from main_frame's)."""
STEP_HEIGHT = 0.03
STEP_LIFT_TIME, STEP_MOVE_TIME, STEP_LOWER_TIME, STEP_SEAT_TIME = 1.0, 2.0, 1.0, 1.0
STANDING_Z = 0.009
"""EE site height of a foot standing on the floor (FOOT_STANDOFF plus the spawn clearance)."""
FRONT_PLANT_Z = 0.42
"""About where f2w plants FL and FR (EE site height, m), for :func:`plan_checks`."""
MIN_PITCH_DEG = 75.0
"""f2w_all succeeds only with the body pitched at least this much (deg); the run report judges by it too."""


def plant_point(foot: str, body_y: float = 0.0) -> np.ndarray:
    """The EE site's place on the wall for back foot ``foot`` with main_frame at world y ``body_y`` (m)."""
    y, z = BACK_PLANT[foot]
    return np.array([WALL_X - FOOT_STANDOFF, body_y + y, z])


def lateral(ctx: PhaseContext) -> float:
    """main_frame's world y now (m): the climb keeps the body and places the back feet relative to
    it sideways. A body started off y = 0 plants FL and FR off it by as much (f2w reaches from the
    body); a body target at y = 0 would then pull one front leg out sideways against its hip stop
    and slide its foot on the wall (design notes, "Why these values")."""
    return float(ctx.body().position[1])


def climb_body(y: float) -> Pose:
    """:data:`CLIMB_BODY` with main_frame at world y ``y`` (m)."""
    return Pose(CLIMB_BODY.position + [0.0, y, 0.0], CLIMB_BODY.quat)


def body_move(goal: Callable[[float], Pose] = climb_body, name: str = "BODY_MOVE") -> Phase:
    """BODY_MOVE (or ``name``): the body from where it is to ``goal(y)`` (default the climb pose), y
    its world y as the move begins, every foot held, on one quintic over :data:`BODY_TIME`."""

    def enter(ctx: PhaseContext) -> None:
        start = ctx.body()
        ctx.state.body_move = BodyMove(start, goal(float(start.position[1])))

    def step(t: float, ctx: PhaseContext) -> Pose:
        move = required(ctx.state.body_move, f"{name}'s move")
        return move.start.toward(move.goal, quintic(t / BODY_TIME))

    return Phase(name, BODY_TIME, step, enter)


def body_settle() -> Phase:
    """BODY_SETTLE: the body held at its goal while the feet settle."""
    return Phase("BODY_SETTLE", BODY_SETTLE, lambda t, ctx: required(ctx.state.body_move, "BODY_MOVE's goal").goal)


def back_swing(foot: str) -> Phase:
    """From the lifted point to the staging point along the joint-space path, the face turning to
    the wall with it; it sets the orient move, whose end F2W_MEASURE holds."""

    def enter(ctx: PhaseContext) -> None:
        start = ctx.ee_home + [0.0, 0.0, BACK_LIFT]
        ctx.state.foothold = plant_point(foot, lateral(ctx))
        staging = ctx.state.foothold - BACK_STAGING * FACE_WALL
        ctx.state.orient = Move(start, staging)
        ctx.state.swing_path = JointSwing(foot, ctx.body(), start, staging, FACE_WALL)

    def step(t: float, ctx: PhaseContext) -> IKTarget:
        position, face = required(ctx.state.swing_path, "BACK_SWING's path").at(quintic(t / BACK_SWING_TIME))
        return IKTarget.with_orientation(position, face)

    return Phase("BACK_SWING", BACK_SWING_TIME, step, enter)


def step_point(ctx: PhaseContext, foot: str) -> np.ndarray:
    """Where ``foot`` stands after its floor step: :data:`BACK_FLOOR_STEP` beside main_frame."""
    x, y = BACK_FLOOR_STEP[foot]
    return np.array([x, lateral(ctx) + y, ctx.ee_home[2]])


def floor_step(foot: str) -> list[Phase]:
    """The back foot moved along the floor toward the corner (three feet hold)."""
    up = np.array([0.0, 0.0, STEP_HEIGHT])

    def move_enter(ctx: PhaseContext) -> None:
        ctx.state.step_point = step_point(ctx, foot)

    def move(t: float, ctx: PhaseContext) -> IKTarget:
        start, end = ctx.ee_home + up, required(ctx.state.step_point, "the step point") + up
        return IKTarget.with_orientation(start + quintic(t / STEP_MOVE_TIME) * (end - start), FACE_FLOOR)

    def lower(t: float, ctx: PhaseContext) -> IKTarget:
        return IKTarget.with_orientation(
            required(ctx.state.step_point, "the step point") + up * (1.0 - quintic(t / STEP_LOWER_TIME)), FACE_FLOOR
        )

    def seat_enter(ctx: PhaseContext) -> None:
        ctx.enable_magnet()

    return [
        lift("STEP_LIFT", STEP_HEIGHT, STEP_LIFT_TIME),
        Phase("STEP_MOVE", STEP_MOVE_TIME, move, move_enter),
        Phase("STEP_LOWER", STEP_LOWER_TIME, lower),
        Phase(
            "STEP_SEAT",
            STEP_SEAT_TIME,
            lambda t, ctx: IKTarget.with_orientation(required(ctx.state.step_point, "the step point"), FACE_FLOOR),
            seat_enter,
            ends=Ending.STEPPED,
        ),
    ]


def body_climb() -> list[Phase]:
    """The body's climb: its move, then its settle."""
    return [body_move(), body_settle()]


SQUARE_TIME = 2.0
SQUARE_MIN_DEG = 0.5
"""deg: a body heading further than this from the wall normal is squared before f2w starts."""


def body_square() -> list[Phase]:
    """Every foot holds; the body turns about world z to face the wall (heading 0). f2w's swing
    leaves FL's hip at its -45 deg stop with the leg at the wall: on a turned body the face
    cannot turn the rest of the way to the wall and lands off its plant target (design notes,
    "Why these values")."""

    def enter(ctx: PhaseContext) -> None:
        start = ctx.body()
        ctx.state.square = BodyMove(start, start.squared())

    def step(t: float, ctx: PhaseContext) -> Pose:
        turn = required(ctx.state.square, "BODY_SQUARE's turn")
        return turn.start.toward(turn.goal, quintic(t / SQUARE_TIME))

    return [Phase("BODY_SQUARE", SQUARE_TIME, step, enter)]


def back_to_wall(foot: str) -> list[Phase]:
    """A back foot from the floor to the wall: lift, swing, measure, reach."""
    return [lift("BACK_LIFT", BACK_LIFT, BACK_LIFT_TIME, BACK_LIFT_START), back_swing(foot), measure(), reach()]


@dataclass(frozen=True)
class ClimbPlan:
    """The plan's geometry, for :mod:`.reach_map` and a test to check with the model's kinematics."""

    body: CornerPose
    """Where BODY_MOVE takes the body."""
    front_plants: dict[str, np.ndarray]
    """Where f2w holds FL and FR on the wall (EE sites, about)."""
    floor_steps: dict[str, np.ndarray]
    """Where BL and BR stand after their floor steps (EE sites, the standing height)."""
    back_plants: dict[str, np.ndarray]
    """Where BL and BR go on the wall (EE sites)."""


def plan_checks() -> ClimbPlan:
    """The climb's plan: the body pose and the feet's plants, for the reachability check."""
    return ClimbPlan(
        CLIMB_POSE,
        {
            "FL": np.array([WALL_X - FOOT_STANDOFF, 0.08, FRONT_PLANT_Z]),
            "FR": np.array([WALL_X - FOOT_STANDOFF, -0.08, FRONT_PLANT_Z]),
        },
        {foot: np.array([x, y, STANDING_Z]) for foot, (x, y) in BACK_FLOOR_STEP.items()},
        {foot: plant_point(foot) for foot in BACK_PLANT},
    )
