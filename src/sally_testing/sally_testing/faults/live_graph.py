"""A graph started for fault injection: the nodes of :func:`~sally_bringup.graphs.graph` as
separate processes that can be killed and started again one by one (the runner would end the
graph when a required node exits), with a probe that records what the faults need to see.

With ``apart`` given, the graph runs composed (one container, as users run it) and only the nodes
``apart`` run as processes of their own, to be killed or hung: half the CPU of a process per node,
so the cases that run a whole f2w go faster side by side.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
from diagnostic_msgs.msg import DiagnosticArray

from sally_bringup.arguments import resolve
from sally_bringup.graphs import GRAPHS, graph, ik_state_topic, journal_parameters
from sally_bringup.processes import ProcessGroup, wait_until
from sally_bringup.recording import RunRecorder
from sally_bringup.runner import GraphRun, start_sim_time
from sally_bringup.topology import GROUND_TRUTH_MAGNETS
from sally_interfaces.msg import MagnetTruthArray, SequenceStatus
from sally_node_common.qos import LATCHED
from sally_node_common.stamps import stamp_ns
from sally_node_common.time_contract import CONTROL_PERIOD

from .nan_watch import NaNWatch

DIAGNOSTICS = {
    "sim": "sally_sim: commands",
    "controller": "sally_controller: pid",
    "ik": "sally_ik: solver",
    "sequencer": "sally_sequencer: sequence",
    "estimator": "sally_state_estimator: estimate",
    "pulloff": "sally_pulloff: rig",
}
"""Each node's /diagnostics status that carries its input health."""


LOST_ANSWER_WAIT = 10.0
"""Wall s that sim time stands at a step call's end, unanswered, before the answer counts as lost."""
STALLED_S = 120.0
"""Wall s that sim time may stand still short of a step call's end before the graph counts as stuck."""


class StillClock:
    """How long (wall s) a polled reading has stood still since it was last seen to change."""

    def __init__(self, read) -> None:
        self._read = read
        self._value = read()
        self._since = time.monotonic()

    def for_s(self) -> float:
        """Wall seconds since the reading last changed (as of this poll)."""
        value = self._read()
        if value != self._value:
            self._value, self._since = value, time.monotonic()
        return time.monotonic() - self._since


SETTLE_GRACE_S = 0.03
"""Wall s a stepped period's other messages are given once its settling message is in (the magnets'
telemetry goes out before the sequencer's status that answers the same period)."""


class LiveGraph:
    """A graph started node by node for a fault case, each node's process at hand, watched for NaNs."""

    def __init__(
        self,
        name: str,
        arguments: Mapping[str, str],
        log_dir: Path,
        domain_id: int,
        overrides: Mapping[str, Mapping[str, object]] | None = None,
        apart: Sequence[str] | None = None,
        keep_report: bool = False,
    ) -> None:
        """``keep_report``: keep the run's record as the runner does, for :meth:`report` (the outage
        cases; the others leave the 50-200 Hz streams to the NaN watch alone)."""
        from sally_bringup.probe import Probe

        if apart is None:  # a process per node, killable one by one
            hosts = {**arguments, "composed": "false"}
        else:  # composed, but for the nodes apart
            hosts = {**arguments, "composed": "true", "apart": ",".join(apart) or "none"}
        specs = graph(name, hosts)
        self.arguments = resolve({**GRAPHS[name], **hosts})
        """The graph's arguments, resolved (its report is built from them as the runner builds it)."""
        self.ik_states = ik_state_topic(resolve({**GRAPHS[name], **hosts}))
        """The joint-state topic the IK reads (the states it solves alone when it is apart)."""
        self.specs = {spec.name: spec for spec in specs}
        self.process_of = {node: spec.name for spec in specs for node in spec.node_names}
        """Graph node -> the process that runs it (itself, or the container)."""
        for spec in specs:  # a node killed and started again resumes from its journal
            spec.parameters.update(journal_parameters(spec, Path(log_dir).resolve() / "state"))
        for node, values in (overrides or {}).items():
            if self.specs.get(node) is None:
                raise ValueError(f"parameters for {node} need it in a process of its own (apart)")
            self.specs[node].parameters.update(values)
        self.group = ProcessGroup(domain_id, log_dir)
        self.probe = Probe(domain_id, name=f"sally_faults_{domain_id}")  # one logger name per graph in this process
        self.nan = NaNWatch(self.probe)
        self.recorder = RunRecorder(self.probe) if keep_report else None
        """The run's record as the runner keeps it (feet, magnets, phases, verdict): :meth:`report`."""
        self.diagnostics: dict[str, tuple[float, int, str, dict[str, str]]] = {}
        """status name -> (wall time, level, message, values) of the latest."""
        self.magnets: list[tuple[int, dict[str, tuple[bool, str, bool, float]]]] = []
        """(stamp, foot -> (enabled, surface, in_contact, min_distance)) of every /sally/ground_truth/magnets."""
        probe = self.probe
        probe.record(DiagnosticArray, "/diagnostics", on_message=self._on_diagnostics).keep = False
        probe.record(MagnetTruthArray, GROUND_TRUTH_MAGNETS, on_message=self._on_magnets).keep = False
        self.status = probe.record(SequenceStatus, "/sally/sequence_status")
        self.status.keep = False
        self.result = (
            self.recorder.result  # one subscription: the verdict seen here is in the record already
            if self.recorder is not None
            else probe.record(SequenceStatus, "/sally/sequence_result", LATCHED)
        )

    @property
    def sim_ns(self) -> int:
        """The latest /clock heard (ns of sim time; 0 before any): the NaN watch reads /clock anyway."""
        return self.nan.last_stamp.get("/clock", 0)

    def new_sim(self) -> None:
        """A new sim is coming (the old one killed): sim time, the stamps' order and the run's
        record start again from 0 (sim time: no /clock heard since)."""
        self.nan.new_timeline()
        if self.recorder is not None:
            self.recorder.new_sim()

    # --- processes ------------------------------------------------------------------------------
    def start(self, until_s: float | None = None) -> None:
        """Every node (the sim paused), then sim time once all are matched (as the runner does).
        ``until_s``: instead of playing, step the paused sim to that sim time (s; whole control
        periods) and leave it paused there: in lockstep the graph stands at the same point of the
        same run however busy the machine is (:meth:`pause` plays it on)."""
        for name in self.specs:
            self.start_node(name, paused=True)
        start_sim_time(self.probe, set(self.process_of), ik_states=self.ik_states, play=until_s is None)
        if until_s is not None:
            self.step(round(until_s / CONTROL_PERIOD))

    def step(self, periods: int, timeout: float = 1800.0) -> None:
        """Step the paused sim ``periods`` control periods (``simulation_interfaces/StepSimulation``;
        in lockstep each waits for its answer) and return once they are done: its answer came, or
        (an answer lost on its way back, as a service's can be) sim time stands at or past the end
        and has not moved for :data:`LOST_ANSWER_WAIT` s. Else AssertionError saying how far the sim
        got, so that a graph standing still and a lost answer are told apart: once sim time has stood
        still short of the end for :data:`STALLED_S` (a graph stuck), or after ``timeout`` wall
        seconds in all. A slow machine is not a stuck graph: three graphs side by side on a loaded
        CI machine stepped the route 120.8 of its 122 s in the 600 s this once allowed in all."""
        from simulation_interfaces.msg import Result
        from simulation_interfaces.srv import StepSimulation

        start = self.sim_ns
        goal = start + round(periods * CONTROL_PERIOD * 1e9)
        future = self.probe.call_async(
            StepSimulation, "/sally_sim/step_simulation", StepSimulation.Request(steps=periods), timeout=30.0
        )
        still = StillClock(lambda: self.sim_ns)
        done = lambda: future.done() or (self.sim_ns >= goal and still.for_s() >= LOST_ANSWER_WAIT)  # noqa: E731
        stuck = lambda: self.sim_ns < goal and still.for_s() >= STALLED_S  # noqa: E731
        if not wait_until(lambda: done() or stuck(), timeout) or not done():
            raise AssertionError(
                f"the sim stepped {(self.sim_ns - start) * 1e-9:.3f} of {periods * CONTROL_PERIOD:g} s within "
                f"{timeout:g} s (sim time {self.sim_ns * 1e-9:.3f} s, unmoved for {still.for_s():.1f} s)"
            )
        if not future.done():
            print(f"StepSimulation's answer was lost; sim time stands at {self.sim_ns * 1e-9:.3f} s, the steps' end")
            return
        answer = future.result()
        if answer.result.result != Result.RESULT_OK:
            raise AssertionError(f"the sim refused {periods} steps: {answer.result.error_message}")

    def step_until(self, predicate, within_s: float, heard_s: float = 0.25, settled=None) -> bool:
        """Step the paused sim one control period at a time until ``predicate()`` holds (each step's
        messages polled for up to ``heard_s`` wall seconds), for at most ``within_s`` s of sim time:
        whether it came. The graph stands paused where it first held. ``settled()``, if given, says
        the period's messages are in: the poll then ends as soon as it holds (and the predicate has
        had :data:`SETTLE_GRACE_S` more for a message on another topic), not after ``heard_s``."""

        def heard() -> bool:
            if settled is None:
                return wait_until(predicate, heard_s, 0.01)
            wait_until(lambda: predicate() or settled(), heard_s, 0.005)
            return predicate() or wait_until(predicate, SETTLE_GRACE_S, 0.005)

        for _ in range(round(within_s / CONTROL_PERIOD)):
            if heard():
                return True
            self.step(1)
        return heard()

    def status_caught_up(self) -> bool:
        """The sequence status answering the paused sim's last period is in (the sequencer answers
        every period's foot states with one, stamped as they are: the period's start)."""
        last = self.status.last
        return last is not None and stamp_ns(last.header.stamp) >= self.sim_ns - round(CONTROL_PERIOD * 1e9)

    def start_node(self, name: str, paused: bool = False) -> None:
        """Start node ``name`` (``paused``: as the runner does, waiting to be released)."""
        spec = self.specs[name]
        parameters = GraphRun.node_parameters(spec) if paused else spec.parameters
        argv = GraphRun.node_arguments(spec) if paused else spec.arguments
        self.group.start(name, spec.executable, parameters, argv=argv)

    def pause(self, paused: bool) -> None:
        """Stop (or restart) sim time: the sim's SetSimulationState, PAUSED or PLAYING."""
        from simulation_interfaces.msg import SimulationState

        state = SimulationState.STATE_PAUSED if paused else SimulationState.STATE_PLAYING
        try:
            self.probe.set_simulation_state(state, timeout=30.0)
        except RuntimeError as exc:
            raise AssertionError(str(exc)) from None

    def wait_quiet(self, quiet: float, timeout: float) -> bool:
        """Until no node has published on a graph topic (timers' /diagnostics and /rosout aside)
        for ``quiet`` wall seconds: a paused graph has answered its last state."""
        streams = lambda: [t for t in self.nan.heard_at if t not in ("/diagnostics", "/rosout")]  # noqa: E731
        return wait_until(
            lambda: all(time.monotonic() - self.nan.heard_at[t] >= quiet for t in streams()), timeout, 0.05
        )

    def kill(self, name: str) -> None:
        """SIGKILL node ``name``'s process (a node in the container: the container, every node in it)."""
        self.group.processes[self.process_of[name]].kill()

    def running(self, name: str) -> bool:
        """Whether node ``name``'s process runs."""
        return self.group.processes[self.process_of[name]].running

    def log(self, name: str) -> str:
        """What node ``name`` logged: its process's output, or its lines of the container's."""
        text = self.group.processes[self.process_of[name]].log_text()
        if self.process_of[name] == name:
            return text
        return "\n".join(line for line in text.splitlines() if f"[sally_{name}]" in line)

    def close(self) -> dict[str, int | None]:
        """Stop every process and the probe, remove stale shared memory; exit codes by process."""
        from sally_bringup.shm import remove_stale_segments

        codes = self.group.stop_all()
        self.probe.close()
        remove_stale_segments()
        return codes

    # --- what the probe sees --------------------------------------------------------------------
    def _on_diagnostics(self, msg: DiagnosticArray) -> None:
        for status in msg.status:
            self.diagnostics[status.name] = (
                time.monotonic(),
                status.level,
                status.message,
                {kv.key: kv.value for kv in status.values},
            )

    def _on_magnets(self, msg: MagnetTruthArray) -> None:
        feet = {m.foot: (m.enabled, m.surface, m.in_contact, m.min_distance) for m in msg.magnets}
        self.magnets.append((stamp_ns(msg.header.stamp), feet))

    def node_health(self, node: str, since: float = -math.inf) -> tuple[str, dict[str, str]] | None:
        """(message, values) of ``node``'s latest diagnostics published after ``since`` (monotonic)."""
        return self.status_of(DIAGNOSTICS[node], since)

    def status_of(self, name: str, since: float = -math.inf) -> tuple[str, dict[str, str]] | None:
        """(message, values) of the latest /diagnostics status called ``name``, if after ``since``."""
        found = self.diagnostics.get(name)
        if found is None or found[0] < since:
            return None
        return found[2], found[3]

    def wait_health(self, node: str, predicate, timeout: float, what: str) -> tuple[bool, str]:
        """Poll ``node``'s diagnostics until ``predicate(message, values)``: whether it came, and the
        message that satisfied it (or what was seen last instead)."""
        seen: list = [None]

        def check() -> bool:
            seen[0] = self.node_health(node)
            return seen[0] is not None and bool(predicate(*seen[0]))

        if not wait_until(check, timeout, 0.05):
            return False, f"{node}: {what} not seen within {timeout:g} s; last diagnostics: {seen[0]}"
        return True, repr(seen[0][0])

    def report(self) -> dict:
        """The run's report so far, as the runner would write it (its wall-clock figures aside)."""
        from sally_bringup.runner import sequence_report

        if self.recorder is None:
            raise RuntimeError("this LiveGraph keeps no record: make it with keep_report=True")
        return sequence_report(self.recorder.record, self.arguments)

    def planted(self, foot: str, on: str = "wall") -> bool:
        """The latest telemetry has ``foot``'s magnet on, held on the surface ``on``."""
        if not self.magnets:
            return False
        enabled, surface, contact, _ = self.magnets[-1][1][foot]
        return enabled and surface == on and contact

    def fl_held_frs_turn(self, on: str = "wall") -> bool:
        """FL is held on the surface ``on`` and the sequence has gone on to FR: where the outage
        cases strike."""
        return self.planted("FL", on) and self.status.last is not None and self.status.last.foot == "FR"

    def wall_gap(self, foot: str, since_ns: int, on: str = "wall") -> tuple[float, bool]:
        """Since sim time ``since_ns``: the largest magnet gap of ``foot`` (m) and whether it stayed
        on, held on the surface ``on``, in every telemetry message."""
        rows = [feet[foot] for stamp, feet in list(self.magnets) if stamp >= since_ns]
        if not rows:
            return math.inf, False
        held = all(enabled and surface == on and contact for enabled, surface, contact, _ in rows)
        return float(np.max([gap for *_, gap in rows])), held
