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


def test_on_loopback_the_profile_takes_messages_over_udp_and_elsewhere_fast_dds_chooses():
    """LOCALHOST: every locator of the profile is UDP on 127.0.0.1 (no shared memory); a range the
    user set gets the same lease with Fast DDS's own transports (a computer elsewhere can reach it)."""
    import xml.etree.ElementTree as ET

    from sally_node_common.discovery import NETWORK_PROFILE, PARTICIPANT_PROFILE, PROFILES

    def locators(path):
        root = ET.parse(path).getroot()
        lists = [e for e in root.iter() if e.tag.endswith("LocatorList")]
        return {e.tag.split("}")[-1]: [a.text for a in e.iter() if a.tag.endswith("address")] for e in lists}

    loopback = {"defaultUnicastLocatorList": ["127.0.0.1"], "metatrafficUnicastLocatorList": ["127.0.0.1"]}
    assert locators(PARTICIPANT_PROFILE) == loopback
    assert "udpv4" in PARTICIPANT_PROFILE.read_text() and "shm" not in PARTICIPANT_PROFILE.read_text().lower()
    env = graph_environment(7, base={RANGE: "SUBNET"})
    assert env[PROFILES] == str(NETWORK_PROFILE) and locators(NETWORK_PROFILE) == {}
    assert "<leaseDuration><sec>3</sec></leaseDuration>" in NETWORK_PROFILE.read_text()
    default_to_loopback(env)
    assert env[PROFILES] == str(NETWORK_PROFILE), "given again, the same"
    force_loopback(env)
    default_to_loopback(env)
    assert env[PROFILES] == str(PARTICIPANT_PROFILE), "forced onto loopback, the loopback profile"


def test_every_profile_has_the_lease_and_the_short_heartbeat():
    from sally_node_common.discovery import CONTAINER_OF

    for path in (p for pair in CONTAINER_OF.items() for p in pair):
        text = path.read_text()
        assert "<leaseDuration><sec>3</sec></leaseDuration>" in text, path.name
        assert "<heartbeat_period><sec>0</sec><nanosec>100000000</nanosec></heartbeat_period>" in text, path.name


def test_a_node_and_its_readers_map_no_shared_memory_port(ros_domain, tmp_path, probe):
    """With the loopback profile no Sally process opens a Fast DDS shared-memory port (the kind a
    stalled reader can lose for good), neither the node nor this test's probe that reads it."""
    import os

    from sensor_msgs.msg import JointState

    from sally_bringup.processes import ProcessGroup
    from sally_interfaces.msg import ServoCommand

    def ports(pid) -> list[str]:
        with open(f"/proc/{pid}/maps") as maps:
            return sorted({line.split()[-1] for line in maps if "fastdds_port" in line})

    heard = probe.record(ServoCommand, "/sally/servo_commands")
    states = probe.publisher(JointState, "/joint_states")
    group = ProcessGroup(ros_domain, tmp_path)
    try:
        controller = group.start("controller", "sally_controller")
        probe.wait_for_publishers(heard, 1, timeout=30.0)  # matched both ways: each writes to the other
        probe.wait_for_subscribers(states, 1, timeout=30.0)
        assert ports(controller.pid) == [] and ports(os.getpid()) == []
    finally:
        group.stop_all()


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
    from sally_node_common.discovery import (
        CONTAINER_NETWORK_PROFILE,
        CONTAINER_PROFILE,
        PARTICIPANT_PROFILE,
        PROFILES,
        container_profile,
    )

    text = CONTAINER_PROFILE.read_text()
    assert "<leaseDuration><sec>3</sec></leaseDuration>" in text and "fastdds.ignore_local_endpoints" in text
    env = graph_environment(7, base={})
    assert container_profile(env) and env[PROFILES] == str(CONTAINER_PROFILE)
    assert container_profile(env), "given again (a container started from a container's environment)"
    default_to_loopback(env)  # any other process started from a container's environment
    assert env[PROFILES] == str(PARTICIPANT_PROFILE), "a container's profile is its own"
    env = graph_environment(7, base={RANGE: "SUBNET"})
    assert container_profile(env) and env[PROFILES] == str(CONTAINER_NETWORK_PROFILE)
    assert "fastdds.ignore_local_endpoints" in CONTAINER_NETWORK_PROFILE.read_text()
    assert "127.0.0.1" in text and "127.0.0.1" not in CONTAINER_NETWORK_PROFILE.read_text()
    own = str(tmp_path / "mine.xml")
    env = {PROFILES: own}
    assert not container_profile(env) and env[PROFILES] == own
    env = {PROFILES: str(PARTICIPANT_PROFILE), "RMW_IMPLEMENTATION": "rmw_cyclonedds_cpp"}
    assert not container_profile(env) and env[PROFILES] == str(PARTICIPANT_PROFILE)
