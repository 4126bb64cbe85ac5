"""Scenario graphs scored on real graphs: the pull-off physics, a diverging candidate, and the
in-process backend against the multi-process graph."""

import dataclasses
import json

import pytest

from sally_description import PhysicsParams
from sally_optimizer.evaluation import evaluate, evaluate_scenario
from sally_optimizer.scenarios import NO_ADHESION, PENALISED, ScenarioConfig, floor_cost, wall_cost
from sally_testing.faults.cases import ABSURD_PHYSICS
from sally_testing.side_by_side import side_by_side

pytestmark = pytest.mark.graph  # real graphs, in processes or hosted in this process

TINY = ScenarioConfig.tiny()
BACKEND_TOLERANCE = 1e-9
"""Both backends run lockstep graphs of the same node classes, so their costs agree to round-off."""

DIVERGING = ABSURD_PHYSICS  # a candidate CMA-ES asked for in a real run (seed 42): it blows up within 0.4 s


def params_file(tmp_path, name, **values):
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(PhysicsParams.from_mapping(values).as_dict()))
    return path


def test_a_higher_magnet_clip_detaches_later(tmp_path):
    config = dataclasses.replace(TINY, pull_rate=400.0, stop_above_clip=False)
    low = evaluate_scenario(
        "pulloff", params_file(tmp_path, "low", max_force_per_wheel=800.0), config, "inprocess", tmp_path / "low"
    )
    high = evaluate_scenario(
        "pulloff", params_file(tmp_path, "high", max_force_per_wheel=1200.0), config, "inprocess", tmp_path / "high"
    )
    assert not low.penalised and not high.penalised, (low.reason, high.reason)
    report = lambda o: json.loads((tmp_path / o / "report.json").read_text())  # noqa: E731
    lo, hi = report("low"), report("high")
    assert lo["detached"] and hi["detached"]
    assert lo["pulloff_force"] >= 800.0 and hi["pulloff_force"] >= 1200.0  # the clip plus the weight on the foot
    assert hi["pulloff_force"] > lo["pulloff_force"] + 350.0
    assert hi["detach_time"] > lo["detach_time"] + 0.8  # 400 N more at 400 N/s
    assert low.cost == 0.0 and high.cost == 0.0
    assert (tmp_path / "high" / "forces.png").exists()


def test_a_diverging_candidate_is_penalised_not_fatal(tmp_path):
    evaluation = evaluate(PhysicsParams.from_mapping(DIVERGING), TINY, "inprocess", tmp_path)
    assert evaluation.penalised
    # the floor and wall graphs blow up; the tiny pull-off (sim, controller and rig, one ramp) no
    # longer does with control latency 1 (FL let go at 192 N): it is scored, and the evaluation
    # still ends instead of failing
    for name in ("floor", "wall"):
        outcome = evaluation.scenarios[name]
        assert outcome.penalised and "diverged" in outcome.reason, (name, outcome.reason)
    assert evaluation.scenarios["floor"].cost == floor_cost(PENALISED["floor"])
    assert evaluation.scenarios["wall"].cost == wall_cost(PENALISED["wall"])
    pulloff = evaluation.scenarios["pulloff"]
    assert pulloff.cost == NO_ADHESION if pulloff.penalised else 0.0 < pulloff.cost < NO_ADHESION
    report = json.loads((tmp_path / "floor" / "report.json").read_text())
    assert report["exit_codes"]["sim"] == 3 and not report["success"]


def test_in_process_backend_gives_the_multi_process_costs(tmp_path):
    path = params_file(tmp_path, "defaults")
    backends = ("processes", "inprocess")  # side by side: lockstep graphs, and the processes have their own cores
    found = side_by_side([lambda b=b: evaluate_scenario("floor", path, TINY, b, tmp_path / b) for b in backends])
    outcomes = dict(zip(backends, found))
    a, b = outcomes["processes"], outcomes["inprocess"]
    assert not a.penalised and not b.penalised, (a.reason, b.reason)
    assert b.cost == pytest.approx(a.cost, rel=BACKEND_TOLERANCE, abs=1e-12)
    for key in a.metrics:
        assert b.metrics[key] == pytest.approx(a.metrics[key], rel=BACKEND_TOLERANCE, abs=1e-12), key


def test_an_in_process_graph_leaves_its_domain_when_it_ends(tmp_path):
    """A pool worker runs graph after graph: a hosted node still in the domain's graph after its run
    made the next graph there (leased again once the domain rested) refuse to start, seeing a
    second /sally_sim (CI, the optimizer's backend check)."""
    from sally_bringup.environment import lease_domain
    from sally_bringup.probe import Probe
    from sally_bringup.processes import wait_until
    from sally_optimizer.inprocess import run_in_process

    graph, args, _ = TINY.graph("floor", "")
    args = {**{k: v for k, v in args.items() if k != "params"}, "composed": "false", "record": "false"}
    with lease_domain() as lease:
        result = run_in_process(graph, args, run_dir=tmp_path / "run", domain_id=lease.domain_id, plots=False)
        assert result.exit_code == 0
        with Probe(lease.domain_id, name="after_the_run") as probe, Probe(lease.domain_id, name="a_newcomer"):
            seen = lambda: {n for n, _ in probe.node.get_node_names_and_namespaces()} - {"after_the_run"}  # noqa: E731
            # evidence, not a sleep: a participant that joined after the run is discovered; one the run
            # left would have answered the same announcements
            assert wait_until(lambda: "a_newcomer" in seen(), 30.0, 0.05), "discovery found no newcomer"
            assert seen() == {"a_newcomer"}, f"still in the domain: {sorted(seen() - {'a_newcomer'})}"
