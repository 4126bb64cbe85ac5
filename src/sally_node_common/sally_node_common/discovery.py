"""Where DDS discovery looks: this machine only, unless the user said otherwise.

Every Sally entry point calls :func:`default_to_loopback` before it creates a ROS context: when
``ROS_AUTOMATIC_DISCOVERY_RANGE`` is unset (or empty) it becomes ``LOCALHOST``, so a process started
without it talks over loopback only; a value the user set (``SUBNET`` for rviz or a hardware driver
on another computer) is kept. Kilted reads ``ROS_AUTOMATIC_DISCOVERY_RANGE``; the old
``ROS_LOCALHOST_ONLY`` is ignored by it and dropped here. Scripts, tests and benchmarks call
:func:`force_loopback` instead: on the machines they run on, DDS never leaves loopback.
"""

from __future__ import annotations

import os
from collections.abc import MutableMapping
from pathlib import Path

RANGE = "ROS_AUTOMATIC_DISCOVERY_RANGE"
LOOPBACK_ONLY = {RANGE: "LOCALHOST"}
PROFILES = "FASTDDS_DEFAULT_PROFILES_FILE"
PARTICIPANT_PROFILE = Path(__file__).with_name("dds") / "participant.xml"
"""Fast DDS's default participant profile for Sally processes: a participant that stops announcing
itself (killed, hung) is dropped by the others after 3 s (lease), not Fast DDS's 20 s. A node that
waits on a partner keeps waiting while the partner is on the graph (slow, under load: the run stays
deterministic) and gives up once it is not (dead)."""
CONTAINER_PROFILE = Path(__file__).with_name("dds") / "container.xml"
"""A composed container's profile: :data:`PARTICIPANT_PROFILE`, and the participant never matches
its own readers with its own writers (the nodes it hosts hand messages over as objects)."""


def default_to_loopback(environ: MutableMapping[str, str] = os.environ) -> None:
    """LOCALHOST discovery unless ``environ`` already names a range; Sally's participant profile
    (:data:`PARTICIPANT_PROFILE`) unless it names a Fast DDS profiles file of its own.

    :data:`CONTAINER_PROFILE` is a container's own (:func:`container_profile`, after this call): a
    process started from a container's environment gets the participant profile, since its hosts
    (an optimizer's in-process backend) count their hosted readers through DDS."""
    if not environ.get(RANGE):
        environ[RANGE] = "LOCALHOST"
    environ.pop("ROS_LOCALHOST_ONLY", None)
    if not environ.get(PROFILES) or environ[PROFILES] == str(CONTAINER_PROFILE):
        environ[PROFILES] = str(PARTICIPANT_PROFILE)


def force_loopback(environ: MutableMapping[str, str] = os.environ) -> None:
    """LOCALHOST discovery whatever ``environ`` says (scripts, tests, benchmarks)."""
    environ.update(LOOPBACK_ONLY)
    environ.pop("ROS_LOCALHOST_ONLY", None)


def container_profile(environ: MutableMapping[str, str] = os.environ) -> bool:
    """Give a composed container :data:`CONTAINER_PROFILE` where Sally's own participant profile is
    in force (after :func:`default_to_loopback`) and the middleware is Fast DDS; whether it did (a
    profiles file the user named, or another middleware, is left as it is)."""
    if environ.get("RMW_IMPLEMENTATION", "rmw_fastrtps_cpp") not in ("", "rmw_fastrtps_cpp"):
        return False
    if environ.get(PROFILES) not in (str(PARTICIPANT_PROFILE), str(CONTAINER_PROFILE)):
        return False
    environ[PROFILES] = str(CONTAINER_PROFILE)
    return True
