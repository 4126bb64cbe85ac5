"""The lockstep waits form a chain (the sim waits for the controller, the controller for the IK, the
IK for the sequencer), each begun by one state: each link up goes on longer than the one below, so
that when the bottom gives up on a silent partner its answer reaches the top in time (one silence,
one fallback: a dead IK once made the sim hold too, both giving up at 10 s)."""

from sally_node_common.partners import SLOW_PARTNER_WAIT, given_up


def test_each_wait_up_the_chain_goes_on_longer_than_the_one_below():
    """The sim's wait for the controller outlasts the controller's for the IK, which outlasts the
    IK's for the sequencer: the answer the bottom gives when it gives up reaches the top in time."""
    from sally_controller.target_sync import LONGEST_WAIT as CONTROLLER
    from sally_node_common.partners import CHAIN_STEP, longest_wait
    from sally_sim_node.sim_loop import LONGEST_WAIT as SIM

    assert longest_wait(0) == SLOW_PARTNER_WAIT < CONTROLLER < SIM
    assert CONTROLLER - SLOW_PARTNER_WAIT == SIM - CONTROLLER == CHAIN_STEP >= 1.0
    there = lambda: True  # noqa: E731
    assert given_up(SLOW_PARTNER_WAIT, 1.0, there) and not given_up(SLOW_PARTNER_WAIT, 1.0, there, CONTROLLER)
