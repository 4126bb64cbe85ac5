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

RANGE = "ROS_AUTOMATIC_DISCOVERY_RANGE"
LOOPBACK_ONLY = {RANGE: "LOCALHOST"}


def default_to_loopback(environ: MutableMapping[str, str] = os.environ) -> None:
    """LOCALHOST discovery unless ``environ`` already names a range."""
    if not environ.get(RANGE):
        environ[RANGE] = "LOCALHOST"
    environ.pop("ROS_LOCALHOST_ONLY", None)


def force_loopback(environ: MutableMapping[str, str] = os.environ) -> None:
    """LOCALHOST discovery whatever ``environ`` says (scripts, tests, benchmarks)."""
    environ.update(LOOPBACK_ONLY)
    environ.pop("ROS_LOCALHOST_ONLY", None)
