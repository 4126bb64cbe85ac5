"""MessageFields: a frozen dataclass and a ROS message of flat fields, paired by name and converted
by the dataclass's declared types. The one converter of the flat records (an IK status, a sequence
status, a pull-off result, one magnet's telemetry): each ``*_msg`` module declares its pairing once
and keeps only its checks.

A field's type says its conversion both ways: ``bool``, ``int``, ``float``, ``str`` as themselves,
an :class:`enum.IntEnum` as its value (and back). The pairing is checked when it is made: a field
the message lacks, a message field (its header aside) no field pairs, or a type it cannot convert
raise TypeError naming it, so that a message and its dataclass cannot drift apart unseen.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from dataclasses import fields
from typing import Any, Generic, TypeVar, get_type_hints

D = TypeVar("D")

_SCALARS: dict[Any, Callable[[Any], Any]] = {bool: bool, int: int, float: float, str: str}


def _conversions(kind: Any, where: str) -> tuple[Callable[[Any], Any], Callable[[Any], Any]]:
    """(to the message, from the message) for a field declared ``kind``."""
    if kind in _SCALARS:
        return _SCALARS[kind], _SCALARS[kind]
    if isinstance(kind, type) and issubclass(kind, enum.IntEnum):
        return int, kind
    raise TypeError(f"{where}: a flat record's field is bool, int, float, str or an IntEnum, not {kind!r}")


class MessageFields(Generic[D]):
    """``data`` (a dataclass) paired field by field with ``message`` (a ROS message type), each
    field by its own name or the name ``renamed`` gives it in the message."""

    def __init__(self, data: type[D], message: type, renamed: Mapping[str, str] | None = None) -> None:
        self.data, self.message = data, message
        hints = get_type_hints(data)
        have = dict(message.get_fields_and_field_types())  # type: ignore[attr-defined]
        self._pairs = []
        for f in fields(data):  # type: ignore[arg-type]
            name = (renamed or {}).get(f.name, f.name)
            where = f"{data.__name__}.{f.name} <-> {message.__name__}.{name}"
            if name not in have:
                raise TypeError(f"{where}: {message.__name__} has no field {name!r}")
            self._pairs.append((f.name, name, *_conversions(hints[f.name], where)))
        unpaired = sorted(set(have) - {name for _, name, _, _ in self._pairs} - {"header"})
        if unpaired:
            raise TypeError(f"{message.__name__}'s fields {unpaired} pair with none of {data.__name__}'s")

        # each direction compiled once into one call, as dataclasses makes its __init__: the pairing
        # costs what the hand-written conversion did (these go out and come in at 200 Hz)
        space: dict[str, Any] = {"Message": message, "Data": data}
        for i, (_, _, out, back) in enumerate(self._pairs):
            space[f"out{i}"], space[f"back{i}"] = out, back
        to_args = ", ".join(f"{name}=out{i}(data.{own})" for i, (own, name, _, _) in enumerate(self._pairs))
        from_args = ", ".join(  # a message's scalar comes as its type already (an enum's is made)
            f"back{i}(checked['{own}']) if '{own}' in checked else "
            + (f"back{i}(msg.{name})" if back not in _SCALARS.values() else f"msg.{name}")
            for i, (own, name, _, back) in enumerate(self._pairs)
        )
        exec(f"def to_msg(data):\n    return Message({to_args})", space)  # noqa: S102
        exec(f"def from_msg(msg, checked):\n    return Data({from_args})", space)  # noqa: S102
        self._to, self._from = space["to_msg"], space["from_msg"]

    def to_msg(self, data: D) -> Any:
        """The message of ``data`` (its header left as the message type makes it)."""
        return self._to(data)

    def from_msg(self, msg: Any, **checked: Any) -> D:
        """The dataclass of ``msg``; ``checked``: values (by the dataclass's field names) to take in
        place of the message's (its module's checks have read them already)."""
        return self._from(msg, checked)
