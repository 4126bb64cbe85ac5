"""Every node's defaults file and the parameter table it must hold.

``scripts/write_defaults.py`` rewrites the files from the tables and ``test_node_defaults.py``
checks them. (Here, not in bringup: bringup names the node classes as strings and never imports
them.)
"""

from __future__ import annotations


def defaults_files() -> list[tuple[str, str, str, object]]:
    """``(package, file name in its config/, node name, parameter table)`` of every node."""
    from sally_controller.node import TABLE as CONTROLLER
    from sally_ik_node.node import TABLE as IK
    from sally_sequencer.node import TABLE as SEQUENCER
    from sally_sim_node.pulloff_node import TABLE as PULLOFF
    from sally_sim_node.sim_parameters import TABLE as SIM
    from sally_state_estimator.node import TABLE as ESTIMATOR

    return [
        ("sally_sim_node", "sim.yaml", "sally_sim", SIM),
        ("sally_sim_node", "pulloff.yaml", "sally_pulloff", PULLOFF),
        ("sally_controller", "controller.yaml", "sally_controller", CONTROLLER),
        ("sally_state_estimator", "estimator.yaml", "sally_state_estimator", ESTIMATOR),
        ("sally_ik_node", "ik.yaml", "sally_ik", IK),
        ("sally_sequencer", "sequencer.yaml", "sally_sequencer", SEQUENCER),
    ]
