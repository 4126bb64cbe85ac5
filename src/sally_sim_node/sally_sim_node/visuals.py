"""What the sim shows rviz and Foxglove: TF, markers and per-foot wrenches, as ROS messages.

Pure conversions from the physics state (frames from :mod:`.frames`, magnet readouts, positions)
to messages; the node decides when to publish them (only while someone subscribes).

Markers (``/sally/markers``, frame ``world``), one namespace each, ids stable so that rviz
replaces them in place:

* ``magnet_force``: an arrow per foot from the magnet along its force, ``FORCE_SCALE`` m per N;
  grey when the magnet is off, green when it is on and in contact (holding), orange when it is on
  and not in contact;
* ``sampling_spheres``: each magnet's sampling spheres, same colours;
* ``contacts``: every contact point between Sally and the plates (red);
* ``foot_text``: above each foot, its state, surface and gap;
* ``plates``: the steel floor and wall.

Wrenches (``geometry_msgs/WrenchStamped``, in the foot's frame ``em_<FOOT>``): the magnet's pull
and the plates' contact reaction on the housing, so rqt_plot, PlotJuggler and Foxglove plot them
without custom message support.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from geometry_msgs.msg import Point, TransformStamped, WrenchStamped
from sensor_msgs.msg import CameraInfo, Image
from std_msgs.msg import ColorRGBA
from visualization_msgs.msg import Marker, MarkerArray

from sally_node_common.stamps import set_stamp

from .frames import WORLD, Frame, Plate
from .magnets import MagnetReadout

FORCE_SCALE = 2e-4
"""Arrow length per newton (m/N): the 956 N rated hold is a 19 cm arrow."""
SPHERE_DIAMETER = 0.006
CONTACT_DIAMETER = 0.01
TEXT_HEIGHT = 0.03
TEXT_ABOVE = 0.12
OFF, HOLDING, LOOSE, CONTACT, PLATE = (
    (0.6, 0.6, 0.6, 0.8),
    (0.1, 0.8, 0.2, 0.9),
    (1.0, 0.55, 0.0, 0.9),
    (0.9, 0.1, 0.1, 1.0),
    (0.45, 0.47, 0.5, 0.35),
)


@dataclass(frozen=True)
class FootScene:
    """One foot as the markers draw it (world frame, m)."""

    readout: MagnetReadout
    magnet: np.ndarray
    """Position of the magnet body."""
    spheres: np.ndarray
    """Sampling sphere centres, (n, 3)."""


def tf_message(stamp_ns: int, frames: Sequence[Frame]):
    """A ``tf2_msgs/TFMessage`` of ``frames``, every transform stamped ``stamp_ns``."""
    from tf2_msgs.msg import TFMessage  # built by the bootstrap from ROS 2's definition

    msg = TFMessage()
    for frame in frames:
        t = TransformStamped()
        set_stamp(t.header, stamp_ns)
        t.header.frame_id, t.child_frame_id = frame.parent, frame.child
        p, q = frame.position, frame.quaternion
        t.transform.translation.x, t.transform.translation.y, t.transform.translation.z = (
            float(p[0]),
            float(p[1]),
            float(p[2]),
        )
        r = t.transform.rotation
        r.w, r.x, r.y, r.z = float(q[0]), float(q[1]), float(q[2]), float(q[3])
        msg.transforms.append(t)
    return msg


class TfBytes:
    """The serialized ``tf2_msgs/TFMessage`` of fixed frames (``names``: (parent, child) each),
    made from arrays: no message is built. Building and serializing the message of the sim's 25
    moving frames took 492 µs in a loop and 843 µs of thread CPU in the running graph, at 100 Hz in
    the loop's thread; this, with the poses, 66 and 270 µs. The bytes are rclpy's for the same
    message (:class:`sally_node_common.cdr.Template`)."""

    def __init__(self, names: Sequence[tuple[str, str]]) -> None:
        from sally_node_common.cdr import Template

        def prototype(mark):  # its numbers marked in the message's order
            msg = tf_message(0, [Frame(p, c, np.zeros(3), np.zeros(4)) for p, c in names])
            for t in msg.transforms:
                t.header.stamp.sec, t.header.stamp.nanosec = mark("i"), mark("i")
                v, r = t.transform.translation, t.transform.rotation
                v.x, v.y, v.z = mark(), mark(), mark()
                r.x, r.y, r.z, r.w = mark(), mark(), mark(), mark()
            return msg

        self._names = list(names)
        self._template = Template(prototype, runs=[7] * len(self._names))

    def __call__(self, stamp_ns: int, positions: np.ndarray, quaternions: np.ndarray) -> bytes:
        """``positions`` (n, 3) and ``quaternions`` (n, 4; w, x, y, z), every transform stamped ``stamp_ns``."""
        stamp = divmod(int(stamp_ns), 1_000_000_000)
        # a transform's seven numbers: translation x y z, rotation x y z w
        flat = np.hstack([positions, quaternions[:, 1:], quaternions[:, :1]]).astype("<f8").tobytes()
        return self._template.fill([stamp] * len(self._names), [flat[i : i + 56] for i in range(0, len(flat), 56)])


def foot_color(readout: MagnetReadout) -> tuple[float, float, float, float]:
    """The marker colour of a foot: off, holding or loose."""
    if not readout.enabled:
        return OFF
    return HOLDING if readout.in_contact else LOOSE


def _rgba(color) -> ColorRGBA:
    return ColorRGBA(r=float(color[0]), g=float(color[1]), b=float(color[2]), a=float(color[3]))


def _point(v) -> Point:
    return Point(x=float(v[0]), y=float(v[1]), z=float(v[2]))


def _marker(stamp_ns: int, ns: str, mid: int, kind: int, color) -> Marker:
    m = Marker(ns=ns, id=mid, type=kind, action=Marker.ADD)
    set_stamp(m.header, stamp_ns)
    m.header.frame_id = WORLD
    m.pose.orientation.w = 1.0
    m.color = _rgba(color)
    return m


def markers(stamp_ns: int, feet: Mapping[str, FootScene], contacts: np.ndarray, plates: Sequence[Plate]) -> MarkerArray:
    """Every marker of the scene (see the module's text); ``contacts`` is (n, 3) world points."""
    out = MarkerArray()
    for i, (foot, scene) in enumerate(feet.items()):
        r, color = scene.readout, foot_color(scene.readout)
        arrow = _marker(stamp_ns, "magnet_force", i, Marker.ARROW, color)
        tip = scene.magnet + FORCE_SCALE * np.asarray(r.force)
        arrow.points = [_point(scene.magnet), _point(tip)]
        arrow.scale.x, arrow.scale.y, arrow.scale.z = 0.01, 0.02, 0.03  # shaft and head diameters, head length
        spheres = _marker(stamp_ns, "sampling_spheres", i, Marker.SPHERE_LIST, color)
        spheres.points = [_point(p) for p in scene.spheres]
        spheres.scale.x = spheres.scale.y = spheres.scale.z = SPHERE_DIAMETER
        text = _marker(stamp_ns, "foot_text", i, Marker.TEXT_VIEW_FACING, (1.0, 1.0, 1.0, 1.0))
        text.pose.position = _point(scene.magnet + np.array([0.0, 0.0, TEXT_ABOVE]))
        text.scale.z = TEXT_HEIGHT
        state = ("holding" if r.in_contact else "pulling") if r.enabled else "off"
        gap = f"{r.min_distance * 1e3:.1f} mm" if r.surface != "none" else "out of range"
        text.text = f"{foot} {state} | {r.surface} {gap} | {r.magnitude:.0f} N"
        out.markers += [arrow, spheres, text]
    points = _marker(stamp_ns, "contacts", 0, Marker.SPHERE_LIST, CONTACT)
    points.points = [_point(p) for p in contacts]
    points.scale.x = points.scale.y = points.scale.z = CONTACT_DIAMETER
    out.markers.append(points)
    for i, plate in enumerate(plates):
        cube = _marker(stamp_ns, "plates", i, Marker.CUBE, PLATE)
        cube.pose.position = _point(plate.position)
        q = cube.pose.orientation
        q.w, q.x, q.y, q.z = (float(v) for v in plate.quaternion)
        cube.scale.x, cube.scale.y, cube.scale.z = (float(2 * h) for h in plate.half_size)
        out.markers.append(cube)
    return out


def image(stamp_ns: int, frame: str, rgb: np.ndarray) -> Image:
    """``rgb`` (height, width, 3) uint8, top row first, as a ``sensor_msgs/Image`` (``rgb8``)."""
    msg = Image(
        height=int(rgb.shape[0]), width=int(rgb.shape[1]), encoding="rgb8", is_bigendian=0, step=int(rgb.shape[1]) * 3
    )
    set_stamp(msg.header, stamp_ns)
    msg.header.frame_id = frame
    msg.data = rgb.tobytes()
    return msg


def camera_info(
    stamp_ns: int, frame: str, width: int, height: int, intrinsics: tuple[float, float, float, float]
) -> CameraInfo:
    """The pinhole model of an undistorted camera (``plumb_bob`` with zero distortion)."""
    fx, fy, cx, cy = intrinsics
    msg = CameraInfo(width=width, height=height, distortion_model="plumb_bob")
    set_stamp(msg.header, stamp_ns)
    msg.header.frame_id = frame
    msg.d = [0.0] * 5
    msg.k = [fx, 0.0, cx, 0.0, fy, cy, 0.0, 0.0, 1.0]
    msg.r = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]
    msg.p = [fx, 0.0, cx, 0.0, 0.0, fy, cy, 0.0, 0.0, 0.0, 1.0, 0.0]
    return msg


def wrench(stamp_ns: int, frame: str, rotation: np.ndarray, force, torque) -> WrenchStamped:
    """A world-frame force and torque as a WrenchStamped in ``frame`` (rotation: frame -> world)."""
    msg = WrenchStamped()
    set_stamp(msg.header, stamp_ns)
    msg.header.frame_id = frame
    f = rotation.T @ np.asarray(force, dtype=float)
    t = rotation.T @ np.asarray(torque, dtype=float)
    msg.wrench.force.x, msg.wrench.force.y, msg.wrench.force.z = (float(v) for v in f)
    msg.wrench.torque.x, msg.wrench.torque.y, msg.wrench.torque.z = (float(v) for v in t)
    return msg
