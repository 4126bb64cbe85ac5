"""The embedded runner: a graph from :mod:`sally_bringup.graphs` run to its end, without
``launch_ros`` (its nodes as processes, :class:`~sally_bringup.node_backends.ProcessBackend`, or
wherever another :class:`~sally_bringup.node_backends.NodeBackend` runs them).

Each node's output is passed through with a ``[name]`` prefix (and kept in the run folder's
``logs/``); Ctrl-C (SIGINT) or SIGTERM stops every process; when a required node exits, the graph
shuts down. The sim starts paused and is unpaused once every node is up and heard, so nothing the
report needs is lost to discovery. At the end the report (``report.json``) and the figure
(``run.png``) are written into the run folder; the exit code says whether the run succeeded.
"""

from __future__ import annotations

import math
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from sally_node_common.time_contract import CONTROL_PERIOD, EFFORT_PERIOD, IK_PERIOD, SERVO_COMMANDS

from . import topology
from .arguments import GraphError, resolve, run_plan
from .config_files import check_params_files, defaults_file, node_defaults
from .environment import graph_environment, lease_domain
from .graphs import GRAPHS, NodeSpec, graph, ik_state_topic, journal_parameters
from .node_backends import NodeBackend, ProcessBackend
from .processes import wait_until
from .record_file import RECORD_FILE, read_record

EXIT_OK, EXIT_FAILED, EXIT_INTERRUPTED, EXIT_BAD_ARGS = 0, 1, 130, 2
DISCOVERY_TIMEOUT = 60.0
DIVERGED = "<diverged>"
DRAIN_WAIT = 2.0
"""s the runner's tap may take, after the graph stopped, to record what its subscriptions still hold
(a publisher outside the graph, a robot's driver, keeps it busy that long at every end)."""
CATCH_UP_WAIT = 5.0
"""s the runner waits, after the verdict, for the foot states and status stamped up to it."""


@dataclass
class RunResult:
    """How a graph run ended: its exit code, folder, report and record."""

    exit_code: int
    run_dir: Path
    report: dict | None
    record: object = None
    """The :class:`~sally_bringup.run_record.RunRecord` the report was computed from."""


@dataclass
class RunOutcome:
    """How the graph's part of a run went (monotonic wall times, s), for its report."""

    started: float
    """When the nodes began to start."""
    begun: float | None = None
    """When the run began (its folder, the backend and the runner's probe opened next): start-up
    is from here to :attr:`sim_started`."""
    sim_started: float | None = None
    """When sim time started (every node up)."""
    ended: float | None = None
    """When the graph's verdict came (or it ended without one)."""
    stopped: float = 0.0
    """When every node had stopped."""
    interrupted: bool = False
    timed_out: bool = False
    failure: str | None = None
    """Why the graph ended early, in a node's own words, first among the report's problems."""
    codes: dict = field(default_factory=dict)
    """Each process's exit code."""

    @property
    def wall(self) -> float:
        """Wall seconds from sim time's start (or the nodes') to the end (or the stop)."""
        return (self.ended or self.stopped) - (self.sim_started or self.started)


def sequence_report(record, arguments: Mapping[str, str], wall_time_s: float = 0.0, exit_codes=None) -> dict:
    """The report of a sequence graph's ``record``, judged through the plan its ``arguments``
    (resolved) run (:func:`.arguments.run_plan`: its sequence, walks, stand, the route's next climb
    and the ways down and back)."""
    from .report import build_report

    return build_report(record, run_plan(arguments), wall_time_s, exit_codes or {})


class GraphRun:
    """One run of a graph: starts its nodes, waits for the end, records, writes the report and plots."""

    def __init__(
        self,
        name: str,
        arguments: Mapping[str, str] | None = None,
        run_dir: Path | None = None,
        domain_id: int | None = None,
        out: IO[str] | None = sys.stdout,
        wall_timeout: float | None = None,
        overrides: Mapping[str, Mapping[str, object]] | None = None,
        backend: NodeBackend | None = None,
        params_files: Sequence[Path | str] = (),
        plots: bool = True,
    ) -> None:
        """``overrides``: extra parameters by node name (e.g. ``{"pulloff": {"stop_above_clip":
        True}}``), for callers such as the optimizer that need more than the graph arguments.
        ``backend``: where the nodes run (default: one process per node spec). ``params_files``:
        ROS parameter files for every node (``--params-file``), over the nodes' own defaults files
        and under the graph's parameters. ``plots``: draw run.png and forces.png at the end (the
        optimizer's evaluations do not: ~1.6 s of CPU a scenario)."""
        self.name = name
        self.nodes: list[NodeSpec] = graph(name, arguments)  # validates before anything starts
        unknown = sorted(set(overrides or {}) - {spec.name for spec in self.nodes})
        if unknown:
            raise GraphError(f"parameter overrides for nodes {unknown} that graph {name} does not have")
        for spec in self.nodes:
            spec.parameters.update((overrides or {}).get(spec.name, {}))
        self.arguments = resolve({**GRAPHS[name], **(arguments or {})})
        stamp = time.strftime("%Y%m%d_%H%M%S")
        self.run_dir = Path(run_dir) if run_dir else Path("runs") / f"{stamp}_{name}"
        self.domain_id = domain_id
        self.out = out
        if wall_timeout is not None and not (math.isfinite(wall_timeout) and wall_timeout > 0):
            raise GraphError(
                f"--wall-timeout (wall_timeout) must be a positive number of seconds, got {wall_timeout!r}"
            )
        self.wall_timeout = wall_timeout
        self.backend = backend if backend is not None else ProcessBackend()
        alone = graph(name, {**(arguments or {}), "composed": "false", "apart": "none"}) if params_files else []
        self.params_files = check_params_files(params_files, node_defaults(alone))  # (alone: a node a process)
        self.plots = plots
        self.verdict_at: float | None = None
        """When the graph's verdict reached the runner (monotonic s): the run's end on the wall clock."""
        for spec in self.nodes:  # every defaults file is found before anything starts
            self.node_params_files(spec)
        self._stop = threading.Event()

    def say(self, text: str) -> None:
        """Write a ``[runner]`` line to the run's output (if it has one)."""
        if self.out is not None:
            self.out.write(f"[runner] {text}\n")
            self.out.flush()

    def request_stop(self, *_args) -> None:
        """Ask the run to stop (a signal handler's signature: the arguments are ignored)."""
        self._stop.set()

    def run(self) -> RunResult:
        """Run the graph to its end; how it ended."""
        begun = time.monotonic()
        self.run_dir.mkdir(parents=True, exist_ok=True)
        (self.run_dir / RECORD_FILE).unlink(missing_ok=True)  # a run folder used again: never an old run's record
        (self.run_dir / "logs").mkdir(exist_ok=True)
        # a domain the caller names is used as it is (the caller leased it, or chose it on purpose);
        # leasing it again here would fail on the caller's own lock and quietly pick another one
        lease = lease_domain() if self.domain_id is None else None
        domain = lease.domain_id if lease else self.domain_id
        assert domain is not None
        try:
            return self._run(domain, begun)
        finally:
            if lease:
                lease.release()

    def _run(self, domain: int, begun: float) -> RunResult:
        """The run's stages: open (the backend, the runner's probe, its record and taps), start the
        nodes and sim time, wait for the end, stop the graph, report."""
        from .probe import Probe, ProbeTimeoutError
        from .recording import RunRecorder, judged

        env = graph_environment(domain)
        scope = env.get("ROS_AUTOMATIC_DISCOVERY_RANGE")
        scope = "loopback only" if scope == "LOCALHOST" else scope
        self.say(f"graph {self.name} in ROS domain {domain} (discovery: {scope}); run folder {self.run_dir}")
        self.backend.open(domain, self.run_dir / "logs", self.out)  # before the probe: an in-process backend
        probe = Probe(domain, name="sally_runner")  # sets up rmw's environment
        # composed (or in process): the record is kept where the messages are published
        recorder = RunRecorder(probe, streams=judged(self.nodes) and not self.record_kept)
        taps = self._open_taps(probe)
        outcome = RunOutcome(started=time.monotonic(), begun=begun)
        try:
            self._start(env)
            outcome.sim_started = (
                self._unpause_when_heard(probe, recorder, taps[2]) if "sim" in self.node_names else time.monotonic()
            )
            if self.plots:  # matplotlib's import (0.5-0.9 s) while the graph runs, not after it
                from .plot import preload

                threading.Thread(target=preload, name="plotting import", daemon=True).start()
            self._wait_for_the_end(recorder.record, outcome)
        except NodeExitedError as exc:
            outcome.failure = f"{self.exit_reason(str(exc))} (while the graph was coming up)"
            self.say(f"the graph did not come up: {outcome.failure}")
        except ProbeTimeoutError as exc:
            outcome.failure = f"the graph did not come up: {exc}"
            self.say(outcome.failure)
        finally:
            self._stop_graph(probe, taps, outcome)
        record = self._final_record(recorder.record)
        report = self._report(record, outcome, taps[0])
        self._show(report, record, outcome)
        code = EXIT_INTERRUPTED if outcome.interrupted else EXIT_OK if report["success"] else EXIT_FAILED
        return RunResult(code, self.run_dir, report, record)

    def _start(self, env: Mapping[str, str]) -> None:
        """Start every node of the graph (the sim paused)."""
        for spec in self.nodes:
            parameters = {**self.node_parameters(spec), **journal_parameters(spec, self.run_dir.resolve() / "state")}
            self.say(self.backend.start(spec, parameters, self._arguments(spec), self.node_params_files(spec), env))
        self.backend.started_all()

    def _wait_for_the_end(self, record, outcome: RunOutcome) -> None:
        """Until the graph ends (:meth:`_wait`), then until its verdict and the record up to it are
        in; ``outcome`` says how it ended."""
        exited = self._wait(record)
        outcome.ended = self.verdict_at or time.monotonic()  # the run's end; stopping the graph is not the run's
        outcome.interrupted = self._stop.is_set() and exited is None
        outcome.timed_out = exited is None and not outcome.interrupted
        if exited == DIVERGED:
            self.say(f"the physics diverged ({record.divergence}); stopping the graph")
        elif exited is not None:
            self.say(f"{exited} {self.backend.ended(exited)}; stopping the graph")
        if outcome.interrupted:
            return
        verdict = lambda: record.result is not None or record.pulloff is not None  # noqa: E731
        wait_until(verdict, 2.0)  # the final result may still be on its way
        # the verdict's own topic can overtake the last foot states and status before it
        # (composed: the container's record is whole when it ends)
        if not self.record_kept and not wait_until(lambda: not record.behind_result(), CATCH_UP_WAIT):
            self.say(f"the record stops short of the verdict: {record.behind_result()}")
        if exited is not None and exited != DIVERGED and self.backend.failed(exited):
            if not verdict() or self.backend.could_not_start(exited):  # (then a verdict seen is
                outcome.failure = self.exit_reason(exited)  # another graph's): it ended the graph, say why

    def _stop_graph(self, probe, taps, outcome: RunOutcome) -> None:
        """Stop every node, then the runner's taps and probe; the exit codes into ``outcome``."""
        from .shm import remove_stale_segments

        try:
            outcome.codes = self.backend.stop_all()
        finally:
            self.backend.close()
        outcome.stopped = time.monotonic()
        mcap, live, tap = taps
        if tap is not None and not tap.drain(DRAIN_WAIT):
            self.say(
                f"messages still came {DRAIN_WAIT:g} s after the graph stopped (a publisher outside the graph, "
                "or a recording behind): the recording ends here"
            )
        probe.stop_spinning()  # the tap's subscriptions are torn down with nothing spinning
        if tap is not None:
            tap.close()
        for sink in (mcap, live):
            if sink is not None:
                sink.close()
        probe.close()
        remove_stale_segments()

    def _report(self, record, outcome: RunOutcome, mcap) -> dict:
        """The run's report: the record's figures, how the graph ended, the recording, the arguments."""
        from .report import build_pulloff_report

        if self.name == "pulloff":
            report = build_pulloff_report(record, outcome.wall, outcome.codes)
        else:
            report = sequence_report(record, self.arguments, outcome.wall, outcome.codes)
        report["teardown_s"] = round(outcome.stopped - (outcome.ended or outcome.stopped), 2)
        if outcome.sim_started is not None and outcome.begun is not None:  # the run's folder to sim time's start
            report["startup_s"] = round(outcome.sim_started - outcome.begun, 2)
        if outcome.failure is not None and not report.get("diverged"):
            report["success"] = False
            report["problems"].insert(0, outcome.failure)
        if outcome.interrupted or outcome.timed_out:
            report["success"] = False
            report["problems"].append(
                "interrupted (Ctrl-C)"
                if outcome.interrupted
                else f"stopped at the wall-clock limit of {self.wall_timeout:g} s"
            )
        report["timed_out"] = outcome.timed_out
        if record.behind_result():
            report["record_short_of_verdict"] = record.behind_result()
        if mcap is not None:
            report["recording"] = {"path": mcap.path.name, "messages": dict(sorted(mcap.counts.items()))}
            if mcap.stopped:  # the run went on without it (a full disk): said, not a failed run
                report["recording"]["stopped"] = mcap.stopped
        elif self.records_itself:
            report["recording"] = self._own_recording(record)
        report["graph"], report["arguments"], report["exit_codes"] = self.name, self.arguments, outcome.codes
        report["time_contract"] = {  # the periods and the latency the run's stamps followed
            "control_period_s": CONTROL_PERIOD if self.arguments["command"] == "servo" else EFFORT_PERIOD,
            "command": self.arguments["command"],
            "ik_period_s": IK_PERIOD,
            "control_latency_periods": int(self.arguments["control_latency"]),
            "ik_latency_periods": int(self.arguments["ik_latency"]),
        }
        return report

    def _show(self, report: dict, record, outcome: RunOutcome) -> None:
        """Write the report, draw the plots (not after Ctrl-C: it wants the prompt back; the
        report is written, drawing, ~1 s, is not) and say where they are."""
        from .plot import plot_leg_forces, plot_run
        from .report import write_report
        from .report_text import summary

        path = write_report(report, self.run_dir)
        plots = []
        if self.plots and not outcome.interrupted:
            plots = [
                plot_run(record, report, self.run_dir / "run.png"),
                plot_leg_forces(record, report, self.run_dir / "forces.png"),
            ]
        self.say("\n" + summary(report))
        self.say(f"report: {path}")
        for plot in plots:
            if plot:
                self.say(f"plot: {plot}")
        self.say(f"run folder: {self.run_dir.resolve()}")

    @staticmethod
    def node_parameters(spec: NodeSpec) -> dict[str, object]:
        """The parameters a node is started with: the sim starts paused (unpaused once every
        node is heard)."""
        return {**spec.parameters, **({"start_paused": True} if spec.name == "sim" else {})}

    @property
    def composed(self) -> bool:
        """Whether every node of the graph runs in one composed container.

        It then sees every message published and keeps the run's record itself. (With nodes
        ``apart``, what they publish and no hosted node reads never reaches the container: this
        process records over DDS.)"""
        return len(self.nodes) == 1 and bool(self.nodes[0].hosts)

    @property
    def record_keeper(self) -> NodeSpec | None:
        """The container that keeps the run's record (:mod:`.record_file`): the one hosting the
        sequencer (its hosted subscriptions hear every stream of the record the others publish;
        /diagnostics, which they do not read, this process hears anyway), or the graph's only one;
        None when neither runs (a process per node, the sequencer or the rig apart)."""
        containers = [spec for spec in self.nodes if spec.hosts]
        return next((c for c in containers if "sequencer" in c.hosts), containers[0] if self.composed else None)

    @property
    def record_kept(self) -> bool:
        """Whether the run's record is kept where the messages are: by a container
        (:attr:`record_keeper`) or an in-process backend (:meth:`NodeBackend.kept_record`)."""
        return self.record_keeper is not None or self.backend.keeps_record

    @property
    def records_itself(self) -> bool:
        """``record:=true`` in a composed graph: the container writes run.mcap where the messages
        are (:mod:`.host_recording`), not this process over DDS."""
        return self.arguments["record"] == "true" and self.composed

    @property
    def serves_itself(self) -> bool:
        """``foxglove:=true`` in a composed graph: the container serves Foxglove where the messages
        are (:mod:`.host_recording`), not this process over DDS."""
        return self.arguments["foxglove"] == "true" and self.composed

    def _arguments(self, spec: NodeSpec) -> tuple[str, ...]:
        """:meth:`node_arguments`, where a container hosting every node records the run and serves
        it live (one beside nodes apart does not: this process does), and where the record keeper
        keeps the run's record."""
        own: tuple[str, ...] = (f"record_to:={self.run_dir.resolve() / 'run.mcap'}",) if self.records_itself else ()
        own += (f"foxglove_to:={self.arguments['foxglove_port']}",) if self.serves_itself else ()
        keeps = spec is self.record_keeper
        return (
            *self.node_arguments(spec),
            *own,
            *((f"record_file:={self.run_dir.resolve() / RECORD_FILE}",) if keeps else ()),
        )

    def _final_record(self, heard):
        """The record to report on: the one kept where the messages were published (by the
        backend in process, by the record keeper in :mod:`.record_file`), with what only this
        process heard (a recording that stopped, a divergence) added; else what this process heard
        over DDS."""
        kept = self.backend.kept_record()
        if kept is None:
            path = self.run_dir / RECORD_FILE
            if self.record_keeper is None or not path.exists():
                return heard
            try:
                kept = read_record(path)
            except (OSError, ValueError, KeyError, TypeError) as exc:
                self.say(f"the container's run record is unreadable ({exc}); reporting what the runner heard")
                return heard
        kept.recording_stopped = kept.recording_stopped or heard.recording_stopped
        kept.pacing = kept.pacing or heard.pacing  # a keeper without the sim hears no /diagnostics of it
        for name, count in heard.fallbacks.items():  # (the counts only grow: the larger is the later)
            kept.fallbacks[name] = max(count, kept.fallbacks.get(name, 0))
        if kept.divergence is None and heard.divergence is not None:
            kept.divergence, kept.divergence_t = heard.divergence, heard.divergence_t
        return kept

    def _own_recording(self, record) -> dict:
        """The report's ``recording`` for a run the container recorded: what the file holds, and
        why it stopped early if it said so."""
        from .mcap_recording import message_counts

        path = self.run_dir / "run.mcap"
        try:
            messages = message_counts(path)
        except OSError as exc:
            messages, record.recording_stopped = {}, record.recording_stopped or f"no {path.name}: {exc}"
        recording: dict = {"path": path.name, "messages": dict(sorted(messages.items()))}
        if record.recording_stopped:
            recording["stopped"] = record.recording_stopped
        return recording

    def _open_taps(self, probe):
        """The run's recording (``record:=true``, unless the graph records itself) and Foxglove
        server (``foxglove:=true``), fed by one raw subscription per topic; (recorder, server, tap),
        each None when not asked for."""
        from .mcap_recording import McapRecorder
        from .raw_tap import RawTap

        mcap = (
            McapRecorder(
                self.run_dir / "run.mcap",
                on_stop=lambda why: self.say(f"the recording stopped: {why}; the run goes on"),
            )
            if self.arguments["record"] == "true" and not self.records_itself
            else None
        )
        live = None
        if self.serves_itself:
            port = int(self.arguments["foxglove_port"])
            where = f"ws://127.0.0.1:{port}" if port else "the address the graph's log gives (a free port)"
            self.say(f"Foxglove: open a WebSocket connection to {where} in the Foxglove app (served by the container)")
        elif self.arguments["foxglove"] == "true":
            from .foxglove_live import FoxgloveLive

            live = FoxgloveLive(port=int(self.arguments["foxglove_port"]))
            self.say(f"Foxglove: open a WebSocket connection to {live.url} in the Foxglove app")
        sinks = [s for s in (mcap, live) if s is not None]
        return mcap, live, (RawTap(probe.node, sinks) if sinks else None)

    def node_params_files(self, spec: NodeSpec) -> list[Path]:
        """A node's defaults file, then the run's own files (a composed container loads the
        defaults of the nodes it hosts itself)."""
        return [*([defaults_file(spec.package, spec.config)] if spec.config else []), *self.params_files]

    @staticmethod
    def node_arguments(spec: NodeSpec) -> tuple[str, ...]:
        """The command-line arguments a process gets before its ROS arguments: a composed
        container hosting the sim starts it paused too."""
        return (*spec.arguments, *(("start_paused:=true",) if spec.hosts and "sim" in spec.hosts else ()))

    def exit_reason(self, name: str) -> str:
        """How required node ``name`` ended, with the last line it wrote (its own reason)."""
        last = self.backend.last_words(name)
        return f"{name} {self.backend.ended(name)}" + (f": {last}" if last else "")

    @property
    def node_names(self) -> set[str]:
        """Every graph node this run runs, hosted ones included."""
        return {name for spec in self.nodes for name in spec.node_names}

    def _unpause_when_heard(self, probe, recorder, tap=None) -> float:
        """Wait until every node's topics are matched both ways (and the record's and the raw
        ``tap``'s volatile streams their publishers), then start sim time. A required node that
        exits meanwhile ends the wait at once (:class:`NodeExitedError`)."""
        names = self.node_names
        ik_states, commands = ik_state_topic(self.arguments), topology.command_topic(self.arguments)
        # what the record reads of the graph's nodes is as volatile as the rest (the sequencer's first
        # status too): the record and the recording must have its publishers before sim time starts,
        # or the run's first phase starts a tick late
        published = {t for node in topology.graph_topics(names, commands, ik_states).values() for t in node.publishes}
        streams = sorted(published & set(recorder.recordings))
        subscriptions = [recorder.recordings[t].subscription for t in streams]
        if tap is not None:
            subscriptions += tap.subscriptions_of(streams)
        start_sim_time(
            probe,
            names,
            self.backend.gone,
            subscriptions,
            ik_states=ik_states,
            commands=commands,
        )
        self.say("every node is up: sim time starts")
        return time.monotonic()

    def _wait(self, record) -> str | None:
        """Until a required node exits (its name), the sim reports divergence (DIVERGED), a stop
        request or the wall timeout (None). :attr:`verdict_at`: when the graph's verdict came (the
        run's end on the wall clock; the graph then stops, which is not the run's time)."""
        deadline = None if self.wall_timeout is None else time.monotonic() + self.wall_timeout
        self.verdict_at = None
        while not self._stop.is_set():
            if self.verdict_at is None and (record.result is not None or record.pulloff is not None):
                self.verdict_at = time.monotonic()
            if record.divergence is not None:
                return DIVERGED
            exited = self.backend.gone()
            if exited is not None:
                return exited
            if deadline is not None and time.monotonic() > deadline:
                self.say(f"wall-clock limit of {self.wall_timeout:g} s reached")
                return None
            time.sleep(0.05)
        return None


def readiness(
    names: set[str], ik_states: str = "/joint_states", commands: str = SERVO_COMMANDS
) -> tuple[dict[str, int], dict[str, int]]:
    """Publisher and subscriber counts per topic that show every node of a graph running ``names``
    is up and matched (:func:`.topology.readiness`; ``ik_states``: the joint-state topic the IK
    reads, the sim's /sally/odom_joint_states for an IK apart from it; ``commands``: the sim's
    command topic, :func:`.topology.command_topic`)."""
    return topology.readiness(topology.graph_topics(names, commands, ik_states))


class NodeExitedError(RuntimeError):
    """A required node exited while the graph was coming up; the message is its name."""


def start_sim_time(
    probe,
    names: set[str],
    exited: Callable[[], str | None] = lambda: None,
    subscriptions: Sequence = (),
    ik_states: str = "/joint_states",
    commands: str = SERVO_COMMANDS,
    play: bool = True,
) -> None:
    """Once the nodes ``names`` are matched both ways (:func:`readiness`), each of the runner's
    ``subscriptions`` has its publisher, unpause the sim (``play``
    false: leave it paused, for the caller to step). ``exited()``
    names a required node that is gone: the wait then ends at once with :class:`NodeExitedError`
    instead of running out.

    The nodes' own subscriptions are checked: states reach the controller and the IK, foot states
    the sequencer, the sequencer's targets the IK; the control-period streams are checked through
    the graph, not read (reading them would take CPU the realtime control loop needs)."""
    from simulation_interfaces.msg import SimulationState

    from .probe import ProbeTimeoutError

    node = probe.node
    publishers, subscribers = readiness(names, ik_states, commands)

    def missing() -> list[str]:
        """What the graph still lacks, one item a topic (empty once it is up)."""
        return [
            *(f"{t} {c} of {n} publishers" for t, n in publishers.items() if (c := node.count_publishers(t)) < n),
            *(f"{t} {c} of {n} readers" for t, n in subscribers.items() if (c := node.count_subscribers(t)) < n),
            *(f"{s.topic_name} no publisher for the runner" for s in subscriptions if s.get_publisher_count() < 1),
        ]

    def matched() -> bool:
        gone = exited()
        if gone is not None:
            raise NodeExitedError(gone)
        return not missing()

    if not wait_until(matched, DISCOVERY_TIMEOUT):
        raise ProbeTimeoutError(
            f"timed out after {DISCOVERY_TIMEOUT:g} s waiting for every node's publishers and subscriptions "
            f"(missing: {'; '.join(missing()) or 'none by now'})"
        )
    if play:
        probe.set_simulation_state(SimulationState.STATE_PLAYING, timeout=DISCOVERY_TIMEOUT)


def run_graph(name: str, arguments: Mapping[str, str] | None = None, **kwargs) -> RunResult:
    """Run graph ``name`` to its end with SIGINT/SIGTERM stopping it; see :class:`GraphRun`."""
    run = GraphRun(name, arguments, **kwargs)
    previous = (
        {s: signal.signal(s, run.request_stop) for s in (signal.SIGINT, signal.SIGTERM)} if _main_thread() else {}
    )
    try:
        return run.run()
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


def _main_thread() -> bool:
    return threading.current_thread() is threading.main_thread() and os.name == "posix"
