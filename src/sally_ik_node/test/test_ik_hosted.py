"""The IK hosted with its sequencer in one process (the composed graph): a target handed over inside
the publication of a solve's own foot states is taken after that solve's outputs, as over DDS, so the
composed graph and the graph of processes give the same run. A route's hand-over, a target in the
next corner's frame, used to switch the IK's frame, its stances and its stance load under the solve
still publishing (the composed route's climb onto the ceiling then differed by micrometres)."""

from __future__ import annotations

import numpy as np
import pytest
from nav_msgs.msg import Odometry
from rclpy.node import Node
from sensor_msgs.msg import JointState

from sally_description import LEGS, build_model
from sally_description.constants import JOINT_NAMES
from sally_description.stance_load import StanceLoad
from sally_interfaces.msg import FootStates
from sally_interfaces.msg import IKTarget as IKTargetMsg
from sally_node_common.qos import KEPT, RELIABLE_DEEP
from sally_node_common.stamps import set_stamp, stamp_ns

pytestmark = pytest.mark.timeout(120)

FIRST, SECOND = 1_000_000_000, 1_005_000_000
"""The two states' stamps (ns of sim time)."""


class Sequencer(Node):
    """Sends the sim's state and answers the IK's first foot states, at once, with a tick in the
    room's wall-ceiling corner (a route's hand-over)."""

    def __init__(self, **kwargs) -> None:
        super().__init__("fake_sequencer", **kwargs)
        self.states = self.create_publisher(JointState, "/joint_states", RELIABLE_DEEP)
        self.odom = self.create_publisher(Odometry, "/sally/odom", RELIABLE_DEEP)
        self.ticks = self.create_publisher(IKTargetMsg, "/sally/ik_target", KEPT)
        self.feet: list[tuple[int, str]] = []
        self.targets: dict[int, np.ndarray] = {}
        self.create_subscription(FootStates, "/sally/foot_states", self._on_feet, KEPT)
        self.create_subscription(JointState, "/sally/joint_targets", self._on_targets, KEPT)

    def send(self, stamp: int, qpos: np.ndarray, joints: np.ndarray) -> None:
        odom = Odometry()
        set_stamp(odom.header, stamp)
        odom.header.frame_id, odom.child_frame_id = "world", "main_frame"
        p, q = odom.pose.pose.position, odom.pose.pose.orientation
        p.x, p.y, p.z = (float(v) for v in qpos[:3])
        q.w, q.x, q.y, q.z = (float(v) for v in qpos[3:7])
        state = JointState(name=list(JOINT_NAMES), position=[float(v) for v in joints])
        state.velocity = [0.0] * len(JOINT_NAMES)
        set_stamp(state.header, stamp)
        self.odom.publish(odom)
        self.states.publish(state)

    def _on_feet(self, msg: FootStates) -> None:
        self.feet.append((stamp_ns(msg.header.stamp), msg.header.frame_id))
        if len(self.feet) == 1:  # the hand-over, inside the foot states' delivery
            tick = IKTargetMsg()
            set_stamp(tick.header, stamp_ns(msg.header.stamp))
            tick.header.frame_id = "corner"
            self.ticks.publish(tick)

    def _on_targets(self, msg: JointState) -> None:
        self.targets[stamp_ns(msg.header.stamp)] = np.array(msg.effort)


def test_a_hand_over_inside_a_solve_changes_the_next_solve_not_this_one(ros_domain):
    import rclpy
    from rclpy.parameter import Parameter
    from rclpy.signals import SignalHandlerOptions

    from sally_ik_node.node import IKNode
    from sally_node_common.host import Host

    room = build_model(scene="room")
    qpos = room.qpos0.copy()
    joints = qpos[[room.joint(name).qposadr[0] for name in JOINT_NAMES]]
    context = rclpy.Context()
    rclpy.init(args=[], context=context, domain_id=ros_domain, signal_handler_options=SignalHandlerOptions.NO)
    host = Host()
    try:
        ik = host.create(IKNode, context=context, parameter_overrides=[Parameter("scene", value="room")])
        sequencer = host.create(Sequencer, context=context)
        sequencer.send(FIRST, qpos, joints)
        assert sequencer.feet == [(FIRST, "world")]
        assert ik._frame == "corner"  # the tick was taken, after the solve
        four = StanceLoad(room).torques(qpos, LEGS)  # every foot stands on the floor
        np.testing.assert_allclose(sequencer.targets[FIRST], four, atol=1e-9)
        sequencer.send(SECOND, qpos, joints)
        assert sequencer.feet[1] == (SECOND, "corner")  # the next solve is in the new corner's frame
        np.testing.assert_allclose(sequencer.targets[SECOND], four, atol=1e-9)  # its load still the room's
        ik.destroy_node()
        sequencer.destroy_node()
    finally:
        context.try_shutdown()
