"""Param / ParameterTable: the checks rclpy does not make, the same at start and at run time."""

import math

import pytest
import rclpy
from rcl_interfaces.msg import ParameterType
from rclpy.exceptions import InvalidParameterValueException
from rclpy.parameter import Parameter

from sally_node_common.parameters import Param, ParameterTable

RATE = Param("rate", 1000.0, "publish rate", low=0.0, high=2000.0, open_low=True, unit="Hz")
GAINS = Param("kp", [500.0], "gain", low=0.0, lengths=(1, 16))
MODE = Param("mode", "realtime", "pacing", choices=("realtime", "lockstep"))
FEET = Param(
    "feet", ["FL"], "feet", rule=lambda v: None if set(v) <= {"FL", "FR"} else "names unknown feet", dynamic=True
)


@pytest.mark.parametrize(
    "param, value, says",
    [
        (RATE, 0.0, "must be > 0 Hz and <= 2000 Hz"),
        (RATE, 2500.0, "must be <= 2000 Hz"),
        (RATE, math.nan, "must be finite"),
        (RATE, True, "must be a number"),
        (GAINS, [1.0, 2.0], "must have 1 or 16 entries, not 2"),
        (GAINS, [math.inf], "has an entry inf that must be finite"),
        (GAINS, [-1.0], "has an entry -1.0 that must be >= 0"),
        (GAINS, 3.0, "must be a list"),
        (MODE, "fast", "must be one of ['realtime', 'lockstep']"),
        (FEET, ["XL"], "names unknown feet"),
    ],
)
def test_refused_values_say_why(param, value, says):
    reason = param.refuse(value)
    assert reason is not None and reason.startswith(f"{param.name} = {value!r} ") and says in reason, reason


def test_accepted_values_and_types():
    assert RATE.refuse(1e-6) is None and RATE.refuse(2000) is None
    assert GAINS.refuse([0.0] * 16) is None
    assert FEET.refuse(None) is None, "[] on the command line arrives unset: no feet"
    assert (RATE.type, GAINS.type, MODE.type) == (
        ParameterType.PARAMETER_DOUBLE,
        ParameterType.PARAMETER_DOUBLE_ARRAY,
        ParameterType.PARAMETER_STRING,
    )
    d = RATE.descriptor()
    assert (d.floating_point_range[0].from_value, d.floating_point_range[0].to_value) == (0.0, 2000.0)
    assert FEET.descriptor().dynamic_typing


def test_a_bad_default_is_a_programming_error():
    with pytest.raises(ValueError, match="its default is refused"):
        Param("rate", -1.0, "rate", low=0.0)
    with pytest.raises(ValueError, match="must not be empty"):
        Param("feet", [], "feet")


@pytest.fixture
def context(ros_domain):
    ctx = rclpy.Context()
    rclpy.init(context=ctx, domain_id=ros_domain)
    yield ctx
    ctx.try_shutdown()


def test_on_a_node_start_values_and_set_requests_are_checked_alike(context):
    table = ParameterTable([RATE, GAINS, MODE])
    with pytest.raises(InvalidParameterValueException, match=r"kp = \[nan\] has an entry nan that must be finite"):
        node = rclpy.node.Node("bad", context=context, parameter_overrides=[Parameter("kp", value=[math.nan])])
        try:
            table.declare(node)
        finally:
            node.destroy_node()
    changed = []
    node = rclpy.node.Node("good", context=context, parameter_overrides=[Parameter("rate", value=500.0)])
    try:
        table.declare(node, on_change=changed.append)
        assert table.values(node) == {"rate": 500.0, "kp": [500.0], "mode": "realtime"}
        (result,) = node.set_parameters([Parameter("mode", value="fast")])
        assert not result.successful and "mode = 'fast' must be one of" in result.reason
        (result,) = node.set_parameters([Parameter("rate", value=math.nan)])
        assert not result.successful
        assert changed == [], "refused requests change nothing"
        (result,) = node.set_parameters([Parameter("mode", value="lockstep")])
        assert result.successful and changed == [{"mode"}] and node.get_parameter("mode").value == "lockstep"
    finally:
        node.destroy_node()
