"""ROS 2 message definitions as MCAP ``ros2msg`` schemas (what ``ros2 bag record`` writes).

A schema is the type's ``.msg`` text followed, for every message type it uses (recursively, each
once), by a line of 80 ``=``, ``MSG: <package>/<Type>`` and that type's text. The ``.msg`` files
come from ``share/<package>/msg/`` of the install (the PyPI ROS wheels and our own message packages
install them there).
"""

from __future__ import annotations

import os
import re
import sys
from functools import cache
from pathlib import Path

PRIMITIVES = frozenset(
    "bool byte char float32 float64 int8 uint8 int16 uint16 int32 uint32 int64 uint64 string wstring".split()
)
SEPARATOR = "=" * 80


class DefinitionError(LookupError):
    """A message type whose ``.msg`` file is not installed; the message names where it looked."""


def _prefixes() -> list[Path]:
    paths = [sys.prefix, *filter(None, os.environ.get("AMENT_PREFIX_PATH", "").split(os.pathsep))]
    return [Path(p) for p in dict.fromkeys(paths)]


@cache
def msg_text(type_name: str) -> str:
    """The ``.msg`` text of ``pkg/msg/Type`` (or ``pkg/Type``)."""
    package, _, name = _split(type_name)
    places = [prefix / "share" / package / "msg" / f"{name}.msg" for prefix in _prefixes()]
    for place in places:
        if place.is_file():
            return place.read_text()
    raise DefinitionError(f"no definition of {type_name}: looked in {[str(p) for p in places]}")


def _split(type_name: str) -> tuple[str, str, str]:
    parts = type_name.split("/")
    if len(parts) == 3:
        return parts[0], parts[1], parts[2]
    if len(parts) == 2:
        return parts[0], "msg", parts[1]
    raise DefinitionError(f"{type_name!r} is not a message type name (package/msg/Type)")


def _used_types(text: str, package: str) -> list[str]:
    """The message types the fields of ``text`` use, as ``pkg/Type``, in order of first use."""
    used = []
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line or re.match(r"^\S+\s+\w+\s*=", line):  # blank, comment or a constant
            continue
        base = re.sub(r"<=\d+$", "", re.sub(r"\[[^\]]*\]$", "", line.split()[0]))
        if base in PRIMITIVES:
            continue
        full = base if "/" in base else f"{package}/{base}"
        if full not in used:
            used.append(full)
    return used


def schema_text(type_name: str) -> str:
    """The full ``ros2msg`` schema of ``pkg/msg/Type``: its text and every type it uses."""
    package, _, name = _split(type_name)
    out = [msg_text(type_name).rstrip("\n")]
    seen: set[str] = set()
    queue = _used_types(out[0], package)
    while queue:
        dep = queue.pop(0)
        if dep in seen:
            continue
        seen.add(dep)
        dep_package = dep.split("/")[0]
        text = msg_text(dep).rstrip("\n")
        out += [SEPARATOR, f"MSG: {dep}", text]
        queue += [t for t in _used_types(text, dep_package) if t not in seen]
    return "\n".join(out) + "\n"
