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
from collections.abc import Mapping, MutableMapping
from pathlib import Path

RANGE = "ROS_AUTOMATIC_DISCOVERY_RANGE"
LOOPBACK_ONLY = {RANGE: "LOCALHOST"}
PROFILES = "FASTDDS_DEFAULT_PROFILES_FILE"
DDS = Path(__file__).with_name("dds")
PARTICIPANT_PROFILE = DDS / "participant.xml"
"""Fast DDS's default participant profile for Sally processes on LOCALHOST discovery:

* a participant that stops announcing itself (killed, hung) is dropped by the others after 3 s
  (lease), not Fast DDS's 20 s. A node that waits on a partner keeps waiting while the partner is on
  the graph (slow, under load: the run stays deterministic) and gives up once it is not (dead);
* a writer asks the readers that have not acknowledged all it sent every 0.1 s, not Fast DDS's 3 s
  (its heartbeat): a reader behind (a run's recording on a loaded machine) gets what it missed while
  the writer still keeps it;
* its messages come to it over UDP on 127.0.0.1, not over Fast DDS's shared memory (which rmw adds
  on LOCALHOST and no profile can tune): a shared-memory port whose reader stalls for more than 1 s
  is made anew by its writers, and the stalled process (stopped, or starved of CPU) could come back
  reading the old one, deaf to the graph until it restarts. UDP on loopback cost the same here (an
  f2w run in four processes, lockstep: 14.5 s of wall time against 14.3 s)."""
NETWORK_PROFILE = DDS / "participant_network.xml"
""":data:`PARTICIPANT_PROFILE` for a discovery range the user set other than LOCALHOST (SUBNET: rviz
or a robot's driver on another computer): the same lease and heartbeat, and Fast DDS's own
transports."""
CONTAINER_PROFILE = DDS / "container.xml"
"""A composed container's profile: :data:`PARTICIPANT_PROFILE`, and the participant never matches
its own readers with its own writers (the nodes it hosts hand messages over as objects)."""
CONTAINER_NETWORK_PROFILE = DDS / "container_network.xml"
""":data:`CONTAINER_PROFILE` for a discovery range other than LOCALHOST."""
CONTAINER_OF = {PARTICIPANT_PROFILE: CONTAINER_PROFILE, NETWORK_PROFILE: CONTAINER_NETWORK_PROFILE}
"""Sally's participant profiles, each with its container's."""


def participant_profile(environ: Mapping[str, str] = os.environ) -> Path:
    """Sally's participant profile for the discovery range ``environ`` names (unset: LOCALHOST)."""
    return PARTICIPANT_PROFILE if environ.get(RANGE, "LOCALHOST") in ("", "LOCALHOST") else NETWORK_PROFILE


def default_to_loopback(environ: MutableMapping[str, str] = os.environ) -> None:
    """LOCALHOST discovery unless ``environ`` already names a range; Sally's participant profile for
    the range (:func:`participant_profile`) unless it names a Fast DDS profiles file of its own.

    A container's profile is its own (:func:`container_profile`, after this call): a process started
    from a container's environment gets the participant profile, since its hosts (an optimizer's
    in-process backend) count their hosted readers through DDS."""
    if not environ.get(RANGE):
        environ[RANGE] = "LOCALHOST"
    environ.pop("ROS_LOCALHOST_ONLY", None)
    if not environ.get(PROFILES) or _is_ours(environ[PROFILES]):
        environ[PROFILES] = str(participant_profile(environ))


def _is_ours(path: str) -> bool:
    return path in {str(p) for pair in CONTAINER_OF.items() for p in pair}


def force_loopback(environ: MutableMapping[str, str] = os.environ) -> None:
    """LOCALHOST discovery whatever ``environ`` says (scripts, tests, benchmarks)."""
    environ.update(LOOPBACK_ONLY)
    environ.pop("ROS_LOCALHOST_ONLY", None)


def container_profile(environ: MutableMapping[str, str] = os.environ) -> bool:
    """Give a composed container :data:`CONTAINER_PROFILE` (or :data:`CONTAINER_NETWORK_PROFILE`)
    where Sally's own participant profile is in force (after :func:`default_to_loopback`) and the
    middleware is Fast DDS; whether it did (a profiles file the user named, or another middleware,
    is left as it is)."""
    if environ.get("RMW_IMPLEMENTATION", "rmw_fastrtps_cpp") not in ("", "rmw_fastrtps_cpp"):
        return False
    if not _is_ours(environ.get(PROFILES, "")):
        return False
    environ[PROFILES] = str(CONTAINER_OF[participant_profile(environ)])
    return True
