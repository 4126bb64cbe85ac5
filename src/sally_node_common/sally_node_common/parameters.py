"""One way for every node to declare and check its parameters: a table of :class:`Param`.

Each :class:`Param` names its default (which fixes its ROS type: a ``1`` given for a ``1.0``
parameter is refused by rclpy, as everywhere in ROS 2), its description, its range and choices, and
whether it is read-only. :class:`ParameterTable` declares them on a node with descriptors that carry
the range (so rqt_reconfigure and ``ros2 param describe`` show it) and checks every value, at start
and on every set request, with the checks rclpy's own do not make: finiteness (NaN and inf are
refused, in lists too), open lower bounds, choices, list lengths and a parameter's own rule. A
refused value at start raises :class:`rclpy.exceptions.InvalidParameterValueException` (the node's
``main`` prints it in one line and exits 2); at run time the set request is refused with the reason.

The defaults also live in each package's ``config/<node>.yaml`` (what the launch files and
``sally-launch`` load); a test keeps the two equal.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from rcl_interfaces.msg import FloatingPointRange, IntegerRange, ParameterDescriptor, ParameterType, SetParametersResult

Value = bool | int | float | str | list


@dataclass(frozen=True)
class Param:
    """One parameter. Bounds are inclusive unless ``open_low`` (then ``low`` itself is refused)."""

    name: str
    default: Value
    description: str
    low: float | None = None
    high: float | None = None
    open_low: bool = False
    choices: tuple[str, ...] = ()
    lengths: tuple[int, ...] = ()
    """List parameters: the lengths allowed (empty: any)."""
    rule: Callable[[Any], str | None] | None = None
    """A further check of the whole value: None, or what is wrong with it (``must ...``)."""
    read_only: bool = False
    unit: str = ""
    dynamic: bool = False
    """Accept any ROS type and leave the check to :meth:`refuse` (a list that may be empty: ROS
    cannot type ``[]``, it arrives unset); the default still says what the value is."""

    def __post_init__(self) -> None:
        if isinstance(self.default, list) and not self.default:
            raise ValueError(f"parameter {self.name}: a list default must not be empty (it fixes the element type)")
        reason = self.refuse(self.default)
        if reason is not None:
            raise ValueError(f"parameter {self.name}: its default is refused: {reason}")

    @property
    def type(self) -> int:
        """The ROS parameter type (``ParameterType.PARAMETER_*``) the default fixes."""
        d = self.default
        if self.dynamic:
            return ParameterType.PARAMETER_NOT_SET
        if isinstance(d, list):
            first = d[0]
            if isinstance(first, bool):
                return ParameterType.PARAMETER_BOOL_ARRAY
            if isinstance(first, int):
                return ParameterType.PARAMETER_INTEGER_ARRAY
            if isinstance(first, float):
                return ParameterType.PARAMETER_DOUBLE_ARRAY
            return ParameterType.PARAMETER_STRING_ARRAY
        if isinstance(d, bool):
            return ParameterType.PARAMETER_BOOL
        if isinstance(d, int):
            return ParameterType.PARAMETER_INTEGER
        if isinstance(d, float):
            return ParameterType.PARAMETER_DOUBLE
        return ParameterType.PARAMETER_STRING

    def descriptor(self) -> ParameterDescriptor:
        """The ROS parameter descriptor: description with unit and choices, read-only, range."""
        text = self.description + (f" [{self.unit}]" if self.unit else "")
        if self.choices:
            text += f"; one of {list(self.choices)}"
        d = ParameterDescriptor(name=self.name, description=text, read_only=self.read_only, dynamic_typing=self.dynamic)
        if not self.dynamic:
            d.type = self.type
        if self.low is not None and self.high is not None:
            if self.type == ParameterType.PARAMETER_DOUBLE:
                d.floating_point_range = [
                    FloatingPointRange(from_value=float(self.low), to_value=float(self.high), step=0.0)
                ]
            elif self.type == ParameterType.PARAMETER_INTEGER:
                d.integer_range = [IntegerRange(from_value=int(self.low), to_value=int(self.high), step=1)]
        return d

    def comment(self) -> str:
        """The line a defaults file (``config/<node>.yaml``) puts above the parameter: its
        description, unit, choices, range and whether it is read-only."""
        text = self.descriptor().description
        if self.low is not None or self.high is not None:
            low = "-inf" if self.low is None else f"{self.low:g}"
            high = "inf)" if self.high is None else f"{self.high:g}]"
            text += f"; range {'(' if self.open_low else '['}{low}, {high}"
        return text + ("; read-only" if self.read_only else "")

    def refuse(self, value: Any) -> str | None:
        """None when ``value`` is acceptable, else ``"<name> = <value> must ..."``."""
        reason = self._reason(value)
        return None if reason is None else f"{self.name} = {value!r} {reason}"

    def _reason(self, value: Any) -> str | None:
        items = list(value) if isinstance(value, (list, tuple)) else None
        if self.dynamic and value is None and isinstance(self.default, list):
            items = value = []  # "[]" given on the command line
        if isinstance(self.default, list):
            if items is None:
                return "must be a list"
            if self.lengths and len(items) not in self.lengths:
                return f"must have {' or '.join(str(n) for n in self.lengths)} entries, not {len(items)}"
            for item in items:
                reason = self._scalar_reason(item, self.default[0])
                if reason is not None:
                    return f"has an entry {item!r} that {reason}"
        else:
            reason = self._scalar_reason(value, self.default)
            if reason is not None:
                return reason
        return self.rule(value) if self.rule is not None else None

    def _scalar_reason(self, value: Any, like: Any) -> str | None:
        if isinstance(like, bool):
            return None if isinstance(value, bool) else "must be true or false"
        if isinstance(like, (int, float)):
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                return "must be a number"
            if not math.isfinite(value):
                return "must be finite"
            low, high, unit = self.low, self.high, f" {self.unit}" if self.unit else ""
            if low is not None and (value < low or (self.open_low and value == low)):
                bound = f"> {low:g}" if self.open_low else f">= {low:g}"
                return f"must be {bound}{unit}" + (f" and <= {high:g}{unit}" if high is not None else "")
            if high is not None and value > high:
                return f"must be <= {high:g}{unit}"
            return None
        if not isinstance(value, str):
            return "must be a string"
        if self.choices and value not in self.choices:
            return f"must be one of {list(self.choices)}"
        return None


class ParameterTable:
    """A node's parameters: declared together, checked the same way at start and at run time."""

    def __init__(self, params: Iterable[Param]) -> None:
        self.params = {p.name: p for p in params}

    def __getitem__(self, name: str) -> Param:
        return self.params[name]

    def defaults(self) -> dict[str, Value]:
        """Every parameter's default by name."""
        return {name: p.default for name, p in self.params.items()}

    def refuse(self, name: str, value: Any) -> str | None:
        """Why ``value`` is refused for parameter ``name``, or None if it is taken."""
        param = self.params.get(name)
        return f"unknown parameter {name!r}" if param is None else param.refuse(value)

    def declare(self, node, on_change: Callable[[set[str]], None] | None = None) -> None:
        """Declare every parameter on ``node`` (values given at start are checked: a refused one
        raises ``InvalidParameterValueException`` with the reason); ``on_change(names)`` runs after
        each accepted set request."""
        node.add_on_set_parameters_callback(self._check)
        node.declare_parameters("", [(p.name, p.default, p.descriptor()) for p in self.params.values()])
        if on_change is not None:
            node.add_post_set_parameters_callback(lambda params: on_change({p.name for p in params}))

    def values(self, node) -> dict[str, Any]:
        """Every parameter's current value (arrays as lists)."""
        return {name: _plain(node.get_parameter(name).value) for name in self.params}

    def _check(self, params: Sequence) -> SetParametersResult:
        for param in params:
            if param.name in self.params:  # others (use_sim_time, ...) are rclpy's own
                reason = self.params[param.name].refuse(_plain(param.value))
                if reason is not None:
                    return SetParametersResult(successful=False, reason=reason)
        return SetParametersResult(successful=True)


def _plain(value: Any) -> Any:
    """A parameter value as rclpy hands it over, arrays (array.array or numpy) as lists."""
    if value is None or isinstance(value, (bool, int, float, str, list)):
        return value
    return list(value)
