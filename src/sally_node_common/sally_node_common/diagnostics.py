"""/diagnostics messages, built the same way by every node.

A node publishes one :class:`DiagnosticArray` per wall-clock period with its statuses (:func:`diagnostic_status`:
level ``ok`` / ``warn`` / ``error``, values as text), stamped with the node's clock (sim time under
``use_sim_time``; the sim stamps its own with the sim time its figures describe), or with the wall
clock when no stamp is given.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence

from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue

LEVELS = {"ok": DiagnosticStatus.OK, "warn": DiagnosticStatus.WARN, "error": DiagnosticStatus.ERROR}


def diagnostic_status(
    name: str, level: str, message: str, values: Mapping[str, object], hardware_id: str = ""
) -> DiagnosticStatus:
    """One status; ``level`` is ``ok``, ``warn`` or ``error``."""
    return DiagnosticStatus(
        level=LEVELS[level],
        name=name,
        message=message,
        hardware_id=hardware_id,
        values=[KeyValue(key=k, value=value_text(v)) for k, v in values.items()],
    )


def diagnostic_array(statuses: Sequence[DiagnosticStatus], stamp_ns: int | None = None) -> DiagnosticArray:
    """The statuses in one message, stamped ``stamp_ns`` (default: the wall clock now)."""
    msg = DiagnosticArray(status=list(statuses))
    msg.header.stamp.sec, msg.header.stamp.nanosec = divmod(
        time.time_ns() if stamp_ns is None else stamp_ns, 1_000_000_000
    )
    return msg


def diagnostic_values(status: DiagnosticStatus) -> dict[str, str]:
    """A status's values by key."""
    return {kv.key: kv.value for kv in status.values}


def value_text(value: object) -> str:
    """A diagnostics value as text: true/false, floats to 6 significant digits."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)
