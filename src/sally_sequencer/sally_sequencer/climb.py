"""The climb past f2w: the body through the corner, then BL and BR onto the wall.

After f2w (FL and FR planted on the wall about 0.42 m up, BL and BR on the floor) the plan is:

BODY_MOVE (10 s)   every foot holds; the body goes from where it stands to :data:`CLIMB_BODY`
                   (origin 0.34 m from the wall, 0.30 m up, pitched 90 deg nose-up: belly to the
                   wall), position straight and orientation by slerp, on one quintic
BODY_SETTLE (1 s)  the body held there
then for BL, then BR (``b2w_bl`` / ``b2w_br``):
BACK_LIFT (2 s)    the magnet off, the foot raised 5 cm off the floor
BACK_SWING (4 s)   to a staging point 6 cm off the wall in front of its plant point, the face turned
                   from the floor (down) to the wall (+x) on the same quintic; the foot keeps
                   outside the chassis (|y| >= 0.14 m) on the way
F2W_MEASURE, F2W_REACH  as in f2w: 2 cm clearance, the seat, the magnet on, planted after the dwell

Why this body pose and these points: the reachability map (``sally-reach``, README "Reaching the
wall") shows that with FL and FR held where f2w puts them and BR on the floor where it stands,
BL can be planted flat on the wall only once the body is pitched to about 90 deg, 0.30 m up and
0.30-0.38 m from the wall, and only low on the wall (EE site 0.10-0.16 m up, 0.10-0.16 m to the
side); at 70-80 deg no pose leaves all three holds and a wall plant for BL. The straight path from
the floor pose keeps all four feet reachable at every tenth of the way (the floor feet twist their
passive ee2 joint up to 26 deg). :func:`plan_checks` lists these claims for a test to verify with
the model's kinematics.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sally_description.constants import WALL_X
from sally_description.reachability import BodyPose
from sally_node_common.body_target import BodyTarget
from sally_node_common.ik_target import IKTarget

from .phase import Phase, PhaseContext
from .sequences import FACE_FLOOR, FACE_WALL, FOOT_STANDOFF, measure, reach, slerp
from .trajectory import quintic

CLIMB_POSE = BodyPose(distance=0.34, height=0.30, pitch_deg=90.0)
"""The body pose the back feet step to the wall from (m from the wall, m up, deg nose-up)."""
CLIMB_BODY = BodyTarget(CLIMB_POSE.position, CLIMB_POSE.quat)
BODY_TIME, BODY_SETTLE = 10.0, 1.0
BACK_LIFT, BACK_LIFT_TIME = 0.05, 2.0
BACK_SWING_TIME = 4.0
BACK_STAGING = 0.06
"""How far off the wall (m, EE site) BACK_SWING ends; F2W_REACH then closes to 2 cm and seats."""
BACK_PLANT = {"BL": (0.16, 0.13), "BR": (-0.16, 0.13)}
"""(y, z) of each back foot's EE site on the wall (m)."""
FRONT_PLANT_Z = 0.42
"""About where f2w plants FL and FR (EE site height, m), for :func:`plan_checks`."""
MIN_PITCH = 75.0
"""f2w_all succeeds only with the body pitched at least this much (deg)."""


def plant_point(foot: str) -> np.ndarray:
    """The EE site's place on the wall for back foot ``foot``."""
    y, z = BACK_PLANT[foot]
    return np.array([WALL_X - FOOT_STANDOFF, y, z])


def body_move() -> Phase:
    def enter(ctx: PhaseContext) -> None:
        ctx.shared["body_start"] = ctx.body()

    def step(t: float, ctx: PhaseContext) -> BodyTarget:
        return ctx.shared["body_start"].toward(CLIMB_BODY, quintic(t / BODY_TIME))

    return Phase("BODY_MOVE", BODY_TIME, step, enter)


def body_settle() -> Phase:
    return Phase("BODY_SETTLE", BODY_SETTLE, lambda t, ctx: CLIMB_BODY)


def back_lift() -> Phase:
    def enter(ctx: PhaseContext) -> None:
        ctx.disable_magnet()

    def step(t: float, ctx: PhaseContext) -> IKTarget:
        return IKTarget.position_only(ctx.ee_home + [0.0, 0.0, BACK_LIFT * quintic(t / BACK_LIFT_TIME)])

    return Phase("BACK_LIFT", BACK_LIFT_TIME, step, enter)


def back_swing(foot: str) -> Phase:
    """From the lifted point to the staging point, face from down to the wall; the name
    F2W_MEASURE reads the staging point from (``shared["orient"]``) is kept."""

    def enter(ctx: PhaseContext) -> None:
        start = ctx.ee_home + [0.0, 0.0, BACK_LIFT]
        staging = plant_point(foot) - BACK_STAGING * FACE_WALL
        ctx.shared["orient"] = (start, staging)

    def step(t: float, ctx: PhaseContext) -> IKTarget:
        start, staging = ctx.shared["orient"]
        s = quintic(t / BACK_SWING_TIME)
        return IKTarget.with_orientation(start + s * (staging - start), slerp(FACE_FLOOR, FACE_WALL, s))

    return Phase("BACK_SWING", BACK_SWING_TIME, step, enter)


def body_climb() -> list[Phase]:
    return [body_move(), body_settle()]


def back_to_wall(foot: str) -> list[Phase]:
    return [back_lift(), back_swing(foot), measure(), reach()]


@dataclass(frozen=True)
class ClimbPlan:
    """The plan's geometry, for :mod:`.reach_map` and a test to check with the model's kinematics."""

    body: BodyPose
    """Where BODY_MOVE takes the body."""
    front_plants: dict[str, np.ndarray]
    """Where f2w holds FL and FR on the wall (EE sites, about)."""
    back_plants: dict[str, np.ndarray]
    """Where BL and BR go on the wall (EE sites)."""


def plan_checks() -> ClimbPlan:
    return ClimbPlan(
        CLIMB_POSE,
        {
            "FL": np.array([WALL_X - FOOT_STANDOFF, 0.08, FRONT_PLANT_Z]),
            "FR": np.array([WALL_X - FOOT_STANDOFF, -0.08, FRONT_PLANT_Z]),
        },
        {foot: plant_point(foot) for foot in BACK_PLANT},
    )
