"""The sim node's three /diagnostics statuses, built from plain values. No ROS node, no clock.

* ``sally_sim: pacing``: the mode, catch-up state, lag and factors; warns when realtime pacing has
  degraded (lowered its factor) or another node publishes /clock.
* ``sally_sim: commands``: the commands the servos track and their problems; warns while the watchdog holds the
  pose or when inputs were rejected.
* ``sally_sim: physics``: errors once the physics diverged; the magnets and loads in force.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from diagnostic_msgs.msg import DiagnosticStatus

from sally_node_common.diagnostics import diagnostic_status

from .pacing import PacingStatus

PACING, COMMANDS, PHYSICS = "sally_sim: pacing", "sally_sim: commands", "sally_sim: physics"
COUNTED = (
    ("commands_received", "commands"),
    ("command_waits_timed_out", "command_waits_timed_out"),
    ("late", "late"),
    ("clamped_efforts", "clamped"),
    ("lockstep_timeouts", "lockstep_timeouts"),
    ("slow_answers", "slow_answers"),
    ("magnet_commands", "magnet_commands"),
    ("magnet_commands_past_due", "magnet_commands_past_due"),
    ("external_forces", "external_forces"),
    ("external_forces_past_due", "external_forces_past_due"),
    ("commands_before_reset", "commands_before_reset"),
    ("joint_commands", "joint_commands"),
    ("resets", "resets"),
)
"""(diagnostics key, the node's count) of the commands status."""


def pacing_status(
    mode: str, paused: bool, sim_time: float, pace: PacingStatus, other_clocks: Sequence[str]
) -> DiagnosticStatus:
    """``other_clocks``: full names of the other nodes that publish /clock."""
    realtime = mode == "realtime"
    lags = np.array(pace.recent_lags) if pace.recent_lags else np.zeros(1)
    return diagnostic_status(
        PACING,
        "warn" if (realtime and pace.state.value == "degraded") or other_clocks else "ok",
        f"{mode}"
        + (f", {pace.state.value}" if realtime else "")
        + (", paused" if paused else "")
        + (f", another /clock from {', '.join(other_clocks)}" if other_clocks else ""),
        {
            "other_clock_publishers": ", ".join(other_clocks) or "none",
            "mode": mode,
            "paused": paused,
            "sim_time": sim_time,
            "target_factor": pace.target_factor,
            "effective_factor": pace.effective_factor,
            "achieved_factor": pace.achieved_factor,
            "catch_up_state": pace.state.value,
            "lag_ms": pace.lag * 1e3,
            "lag_p50_ms": float(np.percentile(lags, 50)) * 1e3,
            "lag_p99_ms": float(np.percentile(lags, 99)) * 1e3,
            "dropped_ms": pace.dropped * 1e3,
            "catch_ups": pace.catch_ups,
            "degradations": pace.degradations,
        },
    )


def commands_status(
    topic: str,
    counts: Mapping[str, int],
    input_values: Mapping[str, object],
    rejected: int,
    holding: bool,
    engagements: int,
    command_age_s: float,
) -> DiagnosticStatus:
    """``topic``: the commands' topic; ``counts``: the node's counters (:data:`COUNTED`);
    ``input_values``: its input health's values; ``rejected``: how many inputs it refused;
    ``holding``: the watchdog holds the pose."""
    counted = {key: counts.get(name, 0) for key, name in COUNTED}
    return diagnostic_status(
        COMMANDS,
        "warn" if holding or rejected else "ok",
        (f"holding: no commands (stale input {topic})" if holding else "commands flowing")
        + (f", {rejected} rejected" if rejected else ""),
        {
            "commands_received": counted.pop("commands_received"),
            "command_waits_timed_out": counted.pop("command_waits_timed_out"),
            **input_values,
            **counted,
            "watchdog_engaged": holding,
            "watchdog_engagements": engagements,
            "last_command_age_s": command_age_s,
        },
    )


def physics_status(
    diverged: str | None, counts: Mapping[str, int], magnets_on: Sequence[str], loads_on: Sequence[str]
) -> DiagnosticStatus:
    """``diverged``: what the divergence said (None while stable)."""
    return diagnostic_status(
        PHYSICS,
        "error" if diverged else "ok",
        diverged or "stable",
        {
            "diverged": diverged is not None,
            "divergences": counts.get("divergences", 0),
            "resets": counts.get("resets", 0),
            "magnets_on": ",".join(magnets_on) or "none",
            "external_forces_on": ",".join(sorted(loads_on)) or "none",
        },
    )
