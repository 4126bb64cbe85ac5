"""What the sim says of its state, with the publishers it owns: /clock, what the robot's sensors
read (/joint_states from the encoders, /sally/imu, each foot's range, the magnets' telemetry with the
contact readings), the world's truth (/sally/ground_truth/odom, feet and magnets; on /sally/odom too for a graph
without an estimator), /sally/odom_joint_states when asked, /diagnostics, ``/sally_sim/holding``
and the reset notice. Each state publication is read from the physics in
one call and published by the call it returns, so the physics may step in between (the control
latency's pipelined period: :mod:`.sim_loop`)."""

from __future__ import annotations

from collections.abc import Callable

from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus
from geometry_msgs.msg import Pose as PoseMsg
from geometry_msgs.msg import PoseArray
from nav_msgs.msg import Odometry
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import Imu, JointState, Range
from std_msgs.msg import Bool, Header

from sally_description import JOINT_NAMES, LEGS
from sally_description.constants import ee_site, hip_site
from sally_interfaces.msg import MagnetArray, MagnetTruthArray
from sally_node_common.diagnostics import diagnostic_array
from sally_node_common.magnet_array_msg import magnet_array_to_msg
from sally_node_common.magnet_truth_msg import magnet_truth_to_msg
from sally_node_common.qos import CLOCK, KEPT, LATCHED, STREAM
from sally_node_common.sim_resets import RESET_TOPIC
from sally_node_common.time_contract import ODOM_JOINT_STATES

from . import conversions as conv
from .sensing import Sensing
from .simulator import Simulator

GROUND_TRUTH_FEET = "/sally/ground_truth/feet"
"""Every foot's EE site, then every hip pivot, exactly (geometry_msgs/PoseArray in ``world``,
:data:`LEGS` order, positions only): the feet as they are, for judging plants and drift."""
GROUND_TRUTH_ODOM = "/sally/ground_truth/odom"
"""The exact pose and twist of main_frame: for the report, the recording, benchmarks and tests; no
control node reads it."""
GROUND_TRUTH_MAGNETS = "/sally/ground_truth/magnets"
"""Every magnet as the world has it (sally_interfaces/MagnetTruthArray: force, gap, nearest plate, the
plates' push): for the report, the recording, the pull-off rig's load cell and tests; no control
node reads it. The driver's side (switch, contact reading) is on ``/sally/magnets``."""
IMU_TOPIC = "/sally/imu"
IMU_FRAME = "imu_link"
"""The IMU's frame: main_frame's (the site sits at its origin, unturned)."""


def range_topic(leg: str) -> str:
    """``leg``'s range sensor's topic."""
    return f"/sally/feet/{leg}/range"


Publish = Callable[[], None]
"""A publication read already: calling it publishes (a new message each call)."""


class StateOutputs:
    """Creates its publishers on ``node``; reads ``sim``. ``/sally_sim/holding`` starts false.
    ``odom_joint_states``: each joint state that goes out with the odometry goes out on
    :data:`~sally_node_common.time_contract.ODOM_JOINT_STATES` too (the same message)."""

    def __init__(
        self, node, sim: Simulator, sensing: Sensing, odom_joint_states: bool = False, truth_odom: bool = False
    ) -> None:
        self.sim, self.sensing = sim, sensing
        self._joint_writer = conv.JointStateWriter(JOINT_NAMES)
        self._odom_writer = conv.OdometryWriter()
        self._clock = node.create_publisher(Clock, "/clock", CLOCK)
        self._joints = node.create_publisher(JointState, "/joint_states", STREAM)
        self._truth = node.create_publisher(Odometry, GROUND_TRUTH_ODOM, STREAM)
        self._truth_feet = node.create_publisher(PoseArray, GROUND_TRUTH_FEET, STREAM)
        model = sim.model
        self._sites = [model.site(ee_site(leg)).id for leg in LEGS] + [model.site(hip_site(leg)).id for leg in LEGS]
        self._odom = node.create_publisher(Odometry, "/sally/odom", STREAM) if truth_odom else None
        self._imu = node.create_publisher(Imu, IMU_TOPIC, STREAM)
        channels = sensing.channels
        self._imu_covariances = (channels["accel"].white ** 2, channels["gyro"].white ** 2)
        self._ranges = [node.create_publisher(Range, range_topic(leg), STREAM) for leg in LEGS]
        self._range_limits = (0.0, float(channels["range"].limit))
        self._odom_joints = node.create_publisher(JointState, ODOM_JOINT_STATES, STREAM) if odom_joint_states else None
        self._magnets = node.create_publisher(MagnetArray, "/sally/magnets", KEPT)  # a restarted sequencer's
        # interlock knows at once which magnets hold
        self._magnet_truth = node.create_publisher(MagnetTruthArray, GROUND_TRUTH_MAGNETS, KEPT)
        self._diagnostics = node.create_publisher(DiagnosticArray, "/diagnostics", 10)
        self._holding = node.create_publisher(Bool, "/sally_sim/holding", LATCHED)
        self._reset = node.create_publisher(Header, RESET_TOPIC, LATCHED)
        self.holding(False)

    def clock(self, now_ns: int) -> None:
        """/clock at ``now_ns``."""
        self._clock.publish(conv.clock_msg(now_ns))

    def state(self, now_ns: int, with_odom: bool) -> Publish:
        """/sally/imu and /joint_states (the encoders) stamped ``now_ns``, the ground truth (and
        /sally/odom when it carries the truth) ``with_odom``, read now. The IMU goes out first: a
        state estimator has it when the joint states of its stamp come."""
        sim = self.sim
        accel, gyro = self.sensing.imu()
        joints = (now_ns, *self.sensing.encoders(), sim.joint_efforts())
        odom = feet = None
        if with_odom:
            body, qvel = sim.body_pose(), sim.data.qvel
            odom = (now_ns, body.position, body.quat, qvel[0:3].copy(), qvel[3:6].copy())
            feet = sim.data.site_xpos[self._sites].copy()

        def publish() -> None:
            self._imu.publish(conv.imu_msg(now_ns, accel, gyro, self._imu_covariances, IMU_FRAME))
            message = self._joint_writer.fill(*joints)
            self._joints.publish(message)
            if odom is not None:
                self._truth.publish(self._odom_writer.fill(*odom))
                self._truth_feet.publish(_points(now_ns, feet))
                if self._odom is not None:
                    self._odom.publish(self._odom_writer.fill(*odom))
                if self._odom_joints is not None:
                    self._odom_joints.publish(message)

        return publish

    def ranges(self, now_ns: int) -> Publish:
        """Each foot's range reading stamped ``now_ns``, read now."""
        ranges = self.sensing.ranges()

        def publish() -> None:
            for leg, publisher, distance in zip(LEGS, self._ranges, ranges):
                publisher.publish(conv.range_msg(now_ns, distance, f"em_{leg}", self._range_limits))

        return publish

    def telemetry(self, now_ns: int) -> Publish:
        """The magnets' telemetry (each switch and contact reading) and their truth (force, gap, plate,
        contact force) stamped ``now_ns``, read now."""
        forces = {leg: self.sim.foot_contact_force(leg) for leg in LEGS}
        truths = conv.magnet_truths(self.sim.magnet_readouts(), forces)
        readings = conv.magnet_readings(truths, *self.sensing.contacts())

        def publish() -> None:
            self._magnet_truth.publish(magnet_truth_to_msg(now_ns, truths))
            self._magnets.publish(magnet_array_to_msg(now_ns, readings))

        return publish

    def diagnostics(self, statuses: list[DiagnosticStatus], now_ns: int) -> None:
        """/diagnostics with ``statuses``."""
        self._diagnostics.publish(diagnostic_array(statuses, now_ns))

    def holding(self, held: bool) -> None:
        """``/sally_sim/holding``: whether the watchdog holds the pose."""
        self._holding.publish(Bool(data=held))

    def reset_notice(self, now_ns: int) -> None:
        """The reset notice: the new time line starts at ``now_ns`` (before its first state)."""
        notice = Header(frame_id="world")
        notice.stamp = conv.clock_msg(now_ns).clock
        self._reset.publish(notice)


def _points(now_ns: int, points) -> PoseArray:
    """A PoseArray in ``world`` stamped ``now_ns`` of ``points`` (n, 3), orientations the identity."""
    msg = PoseArray()
    msg.header.frame_id = "world"
    msg.header.stamp = conv.time_msg(now_ns)
    for x, y, z in points:
        pose = PoseMsg()
        pose.position.x, pose.position.y, pose.position.z = float(x), float(y), float(z)
        msg.poses.append(pose)
    return msg
