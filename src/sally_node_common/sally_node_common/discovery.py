"""DDS discovery stays on this machine: every Sally entry point calls :func:`set_loopback_only`
before it creates a ROS context, so a process started without the variable still talks over
loopback only (Kilted reads ROS_AUTOMATIC_DISCOVERY_RANGE; ROS_LOCALHOST_ONLY is ignored)."""

from __future__ import annotations

import os

LOOPBACK_ONLY = {"ROS_AUTOMATIC_DISCOVERY_RANGE": "LOCALHOST"}


def set_loopback_only(environ=os.environ) -> None:
    environ.update(LOOPBACK_ONLY)
    environ.pop("ROS_LOCALHOST_ONLY", None)
