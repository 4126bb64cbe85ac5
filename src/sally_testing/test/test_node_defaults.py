"""Each node's config/<node>.yaml holds exactly its parameter table's defaults, under its node name."""

import pytest
import yaml

from sally_bringup.config_files import defaults_file
from sally_testing.node_defaults import defaults_files

FILES = defaults_files()


@pytest.mark.parametrize("package, name, node, table", FILES, ids=[f[1] for f in FILES])
def test_the_defaults_file_is_the_table(package, name, node, table):
    data = yaml.safe_load(defaults_file(package, name).read_text())
    assert list(data) == [node]
    assert data[node]["ros__parameters"] == table.defaults()
    for param, value in data[node]["ros__parameters"].items():
        assert type(value) is type(table[param].default), f"{param}: {value!r} would be refused as the wrong ROS type"


@pytest.mark.parametrize("package, name, node, table", FILES, ids=[f[1] for f in FILES])
def test_each_parameter_comment_is_the_table_s(package, name, node, table):
    """The comment above each parameter says what the table says (its description, unit, choices,
    range, read-only), so the file never tells a user something the node no longer does."""
    lines = defaults_file(package, name).read_text().splitlines()
    for param in table.defaults():
        at = next(i for i, line in enumerate(lines) if line.startswith(f"    {param}:"))
        assert lines[at - 1] == f"    # {table[param].comment()}", param
