"""Each node's defaults file (config/<node>.yaml) is found, and a user's parameter file is checked
before anything starts."""

import pytest
import yaml

from sally_bringup.arguments import GraphError
from sally_bringup.config_files import check_params_files, defaults_file
from sally_bringup.graphs import graph
from sally_bringup.runner import GraphRun


def test_every_graph_node_has_its_defaults_file_and_the_run_passes_it_first(tmp_path):
    user = tmp_path / "mine.yaml"
    user.write_text("/**:\n  ros__parameters:\n    diagnostics_period: 2.0\n")
    run = GraphRun("f2w", {"composed": "false"}, run_dir=tmp_path, params_files=[user], out=None)
    for spec in graph("f2w", {"composed": "false"}) + graph("pulloff", {"composed": "false"}):
        path = defaults_file(spec.package, spec.config)
        (node_name,) = yaml.safe_load(path.read_text())
        assert node_name.startswith("sally_")
    files = run.node_params_files(run.nodes[0])
    assert files[0].name == "sim.yaml" and files[-1] == user.resolve(), "the node's defaults, then the user's file"
    (container,) = graph("f2w", {"composed": "true"})
    assert not container.config, "a composed container loads the defaults of the nodes it hosts itself"


@pytest.mark.parametrize(
    "text, says",
    [
        (None, "No such file"),
        ("a: [1,", "not YAML"),
        ("- 1\n- 2\n", "expected 'node_name: {ros__parameters"),
        ("sally_sim:\n  pacing: fast\n", "expected 'node_name: {ros__parameters"),
    ],
)
def test_a_bad_params_file_is_refused_before_anything_starts(tmp_path, text, says):
    path = tmp_path / "params.yaml"
    if text is not None:
        path.write_text(text)
    with pytest.raises(GraphError, match=f"--params-file {path}: .*{says}"):
        check_params_files([path])


def test_a_missing_defaults_file_names_where_it_was_looked_for():
    with pytest.raises(GraphError, match=r"config/nothing.yaml of sally_sim_node is missing; looked in \["):
        defaults_file("sally_sim_node", "nothing.yaml")
