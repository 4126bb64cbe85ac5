"""The run recorder starts its record again at a sim reset: the record is of the run after it, its
times counted from the reset, and stragglers of the run before are left out."""

import numpy as np
from std_msgs.msg import Header

from sally_bringup.recording import RunRecorder
from sally_node_common.foot_states_msg import FootStateData, foot_states_to_msg
from sally_node_common.sim_resets import RESET_TOPIC
from sally_node_common.stamps import set_time
from sally_node_common.stance import StanceMode
from sally_sequencer.route_run import route_plan

FEET = ("FL", "FR", "BL", "BR")


def feet(stamp: int, x: float):
    one = FootStateData(
        np.array([x, 0.0, 0.0]), np.array([1.0, 0, 0, 0]), np.zeros(3), StanceMode.POSITION, True, 0.0, 0.0
    )
    return foot_states_to_msg(stamp, dict.fromkeys(FEET, one))


def notice(stamp: int) -> Header:
    header = Header(frame_id="world")
    set_time(header.stamp, stamp)
    return header


def test_a_reset_starts_the_record_again_counted_from_it():
    recorder = RunRecorder()
    recorder.feed(RESET_TOPIC, notice(500_000_000))  # a kept notice of a reset before this run: ignored
    for stamp in (0, 5_000_000, 10_000_000):
        recorder.feed("/sally/foot_states", feet(stamp, 1.0))
    assert recorder.record.reset_at is None and len(recorder.record.feet) == 3
    recorder.feed(RESET_TOPIC, notice(3_000_000_000))
    recorder.feed("/sally/foot_states", feet(15_000_000, 9.0))  # in flight at the reset: left out
    for stamp in (3_000_000_000, 3_005_000_000):
        recorder.feed("/sally/foot_states", feet(stamp, 2.0))
    record = recorder.record
    assert record.reset_at == 3.0
    assert [s.t for s in record.feet] == [0.0, 0.005]
    assert all(s.position["FL"][0] == 2.0 for s in record.feet)


def test_a_graph_without_a_verdict_keeps_no_streams():
    """The hold graph (sim and controller, running until stopped) has nothing to judge: its record
    keeps the verdicts, diagnostics and reset notices, not the 50-200 Hz streams, so it does not
    grow for as long as the graph runs (4.5 MB a minute of magnet samples, seen in a soak)."""
    from sally_bringup.composed import keep_record
    from sally_bringup.graphs import graph
    from sally_bringup.recording import STREAMS, judged
    from sally_node_common.host import Host

    kept, held = Host(), Host()
    keep_record(kept)
    keep_record(held, streams=False)
    assert all(kept.taps_for(topic) for topic in STREAMS)
    assert not any(held.taps_for(topic) for topic in STREAMS) and held.taps_for("/sally/sequence_result")
    for composed in ("false", "true"):  # a container is judged by the nodes it hosts
        assert not judged(graph("hold", {"composed": composed}))
        assert judged(graph("f2w", {"composed": composed}))
        assert judged(graph("pulloff", {"composed": composed}))


def test_a_fallback_a_node_reports_is_kept_for_the_report():
    """A node that went on without its partner's answer counts it on /diagnostics; the record keeps
    the largest count of each (a restarted node counts from 0 again) and the report writes them, so a
    run that is not the lockstep run says so."""
    from diagnostic_msgs.msg import DiagnosticArray

    from sally_bringup.report import build_report
    from sally_bringup.report_text import summary
    from sally_node_common.diagnostics import diagnostic_status

    recorder = RunRecorder()

    def diagnostics(name, **values):
        recorder.feed("/diagnostics", DiagnosticArray(status=[diagnostic_status(name, "ok", "", values)]))

    diagnostics("sally_controller: pid", late_targets=0, states_answered=10)
    diagnostics("sally_ik: solver", target_wait_timeouts=0)
    assert recorder.record.fallbacks == {}
    diagnostics("sally_sim: commands", lockstep_timeouts=2, slow_answers=5)  # a slow answer came: no fallback
    diagnostics("sally_sim: commands", lockstep_timeouts=0)  # a new sim counting from 0
    diagnostics("sally_ik: solver", target_wait_timeouts="x")  # not a count: not one
    assert recorder.record.fallbacks == {"sally_sim: lockstep_timeouts": 2}
    report = build_report(recorder.record, route_plan("f2w"), 1.0, {})
    assert report["wall_clock_fallbacks"] == {"sally_sim: lockstep_timeouts": 2}
    assert "not the lockstep run): sally_sim: lockstep_timeouts 2" in summary(report)


def test_a_fallback_counted_after_the_verdict_is_not_the_run_s():
    """The graph stops after the run's verdict; an IK that waited meanwhile for the tick of a sequencer
    that had finished counts a timeout stamped after the verdict: not the run's."""
    from builtin_interfaces.msg import Time
    from diagnostic_msgs.msg import DiagnosticArray
    from std_msgs.msg import Header

    from sally_interfaces.msg import SequenceStatus
    from sally_node_common.diagnostics import diagnostic_status

    recorder = RunRecorder()

    def diagnostics(at: Time, **values):
        status = diagnostic_status("sally_ik: solver", "ok", "", values)
        recorder.feed("/diagnostics", DiagnosticArray(header=Header(stamp=at), status=[status]))

    diagnostics(Time(sec=22, nanosec=0), target_wait_timeouts=0)
    recorder.feed("/sally/sequence_result", SequenceStatus(header=Header(stamp=Time(sec=22, nanosec=500_000_000))))
    assert recorder.record.result is not None
    diagnostics(Time(sec=22, nanosec=505_000_000), target_wait_timeouts=1)
    assert recorder.record.fallbacks == {}


def test_a_new_sim_starts_the_record_again_from_0():
    """A sim killed and started again counts sim time from 0: told so, the record is of the new run
    alone (the old one's feet and fallbacks gone)."""
    recorder = RunRecorder()
    for stamp in (2_000_000_000, 2_005_000_000):
        recorder.feed("/sally/foot_states", feet(stamp, 1.0))
    recorder.record.fallbacks["sally_sim: lockstep_timeouts"] = 1
    recorder.new_sim()
    for stamp in (0, 5_000_000):
        recorder.feed("/sally/foot_states", feet(stamp, 2.0))
    record = recorder.record
    assert [s.t for s in record.feet] == [0.0, 0.005] and record.fallbacks == {}
    assert all(s.position["FL"][0] == 2.0 for s in record.feet)
