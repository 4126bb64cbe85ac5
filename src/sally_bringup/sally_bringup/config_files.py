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


def check_params_files(paths) -> list[Path]:
    """Parameter files a user gives (``--params-file``), each readable YAML with ``ros__parameters``
    under a node name (or ``/**``); :class:`GraphError` saying which and why otherwise."""
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
        checked.append(path.resolve())
    return checked
