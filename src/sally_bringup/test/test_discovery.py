"""Discovery: LOCALHOST when the user set nothing, the user's range when they did. Checked on the
environment built for the nodes; no DDS is started here with any other value."""

from sally_bringup.environment import graph_environment
from sally_node_common.discovery import RANGE, default_to_loopback, force_loopback


def test_unset_or_empty_becomes_localhost():
    assert graph_environment(7, base={})[RANGE] == "LOCALHOST"
    assert graph_environment(7, base={RANGE: ""})[RANGE] == "LOCALHOST"


def test_a_range_the_user_set_is_passed_through_to_every_node():
    env = graph_environment(7, base={RANGE: "SUBNET", "ROS_LOCALHOST_ONLY": "1"})
    assert env[RANGE] == "SUBNET" and env["ROS_DOMAIN_ID"] == "7"
    assert "ROS_LOCALHOST_ONLY" not in env, "Kilted ignores it; it only confuses"


def test_scripts_force_loopback_whatever_was_set():
    env = {RANGE: "SUBNET"}
    force_loopback(env)
    assert env[RANGE] == "LOCALHOST"
    env = {RANGE: "SUBNET"}
    default_to_loopback(env)
    assert env[RANGE] == "SUBNET"
