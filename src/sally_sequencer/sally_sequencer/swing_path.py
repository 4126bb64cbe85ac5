"""A back leg's swing from the floor to the wall, planned in joint space and sent as EE targets.

At the climb pose a back leg stands on the floor knee-down (knee about -59 deg, lifted 5 cm) and
reaches its staging point in front of the wall knee-up (about +49 deg). A straight Cartesian swing
asks the whole-body differential IK to flip the knee, which it cannot: in the graph BL stalled
0.17 m short of its staging point, face turned, and never reached the wall. Here the leg's four
actuated joints go in a straight line from the lifted foot's solution to the staging point's
(:class:`JointSwing`); the EE site and the face along that line, by the compiled model's forward
kinematics at the body's measured pose, are the targets the sequencer sends, so every target is
one the IK reaches from the last with a small joint change. The passive ee2 twist is 0 on the
whole path (a lifted foot's spring has returned it; the IK cannot move it).

Pure computation: the model's leg IK (:func:`sally_description.leg_ik.solve_leg`), no ROS.
"""

from __future__ import annotations

import functools

import numpy as np

from sally_description import build_model
from sally_description.constants import FLOOR_Z, magnet_geom
from sally_description.leg_ik import ACTUATED, LegGoal, LegKinematics, leg_cost, solve_leg
from sally_description.pose import Pose
from sally_description.reachability import CornerPose

from .errors import SequenceError

REFERENCE_POSE = CornerPose(distance=0.5, height=0.2, pitch_deg=0.0).pose
"""The body pose the leg's kinematics are evaluated at; points move to and from it rigidly with
the body, so the path holds for any measured body pose (yaw, roll and y offset included)."""
SAMPLES = 41
CLEARANCE = 0.02
"""m: the swing keeps the magnet's housing at least this far above the floor (a sine bump where
needed). Planned for the EE site alone (3 cm), the housing's rim, turning from the floor to the wall,
dipped 1-3 mm into the floor 30 % of the way: on the floor unseen, on the room's wall (``w2c``) it
caught the swinging foot and tore the front feet off the ceiling."""
KNEE = 1
"""Index of the knee in the leg's joints (hip, knee, wrist, ee, ee2)."""


@functools.cache
def leg_kinematics(leg: str) -> LegKinematics:
    """The leg's kinematics on the default model (built once per process, on first use)."""
    return LegKinematics(build_model(), leg, seeds_per_joint=4)


def solve_joints(
    kin: LegKinematics, point: np.ndarray, face: np.ndarray | None, knee_sign: float
) -> tuple[np.ndarray, float]:
    """The leg's actuated joints (ee2 at 0) that put the EE site at ``point`` (world, at
    :data:`REFERENCE_POSE`) with the face along ``face`` (None: any), the knee bent to ``knee_sign``
    (-1 down, +1 up). Returns (joints [5], position error in m)."""
    goal = LegGoal(point=point, face=face)
    lower, upper = kin.lower[:ACTUATED].copy(), kin.upper[:ACTUATED].copy()
    if knee_sign < 0:
        upper[KNEE] = 0.0
    else:
        lower[KNEE] = 0.0
    seeds = [q for q in kin.seeds if np.sign(q[KNEE]) == np.sign(knee_sign)]
    seeds.sort(key=lambda q: leg_cost(kin, REFERENCE_POSE, goal, q, twist=False))
    found = [
        solve_leg(kin, REFERENCE_POSE, goal, start, twist=False, lower=lower, upper=upper, max_nfev=200)
        for start in seeds[:4]
    ]
    best = min(found, key=lambda solution: solution.cost)
    return best.joints, best.position_error


def landing_face_off(leg: str, body: Pose, point: np.ndarray, face: np.ndarray) -> float:
    """How far (deg) ``leg``'s magnet face stays from ``face`` (unit, world: into the plate) at best with
    its EE site at ``point`` (world) and the body at ``body``, the passive ee2 twist at 0: a lifted foot
    landing there. A foot held on a plate can face it further (the plate twists ee2), so a foot that
    leaves a plate at a body pose does not always land on it again at that pose."""
    kin = leg_kinematics(leg)
    turn = REFERENCE_POSE.rotation @ body.rotation.T
    here = turn @ (np.asarray(point, float) - body.position) + REFERENCE_POSE.position
    joints, _ = solve_joints(kin, here, turn @ np.asarray(face, float), -1.0)
    _, normal = kin.site(REFERENCE_POSE, joints)
    return float(np.degrees(np.arccos(np.clip((turn.T @ normal) @ np.asarray(face, float), -1.0, 1.0))))


def housing(leg: str) -> tuple[float, float, float]:
    """(radius, reach in front of the EE site, reach behind it) of ``leg``'s magnet housing, a
    cylinder along the face normal (m; the model :func:`leg_kinematics` built)."""
    geom = leg_kinematics(leg).model.geom(magnet_geom(leg))
    radius, half = float(geom.size[0]), float(geom.size[1])
    centre = -float(geom.pos[1])  # along the face normal: the face is the body's local -y
    return radius, centre + half, half - centre


def housing_low(leg: str, points: np.ndarray, faces: np.ndarray) -> np.ndarray:
    """The lowest point (world z, m) of ``leg``'s magnet housing with its EE site at each of
    ``points`` and its face along each of ``faces`` (unit normals)."""
    radius, front, back = housing(leg)
    z, nz = np.asarray(points, float)[:, 2], np.asarray(faces, float)[:, 2]
    rim = radius * np.sqrt(np.clip(1.0 - nz**2, 0.0, None))
    return np.minimum(z + front * nz, z - back * nz) - rim


class JointSwing:
    """The EE targets of one back leg's swing, from ``start`` (the lifted foot) to ``end`` (its
    staging point in front of the wall, face to the wall; or, the way down, its point above the floor,
    face down), both world, for a body at ``body``."""

    def __init__(
        self,
        leg: str,
        body: Pose,
        start: np.ndarray,
        end: np.ndarray,
        end_face: np.ndarray,
        knees: tuple[float, float] = (-1.0, 1.0),
    ) -> None:
        """``knees``: the knee's sign at either end (-1 down, +1 up; the climb's swing flips it, the
        way down's tuck keeps it down)."""
        kin = leg_kinematics(leg)
        # world at ``body`` -> world at REFERENCE (the same place on the body): p_ref = turn (p - body) + ref
        turn = REFERENCE_POSE.rotation @ body.rotation.T
        ref, here = REFERENCE_POSE.position, body.position

        def to_ref(p: np.ndarray) -> np.ndarray:
            return turn @ (np.asarray(p, float) - here) + ref

        q0, _ = solve_joints(kin, to_ref(start), None, knees[0])
        q1, miss = solve_joints(kin, to_ref(end), turn @ np.asarray(end_face, float), knees[1])
        if miss > 0.005:
            raise SequenceError(f"{leg}'s staging point {np.round(end, 3)} is out of reach ({miss * 1e3:.0f} mm short)")
        points, faces = [], []
        for s in np.linspace(0.0, 1.0, SAMPLES):
            site, normal = kin.site(REFERENCE_POSE, q0 + s * (q1 - q0))
            points.append(turn.T @ (site - ref) + here)
            faces.append(turn.T @ normal)
        self.points, self.faces = np.array(points), np.array(faces)
        # the lifted foot where it really is at s = 0, where the joint path ends at s = 1
        s = np.linspace(0.0, 1.0, SAMPLES)[:, None]
        self.points += (1.0 - s) * (np.asarray(start, float) - self.points[0]) + s * (
            np.asarray(end, float) - self.points[-1]
        )
        need = CLEARANCE - (housing_low(leg, self.points, self.faces) - FLOOR_Z)
        bump = np.sin(np.pi * s[:, 0])
        inner = bump > 1e-9
        if (need[inner] > 0).any():
            self.points[:, 2] += float((need[inner] / bump[inner]).max()) * bump

    def at(self, s: float) -> tuple[np.ndarray, np.ndarray]:
        """(EE site position, face normal) a fraction ``s`` (0..1) along the path."""
        x = min(max(float(s), 0.0), 1.0) * (SAMPLES - 1)
        i = min(int(x), SAMPLES - 2)
        f = x - i
        face = (1.0 - f) * self.faces[i] + f * self.faces[i + 1]
        return (1.0 - f) * self.points[i] + f * self.points[i + 1], face / np.linalg.norm(face)
