"""``sally-launch GRAPH [name:=value ...]``: run a graph with the embedded runner (no launch_ros).

The same graphs and arguments as ``ros2 launch sally_bringup GRAPH.launch.py name:=value``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from sally_node_common.discovery import default_to_loopback

from .arguments import ARGUMENTS, GraphError
from .graphs import GRAPHS
from .runner import EXIT_BAD_ARGS, run_graph


def parse(argv: list[str]) -> tuple[argparse.Namespace, dict[str, str]]:
    """Split ``sally-launch``'s command line into its options and its ``name:=value`` graph arguments."""
    parser = argparse.ArgumentParser(
        prog="sally-launch",
        description="Run a node graph as `ros2 launch sally_bringup GRAPH.launch.py` does, without launch_ros.",
        epilog="graph arguments (name:=value): "
        + "; ".join(
            f"{n} ({a.description}, default {a.default}{', one of ' + '|'.join(a.choices) if a.choices else ''})"
            for n, a in ARGUMENTS.items()
        ),
    )
    parser.add_argument("graph", help=f"one of {sorted(GRAPHS)} (a trailing .launch.py is accepted)")
    parser.add_argument("arguments", nargs="*", metavar="name:=value")
    parser.add_argument(
        "--run-dir", type=Path, help="where report.json, run.png and logs/ go (default runs/<time>_<graph>)"
    )
    parser.add_argument("--domain", type=int, help="ROS_DOMAIN_ID (default: a free one in 1..101)")
    parser.add_argument("--wall-timeout", type=float, help="stop the graph after this many wall seconds")
    parser.add_argument(
        "--params-file",
        action="append",
        default=[],
        type=Path,
        metavar="FILE",
        help="ROS parameter YAML for the nodes (node_name: ros__parameters: ...), over each node's config/<node>.yaml "
        "defaults and under the graph's own values; may be given more than once (later files win)",
    )
    parser.add_argument(
        "--quiet", action="store_true", help="only the runner's own lines (node output still goes to logs/)"
    )
    args = parser.parse_args(argv)
    values = {}
    for item in args.arguments:
        name, sep, value = item.partition(":=")
        if not sep or not name:
            raise GraphError(f"argument {item!r} is not name:=value")
        values[name] = value
    args.graph = args.graph.removesuffix(".launch.py")
    return args, values


def main(argv: list[str] | None = None) -> int:
    """``sally-launch GRAPH [name:=value ...]``: run a graph to its end; the exit code is the run's."""
    default_to_loopback()  # this process's own probe, and through it every node it starts
    try:
        args, values = parse(sys.argv[1:] if argv is None else argv)
        if args.domain is not None and not 0 <= args.domain <= 101:
            raise GraphError(f"--domain {args.domain} is outside 0..101")
        result = run_graph(
            args.graph,
            values,
            run_dir=args.run_dir,
            domain_id=args.domain,
            wall_timeout=args.wall_timeout,
            out=None if args.quiet else sys.stdout,
            params_files=args.params_file,
        )
    except GraphError as exc:
        print(f"sally-launch: {exc}", file=sys.stderr)
        return EXIT_BAD_ARGS
    return result.exit_code


if __name__ == "__main__":
    sys.exit(main())
