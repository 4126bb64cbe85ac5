"""One /diagnostics status per node, built the same way everywhere (stamped with the wall clock:
it is published on a wall timer, and must keep coming when sim time stops)."""

from __future__ import annotations

import time
from collections.abc import Mapping

from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue


def diagnostic_array(name: str, warn: bool, message: str, values: Mapping[str, object]) -> DiagnosticArray:
    status = DiagnosticStatus(
        level=DiagnosticStatus.WARN if warn else DiagnosticStatus.OK,
        name=name,
        message=message,
        values=[KeyValue(key=k, value=value_text(v)) for k, v in values.items()],
    )
    msg = DiagnosticArray(status=[status])
    msg.header.stamp.sec, msg.header.stamp.nanosec = divmod(time.time_ns(), 1_000_000_000)
    return msg


def value_text(value: object) -> str:
    """A diagnostics value as text: true/false, floats to 6 significant digits."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)
