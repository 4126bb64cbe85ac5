"""A message's checked decoding done once for every reader in the process (pure, no ROS).

In a composed graph the host hands every hosted reader of a topic the same message object (a
published message is never changed afterwards: :mod:`.host`), and several of them decode it the
same way: the IK's foot states are checked and converted by the sequencer and again by the run's
record, the estimator's odometry by the controller, the IK and the record, each joint state by the
IK and the estimator. :func:`decoded_once` wraps such a pure conversion so that the same arguments
(the very same objects) give the same result, computed once: a few of the latest are kept, each
with its arguments (so an object's id is never taken for another's). Its numpy arrays are made
read-only, since every reader now shares them. A conversion that raises is not kept (the next
reader gets the same error, from the same check).
"""

from __future__ import annotations

import dataclasses
import functools
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

F = TypeVar("F", bound=Callable[..., Any])

KEPT = 8
"""Results kept per conversion: a reader decodes within a few messages of its publication."""


def read_only(value: Any) -> Any:
    """``value`` with every numpy array in it (in a dataclass, tuple, list or dict, nested) made
    read-only; ``value`` itself."""
    if isinstance(value, np.ndarray):
        value.setflags(write=False)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for field in dataclasses.fields(value):
            read_only(getattr(value, field.name))
    elif isinstance(value, (tuple, list)):
        for item in value:
            read_only(item)
    elif isinstance(value, dict):
        for item in value.values():
            read_only(item)
    return value


def decoded_once(convert: F, kept: int = KEPT) -> F:
    """``convert`` (a pure function of its positional arguments), computed once for the same
    argument objects while it is among the ``kept`` latest."""
    results: OrderedDict[tuple[int, ...], tuple[tuple, Any]] = OrderedDict()

    @functools.wraps(convert)
    def once(*args: Any) -> Any:
        key = tuple(map(id, args))
        hit = results.get(key)
        if hit is not None and all(a is b for a, b in zip(hit[0], args)):
            return hit[1]
        value = read_only(convert(*args))
        results[key] = (args, value)
        if len(results) > kept:
            results.popitem(last=False)
        return value

    return once  # type: ignore[return-value]
