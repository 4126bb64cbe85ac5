"""A tiny gp_minimize run through its CLI writes every output; the rank-1 replay scores the same."""

import json
import subprocess
import sys

import pytest

from sally_search.records import read_rows
from sally_wheeled.params import WHEELED_NAMES, WheeledParams
from sally_wheeled.tuning import TuneSettings, ranked


def run(*args):
    return subprocess.run([sys.executable, "-c", *args], capture_output=True, text=True, timeout=600)


def test_a_tiny_tuning_run_writes_every_output_and_its_best_replays(tmp_path):
    done = run(
        "import sys; from sally_wheeled.cli import tune_main; sys.exit(tune_main(sys.argv[1:]))",
        "--mode", "drive_sideways", "--n-calls", "6", "--n-initial-points", "3", "--tiny", "--results", str(tmp_path),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    (folder,) = tmp_path.glob("*_wheeled_drive_sideways")
    rows = read_rows(folder / "evaluations.csv")
    assert [int(r["eval"]) for r in rows] == list(range(1, 7))
    assert {k: float(rows[0][k]) for k in WHEELED_NAMES} == pytest.approx(WheeledParams().as_dict())  # defaults first
    best = json.loads((folder / "best_params.json").read_text())
    params, row = ranked(folder, 1)
    assert float(row["cost"]) == min(float(r["cost"]) for r in rows) and params.as_dict() == pytest.approx(best)
    assert (folder / "convergence.png").read_bytes()[:4] == b"\x89PNG"
    assert json.loads((folder / "config.json").read_text())["settings"]["n_calls"] == 6
    replay = run(
        "import sys; from sally_wheeled.cli import main; sys.exit(main(sys.argv[1:]))",
        "--headless", "--mode", "drive_sideways", "--rank", "1", "--results", str(tmp_path),
    )  # fmt: skip
    assert replay.returncode == 0, replay.stderr
    assert float(replay.stdout.split()[-7]) == pytest.approx(float(row["cost"]), rel=1e-5)  # printed to 6 digits


def test_bad_settings_are_refused(tmp_path):
    with pytest.raises(ValueError, match="unknown mode 'fly'"):
        TuneSettings("fly")
    with pytest.raises(ValueError, match="n_initial_points <= n_calls"):
        TuneSettings("hold", n_calls=3, n_initial_points=5)
    with pytest.raises(FileNotFoundError, match="has no evaluations"):
        ranked(tmp_path, 1)
    done = run(
        "import sys; from sally_wheeled.cli import main; sys.exit(main(sys.argv[1:]))",
        "--headless", "--mode", "hold", "--rank", "1", "--results", str(tmp_path),
    )  # fmt: skip
    assert done.returncode == 2 and "no wheeled hold tuning run" in done.stderr
