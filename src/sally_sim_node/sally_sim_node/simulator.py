"""Sally in MuJoCo without ROS: stepping, servos, magnets and readouts.

One physics step is ``mj_step1`` (positions and velocities of the current state), the magnet kernel
on that state, then ``mj_step2``; the motors' servos close their loops inside MuJoCo's step
(:mod:`.servo`: what they track is set between runs of steps, :meth:`Simulator.set_servo`), so a
run of steps is one compiled call that holds no interpreter lock (:mod:`.physics_kernel`).
Divergence, which MuJoCo answers with a silent reset, is raised as :class:`DivergenceError`
instead, and the simulator refuses to step until :meth:`reset`.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass

import mujoco
import numpy as np

from sally_description import DEFAULT_BAKE, DEFAULT_PARAMS, LEGS, Bake, PhysicsParams, build_model
from sally_description.constants import ROOT_BODY, ee_site, magnet_geom, sampler_geoms
from sally_description.pose import Pose
from sally_description.scene import others_of, plates_of
from sally_description.wall_start import START_KEY
from sally_node_common.inputs import MAX_RATE

from .errors import DivergenceError, SimulationError
from .frames import Plate
from .joints import ActuatorIndex, JointIndex, all_joints
from .magnets import MagnetArray, MagnetLayout, MagnetReadout, leg_index
from .physics_kernel import mujoco_steps, run_steps
from .physics_thread import PhysicsThread
from .servo import Servos, ServoSetting

_log = logging.getLogger("sally_sim_node.mujoco")

UNSTABLE = "MuJoCo reported unstable accelerations, positions or velocities and reset the state"
_UNSTABLE = tuple(
    int(w)
    for w in (mujoco.mjtWarning.mjWARN_BADQACC, mujoco.mjtWarning.mjWARN_BADQPOS, mujoco.mjtWarning.mjWARN_BADQVEL)
)
_LEVI_CIVITA = np.array(
    [[[0, 0, 0], [0, 0, 1], [0, -1, 0]], [[0, 0, -1], [0, 0, 0], [1, 0, 0]], [[0, 1, 0], [-1, 0, 0], [0, 0, 0]]],
    dtype=float,
)
"""epsilon_ijk, so that (a x b)_i = epsilon_ijk a_j b_k: a cross product (or a sum of them) in one
``einsum``, without ``np.cross``'s axis handling (~15 µs a call)."""


@dataclass(frozen=True)
class ModelIds:
    """Where Sally's model keeps what the simulator reads: ids and addresses, looked up once."""

    act_q: np.ndarray
    """qpos addresses of the motor joints."""
    ee_sites: list[int]
    root: int
    """main_frame's body."""
    base_qpos: int
    base_dof: int
    """The free joint's first qpos and dof addresses."""
    magnet_geoms: list[int]
    magnet_bodies: list[int]
    is_plate: np.ndarray
    """Per geom id: a plate's (the contacts' pairs index it in one go)."""
    sampler_geoms: list[np.ndarray]
    """Each magnet's sampling spheres."""

    @staticmethod
    def of(model: mujoco.MjModel, actuators: ActuatorIndex) -> ModelIds:
        """The ids in ``model``; SimulationError names one it lacks."""
        root = model_id(model, mujoco.mjtObj.mjOBJ_BODY, ROOT_BODY)
        base_joint = int(model.body_jntadr[root])  # the free joint
        magnet_geoms = [model_id(model, mujoco.mjtObj.mjOBJ_GEOM, magnet_geom(leg)) for leg in LEGS]
        is_plate = np.zeros(model.ngeom, dtype=bool)
        is_plate[[model_id(model, mujoco.mjtObj.mjOBJ_GEOM, g) for g in plates_of(model).values()]] = True
        return ModelIds(
            actuators.joints.qpos_adr,
            [model_id(model, mujoco.mjtObj.mjOBJ_SITE, ee_site(leg)) for leg in LEGS],
            root,
            int(model.jnt_qposadr[base_joint]),
            int(model.jnt_dofadr[base_joint]),
            magnet_geoms,
            [int(model.geom_bodyid[g]) for g in magnet_geoms],
            is_plate,
            [np.array([model_id(model, mujoco.mjtObj.mjOBJ_GEOM, g) for g in sampler_geoms(leg)]) for leg in LEGS],
        )


def model_id(model: mujoco.MjModel, kind: mujoco.mjtObj, name: str, what: str | None = None) -> int:
    """The id of ``kind`` ``name`` in ``model``; SimulationError when it has none."""
    oid = mujoco.mj_name2id(model, kind, name)
    if oid < 0:
        what = what or kind.name.removeprefix("mjOBJ_").lower()
        raise SimulationError(f"model has no {what} named {name!r}")
    return oid


class Simulator:
    """Sally in MuJoCo with the magnets applied each step: the sim node's pure core."""

    def __init__(
        self,
        model: mujoco.MjModel | None = None,
        *,
        params: PhysicsParams = DEFAULT_PARAMS,
        bake: Bake = DEFAULT_BAKE,
        magnets_on: bool | Mapping[str, bool] = True,
    ) -> None:
        _route_mujoco_warnings()
        self.params = params
        self.model = model if model is not None else build_model(bake, params)
        self.data = mujoco.MjData(self.model)
        self.joints: JointIndex = all_joints(self.model)
        self.actuators = ActuatorIndex.build(self.model)
        self.servos = Servos(self.model, self.data, self.actuators.actuator_ids)
        """The motors' servos (their gains and setpoints live in the model and data)."""
        self.magnets = MagnetArray(self.model, params, magnets_on, MagnetLayout.legged(plates_of(self.model)))
        self._initial_magnets = self.magnets.enabled.copy()
        self._external = np.zeros((self.model.nbody, 6))
        self._warnings = self.data.warning.number  # live view
        self._ids = ModelIds.of(self.model, self.actuators)
        self.diverged: DivergenceError | None = None
        self._unstable_count = np.zeros(1, dtype=np.int64)
        """MuJoCo's count of unstable-state warnings when the state was last reset."""
        halves = mujoco_steps()
        self._kernel_head = (halves.step1, halves.step2, self.model._address, self.data._address)
        self._kernel_tail = (
            self._warnings,
            np.array(_UNSTABLE, dtype=np.int64),
            self._unstable_count,
            *self.magnets.kernel_arguments(self.data, self._external),
        )
        """:func:`~.physics_kernel.run_steps`'s arguments around the step count (views of the state)."""
        self._thread: PhysicsThread | None = None
        self._asked = 0
        self.reset()

    # --- time and state -------------------------------------------------------------------------
    @property
    def time(self) -> float:
        """Sim time (s)."""
        return float(self.data.time)

    @property
    def timestep(self) -> float:
        """Physics step (s)."""
        return float(self.model.opt.timestep)

    def reset(self) -> None:
        """Back to the start at t = 0 (the model's :data:`START_KEY` keyframe when it has one, e.g. the
        wall start; else the baked pose), magnets as constructed, no external forces, the servos
        holding the start pose with their own gains (their integrals at 0)."""
        key = mujoco.mj_name2id(self.model, mujoco.mjtObj.mjOBJ_KEY, START_KEY)
        if key >= 0:
            mujoco.mj_resetDataKeyframe(self.model, self.data, key)
        else:
            mujoco.mj_resetData(self.model, self.data)
        self.magnets.set_enabled(dict(zip(LEGS, self._initial_magnets.tolist())))
        self._external[:] = 0.0
        self.diverged = None
        mujoco.mj_forward(self.model, self.data)
        self.set_servo(self.servos.setting(self.actuated_positions()))
        self._unstable_count[0] = int(self._warnings[list(_UNSTABLE)].sum())

    def get_state(self) -> tuple[np.ndarray, np.ndarray]:
        """(qpos, qvel), copies."""
        return self.data.qpos.copy(), self.data.qvel.copy()

    def set_state(self, qpos: np.ndarray, qvel: np.ndarray | None = None) -> None:
        """Set qpos and qvel (qvel zero when not given); the kinematics follow."""
        qpos = np.asarray(qpos, dtype=float)
        qvel = np.zeros(self.model.nv) if qvel is None else np.asarray(qvel, dtype=float)
        if qpos.shape != (self.model.nq,) or qvel.shape != (self.model.nv,):
            raise SimulationError(f"state must be qpos ({self.model.nq},) and qvel ({self.model.nv},)")
        if not (np.isfinite(qpos).all() and np.isfinite(qvel).all()):
            raise SimulationError("state must be finite")
        self.data.qpos[:] = qpos
        self.data.qvel[:] = qvel
        mujoco.mj_forward(self.model, self.data)

    # --- stepping -------------------------------------------------------------------------------
    def step(self, n: int = 1) -> None:
        """Advance ``n`` physics steps with the servos as set (:meth:`set_servo`), in one compiled
        call that holds no interpreter lock (:mod:`.physics_kernel`): other threads' Python runs
        meanwhile, and the steps give the same bits as one at a time."""
        self._refuse_if_diverged()
        self._check_run(run_steps(*self._kernel_head, n, *self._kernel_tail), n)

    def warm_up(self, thread: bool = False) -> None:
        """Load the compiled step (and with ``thread`` the physics thread's hand-over) now, not at
        the first step: from numba's cache that takes ~0.2 s, which a realtime run's first period
        would otherwise lag by. Steps nothing."""
        self._check_run(run_steps(*self._kernel_head, 0, *self._kernel_tail), 0)
        if thread:
            self.start_steps(0)
            self.finish_steps()

    def start_steps(self, n: int) -> None:
        """Begin ``n`` steps with the servos as set, in the physics thread (:mod:`.physics_thread`):
        nothing may read or change the physics state until :meth:`finish_steps`."""
        self._refuse_if_diverged()
        if self._thread is None:
            self._thread = PhysicsThread(self._kernel_head, self._kernel_tail)
        self._thread.start(n)
        self._asked = n

    def finish_steps(self) -> None:
        """Wait for the steps :meth:`start_steps` began (raises :class:`DivergenceError` as :meth:`step`)."""
        assert self._thread is not None, "finish_steps without start_steps"
        self._check_run(self._thread.join(), self._asked)

    @property
    def stepping(self) -> bool:
        """Steps begun by :meth:`start_steps` are not finished yet."""
        return self._thread is not None and self._thread.running

    def steps_done(self) -> bool:
        """The steps :meth:`start_steps` began are made (:meth:`finish_steps` would not wait), or
        none were begun."""
        return self._thread is None or not self._thread.running or self._thread.finished

    def close(self) -> None:
        """End the physics thread, if one was started."""
        if self._thread is not None:
            self._thread.close()

    def _refuse_if_diverged(self) -> None:
        if self.diverged is not None:
            raise SimulationError(f"{self.diverged}; call reset() before stepping again")

    def _check_run(self, made: int, asked: int) -> None:
        if made < asked:
            self._diverge(UNSTABLE)
        self._check_state()

    def _check_state(self) -> None:
        d = self.data
        if not (np.isfinite(d.qpos).all() and np.isfinite(d.qvel).all()):
            self._diverge("non-finite state")
        fastest = float(np.abs(d.qvel).max(initial=0.0))
        if fastest > MAX_RATE:  # a state every reader would refuse as implausible: blown up
            self._diverge(f"a velocity of {fastest:.4g} (rad or m)/s, beyond the plausible {MAX_RATE:g}")

    def _diverge(self, reason: str) -> None:
        self.diverged = DivergenceError(self.time, reason)
        raise self.diverged

    # --- servos and external forces ------------------------------------------------------------
    def set_servo(self, setting: ServoSetting) -> None:
        """What every motor's servo tracks from the next step on (ACTUATED_JOINT_NAMES order, checked
        by the caller); not while steps run in the physics thread."""
        self.servos.write(setting)

    def hold(self) -> None:
        """The servos hold the actuated joints where they are now, with their own gains."""
        self.set_servo(self.servos.setting(self.actuated_positions()))

    def apply_external_force(self, body: str, force, torque=(0.0, 0.0, 0.0)) -> None:
        """A world-frame wrench at ``body``'s centre of mass, applied every step until changed."""
        wrench = np.concatenate([np.asarray(force, float), np.asarray(torque, float)])
        if wrench.shape != (6,) or not np.isfinite(wrench).all():
            raise SimulationError("external force and torque must be finite 3-vectors")
        self._external[self._id(mujoco.mjtObj.mjOBJ_BODY, body)] = wrench

    def clear_external_forces(self) -> None:
        """Remove every external force."""
        self._external[:] = 0.0

    # --- magnets --------------------------------------------------------------------------------
    def set_magnet(self, leg: str, on: bool) -> None:
        """Switch ``leg``'s magnet on or off."""
        self.magnets.set_enabled(on, leg=leg)

    def magnet_enabled(self, leg: str) -> bool:
        """Whether ``leg``'s magnet is on."""
        return bool(self.magnets.enabled[leg_index(leg)])

    def magnet_readouts(self) -> dict[str, MagnetReadout]:
        """Every magnet's readout as of the last step."""
        return self.magnets.readouts()

    # --- joints ---------------------------------------------------------------------------------
    @property
    def joint_names(self) -> tuple[str, ...]:
        """Every joint of Sally, in qpos order."""
        return self.joints.names

    @property
    def actuated_joint_names(self) -> tuple[str, ...]:
        """The actuated joints, in actuator order."""
        return self.actuators.joints.names

    def joint_positions(self) -> np.ndarray:
        """Every joint's position (rad)."""
        return self.data.qpos[self.joints.qpos_adr].copy()

    def joint_velocities(self) -> np.ndarray:
        """Every joint's velocity (rad/s)."""
        return self.data.qvel[self.joints.dof_adr].copy()

    def joint_efforts(self) -> np.ndarray:
        """Each joint's motor torque as the last step applied it (0 on the passive ones)."""
        return self.data.qfrc_actuator[self.joints.dof_adr].copy()

    def actuated_positions(self) -> np.ndarray:
        """The actuated joints' positions (rad)."""
        return self.data.qpos[self._ids.act_q].copy()

    # --- frames and readouts --------------------------------------------------------------------
    def ee_position(self, leg: str) -> np.ndarray:
        """``leg``'s EE site (world, m)."""
        return self.data.site_xpos[self._ids.ee_sites[leg_index(leg)]].copy()

    def body_pose(self) -> Pose:
        """main_frame's pose in the world."""
        return Pose(self.data.xpos[self._ids.root].copy(), self.data.xquat[self._ids.root].copy())

    def base_velocity(self) -> tuple[np.ndarray, np.ndarray]:
        """main_frame's linear (m/s) and angular (rad/s) velocity, both in the world frame.

        MuJoCo's free joint keeps the angular velocity in the body frame; it is turned into the world's here.
        """
        v, rotation = (
            self.data.qvel[self._ids.base_dof : self._ids.base_dof + 6],
            self.data.xmat[self._ids.root].reshape(3, 3),
        )
        return v[:3].copy(), rotation @ v[3:]

    def base_acceleration(self) -> tuple[np.ndarray, np.ndarray]:
        """main_frame's linear (m/s^2) and angular (rad/s^2) acceleration in the world frame, as the
        last step computed it (``qacc``: the body-frame angular part turned into the world's)."""
        a, rotation = (
            self.data.qacc[self._ids.base_dof : self._ids.base_dof + 6],
            self.data.xmat[self._ids.root].reshape(3, 3),
        )
        return a[:3].copy(), rotation @ a[3:]

    def set_base(self, pose: Pose, linear: np.ndarray, angular: np.ndarray) -> None:
        """Put main_frame at ``pose`` moving at ``linear`` (m/s) and ``angular`` (rad/s), both in the
        world frame; the joints keep their positions and velocities, and the kinematics, contacts and
        magnet readouts follow before the next step."""
        linear, angular = np.asarray(linear, dtype=float), np.asarray(angular, dtype=float)
        if linear.shape != (3,) or angular.shape != (3,) or not np.isfinite([linear, angular]).all():
            raise SimulationError("the base's velocity must be two finite 3-vectors (linear m/s, angular rad/s)")
        q, dof = self._ids.base_qpos, self._ids.base_dof
        self.data.qpos[q : q + 3] = pose.position
        self.data.qpos[q + 3 : q + 7] = pose.quat
        self.data.qvel[dof : dof + 3] = linear
        self.data.qvel[dof + 3 : dof + 6] = pose.rotation.T @ angular
        mujoco.mj_forward(self.model, self.data)

    def frame_pose(self, name: str) -> Pose:
        """The world pose of a body or site."""
        bid = mujoco.mj_name2id(self.model, mujoco.mjtObj.mjOBJ_BODY, name)
        if bid >= 0:
            return Pose(self.data.xpos[bid].copy(), self.data.xquat[bid].copy())
        sid = self._id(mujoco.mjtObj.mjOBJ_SITE, name, "body or site")
        return Pose.from_matrix(self.data.site_xpos[sid].copy(), self.data.site_xmat[sid])

    def center_of_mass(self) -> np.ndarray:
        """The robot's centre of mass (world, m)."""
        return self.data.subtree_com[self._ids.root].copy()

    def _plate_contacts(self, geom: int | None = None) -> np.ndarray:
        """Indices (ascending) of the contacts between a plate and something else, or with ``geom``
        between ``geom`` and a plate."""
        pairs = self.data.contact.geom[: self.data.ncon]
        on_plate = self._ids.is_plate[pairs]
        if geom is None:
            return np.flatnonzero(on_plate[:, 0] != on_plate[:, 1])
        return np.flatnonzero((pairs == geom).any(axis=1) & on_plate.any(axis=1))

    def foot_contact_force(self, leg: str) -> float:
        """Normal force (N) the plates push on this foot's magnet housing, from MuJoCo's contacts."""
        total = 0.0
        wrench = np.zeros(6)
        for i in self._plate_contacts(self._ids.magnet_geoms[leg_index(leg)]):
            mujoco.mj_contactForce(self.model, self.data, int(i), wrench)
            total += wrench[0]
        return total

    def foot_contact_wrench(self, leg: str) -> tuple[np.ndarray, np.ndarray]:
        """Force (N) and torque (N m, about the magnet body's origin) the plates exert on this
        foot's magnet housing, world frame, from MuJoCo's contacts.

        The contacts are taken as arrays (one ``mj_contactForce`` call each), the torques summed in
        one ``einsum``: a ``data.contact[i]`` object and an ``np.cross`` per contact took 180 µs a
        foot, and the wrenches go out at the visual rate for each of four feet, in the loop's thread."""
        geom = self._ids.magnet_geoms[leg_index(leg)]
        origin = self.data.xpos[self.model.geom_bodyid[geom]]
        touching = self._plate_contacts(geom)
        local = np.zeros((touching.size, 6))  # each contact's force and torque, in its own frame
        for row, i in zip(local, touching.tolist()):
            mujoco.mj_contactForce(self.model, self.data, i, row)
        contacts = self.data.contact
        frames = contacts.frame[touching].reshape(-1, 3, 3)  # rows: the contact frame's axes, world
        forces = np.einsum("nji,nj->ni", frames, local[:, :3])  # the force geom1 exerts on geom2, world
        forces[contacts.geom1[touching] == geom] *= -1.0  # on this foot
        arms = contacts.pos[touching] - origin
        return forces.sum(axis=0), np.einsum("ijk,nj,nk->i", _LEVI_CIVITA, arms, forces)  # sum of arm x force

    def contact_points(self) -> np.ndarray:
        """World positions (n, 3) of every contact between Sally and a plate."""
        return self.data.contact.pos[self._plate_contacts()].reshape(-1, 3)

    def magnet_position(self, leg: str) -> np.ndarray:
        """``leg``'s magnet body (world, m)."""
        return self.data.xpos[self._ids.magnet_bodies[leg_index(leg)]].copy()

    def magnet_rotation(self, leg: str) -> np.ndarray:
        """The magnet body's orientation (3 x 3, body -> world)."""
        return self.data.xmat[self._ids.magnet_bodies[leg_index(leg)]].reshape(3, 3).copy()

    def magnet_wrench(self, leg: str) -> tuple[np.ndarray, np.ndarray]:
        """The magnet's pull (N, world) and its torque about the magnet body's origin (N m): the
        kernel's torque is about the body's centre of mass."""
        i, body = leg_index(leg), self._ids.magnet_bodies[leg_index(leg)]
        force = np.array(self.magnets.force[i], dtype=float)
        lever = self.data.xipos[body] - self.data.xpos[body]
        return force, np.array(self.magnets.torque[i], dtype=float) + np.einsum(
            "ijk,j,k->i", _LEVI_CIVITA, lever, force
        )

    def sampling_spheres(self, leg: str) -> np.ndarray:
        """World positions (n, 3) of this magnet's sampling spheres."""
        return self.data.geom_xpos[self._ids.sampler_geoms[leg_index(leg)]].copy()

    def plates(self) -> list[Plate]:
        """The scene's surfaces as boxes (geom name, centre, quaternion, half sizes): the steel plates,
        then any that are not steel (:mod:`sally_description.scene`); their markers, TF frames and entities."""
        out = []
        for name in [*plates_of(self.model).values(), *others_of(self.model).values()]:
            g = self.model.geom(name).id
            quat = np.empty(4)
            mujoco.mju_mat2Quat(quat, self.data.geom_xmat[g])
            out.append(Plate(name, self.data.geom_xpos[g].copy(), quat, self.model.geom_size[g].copy()))
        return out

    def _id(self, kind: mujoco.mjtObj, name: str, what: str | None = None) -> int:
        return model_id(self.model, kind, name, what)


def _route_mujoco_warnings() -> None:
    """Send MuJoCo's warning text to Python logging instead of MUJOCO_LOG.TXT in the working directory.

    Process-wide, installed on first Simulator construction (never at import). The unstable-state
    warnings are raised as DivergenceError by the simulator; the text is kept for the log.
    """
    if mujoco.get_mju_user_warning() is None:
        mujoco.set_mju_user_warning(lambda message: _log.warning("MuJoCo: %s", message))
