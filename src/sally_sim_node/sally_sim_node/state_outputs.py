"""What the sim says of its state, with the publishers it owns: /clock, /joint_states, /sally/odom
(and, when asked, /sally/odom_joint_states), the magnets' telemetry, /diagnostics,
``/sally_sim/holding`` and the reset notice. Each state publication is read from the physics in
one call and published by the call it returns, so the physics may step in between (the control
latency's pipelined period: :mod:`.sim_loop`)."""

from __future__ import annotations

from collections.abc import Callable

from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus
from nav_msgs.msg import Odometry
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import JointState
from std_msgs.msg import Bool, Header

from sally_description import JOINT_NAMES, LEGS
from sally_interfaces.msg import MagnetArray
from sally_node_common.diagnostics import diagnostic_array
from sally_node_common.magnet_array_msg import magnet_array_to_msg
from sally_node_common.qos import CLOCK, KEPT, LATCHED, STREAM
from sally_node_common.sim_resets import RESET_TOPIC
from sally_node_common.time_contract import ODOM_JOINT_STATES

from . import conversions as conv
from .simulator import Simulator

Publish = Callable[[], None]
"""A publication read already: calling it publishes (a new message each call)."""


class StateOutputs:
    """Creates its publishers on ``node``; reads ``sim``. ``/sally_sim/holding`` starts false.
    ``odom_joint_states``: each joint state that goes out with the odometry goes out on
    :data:`~sally_node_common.time_contract.ODOM_JOINT_STATES` too (the same message)."""

    def __init__(self, node, sim: Simulator, odom_joint_states: bool = False) -> None:
        self.sim = sim
        self._joint_writer = conv.JointStateWriter(JOINT_NAMES)
        self._odom_writer = conv.OdometryWriter()
        self._clock = node.create_publisher(Clock, "/clock", CLOCK)
        self._joints = node.create_publisher(JointState, "/joint_states", STREAM)
        self._odom = node.create_publisher(Odometry, "/sally/odom", STREAM)
        self._odom_joints = node.create_publisher(JointState, ODOM_JOINT_STATES, STREAM) if odom_joint_states else None
        self._magnets = node.create_publisher(MagnetArray, "/sally/magnets", KEPT)  # a restarted sequencer's
        # interlock knows at once which magnets hold
        self._diagnostics = node.create_publisher(DiagnosticArray, "/diagnostics", 10)
        self._holding = node.create_publisher(Bool, "/sally_sim/holding", LATCHED)
        self._reset = node.create_publisher(Header, RESET_TOPIC, LATCHED)
        self.holding(False)

    def clock(self, now_ns: int) -> None:
        """/clock at ``now_ns``."""
        self._clock.publish(conv.clock_msg(now_ns))

    def state(self, now_ns: int, with_odom: bool) -> Publish:
        """/joint_states (and /sally/odom ``with_odom``) stamped ``now_ns``, read now."""
        sim = self.sim
        joints = (now_ns, sim.joint_positions(), sim.joint_velocities(), sim.joint_efforts())
        odom = None
        if with_odom:
            body, qvel = sim.body_pose(), sim.data.qvel
            odom = (now_ns, body.position, body.quat, qvel[0:3].copy(), qvel[3:6].copy())

        def publish() -> None:
            message = self._joint_writer.fill(*joints)
            self._joints.publish(message)
            if odom is not None:
                self._odom.publish(self._odom_writer.fill(*odom))
                if self._odom_joints is not None:
                    self._odom_joints.publish(message)

        return publish

    def telemetry(self, now_ns: int) -> Publish:
        """The magnets' telemetry (each foot's magnet and contact force) stamped ``now_ns``, read now."""
        forces = {leg: self.sim.foot_contact_force(leg) for leg in LEGS}
        readouts = self.sim.magnet_readouts()
        return lambda: self._magnets.publish(magnet_array_to_msg(now_ns, conv.magnet_states(readouts, forces)))

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
