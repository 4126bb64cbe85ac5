"""The magnet bench: real MuJoCo, the legged sim's magnet model; the fit's outputs and warm start."""

import json
import subprocess
import sys

import pytest

from sally_description.constants import RATED_HOLD_FORCE
from sally_magnet_bench import rig
from sally_magnet_bench.bench import BenchConfig, datasheet_force, run_test
from sally_magnet_bench.fit import FitSettings, fit, last_best, magnet
from sally_search.records import read_rows

WEIGHT = rig.MASS * 9.81


@pytest.mark.parametrize("clip", [500.0, 956.37])
def test_a_straight_pull_lets_go_just_above_the_clip(clip):
    result = run_test("pulloff", magnet(clip))
    assert result.detached and result.lever == 0.0
    assert clip + WEIGHT <= result.detach_force <= clip + WEIGHT + 0.03 * clip
    assert result.magnet_force[0] == pytest.approx(clip)  # seated: the clip
    assert result.lift[-1] >= 0.002 and (result.applied[1:] > result.applied[:-1]).all()


def test_a_lever_peels_it_off_at_less_and_the_longer_the_lever_the_less():
    straight = run_test("pulloff", magnet(800.7)).detach_force
    rim = run_test("peel", magnet(800.7))
    long = run_test("peel", magnet(800.7), lever=0.1)
    assert rim.lever == rig.RADIUS and rim.detached and long.detached
    assert long.detach_force < rim.detach_force < 0.55 * straight
    # the model peels a little earlier than a rigid magnet pulling at its centre would
    assert 0.85 * datasheet_force(rig.RADIUS, 800.7) < rim.detach_force <= datasheet_force(rig.RADIUS, 800.7 + WEIGHT)


def test_a_magnet_held_past_the_give_up_force_is_reported_held():
    result = run_test("pulloff", magnet(800.7), config=BenchConfig(give_up=300.0))
    assert not result.detached and result.detach_force == 0.0 and result.applied[-1] >= 300.0


def test_bad_input_is_refused_by_name():
    with pytest.raises(ValueError, match="no lever"):
        run_test("pulloff", magnet(800.7), lever=0.05)
    with pytest.raises(ValueError, match="unknown bench test 'twist'"):
        run_test("twist", magnet(800.7))
    with pytest.raises(ValueError, match=r"peel lever is in \(0, 0.5\]"):
        FitSettings("peel", lever=-0.01)
    with pytest.raises(ValueError, match="popsize >= 2"):
        FitSettings("pulloff", popsize=1)


def test_the_fit_writes_every_output_improves_on_the_default_and_warm_starts(tmp_path):
    said = []
    folder = fit(FitSettings("pulloff", n_calls=12, popsize=4), tmp_path, say=said.append)
    rows = read_rows(folder / "evaluations.csv")
    assert len(rows) == 12 and {r["datasheet_force"] for r in rows} == {str(RATED_HOLD_FORCE)}
    best = json.loads((folder / "best_params.json").read_text())
    assert best["max_force_per_wheel"] == last_best(folder)
    default_cost = abs(run_test("pulloff", magnet(800.7)).detach_force - RATED_HOLD_FORCE) / RATED_HOLD_FORCE
    assert min(float(r["cost"]) for r in rows) < default_cost / 2
    for plot in ("convergence.png", "force_displacement.png"):
        assert (folder / plot).read_bytes()[:4] == b"\x89PNG"
    warm = fit(FitSettings("pulloff", n_calls=4, popsize=4), tmp_path / "warm", warm_start=folder, say=said.append)
    config = json.loads((warm / "config.json").read_text())
    assert config["x0"]["max_force_per_wheel"] == last_best(folder)
    assert config["origin"] == {"warm_start_from": str(folder)}


def test_the_cli_prints_its_line_and_refuses_a_clip_out_of_range(tmp_path):
    bench = [sys.executable, "-c", "import sys; from sally_magnet_bench.cli import main; sys.exit(main(sys.argv[1:]))"]
    done = subprocess.run(
        [*bench, "peel", "--plot", str(tmp_path / "p.png")], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    last = done.stdout.strip().splitlines()[-1].split()
    assert last[:2] == ["bench", "peel"] and last[2::2] == ["lever_m", "detach_force_n", "clip_n", "datasheet_n"]
    assert (tmp_path / "p.png").exists()
    done = subprocess.run([*bench, "pulloff", "--clip", "100"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "outside its valid range [300, 1200] N" in done.stderr
