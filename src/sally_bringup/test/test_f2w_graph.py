"""The main job's acceptance test: the f2w graph on real DDS, through the runner, on both hosts.

Lockstep pacing makes a run independent of how the machine shares its time, so three lockstep
runs go side by side, each on its own domain, on two cores (more graphs than cores wherever the
suite runs: a starved lockstep graph must give the lockstep figures, and a report that any node went
on without its partner's answer, ``wall_clock_fallbacks``, would leave the reference's empty one):
one process per node, recorded by the runner over
DDS; composed (every node in one process, the default) without a recording, the IK solving in a
process of its own (``ik_process:=true``); and composed with its recording on a volume that fills
up. The three reports must agree on every figure but the
wall-clock ones. Then, alone, composed and paced to the wall clock as a user runs it: the same
figures.
"""

import json

import pytest

from sally_bringup.report import DRIFT_GOAL_MM, PLANT_GOAL_MM, comparable, host_differences
from sally_bringup.runner import EXIT_OK, run_graph
from sally_testing import reference
from sally_testing.side_by_side import on_cores, side_by_side, small_volume

pytestmark = [pytest.mark.graph, pytest.mark.timeout(600)]  # real graphs, in processes or hosted in this process


def run_f2w(tmp_path, ros_domain, name, pacing="lockstep", composed="false", record="true", **more):
    arguments = {"pacing": pacing, "composed": composed, "record": record, **more}
    result = run_graph("f2w", arguments, run_dir=tmp_path / name, domain_id=ros_domain, out=None, wall_timeout=300)
    report = json.loads((tmp_path / name / "report.json").read_text())
    print(name, json.dumps(report, indent=1))  # shown when the test fails
    return result, report


@pytest.fixture(scope="module")
def lockstep_runs(tmp_path_factory):
    """(folder, first, second, composed, volume): first as processes, second composed without a
    recording, composed with its run.mcap on a 3 MB volume (None where no volume could be mounted),
    run side by side. (Two runs as processes cost a third more than one as processes and one
    composed; the composed run must match the processes' figures anyway.)"""
    from sally_bringup.environment import lease_domain

    tmp = tmp_path_factory.mktemp("f2w")
    with (
        on_cores(2),
        small_volume(tmp / "volume") as volume,
        lease_domain() as a,
        lease_domain() as b,
        lease_domain() as c,
    ):
        if volume is not None:  # the recording's file on the full volume, the rest of the run folder not
            (tmp / "composed").mkdir()
            (tmp / "composed" / "run.mcap").symlink_to(volume / "run.mcap")
        first, second, composed = side_by_side(
            [
                lambda: run_f2w(tmp, a.domain_id, "first"),
                lambda: run_f2w(tmp, b.domain_id, "second", composed="true", record="false", ik_process="true"),
                lambda: run_f2w(tmp, c.domain_id, "composed", composed="true"),
            ]
        )
        yield tmp, first, second, composed, volume


def assert_f2w_succeeded(result, report):
    assert report["success"], report["problems"]
    assert result.exit_code == EXIT_OK
    for foot in ("FL", "FR"):
        plant = report["plants"][foot]
        assert plant["magnet_on_wall"], foot
        assert plant["error_mm"] < PLANT_GOAL_MM, (foot, plant)  # the goal, not success's outer limit
    assert report["stance_drift_mm"] < DRIFT_GOAL_MM
    assert report["stance_contact_lost"] == {}
    assert report["sim_time_s"] <= 25.0
    phases = [(row["foot"], row["phase"]) for row in report["phases"]]
    assert ("FL", "F2W_REACH") in phases and ("FR", "F2W_REACH") in phases
    assert phases.index(("FL", "F2W_REACH")) < phases.index(("FR", "LIFT"))


def test_fl_then_fr_end_on_the_wall_and_the_stance_feet_stay(lockstep_runs):
    tmp, (result, report), *_ = lockstep_runs
    assert_f2w_succeeded(result, report)
    reference.assert_matches(report, "f2w")  # within 0.1 mm of the committed run, not only the goals
    assert (tmp / "first" / "run.png").stat().st_size > 10_000
    assert {"sim.log", "controller.log", "ik.log", "sequencer.log"} <= {
        p.name for p in (tmp / "first" / "logs").iterdir()
    }


def test_two_lockstep_runs_give_the_same_report(lockstep_runs):
    """One process per node, recorded, and every node in one process, not recorded, the IK's solves
    in a process of their own: the same run."""
    tmp, (_, first), (result, second), *_ = lockstep_runs
    assert result.exit_code == EXIT_OK and second["exit_codes"] == {"graph": 0}, second["problems"]
    assert same_run(second, first)
    assert first["arguments"] == {**second["arguments"], "record": "true", "composed": "false", "ik_process": "false"}
    assert "solve process" in (tmp / "second" / "logs" / "graph.log").read_text(), "the IK solved apart"
    assert "recording" not in second and not (tmp / "second" / "run.mcap").exists()


def test_a_realtime_paced_run_gives_the_lockstep_figures(tmp_path, ros_domain, lockstep_runs, probe):
    """Paced to the wall clock, our nodes still answer every state before the sim steps on: the run
    does not depend on how busy the machine is (it failed under load when the sim stepped on).
    Watched meanwhile: the IK alone reads /sally/ik_target (the runner does not, so the sequencer
    serializes nothing for it)."""
    watch = ReaderWatch(probe, "/sally/ik_target", {"sally_ik"})
    try:
        result, report = run_f2w(tmp_path, ros_domain, "realtime", pacing="realtime", composed="true")
    finally:
        alone = watch.stop()
    assert alone, "the runner read /sally/ik_target while the sequence ran"
    assert report["arguments"]["pacing"] == "realtime" and report["arguments"]["sync"] == "true"
    assert_f2w_succeeded(result, report)
    assert 0.0 < report["real_time_factor"] <= 1.05  # paced to the wall clock: never ahead of it
    _, (_, lockstep), *_ = lockstep_runs
    assert same_run(report, lockstep)
    # the container wrote run.mcap itself (no DDS between publishers and file): every stream is in it
    from sally_bringup.mcap_recording import message_counts

    held = message_counts(tmp_path / "realtime" / "run.mcap")
    assert report["recording"]["messages"] == dict(sorted(held.items())), "the report says what the file holds"
    assert "stopped" not in report["recording"]
    assert_every_stream_at_its_rate(held, report["sim_time_s"])  # (how long a graph runs on after its
    # verdict depends on the OS, so counts are not compared with another run's)


class ReaderWatch:
    """In a thread of its own, until :meth:`stop`: whether ``topic`` had a publisher and readers of
    the nodes named ``readers`` alone at some poll after the sequence had run a second of sim time."""

    def __init__(self, probe, topic: str, readers: set[str]) -> None:
        import threading

        from sally_interfaces.msg import SequenceStatus

        self._probe, self._topic, self._readers, self._stop = probe, topic, readers, threading.Event()
        self._status = probe.record(SequenceStatus, "/sally/sequence_status")
        self._status.keep = False
        self.alone = False
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()

    def _watch(self) -> None:
        from sally_bringup.processes import wait_until

        node, topic = self._probe.node, self._topic

        def alone() -> bool:
            status = self._status.last
            if status is None or status.elapsed < 1.0:
                return False
            names = {info.node_name for info in node.get_subscriptions_info_by_topic(topic)}
            self.alone = node.count_publishers(topic) >= 1 and names == self._readers
            return self.alone

        wait_until(lambda: alone() or self._stop.is_set(), 600.0, interval=0.1)

    def stop(self) -> bool:
        """End the watch; whether the topic was seen with those readers alone."""
        self._stop.set()
        self._thread.join(timeout=5.0)
        return self.alone


def same_run(report: dict, other: dict) -> bool:
    """Every figure but the wall-clock ones, the arguments and the processes' exit codes agree."""
    return host_differences(report, other) == []


def test_with_an_ik_latency_the_ik_apart_computes_while_the_sim_steps_and_the_run_is_the_same(tmp_path):
    """``ik_latency:=1``: the controller answers the state at t with the solve of t - 5 ms, so the IK
    and the sequencer, in a second container (``apart:=ik+sequencer``), solve while the sim steps the
    five periods before the answer is due. Which process gets ahead is up to the OS; the run is the
    one of the composed graph, where everything goes in order in one thread. The second container,
    which hosts the sequencer, keeps the run's record (the runner takes none of its streams over
    DDS; the sim's ground truth, which no node there reads, it hears over DDS itself), and the sim
    sends the IK only the states it solves."""
    from sally_bringup.environment import lease_domain

    late = {"ik_latency": "1", "record": "false"}
    with lease_domain() as a, lease_domain() as b:
        (result, composed), (apart_result, apart) = side_by_side(
            [
                lambda: run_f2w(tmp_path, a.domain_id, "composed", composed="true", **late),
                lambda: run_f2w(tmp_path, b.domain_id, "apart", composed="true", apart="ik+sequencer", **late),
            ]
        )
    assert_f2w_succeeded(result, composed)
    assert apart_result.exit_code == EXIT_OK and apart["exit_codes"] == {"graph": 0, "ik+sequencer": 0}
    assert composed["time_contract"]["ik_latency_periods"] == 1
    assert same_run(apart, composed)
    assert (tmp_path / "apart" / "record.npz").exists(), "the second container kept the record"


def test_the_effort_path_reaches_the_f2w_goals(tmp_path, ros_domain):
    """``command:=effort``: the controller runs the joint PID itself and answers each 1 ms state
    with efforts, the sim's servos as plain motors (for torque controllers and hardware that takes
    efforts). The same goals as the servo commands."""
    result, report = run_f2w(tmp_path, ros_domain, "effort", composed="true", command="effort")
    assert_f2w_succeeded(result, report)
    reference.assert_matches(report, "f2w_effort")
    assert report["time_contract"]["command"] == "effort" and report["time_contract"]["control_period_s"] == 0.001
    held, sim = report["recording"]["messages"], report["sim_time_s"]
    assert (
        held.get("/sally/joint_efforts", 0) >= 0.95 * 1000 * sim and held.get("/joint_states", 0) >= 0.95 * 1000 * sim
    )
    assert "/sally/servo_commands" not in held, "efforts, not servo commands, answered the states"


def test_the_composed_graph_gives_the_same_report(lockstep_runs):
    """Every node in one process, messages handed over as Python objects: the same run."""
    tmp, (_, lockstep), _, (result, report), _ = lockstep_runs
    assert result.exit_code == EXIT_OK and report["exit_codes"] == {"graph": 0}, report["problems"]
    assert (tmp / "composed" / "logs" / "graph.log").stat().st_size > 0
    assert same_run(report, lockstep)


def test_a_full_disk_stops_the_recording_not_the_run(lockstep_runs):
    """The composed run's run.mcap filled its 3 MB volume: the recording stopped and the report
    says why, the run went on to the same figures (above), and the file so far reads back."""
    from mcap.reader import make_reader

    _, _, _, (_, report), volume = lockstep_runs
    if volume is None:
        pytest.skip("no tmpfs could be mounted here (needs root): the full disk is tried by test_mcap_recording")
    recording = report["recording"]
    assert "No space left on device" in recording.get("stopped", ""), recording
    held = sum(recording["messages"].values())
    assert 0 < held and f"holds the first {held} messages" in recording["stopped"]
    with open(volume / "run.mcap", "rb") as stream:
        assert sum(1 for _ in make_reader(stream).iter_messages()) == held


def test_the_run_is_recorded_in_mcap_with_every_stream_at_its_rate(lockstep_runs):
    """run.mcap holds the serialized messages with their schemas: the ROS 2 decoder from PyPI reads
    every topic back, the 1 kHz /clock included, and the TF tree reaches every body from world."""
    import math
    from collections import Counter

    from mcap.reader import make_reader
    from mcap_ros2.decoder import DecoderFactory

    from sally_description import build_model

    tmp, (_, report), *_ = lockstep_runs
    counts: Counter[str] = Counter()
    first: dict = {}
    tf_frames: dict = {}  # /tf has two publishers: the sim (every body) and the estimator (odom -> main_frame)
    with open(tmp / "first" / "run.mcap", "rb") as stream:
        reader = make_reader(stream, decoder_factories=[DecoderFactory()])
        for _, channel, _, msg in reader.iter_decoded_messages():
            counts[channel.topic] += 1
            first.setdefault(channel.topic, msg)
            if channel.topic == "/tf":
                for t in msg.transforms:
                    tf_frames.setdefault(t.child_frame_id, t)
    assert report["recording"]["messages"] == dict(sorted(counts.items())), "the report says what the file holds"
    assert_every_stream_at_its_rate(counts, report["sim_time_s"])
    assert first["/robot_description"].data.startswith('<?xml version="1.0"?>')
    assert first["/sally/markers"].markers and first["/sally/feet/FL/magnet_wrench"].header.frame_id == "em_FL"
    parents = {t.child_frame_id: t.header.frame_id for t in first["/tf_static"].transforms}
    parents.update({child: t.header.frame_id for child, t in tf_frames.items()})
    for t in tf_frames.values():
        values = (
            t.transform.translation.x,
            t.transform.translation.y,
            t.transform.translation.z,
            t.transform.rotation.w,
        )
        assert all(math.isfinite(v) for v in values), t.child_frame_id
    model = build_model()
    for body in range(1, model.nbody):
        frame, hops = model.body(body).name, 0
        while frame != "world" and hops < 50:
            frame, hops = parents[frame], hops + 1
        assert frame == "world", model.body(body).name


def assert_every_stream_at_its_rate(counts, sim: float) -> None:
    rates = {"/clock": 1000, "/joint_states": 200, "/sally/servo_commands": 200, "/tf": 100, "/sally/magnets": 50}
    rates.update({"/sally/markers": 10, "/sally/feet/FL/magnet_wrench": 10, "/sally/feet/BR/contact_wrench": 10})
    rates.update({"/sally/foot_states": 200, "/sally/joint_targets": 200, "/sally/odom": 200})
    rates.update({"/sally/imu": 200, "/sally/ground_truth/odom": 200, "/sally/ground_truth/feet": 200})
    rates.update({"/sally/ground_truth/magnets": 50})
    rates.update({f"/sally/feet/{foot}/range": 50 for foot in ("FL", "FR", "BL", "BR")})
    for topic, rate in rates.items():
        assert counts.get(topic, 0) >= 0.95 * rate * sim, (topic, counts.get(topic), rate * sim)
    for topic in ("/robot_description", "/tf_static", "/sally/sequence_result", "/diagnostics"):
        assert counts.get(topic, 0) >= 1, topic


def test_the_report_computed_again_from_the_mcap_is_the_live_one(lockstep_runs):
    """sally-report on the recording: the same record handlers on the recorded messages give the
    report the runner computed live (every figure that does not depend on the wall clock)."""
    from sally_bringup.report_cli import main as sally_report

    tmp, (_, live), *_ = lockstep_runs
    out = tmp / "first" / "again"
    assert sally_report([str(tmp / "first"), "--out", str(out)]) == 0
    again = json.loads((out / "report.json").read_text())
    runner_only = ("graph", "arguments", "exit_codes", "timed_out", "time_contract")
    assert {k: v for k, v in comparable(again).items() if k not in runner_only} == {
        k: v for k, v in comparable(live).items() if k not in runner_only
    }
    assert (out / "run.png").stat().st_size > 10_000


def test_sally_report_refuses_a_run_without_recording(tmp_path):
    from sally_bringup.report_cli import main as sally_report

    assert sally_report([str(tmp_path)]) == 2
