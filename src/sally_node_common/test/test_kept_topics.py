"""CopyFilter: each message of a topic read kept + volatile is delivered once, and nothing else is dropped."""

import pytest

from sally_interfaces.msg import FootState, FootStates
from sally_node_common.kept_topics import CopyFilter
from sally_node_common.stamps import set_stamp


def feet(stamp: int, x: float = 0.1) -> FootStates:
    msg = FootStates(feet=[FootState(foot="FL")])
    msg.feet[0].pose.position.x = x
    set_stamp(msg.header, stamp)
    return msg


def test_a_kept_writers_message_through_both_subscriptions_is_delivered_once_in_either_order():
    f = CopyFilter()
    assert f.first(feet(5), kept=True) and not f.first(feet(5), kept=False)
    assert f.first(feet(10), kept=False) and not f.first(feet(10), kept=True)


def test_interleaved_copies_pair_up():
    f = CopyFilter()
    assert [f.first(feet(t), True) for t in (1, 2, 3)] == [True, True, True]
    assert [f.first(feet(t), False) for t in (1, 2, 3)] == [False, False, False]


def test_a_different_message_with_the_same_stamp_is_delivered():
    """A bad message injected at the stamp of the latest good one must reach the node's checks."""
    f = CopyFilter()
    assert f.first(feet(5), kept=True)
    assert f.first(feet(5, x=float("nan")), kept=False)
    assert not f.first(feet(5), kept=False)


def test_a_message_sent_twice_through_one_subscription_is_delivered_twice():
    f = CopyFilter()
    assert f.first(feet(5), kept=False) and f.first(feet(5), kept=False)
    # each copy pairs with at most one: a third through the other subscription pairs with one of them
    assert not f.first(feet(5), kept=True)
    assert not f.first(feet(5), kept=True)
    assert f.first(feet(5), kept=True)


def test_history_with_no_copy_is_forgotten_after_depth_messages():
    f = CopyFilter(depth=2)
    for t in (1, 2, 3):
        assert f.first(feet(t), kept=True)
    assert f.first(feet(1), kept=False)  # its partner was pushed out: delivered again rather than lost


def test_depth_must_be_positive():
    with pytest.raises(ValueError, match="depth"):
        CopyFilter(depth=0)
