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


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("sally_simulator:\n  ros__parameters:\n    pacing: lockstep\n", "this graph has no node 'sally_simulator'"),
        ("sally_pulloff:\n  ros__parameters:\n    rate: 1.0\n", "this graph has no node 'sally_pulloff'"),
        ("sally_sim:\n  ros__parameters:\n    pacing_mode: lockstep\n", "sally_sim has no parameter 'pacing_mode'"),
        ("/**:\n  ros__parameters:\n    no_such_thing: 1\n", "/\\*\\* has no parameter 'no_such_thing'"),
        (
            "sally_controller:\n  ros__parameters:\n    kp: 500\n",
            "sally_controller kp: 500 is not of the",
        ),
        ("sally_controller:\n  ros__parameters:\n    kp: [500.0, 1]\n", "kp: \\[500.0, 1\\] is not of"),
        ("sally_sim:\n  ros__parameters:\n    diagnostics_period: 1\n", "diagnostics_period: 1 is not of"),
        ("sally_sequencer:\n  ros__parameters:\n    sequence: 3\n", "sequence: 3 is not of"),
    ],
)
def test_a_params_file_naming_a_node_or_parameter_the_graph_lacks_or_a_wrong_type_is_refused(tmp_path, text, says):
    """ROS ignores a node or parameter it does not know, and a node refuses a value of the wrong type
    only once the graph runs: the runner says which before anything starts."""
    path = tmp_path / "params.yaml"
    path.write_text(text)
    with pytest.raises(GraphError, match=f"--params-file {path}: .*{says}"):
        GraphRun("f2w", {}, run_dir=tmp_path / "run", params_files=[path], out=None)
    assert not (tmp_path / "run").exists(), "refused before anything is written"


def test_a_params_file_of_the_graph_s_nodes_and_parameters_is_taken(tmp_path):
    path = tmp_path / "params.yaml"
    path.write_text(
        "sally_controller:\n  ros__parameters:\n    kp: [400.0]\n"
        "/**:\n  ros__parameters:\n    diagnostics_period: 2.0\n"
        "sally_pulloff:\n  ros__parameters:\n    duration: 20.0\n"
    )
    run = GraphRun("pulloff", {}, run_dir=tmp_path / "run", params_files=[path], out=None)
    assert run.params_files == [path.resolve()]
