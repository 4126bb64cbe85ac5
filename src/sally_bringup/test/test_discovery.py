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


def test_nodes_get_the_short_lease_profile_unless_the_user_names_one(tmp_path):
    from sally_node_common.discovery import PARTICIPANT_PROFILE, PROFILES

    env = graph_environment(7, base={})
    assert env[PROFILES] == str(PARTICIPANT_PROFILE) and PARTICIPANT_PROFILE.is_file()
    assert "<leaseDuration><sec>3</sec></leaseDuration>" in PARTICIPANT_PROFILE.read_text()
    own = tmp_path / "mine.xml"
    assert graph_environment(7, base={PROFILES: str(own)})[PROFILES] == str(own)


def test_a_killed_node_leaves_the_graph_within_the_lease(ros_domain, tmp_path, probe):
    """kill -9 sends no goodbye: the others notice only when its lease runs out (3 s, not 20 s)."""
    import time

    from sally_bringup.processes import ProcessGroup, wait_until

    group = ProcessGroup(ros_domain, tmp_path)
    try:
        controller = group.start("controller", "sally_controller")
        assert wait_until(lambda: probe.node.count_publishers("/sally/servo_commands") == 1, 30.0)
        killed = time.monotonic()
        controller.kill()
        assert wait_until(lambda: probe.node.count_publishers("/sally/servo_commands") == 0, 15.0, 0.05)
        assert time.monotonic() - killed < 6.0
    finally:
        group.stop_all()


def test_a_node_says_where_it_is_on_sigusr1_and_runs_on(ros_domain, tmp_path, probe):
    """``kill -USR1`` writes every thread's Python stack to the node's log; the node answers on."""
    from sally_bringup.processes import ProcessGroup, wait_until
    from sally_node_common.node_main import STACK_SIGNAL

    group = ProcessGroup(ros_domain, tmp_path)
    try:
        controller = group.start("controller", "sally_controller")
        assert wait_until(lambda: probe.node.count_publishers("/sally/servo_commands") == 1, 30.0)
        controller.signal_group(STACK_SIGNAL)
        assert wait_until(lambda: "node_main.py" in controller.log_text(), 10.0), controller.log_text()
        assert "most recent call first" in controller.log_text()
        assert controller.running
        assert probe.node.count_publishers("/sally/servo_commands") == 1
    finally:
        group.stop_all()


def test_a_container_ignores_its_own_endpoints_only_under_sally_s_own_profile(tmp_path):
    """The container profile is the participant profile (the same lease) plus ignoring its own
    endpoints; a profiles file the user named, or another middleware, is left as it is."""
    from sally_node_common.discovery import CONTAINER_PROFILE, PARTICIPANT_PROFILE, PROFILES, container_profile

    text = CONTAINER_PROFILE.read_text()
    assert "<leaseDuration><sec>3</sec></leaseDuration>" in text and "fastdds.ignore_local_endpoints" in text
    env = graph_environment(7, base={})
    assert container_profile(env) and env[PROFILES] == str(CONTAINER_PROFILE)
    assert container_profile(env), "given again (a container started from a container's environment)"
    default_to_loopback(env)  # any other process started from a container's environment
    assert env[PROFILES] == str(PARTICIPANT_PROFILE), "a container's profile is its own"
    own = str(tmp_path / "mine.xml")
    env = {PROFILES: own}
    assert not container_profile(env) and env[PROFILES] == own
    env = {PROFILES: str(PARTICIPANT_PROFILE), "RMW_IMPLEMENTATION": "rmw_cyclonedds_cpp"}
    assert not container_profile(env) and env[PROFILES] == str(PARTICIPANT_PROFILE)
