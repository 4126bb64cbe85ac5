#!/usr/bin/env python3
"""Rewrite each node's ``config/<node>.yaml`` from its parameter table (the header comment kept):
run after a table changes; ``test_node_defaults`` holds the files to the tables."""

from __future__ import annotations

import yaml

from sally_bringup.config_files import defaults_file
from sally_controller.node import TABLE as CONTROLLER
from sally_ik_node.node import TABLE as IK
from sally_sequencer.node import TABLE as SEQUENCER
from sally_sim_node.pulloff_node import TABLE as PULLOFF
from sally_sim_node.sim_parameters import TABLE as SIM

FILES = [
    ("sally_sim_node", "sim.yaml", "sally_sim", SIM),
    ("sally_sim_node", "pulloff.yaml", "sally_pulloff", PULLOFF),
    ("sally_controller", "controller.yaml", "sally_controller", CONTROLLER),
    ("sally_ik_node", "ik.yaml", "sally_ik", IK),
    ("sally_sequencer", "sequencer.yaml", "sally_sequencer", SEQUENCER),
]


def render(header: list[str], node: str, table) -> str:
    lines = [*header, f"{node}:", "  ros__parameters:"]
    for name, value in table.defaults().items():
        text = yaml.safe_dump({name: value}, default_flow_style=True, width=10_000).strip()
        lines += [f"    # {table[name].comment()}", f"    {text[1:-1]}"]
    return "\n".join(lines) + "\n"


def main() -> None:
    for package, name, node, table in FILES:
        path = defaults_file(package, name)
        header = [line for line in path.read_text().splitlines() if line.startswith("#")][:3]
        text = render(header, node, table)
        if text != path.read_text():
            path.write_text(text)
            print(f"rewrote {path}")


if __name__ == "__main__":
    main()
