"""What the sim shows of its scene, with the publishers it owns: the robot description and
/tf_static once, /tf, the markers and each foot's magnet and contact wrenches, and the camera's
image and info; each only while someone subscribes (building them costs more than a step). The
messages are built by :mod:`.visuals`; the sim node says when (its publish schedule)."""

from __future__ import annotations

from collections.abc import Callable

from geometry_msgs.msg import WrenchStamped
from std_msgs.msg import String
from visualization_msgs.msg import MarkerArray

from sally_description import LEGS
from sally_description.constants import magnet_body
from sally_description.scene import Scene, turned_corner
from sally_node_common import StartupError
from sally_node_common.qos import LATCHED, STREAM

from . import visuals
from .camera import OffscreenCamera
from .frames import BodyFrames, Frame

Publish = Callable[[], None]
"""A publication read already: calling it builds and publishes it."""


class SceneOutputs:
    """Creates its publishers on ``node`` (``wrap`` applied to each, e.g. the sim's outbox) and
    publishes the description and /tf_static at once; ``camera_size`` (width, height) opens the
    model's first camera, rendered offscreen (EGL); ``room``: the scene, whose ``world -> corner``
    /tf_static carries when it has a turned corner (corner3's, or the room's wall-ceiling corner a
    route climbs second: :func:`sally_description.scene.turned_corner`); ``estimated``: a state
    estimator publishes ``odom -> main_frame``, the exact pose goes out as ``world -> ground_truth``."""

    def __init__(
        self,
        node,
        sim,
        now_ns: int,
        camera_size: tuple[int, int] | None = None,
        wrap: Callable = lambda p: p,
        room: Scene | None = None,
        estimated: bool = False,
    ):
        from sally_description.urdf import urdf_from_model
        from tf2_msgs.msg import TFMessage  # built by the bootstrap from ROS 2's definition

        self.sim = sim
        model = sim.model
        self._frames = BodyFrames(model, estimated)
        self._tf = wrap(node.create_publisher(TFMessage, "/tf", STREAM))  # tf2's listeners match it
        try:
            self._tf_bytes: visuals.TfBytes | None = visuals.TfBytes(self._frames.moving_names)
        except ValueError:  # a frame name that holds one of the template's marks: messages, then
            self._tf_bytes = None
        tf_static = wrap(node.create_publisher(TFMessage, "/tf_static", LATCHED))
        description = wrap(node.create_publisher(String, "/robot_description", LATCHED))
        self._markers = wrap(node.create_publisher(MarkerArray, "/sally/markers", 10))
        self._wrenches = {
            (foot, kind): wrap(node.create_publisher(WrenchStamped, f"/sally/feet/{foot}/{kind}_wrench", 10))
            for foot in LEGS
            for kind in ("magnet", "contact")
        }
        description.publish(String(data=urdf_from_model(model)))
        self._plates = sim.plates()
        self.camera: OffscreenCamera | None = None
        static = self._frames.static(self._plates, turned_corner(room.name) if room is not None else None)
        if camera_size is not None:
            static.append(self._open_camera(node, *camera_size, wrap))
        tf_static.publish(visuals.tf_message(now_ns, static))

    def _open_camera(self, node, width: int, height: int, wrap: Callable) -> Frame:
        """Open the camera and its topics; its optical frame, for /tf_static."""
        from sensor_msgs.msg import CameraInfo, Image

        from .camera import OPTICAL_SUFFIX, optical_quaternion

        model = self.sim.model
        if model.ncam == 0:
            raise StartupError("camera_rate > 0 but the model has no camera")
        try:
            camera = OffscreenCamera(model, model.camera(0).name, width, height)
        except (ValueError, RuntimeError, ImportError) as exc:
            raise StartupError(f"cannot render the camera offscreen (EGL): {exc}") from None
        self.camera = camera
        self._camera_frame = camera.name + OPTICAL_SUFFIX
        self._image = wrap(node.create_publisher(Image, "/sally/camera/image_raw", 2))
        self._camera_info = wrap(node.create_publisher(CameraInfo, "/sally/camera/camera_info", 2))
        body = int(model.cam_bodyid[camera.id])
        return Frame(
            model.body(body).name if body else "world",
            self._camera_frame,
            model.cam_pos[camera.id].copy(),
            optical_quaternion(model.cam_quat[camera.id]),
        )

    def tf(self, now: int) -> Publish:
        """Every moving frame on /tf, if someone reads it, read now: published by the call returned
        as bytes made from the arrays (:class:`~.visuals.TfBytes`), or as a message when a node
        hosted beside the sim reads it (it takes objects)."""
        if not self._tf.get_subscription_count():
            return _nothing
        positions, quaternions = self._frames.moving_poses(self.sim.data)
        hosted = getattr(self._tf, "readers", None)  # a HostedPublisher's readers in this process
        if self._tf_bytes is None or (hosted is not None and hosted()):
            frames = self._frames.frames(positions, quaternions)
            return lambda: self._tf.publish(visuals.tf_message(now, frames))
        made = self._tf_bytes
        return lambda: self._tf.publish(made(now, positions, quaternions))

    def visuals(self, now: int) -> Publish:
        """The markers and each foot's wrenches (those someone reads), read now: built and published
        by the call returned."""
        sim = self.sim
        markers = None
        if self._markers.get_subscription_count():
            readouts = sim.magnet_readouts()
            feet = {
                leg: visuals.FootScene(readouts[leg], sim.magnet_position(leg), sim.sampling_spheres(leg))
                for leg in LEGS
            }
            markers = (feet, sim.contact_points())
        wrenches = []
        for (foot, kind), publisher in self._wrenches.items():
            if publisher.get_subscription_count():
                force, torque = sim.magnet_wrench(foot) if kind == "magnet" else sim.foot_contact_wrench(foot)
                wrenches.append((publisher, foot, sim.magnet_rotation(foot), force, torque))

        def publish() -> None:
            if markers is not None:
                self._markers.publish(visuals.markers(now, *markers, self._plates))
            for publisher, foot, rotation, force, torque in wrenches:
                publisher.publish(visuals.wrench(now, magnet_body(foot), rotation, force, torque))

        return publish

    def publish_camera(self, now: int) -> None:
        """Publish the camera's image, if someone reads it."""
        camera = self.camera
        assert camera is not None
        if self._image.get_subscription_count():
            self._image.publish(visuals.image(now, self._camera_frame, camera.render(self.sim.data)))
        if self._camera_info.get_subscription_count():
            self._camera_info.publish(
                visuals.camera_info(now, self._camera_frame, camera.width, camera.height, camera.intrinsics())
            )


def _nothing() -> None:
    """Nothing to publish."""
