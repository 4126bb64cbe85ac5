"""The running graph over the Foxglove WebSocket protocol, with no ROS install on the viewing side.

:class:`FoxgloveLive` serves every topic of a graph (:data:`~.topology.RECORDED`) with ``foxglove-sdk``,
fed by the runner's raw tap or, for a composed graph, by the container's outlet process (:mod:`.outlet`):
one channel per topic, ``cdr`` messages with the ``ros2msg`` schema of their type, the serialized
bytes forwarded as they came. The Foxglove app connects to ``ws://127.0.0.1:8765`` (default) and
shows the 3D scene (TF, the robot description, markers), plots and diagnostics.
"""

from __future__ import annotations

from collections.abc import Mapping

import foxglove

from .msg_definitions import schema_text
from .topology import RECORDED as TOPICS

DEFAULT_HOST, DEFAULT_PORT = "127.0.0.1", 8765


class FoxgloveLive:
    """A Foxglove WebSocket server with a channel per topic; call it as a :class:`RawTap` sink."""

    def __init__(self, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT, topics: Mapping[str, str] = TOPICS) -> None:
        self._context = foxglove.Context()
        self._server = foxglove.start_server(name="sally", host=host, port=port, context=self._context)
        self.port = self._server.port
        self._channels = {}
        for topic, type_name in topics.items():
            schema = foxglove.Schema(name=type_name, encoding="ros2msg", data=schema_text(type_name).encode())
            self._channels[topic] = foxglove.Channel(
                topic, schema=schema, message_encoding="cdr", context=self._context
            )

    def __call__(self, topic: str, data: bytes, log_time: int) -> None:
        """Log one serialized message of ``topic`` to the live server's channel (ignored for an unknown topic)."""
        channel = self._channels.get(topic)
        if channel is not None:
            channel.log(data, log_time=log_time)

    @property
    def url(self) -> str:
        """The WebSocket address a Foxglove client connects to."""
        return f"ws://{DEFAULT_HOST}:{self.port}"

    def close(self) -> None:
        """Stop the server (clients are disconnected)."""
        self._server.stop()
