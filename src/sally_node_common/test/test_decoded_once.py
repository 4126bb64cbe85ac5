"""decoded_once: the same argument objects decode once; a new object, or an error, every time."""

import numpy as np
import pytest

from sally_node_common.decoded_once import decoded_once, read_only
from sally_node_common.foot_states_msg import FootStateData, foot_states_from_msg, foot_states_to_msg
from sally_node_common.inputs import InputError
from sally_node_common.stance import StanceMode


class Message:
    def __init__(self, value):
        self.value = value


def test_the_same_object_is_decoded_once_and_an_equal_new_one_again():
    calls = []

    @decoded_once
    def decode(msg):
        calls.append(msg)
        return {"x": np.array([msg.value, 2.0])}

    first = Message(1.0)
    a, b = decode(first), decode(first)
    assert a is b and len(calls) == 1
    assert decode(Message(1.0)) is not a and len(calls) == 2  # equal, but another message


def test_only_the_latest_are_kept_and_a_failed_decoding_is_not():
    calls = []

    @decoded_once
    def decode(msg):
        calls.append(msg)
        if msg.value < 0:
            raise InputError("non_finite", "bad")
        return msg.value

    messages = [Message(float(i)) for i in range(20)]
    for m in messages:
        decode(m)
    decode(messages[0])  # long gone from the kept ones: decoded again
    assert len(calls) == 21
    bad = Message(-1.0)
    for _ in range(2):
        with pytest.raises(InputError):
            decode(bad)
    assert calls.count(bad) == 2


def test_a_shared_result_s_arrays_are_read_only():
    feet = {
        leg: FootStateData(np.zeros(3), np.array([1.0, 0, 0, 0]), np.ones(3), StanceMode.POSITION, True, 0.0, 0.0)
        for leg in ("FL", "FR", "BL", "BR")
    }
    msg = foot_states_to_msg(5, feet)
    _, decoded = foot_states_from_msg(msg)
    assert foot_states_from_msg(msg)[1] is decoded
    with pytest.raises(ValueError, match="read-only"):
        decoded["FL"].position[0] = 1.0
    nested = read_only({"a": (np.zeros(2), [np.ones(1)])})
    assert not nested["a"][0].flags.writeable and not nested["a"][1][0].flags.writeable
