"""Markers and wrenches from the physics state: colours by magnet state, arrows along the force,
wrenches turned into the foot's frame."""

import numpy as np
import pytest
from visualization_msgs.msg import Marker

from sally_sim_node.magnets import MagnetReadout
from sally_sim_node.visuals import FORCE_SCALE, HOLDING, LOOSE, OFF, FootScene, Plate, foot_color, markers, wrench


def readout(enabled, in_contact, force=(0.0, 0.0, -500.0)):
    return MagnetReadout("FL", enabled, force, float(np.linalg.norm(force)), 0.0004, "floor", in_contact)


@pytest.mark.parametrize(
    "enabled, in_contact, color", [(False, True, OFF), (True, True, HOLDING), (True, False, LOOSE)]
)
def test_colour_says_off_holding_or_pulling(enabled, in_contact, color):
    assert foot_color(readout(enabled, in_contact)) == color


def test_markers_draw_force_spheres_contacts_text_and_plates():
    scene = FootScene(readout(True, True), np.array([0.1, 0.2, 0.03]), np.zeros((8, 3)))
    plate = Plate(
        "floor_plate", np.array([-1.0, 0.0, -0.01]), np.array([1.0, 0.0, 0.0, 0.0]), np.array([1.5, 0.5, 0.01])
    )
    msg = markers(7_000_000, {"FL": scene}, np.array([[0.1, 0.2, 0.0]]), [plate])
    by_ns = {m.ns: m for m in msg.markers}
    assert set(by_ns) == {"magnet_force", "sampling_spheres", "foot_text", "contacts", "plates"}
    arrow = by_ns["magnet_force"]
    assert arrow.type == Marker.ARROW and arrow.header.frame_id == "world" and arrow.header.stamp.nanosec == 7_000_000
    assert arrow.points[1].z - arrow.points[0].z == pytest.approx(-500.0 * FORCE_SCALE)
    assert len(by_ns["sampling_spheres"].points) == 8 and len(by_ns["contacts"].points) == 1
    assert by_ns["foot_text"].text == "FL holding | floor 0.4 mm | 500 N"
    assert (by_ns["plates"].scale.x, by_ns["plates"].scale.z) == pytest.approx((3.0, 0.02))


def test_wrench_is_given_in_the_foot_frame():
    quarter_turn = np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])  # foot x = world y
    msg = wrench(5, "em_FL", quarter_turn, (0.0, 10.0, 0.0), (0.0, 0.0, 2.0))
    assert msg.header.frame_id == "em_FL"
    assert (msg.wrench.force.x, msg.wrench.force.y, msg.wrench.torque.z) == pytest.approx((10.0, 0.0, 2.0))


def test_tf_bytes_are_rclpy_s_bytes_of_the_same_tf_message():
    import mujoco
    from rclpy.serialization import deserialize_message, serialize_message

    from sally_description import build_model
    from sally_node_common.cdr import padding
    from sally_sim_node.frames import BodyFrames
    from sally_sim_node.visuals import TfBytes, tf_message
    from tf2_msgs.msg import TFMessage

    model = build_model()
    data = mujoco.MjData(model)
    frames = BodyFrames(model)
    to_bytes = TfBytes(frames.moving_names)
    rng = np.random.default_rng(5)
    for stamp in (0, 1, 999_999_999, 22_500_000_000, 2**31 * 1_000_000_000 - 1):
        data.qpos[:3] = rng.uniform(-1, 1, 3)
        data.qpos[3:7] = rng.normal(size=4)
        data.qpos[3:7] /= np.linalg.norm(data.qpos[3:7])
        data.qpos[7:] = model.qpos0[7:] + rng.uniform(-0.4, 0.4, model.nq - 7)
        mujoco.mj_kinematics(model, data)
        made = to_bytes(stamp, *frames.moving_poses(data))
        want = bytearray(serialize_message(tf_message(stamp, frames.moving(data))))
        for at in padding(TFMessage, want):
            want[at] = 0  # rclpy leaves whatever its buffer held in the padding
        assert made == bytes(want)
        back = deserialize_message(made, TFMessage)
        first = back.transforms[0]
        assert (first.header.frame_id, first.child_frame_id) == frames.moving_names[0]
        assert first.header.stamp.sec * 1_000_000_000 + first.header.stamp.nanosec == stamp
        assert first.transform.rotation.w == data.xquat[model.body(first.child_frame_id).id][0]
