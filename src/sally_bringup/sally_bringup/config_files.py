"""Where a node's defaults file (``config/<node>.yaml`` of its package) is, installed or not.

A colcon or pip install puts it in ``<prefix>/share/<package>/config/``; an editable install (this
repo's venv) leaves it in the source tree beside the package's Python code. Both are looked for, in
that order.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

from .arguments import GraphError


def defaults_file(package: str, name: str) -> Path:
    """``config/<name>`` of ``package``; :class:`GraphError` naming the places looked in when absent."""
    prefixes = [sys.prefix, *filter(None, os.environ.get("AMENT_PREFIX_PATH", "").split(os.pathsep))]
    places = [Path(prefix) / "share" / package / "config" / name for prefix in prefixes]
    spec = importlib.util.find_spec(package)
    if spec is not None and spec.origin:
        places.append(Path(spec.origin).resolve().parents[1] / "config" / name)
    for place in places:
        if place.is_file():
            return place
    raise GraphError(f"the defaults file config/{name} of {package} is missing; looked in {[str(p) for p in places]}")


def node_defaults(specs) -> dict[str, dict]:
    """ROS node name -> its defaults (parameter -> default value) for the one-node ``specs`` (a graph
    built with ``composed:=false``), from each node's defaults file."""
    import yaml

    out = {}
    for spec in specs:
        if spec.config:
            ((name, entry),) = yaml.safe_load(defaults_file(spec.package, spec.config).read_text()).items()
            out[name] = entry["ros__parameters"]
    return out


def _same_type(value, default) -> bool:
    """Whether ``value`` has ``default``'s ROS type (a list: every item its first item's; an empty
    list matches any list; an int is not a double, as rclpy says)."""
    if isinstance(default, list):
        return isinstance(value, list) and all(_same_type(v, default[0]) for v in value) if default else True
    return type(value) is type(default)


def _check_nodes(path: Path, data: dict, nodes: dict[str, dict]) -> None:
    """``data`` (the YAML of ``path``) names only nodes of ``nodes`` (ROS node name -> its defaults,
    :func:`node_defaults`; ``/**`` for every node) and, for each, only parameters it has, each of
    its type; :class:`GraphError` naming the file, the node and the parameter otherwise (ROS would
    ignore a node or parameter it does not know, and a node refuse a value of the wrong type only
    once the graph has started)."""
    every = {key: value for defaults in nodes.values() for key, value in defaults.items()}
    for node, entry in data.items():
        name = str(node).strip("/")
        if name != "**" and name not in nodes:
            raise GraphError(f"--params-file {path}: this graph has no node {node!r}; its nodes: {sorted(nodes)}")
        known = every if name == "**" else nodes[name]
        for key, value in (entry["ros__parameters"] or {}).items():
            if key not in known:
                raise GraphError(f"--params-file {path}: {node} has no parameter {key!r}")
            if not _same_type(value, known[key]):
                raise GraphError(
                    f"--params-file {path}: {node} {key}: {value!r} is not of the parameter's type (its "
                    f"default is {known[key]!r}: {type(known[key]).__name__})"
                )


def check_params_files(paths, nodes: dict[str, dict] | None = None) -> list[Path]:
    """Parameter files a user gives (``--params-file``), each readable YAML with ``ros__parameters``
    under a node name (or ``/**``), and with ``nodes`` (:func:`node_defaults` of the graph) naming
    only its nodes and their parameters, each of its type (:func:`_check_nodes`); :class:`GraphError`
    saying which and why otherwise."""
    import yaml

    checked = []
    for path in map(Path, paths):
        try:
            data = yaml.safe_load(path.read_text())
        except OSError as exc:
            raise GraphError(f"--params-file {path}: {exc.strerror or exc}") from None
        except yaml.YAMLError as exc:
            raise GraphError(f"--params-file {path}: not YAML: {exc}") from None
        if (
            not isinstance(data, dict)
            or not data
            or not all(isinstance(v, dict) and "ros__parameters" in v for v in data.values())
        ):
            raise GraphError(
                f"--params-file {path}: expected 'node_name: {{ros__parameters: {{name: value}}}}' entries"
            )
        if nodes is not None:
            _check_nodes(path, data, nodes)
        checked.append(path.resolve())
    return checked
