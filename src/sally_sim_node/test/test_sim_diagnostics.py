"""The sim's /diagnostics statuses say what state it is in, at the level a monitor needs."""

from collections import Counter

from diagnostic_msgs.msg import DiagnosticStatus

from sally_node_common.diagnostics import diagnostic_values
from sally_sim_node.pacing import PacingState, PacingStatus
from sally_sim_node.sim_diagnostics import commands_status, pacing_status, physics_status


def test_pacing_is_ok_on_time_and_warns_when_degraded_or_another_clock_publishes():
    ok = pacing_status("realtime", False, 1.5, PacingStatus(), [])
    assert ok.level == DiagnosticStatus.OK and ok.message == "realtime, on_time"
    assert diagnostic_values(ok)["other_clock_publishers"] == "none"
    degraded = pacing_status("realtime", False, 1.5, PacingStatus(state=PacingState.DEGRADED), [])
    assert degraded.level == DiagnosticStatus.WARN and "degraded" in degraded.message
    rival = pacing_status("lockstep", True, 2.0, PacingStatus(), ["/bag_player"])
    assert rival.level == DiagnosticStatus.WARN and rival.message == "lockstep, paused, another /clock from /bag_player"
    values = diagnostic_values(rival)
    assert values["mode"] == "lockstep" and values["paused"] == "true" and float(values["sim_time"]) == 2.0


def test_lag_percentiles_come_from_the_recent_lags():
    pace = PacingStatus()
    pace.recent_lags.extend([0.001] * 98 + [0.1, 0.1])
    values = diagnostic_values(pacing_status("realtime", False, 0.0, pace, []))
    assert float(values["lag_p50_ms"]) == 1.0 and float(values["lag_p99_ms"]) > 50.0


def test_commands_warn_while_holding_or_after_rejections_and_carry_every_count():
    counts = Counter(commands=120, late=2, lockstep_timeouts=1)
    flowing = commands_status("/sally/servo_commands", counts, {"stale_inputs": "none"}, 0, False, 0, 0.001)
    assert flowing.level == DiagnosticStatus.OK and flowing.message == "commands flowing"
    values = diagnostic_values(flowing)
    assert values["commands_received"] == "120" and values["late"] == "2" and values["slow_answers"] == "0"
    assert values["stale_inputs"] == "none" and values["watchdog_engaged"] == "false"
    holding = commands_status("/sally/servo_commands", counts, {}, 3, True, 1, 0.4)
    assert holding.level == DiagnosticStatus.WARN
    assert holding.message == "holding: no commands (stale input /sally/servo_commands), 3 rejected"


def test_physics_errors_once_diverged():
    stable = physics_status(None, Counter(resets=1), ["FL", "BR"], [])
    assert stable.level == DiagnosticStatus.OK and stable.message == "stable"
    assert diagnostic_values(stable)["magnets_on"] == "FL,BR" and diagnostic_values(stable)["resets"] == "1"
    diverged = physics_status("qvel 1e5 rad/s at 3.2 s", Counter(divergences=1), [], ["FR"])
    assert diverged.level == DiagnosticStatus.ERROR and diverged.message == "qvel 1e5 rad/s at 3.2 s"
    assert (
        diagnostic_values(diverged)["external_forces_on"] == "FR"
        and diagnostic_values(diverged)["magnets_on"] == "none"
    )
