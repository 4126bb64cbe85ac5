"""The state estimator node: what Sally's drivers publish in, her body's state out.

Reads ``/joint_states`` (the encoders), ``/sally/imu`` and ``/sally/magnets`` (of each foot only
what its driver knows: the magnet's switch and the contact reading); publishes ``/sally/odom``
(``nav_msgs/Odometry`` of main_frame in ``odom``, with its covariance) stamped with the joint state
it estimates, every ``rate``, and TF ``odom -> main_frame``. The core is
:class:`.estimator.BodyEstimator`; this module converts messages and wires callbacks.

Each joint state is estimated once the IMU reading of its stamp (the sim publishes it first) and the
telemetry it takes (which feet hold, by stamp) are in; what has not come when the next state comes
is done without (so a lockstep run is the same on every host, however late a message comes).
An IMU silent for ``imu_timeout`` s of sim time, or refused (not finite, beyond its range), leaves
the legs alone to carry the estimate: said on /diagnostics, its covariance growing.
"""

from __future__ import annotations

import math
import struct
import sys
from pathlib import Path

import numpy as np
from geometry_msgs.msg import TransformStamped
from nav_msgs.msg import Odometry
from rclpy.node import Node
from sensor_msgs.msg import Imu, JointState

from sally_description import JOINT_NAMES, LEGS, build_model
from sally_description.model import STARTS
from sally_description.pose import Pose
from sally_description.scene import DEFAULT_SCENE, SCENES, scene
from sally_description.wall_start import START_KEY, WALL_STANCE, wall_pose_refusal, wall_stance
from sally_interfaces.msg import MagnetArray
from sally_node_common import StartupError, run_node
from sally_node_common.checkpoint import Checkpoint, CheckpointError
from sally_node_common.inputs import NON_FINITE, OUT_OF_RANGE, InputError, StampOrder, joint_arrays
from sally_node_common.kept_topics import subscribe_kept
from sally_node_common.magnet_array_msg import magnet_array_from_msg
from sally_node_common.node_shell import NodeShell
from sally_node_common.parameters import Param, ParameterTable
from sally_node_common.qos import RELIABLE_DEEP, STREAM
from sally_node_common.stamped_readings import StampedReadings
from sally_node_common.stamps import set_stamp, stamp_ns
from sally_node_common.waiting import Waiting
from tf2_msgs.msg import TFMessage

from .estimator import STATE_BYTES, BodyEstimator, Estimate, ImuRefusedError
from .leg_kinematics import LegKinematics

STATES, IMU, MAGNETS, ODOM = "/joint_states", "/sally/imu", "/sally/magnets", "/sally/odom"
ODOM_FRAME, BODY_FRAME = "odom", "main_frame"
STATUS = "sally_state_estimator: estimate"
"""Its /diagnostics status."""

TABLE = ParameterTable(
    (
        Param(
            "initial_pose",
            [0.0, 0.0, 0.0],
            "where Sally was put down on the floor: [x m, y m, yaw deg] (the "
            "sim's initial_pose: the operator's placement)",
            lengths=(3,),
            read_only=True,
        ),
        Param("start", "floor", "floor or wall: where she was put down", choices=STARTS, read_only=True),
        Param(
            "scene",
            DEFAULT_SCENE,
            "the map: the scene whose steel surfaces a seated foot lies on",
            choices=tuple(SCENES),
            read_only=True,
        ),
        Param(
            "wall_pose",
            [WALL_STANCE.y, WALL_STANCE.height, WALL_STANCE.turn_deg],
            "start:=wall: the stance she was put down in [y m, height m, turn deg]",
            lengths=(3,),
            rule=wall_pose_refusal,
            read_only=True,
        ),
        Param(
            "rate",
            200.0,
            "/sally/odom rate (joint states whose stamp is a whole period)",
            low=1.0,
            high=2000.0,
            unit="Hz of sim time",
            read_only=True,
        ),
        Param(
            "imu_timeout",
            0.05,
            "sim time without an IMU reading before the legs carry the estimate alone",
            low=0.0,
            high=10.0,
            open_low=True,
            unit="s",
        ),
        Param("diagnostics_period", 1.0, "/diagnostics period", low=0.0, high=60.0, open_low=True, unit="wall s"),
        Param(
            "checkpoint",
            "",
            "file the estimator keeps its state in after every update: one started again with it goes on from "
            "there ('' = none: a restarted one starts from initial_pose)",
            read_only=True,
        ),
    )
)


def start_pose(initial_pose, start: str, wall_pose, scene_name: str) -> Pose:
    """main_frame's pose where Sally is put down (the room's frame), as the sim builds her there."""
    model = build_model(
        spawn=tuple(float(v) for v in initial_pose),
        start=start,
        wall=wall_stance(start, [float(v) for v in wall_pose]),
        scene=scene_name,
        in_room=True,
    )
    import mujoco

    data = mujoco.MjData(model)
    key = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_KEY, START_KEY)
    if key >= 0:
        mujoco.mj_resetDataKeyframe(model, data, key)
    mujoco.mj_kinematics(model, data)
    root = model.body("main_frame").id
    return Pose(data.xpos[root].copy(), data.xquat[root].copy())


WAITING_STATES = 8
"""Joint states kept waiting for their inputs (40 ms of the 200 Hz states): a state is estimated
without them only once this many newer ones wait (a robot without telemetry: 40 ms late)."""


class EstimatorNode(Node):
    """The state estimator node."""

    def __init__(self, **kwargs) -> None:
        super().__init__("sally_state_estimator", **kwargs)
        self.shell = NodeShell(
            self,
            TABLE,
            STATUS,
            self._publish_diagnostics,
            watched=(STATES, IMU),
            orders={
                STATES: StampOrder("joint state"),
                IMU: StampOrder("IMU reading"),
                MAGNETS: StampOrder("magnet telemetry"),
            },
            on_reset=self._on_sim_reset,
            diagnostics_period="diagnostics_period",
        )
        p = lambda name: self.get_parameter(name).value  # noqa: E731
        room = scene(p("scene"))
        self.estimator = BodyEstimator(
            start_pose(p("initial_pose"), p("start"), p("wall_pose"), p("scene")),
            tuple(s for s in room.surfaces if s.steel),
            LegKinematics(),
        )
        path = str(p("checkpoint"))
        self._checkpoint = Checkpoint(Path(path) if path else None, STATE_BYTES)
        try:
            self._saved = self._checkpoint.read()
            """The state an estimator before this one left, until the first joint state says whether
            it is of their time line (it is taken up then) or of an ended one."""
        except CheckpointError as exc:
            raise StartupError(str(exc)) from None
        self._period_ns = round(1e9 / float(p("rate")))
        self._imu_timeout_ns = round(float(p("imu_timeout")) * 1e9)
        self._imu: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self._pending: Waiting[np.ndarray] = Waiting(WAITING_STATES)
        """Joint states (their positions) waiting for their inputs on other topics."""
        self._first_ns: int | None = None
        """The first joint state's stamp of this time line."""
        self._held = StampedReadings()
        """Each foot's driver fields by stamp: 1.0 where its magnet is on and its contact sensed."""
        self._last_imu_ns: int | None = None
        self._last: Estimate | None = None
        self._last_odom: Odometry | None = None
        self._odom = self.create_publisher(Odometry, ODOM, STREAM)
        self._tf = self.create_publisher(TFMessage, "/tf", STREAM)
        self.create_subscription(Imu, IMU, self._on_imu, RELIABLE_DEEP)
        self.create_subscription(JointState, STATES, self._on_state, RELIABLE_DEEP)
        subscribe_kept(self, MagnetArray, MAGNETS, self._on_magnets)
        self.get_logger().info(f"Sally's state estimator ready: {p('scene')}, start {p('start')}")

    # --- inputs ---------------------------------------------------------------------------------
    def _on_imu(self, msg: Imu) -> None:
        stamp = stamp_ns(msg.header.stamp)
        a, g = msg.linear_acceleration, msg.angular_velocity
        reading = (np.array([a.x, a.y, a.z]), np.array([g.x, g.y, g.z]))
        try:
            self.estimator.check_imu(*reading)
            self.shell.orders[IMU].admit(stamp)
        except ImuRefusedError as exc:  # not finite, or beyond the sensor's range
            reason = NON_FINITE if not all(map(math.isfinite, (*reading[0], *reading[1]))) else OUT_OF_RANGE
            return self.shell.health.reject(IMU, reason, str(exc))
        except InputError as exc:
            return self.shell.health.reject(IMU, exc.reason, str(exc))
        self.shell.health.heard(IMU)
        if stamp < self.shell.resets.start_ns:
            return None  # of the time line a sim reset ended (come after its notice)
        self._last_imu_ns = stamp
        self._imu[stamp] = reading
        while len(self._imu) > 50:
            self._imu.pop(next(iter(self._imu)))
        self._estimate_pending()
        return None

    def _on_magnets(self, msg: MagnetArray, kept: bool = False) -> None:
        try:
            stamp, states = magnet_array_from_msg(msg)
            self.shell.orders[MAGNETS].admit(stamp)
        except InputError as exc:
            return self.shell.health.reject(MAGNETS, exc.reason, str(exc), replayed=kept)
        if stamp < self.shell.resets.start_ns:
            return None  # of the time line a sim reset ended (come after its notice)
        for leg, state in states.items():  # the driver's fields only: the switch and the contact reading
            self._held.add(leg, stamp, 1.0 if state.enabled and state.contact_sensed else 0.0)
        self._estimate_pending()
        return None

    def _on_state(self, msg: JointState) -> None:
        stamp = stamp_ns(msg.header.stamp)
        try:
            q = self._positions(msg)
            new_timeline = self.shell.orders[STATES].admit(stamp)
        except InputError as exc:
            return self.shell.health.reject(STATES, exc.reason, str(exc))
        self.shell.health.heard(STATES)
        if new_timeline:
            self.shell.resets.new_sim()
            self._start_over()
        self.shell.resets.state(stamp)  # (a reset notice is acted on once states have come)
        if stamp < self.shell.resets.start_ns:
            return None  # of the time line a sim reset ended (come after its notice)
        if self._first_ns is None:
            self._first_ns = stamp
            self._take_saved(stamp)
        if self._last is not None and stamp <= round(self._last.t * 1e9):  # a state sent again (its answer
            odom = self._last_odom  # was slow): the same estimate again, not a second update
            if odom is not None and stamp_ns(odom.header.stamp) == stamp:
                self._odom.publish(odom)
            return None
        for late in self._pending.put(stamp, q):  # what the oldest waits for never came: without
            self.shell.counts["estimated_without_inputs"] += 1
            self._estimate(*late)
        self._estimate_pending()
        return None

    def _take_saved(self, stamp: int) -> None:
        """The state the estimator before this one left (it was killed), taken up when it is older
        than the first joint state of this one (``stamp``): the same time line, gone on without it."""
        saved, self._saved = self._saved, None
        if saved is None:
            return
        (saved_t,) = struct.unpack_from("<d", saved)
        if not saved_t <= stamp * 1e-9:  # (nan: saved before any update) a new sim's states
            return
        self.estimator.restore(saved)
        self.shell.counts["restored"] += 1
        self.get_logger().warning(
            f"went on from the saved state of {saved_t:.3f} s: {sorted(self.estimator.anchors)} anchored"
        )

    def _estimate_pending(self) -> None:
        """The states waiting for their inputs estimated in order once those are in: each one's IMU
        reading (unless the IMU is silent) and the telemetry it takes
        (:meth:`StampedReadings.caught_up`). They come on other topics; waiting for them keeps a
        lockstep run the same on every host, however late a message comes, and a realtime run on
        its inputs when a starved CPU delivers them late (up to :data:`WAITING_STATES` states)."""
        start = self.shell.resets.start_ns

        def arrived(stamp: int) -> bool:
            imu = stamp in self._imu or self._imu_silent(stamp)
            return imu and all(self._held.caught_up(leg, stamp, start) for leg in LEGS)

        for stamp, q in self._pending.ready(arrived):
            self._estimate(stamp, q)

    def _positions(self, msg: JointState) -> np.ndarray:
        """Every joint's encoder position (JOINT_NAMES order), checked as every node checks a state."""
        q, _ = joint_arrays(msg.name, msg.position, msg.velocity, JOINT_NAMES)
        return q

    def _imu_alive(self, stamp: int) -> bool:
        return self._last_imu_ns is not None and stamp - self._last_imu_ns <= self._imu_timeout_ns

    def _imu_silent(self, stamp: int) -> bool:
        """The IMU has been silent for ``imu_timeout`` of sim time (or never spoke in that long since
        the first state): states go on without waiting for it."""
        last = self._last_imu_ns if self._last_imu_ns is not None else self._first_ns
        return last is not None and stamp - last > self._imu_timeout_ns

    # --- the estimate ---------------------------------------------------------------------------
    def _estimate(self, stamp: int, q: np.ndarray) -> None:
        imu = self._imu.pop(stamp, None)
        if imu is None:
            self.shell.counts["without_imu"] += 1
        # by stamp: the same on every host; none that old (nan: a restarted estimator's first states,
        # its telemetry's replay after newer readings) tells nothing, and the anchors stay as they stood
        held = {leg: self._held.at(leg, stamp) for leg in LEGS}
        holding = {leg: None if math.isnan(v) else v == 1.0 for leg, v in held.items()}
        if any(v is None for v in holding.values()) and self.estimator.anchors:
            self.shell.counts["held_unread"] += 1  # anchored feet no reading told of
        estimate = self.estimator.update(stamp * 1e-9, q, holding, imu)
        self._checkpoint.write(self.estimator.state())
        self._last = estimate
        if stamp % self._period_ns == 0:
            self._publish(stamp, estimate)

    def _publish(self, stamp: int, e: Estimate) -> None:
        msg = Odometry(child_frame_id=BODY_FRAME)
        msg.header.frame_id = ODOM_FRAME
        set_stamp(msg.header, stamp)
        p, q = msg.pose.pose.position, msg.pose.pose.orientation
        p.x, p.y, p.z = (float(v) for v in e.pose.position)
        q.w, q.x, q.y, q.z = (float(v) for v in e.pose.quat)
        linear = e.pose.rotation.T @ e.linear
        t = msg.twist.twist
        t.linear.x, t.linear.y, t.linear.z = (float(v) for v in linear)
        t.angular.x, t.angular.y, t.angular.z = (float(v) for v in e.angular)
        msg.pose.covariance = [float(v) for v in e.covariance.ravel()]
        self._odom.publish(msg)
        self._last_odom = msg
        tf = TransformStamped(child_frame_id=BODY_FRAME)
        tf.header = msg.header
        tf.transform.translation.x, tf.transform.translation.y, tf.transform.translation.z = (p.x, p.y, p.z)
        tf.transform.rotation = q
        self._tf.publish(TFMessage(transforms=[tf]))

    def _on_sim_reset(self, stamp: int) -> None:
        """The sim put Sally back where she started, its new time line from ``stamp``: the estimate
        starts over there, as a fresh run's. What came of the new line before the notice (a state
        waiting for its inputs, its IMU reading, telemetry) is kept; the old line's goes."""
        if not self.shell.resets.reset(stamp):
            return
        if self._last is not None and self._last.t * 1e9 >= stamp:
            self.get_logger().warning(
                f"the sim's reset notice ({stamp * 1e-9:.3f} s) came after states of its new time line were estimated"
            )
        self._start_over(stamp)
        self.get_logger().warning(
            f"the sim was reset at {stamp * 1e-9:.3f} s: the estimate starts over at the start pose"
        )
        self._estimate_pending()

    def _start_over(self, from_ns: int | None = None) -> None:
        """The estimate back at the start pose: for a new sim (``from_ns`` None) every input goes;
        for a sim reset whose time line starts at ``from_ns``, what came of it already is kept."""
        self.estimator.reset()
        self._checkpoint.clear()
        self._saved = None
        if from_ns is None:
            self._imu.clear()
            self._held.clear()
            self._pending.clear()
            self.shell.orders[IMU].restart()
            self.shell.orders[MAGNETS].restart()
        else:
            self._imu = {t: r for t, r in self._imu.items() if t >= from_ns}
            self._held.drop_before(from_ns)
            self._pending.drop_before(from_ns)
        self._last = self._last_odom = None
        self._first_ns = from_ns
        self._last_imu_ns = max(self._imu, default=None)
        self.shell.counts["restarts"] += 1

    def _publish_diagnostics(self) -> None:
        e = self._last
        silent = e is not None and not self._imu_alive(round(e.t * 1e9))
        values = {
            "feet_holding": len(e.holding) if e else 0,
            "updates_without_imu": self.shell.counts["without_imu"],
            "estimated_without_inputs": self.shell.counts["estimated_without_inputs"],
            "position_sigma_mm": float(np.sqrt(e.covariance[0, 0]) * 1e3) if e else 0.0,
            "restarts": self.shell.counts["restarts"],
            "restored": self.shell.counts["restored"],
            "held_as_before_unread": self.shell.counts["held_unread"],
            "anchors_released": self.estimator.releases,
            **{f"surface_found_off_map_{k}_mm": round(v * 1e3, 2) for k, v in self.estimator.found.items()},
        }
        problems = self.shell.health.summary()
        message = [problems, "IMU silent: the legs alone carry the estimate" if silent else ""]
        level = "warn" if problems or silent else "ok"
        self.shell.publish(level, ", ".join(filter(None, message)) or "ok", values)


def main(args: list[str] | None = None) -> int:
    """Run the state estimator node (executable ``sally_state_estimator``)."""
    return run_node("sally_state_estimator", EstimatorNode, args)


if __name__ == "__main__":
    sys.exit(main())
