"""``sally_interfaces/IKTarget`` to and from :class:`TargetTick`: the sequencer builds it, the IK
and the runner read it. A tick is everything one solve needs from the sequencer, in one message:
every foot's stance, at most one swing target and one body target; with none of them it only says
the sequencer stepped at its stamp (the IK solves that state once it has it)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from sally_description.constants import LEGS
from sally_description.pose import Pose
from sally_interfaces.msg import IKTarget as IKTargetMsg

from .decoded_once import decoded_once
from .ik_target import IKTarget, IKTargetError
from .inputs import LENGTH, MAX_DISTANCE, UNKNOWN, InputError, known, numbers, unit_quaternion
from .stamps import set_stamp, stamp_ns
from .stance import StanceMode

MAX_COST = 1e6
"""The largest position or orientation cost a target may carry (dimensionless task weight)."""
INVALID = "invalid"
"""Refusal reason: well-formed, but a stance the robot cannot take (two feet swinging, a foot named twice)."""


@dataclass(frozen=True)
class TargetTick:
    """One sequencer step's message to the IK."""

    stamp: int
    """The IK state it is for (ns of sim time)."""
    stance: Mapping[str, StanceMode] = field(default_factory=dict)
    """Foot -> stance, applied before the target is judged (empty: the stances stay as they are)."""
    foot: str = ""
    """The swinging foot ``target`` is for ('' with no target)."""
    target: IKTarget | None = None
    body: Pose | None = None
    phase: str = ""
    """The sequencer's phase when it had a target (the run report and its plots read it)."""

    def __post_init__(self) -> None:
        if (self.target is None) != (not self.foot):
            raise ValueError(
                f"a target needs its foot and a foot its target (foot {self.foot!r}, target {self.target})"
            )


def ik_target_to_msg(tick: TargetTick, frame: str = "world") -> IKTargetMsg:
    """The IKTarget message of one sequencer tick, its positions in TF frame ``frame``."""
    msg = IKTargetMsg()
    set_stamp(msg.header, tick.stamp)
    msg.header.frame_id = frame
    msg.stance_feet, msg.stance_modes = list(tick.stance), [int(m) for m in tick.stance.values()]
    if tick.target is not None:
        goal = tick.target
        msg.foot = tick.foot
        msg.position.x, msg.position.y, msg.position.z = goal.position.tolist()
        msg.has_face_axis = goal.face_axis is not None
        if goal.face_axis is not None:
            msg.face_axis.x, msg.face_axis.y, msg.face_axis.z = goal.face_axis.tolist()
        msg.position_cost, msg.orientation_cost = goal.position_cost, goal.orientation_cost
    if tick.body is not None:
        msg.has_body_pose = True
        pose = msg.body_pose
        pose.position.x, pose.position.y, pose.position.z = tick.body.position.tolist()
        pose.orientation.w, pose.orientation.x, pose.orientation.y, pose.orientation.z = tick.body.quat.tolist()
    msg.phase = tick.phase
    return msg


@decoded_once
def ik_target_from_msg(msg: IKTargetMsg) -> TargetTick:
    """The tick ``msg`` carries; raises :class:`~.inputs.InputError` naming what is wrong (an
    unknown foot or stance, stance feet and modes that do not pair up, two feet swinging, non-finite
    or implausible numbers, a body orientation that is not a unit quaternion). Decoded once for all
    its readers in the process (:mod:`.decoded_once`: its arrays are read-only)."""
    stance = stance_from_fields(list(msg.stance_feet), list(msg.stance_modes))
    target = None
    if msg.foot:
        known([msg.foot], LEGS, "IK target foot")
        p, a = msg.position, msg.face_axis
        position = numbers((p.x, p.y, p.z), MAX_DISTANCE, "IK target position", " m")
        face = numbers((a.x, a.y, a.z), MAX_DISTANCE, "IK target face axis") if msg.has_face_axis else None
        costs = numbers((msg.position_cost, msg.orientation_cost), MAX_COST, "IK target costs")
        try:
            target = IKTarget(position, face, float(costs[0]), float(costs[1]))
        except IKTargetError as exc:
            raise InputError("invalid", str(exc)) from None
    body = None
    if msg.has_body_pose:
        p, q = msg.body_pose.position, msg.body_pose.orientation
        position = numbers((p.x, p.y, p.z), MAX_DISTANCE, "IK target body position", " m")
        body = Pose(position, unit_quaternion((q.w, q.x, q.y, q.z), "IK target body orientation"))
    return TargetTick(stamp_ns(msg.header.stamp), stance, msg.foot, target, body, msg.phase)


def stance_from_fields(feet: list[str], modes: list[int]) -> dict[str, StanceMode]:
    """Foot -> mode of a message's stance fields; raises :class:`~.inputs.InputError` naming what is
    wrong: feet and modes that do not pair up (``length``), an unknown foot or mode (``unknown``),
    a foot named twice or more than one foot swinging (``invalid``)."""
    if len(feet) != len(modes):
        raise InputError(LENGTH, f"IK target stance has {len(feet)} feet and {len(modes)} modes")
    known(feet, LEGS, "IK target stance")
    repeated = sorted({f for f in feet if feet.count(f) > 1})
    if repeated:
        raise InputError(INVALID, f"IK target stance names {repeated} more than once")
    valid = {int(m) for m in StanceMode}
    bad = [m for m in modes if m not in valid]
    if bad:
        names = ", ".join(f"{m.name} {int(m)}" for m in StanceMode)
        raise InputError(UNKNOWN, f"IK target stance has unknown modes {bad}; valid: {names}")
    if sum(m == StanceMode.SWING for m in modes) > 1:
        raise InputError(INVALID, "IK target stance swings more than one foot")
    return {foot: StanceMode(m) for foot, m in zip(feet, modes)}
