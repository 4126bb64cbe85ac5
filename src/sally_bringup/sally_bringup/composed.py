"""``sally_composed GRAPH [name:=value ...]``: every node of a graph in this one process.

The ROS 2 component-container idiom for rclpy: the graph's node classes (the ones its processes
would run, with the same parameters, :func:`~sally_bringup.graphs.graph`) are built on one
:class:`~sally_node_common.host.Host`, so messages between them are handed over as Python objects,
and spun by one EventsExecutor; the sim's physics loop runs in the main thread, as in its own
process. Every topic stays on DDS for others (rviz, a recorder, the runner's probe, a fault
injector). The process ends when a node that ends its graph (the sequencer, the pull-off rig)
finishes, with that node's status (0 success, 1 failure), or 3 when the physics diverged, 2 when
a node cannot start, 0 on SIGINT/SIGTERM. ``record_to:=PATH`` writes the run's MCAP from this
process and ``foxglove_to:=PORT`` serves it live over the Foxglove WebSocket protocol on
127.0.0.1:PORT (0: a free one, said in the log), both through an outlet process of this process's
own (:mod:`.host_recording`): no DDS between the publishers and the file or the viewer.
``group:=ik+sequencer`` hosts instead the nodes that ``apart:=ik+sequencer`` puts in a second
container beside the main one (the runner passes it; the two meet over DDS).
"""

from __future__ import annotations

import importlib
import signal
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sally_node_common.discovery import container_profile, default_to_loopback
from sally_node_common.graph_end import EndsGraph
from sally_node_common.node_main import watch_parent

from .arguments import GraphError, port_number
from .graphs import NodeSpec, graph, hosted_specs

NODE_CLASSES = {
    "sally_sim_node": "sally_sim_node.node:SimNode",
    "sally_controller": "sally_controller.node:ControllerNode",
    "sally_state_estimator": "sally_state_estimator.node:EstimatorNode",
    "sally_ik_node": "sally_ik_node.node:IKNode",
    "sally_sequencer": "sally_sequencer.node:SequencerNode",
    "sally_pulloff": "sally_sim_node.pulloff_node:PullOffNode",
}
"""Executable -> the node class its ``main`` runs."""
EXIT_FAILED, EXIT_BAD_START = 1, 2
FLUSH = 0.1
"""Wall seconds the executor keeps spinning after the graph ends, for its last messages."""


def keep_record(host, deferred: bool = False, streams: bool = True):
    """A :class:`~.recording.RunRecorder` fed by ``host``'s tap (``deferred``: through
    :attr:`~sally_node_common.host.Host.later`): the record of the run as it was published, whatever
    an outside reader missed. Outside messages come as bytes and are converted. ``streams`` false:
    the verdicts, diagnostics and reset notices alone (:data:`~.recording.STREAMS` left out)."""
    from rclpy.serialization import deserialize_message

    from .recording import STREAMS, RunRecorder

    recorder = RunRecorder()

    def feed(topic: str, msg, _log_time: int) -> None:
        if isinstance(msg, (bytes, bytearray)):
            msg = deserialize_message(bytes(msg), recorder.handlers[topic][0])
        recorder.feed(topic, msg)

    host.tap(feed, [t for t in recorder.handlers if streams or t not in STREAMS], deferred=deferred)
    return recorder


def node_class(executable: str) -> type:
    """The node class the executable ``executable`` runs."""
    if executable not in NODE_CLASSES:
        raise GraphError(f"no node class for executable {executable!r}; known: {sorted(NODE_CLASSES)}")
    module, name = NODE_CLASSES[executable].split(":")
    return getattr(importlib.import_module(module), name)


def build(
    host,
    specs: Sequence[NodeSpec],
    context,
    parameters: Mapping[str, Mapping[str, object]] | None = None,
    params_files: Sequence[str] = (),
) -> dict:
    """Each node of ``specs`` built on ``host`` in ``context`` (name -> node): its defaults file,
    ``params_files`` over it, the spec's parameters and ``parameters[name]`` over those (a node's
    own ROS arguments win over the process's, so the files go to each node, not to rclpy.init)."""
    from rclpy.parameter import Parameter

    from sally_node_common import StartupError
    from sally_node_common.node_main import START_ERRORS

    from .config_files import defaults_file

    nodes = {}
    for spec in specs:
        values = {**spec.parameters, **(parameters or {}).get(spec.name, {})}
        overrides = [Parameter(name, value=value) for name, value in values.items()]
        paths = [*([str(defaults_file(spec.package, spec.config))] if spec.config else []), *params_files]
        files = [arg for path in paths for arg in ("--params-file", path)]
        try:
            node = host.create(
                node_class(spec.executable),
                context=context,
                parameter_overrides=overrides,
                cli_args=["--ros-args", *files],
            )
            nodes[spec.name] = node
        except START_ERRORS as exc:
            raise StartupError(f"{spec.name} ({spec.executable}): {exc}") from None
    return nodes


def ended(nodes: Mapping[str, object]) -> str | None:
    """The name of a node that ends its graph and has finished, if any."""
    for name, node in nodes.items():
        if isinstance(node, EndsGraph) and node.finished.is_set() and node.exit_when_done:
            return name
    return None


def run(
    name: str,
    arguments: Mapping[str, str],
    stop: threading.Event,
    params_files: Sequence[str] = (),
    record_to: str | None = None,
    record_file: str | None = None,
    own_endpoints_ignored: bool = False,
    foxglove_to: int | None = None,
    group: str = "",
) -> int:
    """Host graph ``name`` here until it ends or ``stop`` is set; the process exit status.
    ``group``: host the nodes ``apart:=`` joins with ``+`` under that name (``ik+sequencer``), not
    the graph's main container.
    ``params_files`` (``--ros-args --params-file F``) go to every hosted node; ``record_to``: write
    the run's MCAP there from this process (:mod:`.host_recording`); ``record_file``: keep the run's
    record (what the report is computed from) here and write it there at the end
    (:mod:`.record_file`); ``foxglove_to``: serve it live on this port (:mod:`.host_recording`);
    ``own_endpoints_ignored``: this process's DDS participant was given
    :data:`~sally_node_common.discovery.CONTAINER_PROFILE` (see :class:`~sally_node_common.host.Host`)."""
    import rclpy
    from rclpy.signals import SignalHandlerOptions

    from sally_node_common.host import Host
    from sally_node_common.node_main import START_ERRORS, wait_for_readers

    specs = hosted_specs(name, arguments, group)
    rclpy.init(args=[], signal_handler_options=SignalHandlerOptions.NO)
    context = rclpy.get_default_context()
    host = Host(own_endpoints_ignored)
    taps = Taps()
    try:
        # with the sim here, the record and the recording are made while its loop waits for the physics
        taps.open(host, context, any(spec.name == "sim" for spec in specs))
        if record_file:
            from .recording import judged

            every = graph(name, {**arguments, "composed": "true", "apart": "none"})  # the whole graph's nodes
            taps.keep_record(judged(every))
        if record_to or foxglove_to is not None:
            taps.record(record_to or None, foxglove_to)
        try:
            nodes = build(host, specs, context, params_files=params_files)
        except START_ERRORS as exc:
            print(f"sally_composed: cannot start: {exc}", file=sys.stderr)
            return EXIT_BAD_START
        taps.hear_the_rest()
        return _spin(nodes, host, context, stop, taps.own_nodes())
    finally:
        host.later.run()  # what the deferred taps have not taken yet
        taps.close(record_file)
        wait_for_readers(host.nodes)
        for node in [*host.nodes, *taps.own_nodes()]:
            node.destroy_node()
        context.try_shutdown()


def _spin(nodes: Mapping[str, Any], host, context, stop: threading.Event, own_nodes=()) -> int:
    """Spin the hosted ``nodes`` (in the sim's loop when it is here) until the graph ends or
    ``stop``; the process exit status."""
    from rclpy.experimental import EventsExecutor

    from sally_node_common import spin_until_shutdown
    from sally_node_common.gc_pauses import settle
    from sally_node_common.node_main import watch_unique_names

    executor = EventsExecutor(context=context)
    for node in [*nodes.values(), *own_nodes]:
        executor.add_node(node)
    halt, finisher = threading.Event(), GraphEnd()
    threading.Thread(target=finisher.watch, args=(nodes, stop, halt), name="graph end", daemon=True).start()
    names = watch_unique_names(list(nodes.values()), stop)
    settle()  # start-up is done: no full collection walks what it made again
    sim = nodes.get("sim")
    for node in nodes.values():  # the sim's wait for its physics, the IK's for its solve
        if hasattr(node, "idle_work"):
            node.idle_work = host.later.run
    code = sim.run(executor, halt) if sim is not None else spin_until_shutdown(executor, context, halt)
    if names.refusal is not None:
        print(f"sally_composed: cannot start: {names.refusal}", file=sys.stderr, flush=True)
        names.linger()  # idle but visible: another container in its window sees the clash too
        return EXIT_BAD_START
    if code:  # the sim's own status (3: the physics diverged)
        return code
    if finisher.name is not None:
        return 0 if nodes[finisher.name].succeeded else EXIT_FAILED
    return 0


@dataclass
class Taps:
    """What a container keeps of its run besides its nodes: the run's record, the recording (and
    Foxglove) with the node that publishes its /diagnostics."""

    run_record: Any = None
    recording: Any = None
    recorder_node: Any = None
    listener: Any = None
    """The node (not hosted) that reads what the record needs from outside the host (:meth:`hear_the_rest`)."""
    host: Any = None
    context: Any = None
    deferred: bool = False
    """The taps deferred to the host's spare time (the sim's wait for its physics)."""

    def open(self, host, context, deferred: bool) -> None:
        """Taps of ``host``'s messages, in ``context``."""
        self.host, self.context, self.deferred = host, context, deferred

    def keep_record(self, streams: bool) -> None:
        """Keep the run's record (:func:`keep_record`; ``streams``: the judged streams too)."""
        self.run_record = keep_record(self.host, deferred=self.deferred, streams=streams)

    def hear_the_rest(self) -> None:
        """Once the nodes are built: the record's topics that no hosted node publishes or reads (a
        container apart from the sim keeping the record hears the sim's ground truth so) read from
        DDS, each message handed to the taps as an outside publisher's. A container with the sim
        hosts every publisher of its streams and reads none."""
        if self.run_record is None:
            return
        import rclpy

        from .recording import DEEP, STATUS
        from .topology import TOPICS

        host = self.host
        outside = [
            t
            for t in self.run_record.handlers
            if host.taps_for(t) and not (host.has_publishers(t) or host.has_readers(t))
        ]
        if not outside:
            return
        self.listener = rclpy.create_node("sally_record_listener", context=self.context)
        for topic in outside:
            kept = topic in TOPICS and TOPICS[topic].kept
            qos = STATUS if kept else DEEP  # (a kept topic's late reader gets its history)

            def heard(data: bytes, topic: str = topic) -> None:
                host.feed_taps(host.taps_for(topic), topic, data, data, time.time_ns())

            self.listener.create_subscription(self.run_record.handlers[topic][0], topic, heard, qos, raw=True)

    def own_nodes(self) -> list:
        """The nodes the taps made (not hosted): the recording's and the record's listener."""
        return [node for node in (self.recorder_node, self.listener) if node is not None]

    def record(self, path: str | None, foxglove_port: int | None) -> None:
        """Write the run's MCAP to ``path`` and serve it live on ``foxglove_port`` (each if given)."""
        import rclpy

        from .host_recording import open_recording

        self.recorder_node = rclpy.create_node("sally_recorder", context=self.context)
        self.recording = open_recording(self.host, self.recorder_node, path, foxglove_port, deferred=self.deferred)

    def close(self, record_file: str | None) -> None:
        """Close the recording (what was published is written before the nodes go) and write the
        run's record to ``record_file``."""
        if self.recording is not None:
            self.recording.close()
        if self.run_record is not None:
            from .record_file import RecordFileError, write_record

            try:
                write_record(self.run_record.record, Path(record_file or ""))
            except (OSError, RecordFileError) as exc:  # a full disk: the runner falls back on what it heard itself
                print(f"sally_composed: cannot write the run record: {exc}", file=sys.stderr)


class GraphEnd:
    """Watches for the node that ends the graph (:func:`ended`)."""

    def __init__(self) -> None:
        self.name: str | None = None
        """The node that ended the graph, once one has."""

    def watch(self, nodes: Mapping[str, Any], stop: threading.Event, halt: threading.Event) -> None:
        """Until a node ends the graph (or ``stop``); then, after its last messages are acknowledged,
        set ``halt``."""
        from rclpy.duration import Duration

        from sally_node_common.node_main import FINAL_ACK_WAIT

        while not stop.is_set() and self.name is None:
            self.name = ended(nodes)
            stop.wait(0.02)
        if self.name is not None:
            stop.wait(FLUSH)
            for publisher in nodes[self.name].final_publishers:  # latched: goes with us
                publisher.wait_for_all_acked(Duration(seconds=FINAL_ACK_WAIT))
        halt.set()


def _params_files(ros_arguments: Sequence[str]) -> list[str]:
    """The ``--params-file F`` files among ROS arguments (the only ones a container takes)."""
    files, rest = [], list(ros_arguments)
    while rest:
        item = rest.pop(0)
        if item == "--params-file" and rest:
            files.append(rest.pop(0))
        elif item != "--ros-args":
            raise GraphError(f"sally_composed takes only --params-file FILE after --ros-args, not {item!r}")
    return files


@dataclass(frozen=True)
class ContainerArguments:
    """What ``sally_composed`` was asked to run (:func:`parse_arguments`)."""

    graph: str
    values: dict[str, str]
    """The graph's ``name:=value`` arguments."""
    params_files: list[str]
    record_to: str | None = None
    record_file: str | None = None
    foxglove_port: int | None = None
    group: str = ""
    """The ``apart:=`` group this container hosts ('': the graph's main container)."""


def parse_arguments(argv: Sequence[str]) -> ContainerArguments:
    """``GRAPH [name:=value ...] [--ros-args --params-file F ...]``, or :class:`GraphError` naming
    what is wrong. Pure: nothing is set up before the arguments are known to be good."""
    if not argv or argv[0].startswith("-"):
        raise GraphError("usage: sally_composed GRAPH [name:=value ...]")
    values = {}
    params_files = _params_files(argv[argv.index("--ros-args") + 1 :] if "--ros-args" in argv else [])
    for item in argv[1:]:
        if item == "--ros-args":
            break
        key, sep, value = item.partition(":=")
        if not sep or not key:
            raise GraphError(f"argument {item!r} is not name:=value")
        values[key] = value
    record_to, record_file = values.pop("record_to", None), values.pop("record_file", None)
    foxglove_to = values.pop("foxglove_to", None)
    port = port_number("foxglove_to", foxglove_to) if foxglove_to is not None else None
    group = values.pop("group", "")
    return ContainerArguments(argv[0], values, params_files, record_to, record_file, port, group)


def main(argv: list[str] | None = None) -> int:
    """``sally_composed``: host the graph's nodes in this one process until the sim ends or a signal
    comes. Its arguments are checked before the process is set up as a container (its DDS
    profile, its signal handlers)."""
    try:
        args = parse_arguments(sys.argv[1:] if argv is None else argv)
    except GraphError as exc:
        print(f"sally_composed: {exc}", file=sys.stderr)
        return EXIT_BAD_START
    default_to_loopback()
    own_endpoints_ignored = container_profile()  # before the first DDS participant reads it
    stop = threading.Event()
    for s in (signal.SIGINT, signal.SIGTERM):
        signal.signal(s, lambda signum, frame: stop.set())
    watch_parent(stop, "sally_composed")
    try:
        return run(
            args.graph, args.values, stop, args.params_files, args.record_to, args.record_file,
            own_endpoints_ignored, args.foxglove_port, args.group,
        )  # fmt: skip
    except GraphError as exc:
        print(f"sally_composed: {exc}", file=sys.stderr)
        return EXIT_BAD_START


if __name__ == "__main__":
    sys.exit(main())
