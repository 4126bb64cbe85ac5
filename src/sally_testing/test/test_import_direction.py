"""Dependencies point one way, and every package.xml lists what its package imports.

Layers, lowest first: the leaves (``sally_interfaces``, ``sally_description``,
``sally_node_common``, ``sally_search``) <- the node packages (sim, controller, IK, sequencer; none
imports another) <- ``sally_bringup`` <- ``sally_optimizer`` <- ``sally_testing``. The wheeled
platform (``sally_wheeled``) and the magnet bench (``sally_magnet_bench``) stand on the leaves and
the sim's physics core, beside bringup.
Every import in a package's code (tests excluded), at module level or inside a function, is read
with ``ast``.
"""

from __future__ import annotations

import ast
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2]
LEAVES = {"sally_interfaces", "sally_description", "sally_node_common", "sally_search"}
NODES = {"sally_sim_node", "sally_controller", "sally_state_estimator", "sally_ik_node", "sally_sequencer"}
MAY_IMPORT = {
    "sally_interfaces": set(),
    "sally_description": set(),
    "sally_node_common": {"sally_interfaces", "sally_description"},
    "sally_search": {"sally_description"},
    **{node: LEAVES for node in NODES},
    "sally_bringup": LEAVES | NODES,
    "sally_optimizer": LEAVES | NODES | {"sally_bringup"},
    "sally_wheeled": LEAVES | {"sally_sim_node"},
    "sally_magnet_bench": LEAVES | {"sally_sim_node"},
    "sally_testing": LEAVES | NODES | {"sally_bringup", "sally_optimizer", "sally_wheeled"},
}
ROS_PACKAGES = {"rclpy", "rcl_interfaces", "rosgraph_msgs", "builtin_interfaces"}
"""Imported ROS packages that the ``_msgs`` / ``_srvs`` / ``_interfaces`` names do not catch."""


def python_packages() -> list[str]:
    return sorted(p.name for p in SRC.iterdir() if (p / "package.xml").exists() and (p / "setup.py").exists())


def imports(package: str) -> dict[str, list[str]]:
    """Top-level modules imported by ``package``'s code -> where (file:line)."""
    found: dict[str, list[str]] = {}
    for path in sorted((SRC / package / package).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                found.setdefault(name.split(".")[0], []).append(f"{path.relative_to(SRC)}:{node.lineno}")
    return found


def is_ros(module: str) -> bool:
    return module in ROS_PACKAGES or module.startswith("sally_") or module.endswith(("_msgs", "_srvs", "_interfaces"))


def declared(package: str) -> set[str]:
    root = ET.parse(SRC / package / "package.xml").getroot()
    return {e.text.strip() for tag in ("depend", "exec_depend", "build_export_depend") for e in root.iter(tag)}


def test_every_package_has_a_layer():
    assert set(python_packages()) | {"sally_interfaces"} == set(MAY_IMPORT)


@pytest.mark.parametrize("package", python_packages())
def test_dependencies_point_one_way(package):
    ours = {m: where for m, where in imports(package).items() if m.startswith("sally_") and m != package}
    wrong = {m: where for m, where in ours.items() if m not in MAY_IMPORT[package]}
    assert not wrong, f"{package} may import only {sorted(MAY_IMPORT[package])}; it imports {wrong}"


@pytest.mark.parametrize("package", python_packages())
def test_package_xml_lists_what_the_package_imports(package):
    used = {m for m in imports(package) if is_ros(m) and m != package}
    missing = used - declared(package)
    assert not missing, (
        f"{package}/package.xml lacks <exec_depend> for {sorted(missing)} (imported at "
        f"{[imports(package)[m][0] for m in sorted(missing)]})"
    )


@pytest.mark.parametrize("package", python_packages())
def test_package_xml_runs_on_no_package_above_its_layer(package):
    ours = {d for d in declared(package) if d.startswith("sally_")} - {package}
    assert ours <= MAY_IMPORT[package], (
        f"{package}/package.xml depends on {sorted(ours - MAY_IMPORT[package])}, above its layer"
    )


def test_the_walk_sees_imports_inside_functions():
    assert "sally_optimizer" in imports("sally_testing"), "cases.py imports the optimizer at module level"
    assert "sally_sim_node" not in imports("sally_bringup"), (
        "bringup names node classes as strings (composed.py), never imports them"
    )
