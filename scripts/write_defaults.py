#!/usr/bin/env python3
"""Rewrite each node's ``config/<node>.yaml`` from its parameter table (the header comment kept):
run after a table changes; ``test_node_defaults`` holds the files to the tables."""

from __future__ import annotations

import yaml

from sally_bringup.config_files import defaults_file
from sally_testing.node_defaults import defaults_files


def render(header: list[str], node: str, table) -> str:
    lines = [*header, f"{node}:", "  ros__parameters:"]
    for name, value in table.defaults().items():
        text = yaml.safe_dump({name: value}, default_flow_style=True, width=10_000).strip()
        lines += [f"    # {table[name].comment()}", f"    {text[1:-1]}"]
    return "\n".join(lines) + "\n"


def main() -> None:
    for package, name, node, table in defaults_files():
        path = defaults_file(package, name)
        header = [line for line in path.read_text().splitlines() if line.startswith("#")][:3]
        text = render(header, node, table)
        if text != path.read_text():
            path.write_text(text)
            print(f"rewrote {path}")


if __name__ == "__main__":
    main()
