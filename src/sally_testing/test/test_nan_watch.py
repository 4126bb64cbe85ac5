"""The NaN watch's serialized scan: a NaN or inf in any float64 of every watched type is seen in the
CDR bytes, wherever it sits (nested messages, sequences, fixed arrays), and a finite message is
never counted (a word that only looks non-finite sends it to the field-by-field check)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from rclpy.serialization import deserialize_message, serialize_message
from rosidl_parser.definition import AbstractNestedType, Array, BasicType, NamespacedType

from sally_testing.faults.nan_watch import (
    TOPICS,
    _message_class,
    float_kinds,
    non_finite,
    starts_with_stamp,
    words_finite,
)

pytestmark = pytest.mark.unit

SCANNED = sorted({kind for kind in TOPICS.values() if float_kinds(kind) <= {"double"}}, key=lambda k: k.__name__)


def filled(kind, depth: int = 0):
    """A message of ``kind`` with every float 1.5, every string 'ab', every sequence two long."""
    msg = kind()
    for name, slot in zip(msg.get_fields_and_field_types(), kind.SLOT_TYPES):
        if isinstance(slot, AbstractNestedType):
            value, n = slot.value_type, (slot.size if isinstance(slot, Array) else 2)
            if isinstance(value, NamespacedType):
                setattr(msg, name, [filled(_message_class(value), depth + 1) for _ in range(n)])
            elif isinstance(value, BasicType) and value.typename == "double":
                setattr(msg, name, [1.5] * n)
            elif not isinstance(value, BasicType):  # strings
                setattr(msg, name, ["ab"] * n)
        elif isinstance(slot, NamespacedType):
            setattr(msg, name, filled(_message_class(slot), depth + 1))
        elif isinstance(slot, BasicType) and slot.typename == "double":
            setattr(msg, name, 1.5)
    return msg


def float_paths(msg, prefix=()):
    """Every place a float64 sits: (path of attribute names and indices)."""
    for name, kind in msg.get_fields_and_field_types().items():
        value = getattr(msg, name)
        if kind == "double":
            yield (*prefix, name)
        elif "double" in kind and not hasattr(value, "get_fields_and_field_types"):
            for i in range(len(value)):
                yield (*prefix, name, i)
        elif hasattr(value, "get_fields_and_field_types"):
            yield from float_paths(value, (*prefix, name))
        elif isinstance(value, list) and value and hasattr(value[0], "get_fields_and_field_types"):
            for i, item in enumerate(value):
                yield from float_paths(item, (*prefix, name, i))


def set_path(msg, path, x):
    *head, last = path
    target = msg
    for step in head:
        target = target[step] if isinstance(step, int) else getattr(target, step)
    if isinstance(last, int):
        seq = target
        seq[last] = x  # array.array and numpy arrays take it in place
    else:
        setattr(target, last, x)


@pytest.mark.parametrize("kind", SCANNED, ids=lambda k: k.__name__)
def test_every_float64_of_a_scanned_type_is_seen_in_its_bytes(kind):
    msg = filled(kind)
    paths = list(float_paths(msg))
    assert paths or not float_kinds(kind), f"{kind.__name__}: no float64 found to break"
    data = serialize_message(msg)  # its padding bytes may be anything: a word may look non-finite,
    assert words_finite(data) or not non_finite(deserialize_message(data, kind))  # and is then read
    for bad in (math.nan, math.inf, -math.inf):
        for path in paths:
            broken = filled(kind)
            set_path(broken, path, bad)
            assert not words_finite(serialize_message(broken)), (kind.__name__, path, bad)


def test_the_scan_covers_the_high_rate_topics():
    names = {k.__name__ for k in SCANNED}
    assert {"JointState", "Odometry", "MagnetArray", "IKTarget", "FootStates"} <= names


def test_a_header_first_type_has_its_stamp_at_the_body_start():
    from diagnostic_msgs.msg import KeyValue
    from rosgraph_msgs.msg import Clock
    from sensor_msgs.msg import JointState

    assert starts_with_stamp(JointState) and starts_with_stamp(Clock) and not starts_with_stamp(KeyValue)
    msg = JointState()
    msg.header.stamp.sec, msg.header.stamp.nanosec = 12, 3_000_000_000 - 1 - 2_000_000_000
    data = serialize_message(msg)
    sec, nanosec = np.frombuffer(data, dtype="<i4", count=2, offset=4).tolist()
    assert (sec, nanosec & 0xFFFFFFFF) == (12, 999_999_999)


def test_a_big_endian_body_is_never_taken_as_finite():
    from rosgraph_msgs.msg import Clock

    data = bytearray(serialize_message(Clock()))
    data[1] &= 0xFE
    assert not words_finite(bytes(data))


def test_history_sent_to_a_late_reader_is_not_a_step_back_and_a_real_one_is():
    """Stamps before the first one heard on a topic are its writer's history (a kept topic's, sent to
    a reader that matched late); a stamp before the last one, but not before the first, went back."""
    from types import SimpleNamespace

    from sally_testing.faults.nan_watch import NaNWatch

    probe = SimpleNamespace(node=SimpleNamespace(create_subscription=lambda *args, **kwargs: None))
    watch = NaNWatch(probe)
    for stamp in (3_810, 3_395, 3_400, 3_805, 3_815, 3_820):  # the live message, then the history
        watch._heard("/sally/joint_targets", stamp)
    assert watch.went_back["/sally/joint_targets"] == 0
    watch._heard("/sally/joint_targets", 3_812)  # after the first heard, before the last: back
    assert watch.went_back["/sally/joint_targets"] == 1
    assert watch.first_back["/sally/joint_targets"] == (3_820, 3_812)
    watch.new_timeline()  # a new sim: from 0 again, nothing compared with the old line
    for stamp in (5, 10):
        watch._heard("/sally/joint_targets", stamp)
    assert watch.went_back["/sally/joint_targets"] == 1
