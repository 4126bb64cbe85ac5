"""A run folder handed back to the optimizer (``--resume-from``) that is damaged is refused in one
line naming the file, and nothing already written changes. No graph runs: the refusal comes first."""

import json
import pickle
import subprocess
import sys

import numpy as np
import pytest

from sally_description import PhysicsParams
from sally_optimizer.optimizer import Settings, resume, write_config
from sally_optimizer.results import RESULTS, STATE, RunFolder, RunFolderError
from sally_optimizer.scenarios import ScenarioConfig
from sally_optimizer.space import encode


@pytest.fixture
def folder(tmp_path):
    """A run folder as an optimization leaves it: its configuration, one result row, its CMA-ES state."""
    run = RunFolder.open(tmp_path / "run")
    write_config(
        run, Settings(n_calls=4, popsize=2), ScenarioConfig.tiny(), encode(PhysicsParams()), {"x0": "defaults"}
    )
    (run.path / RESULTS).write_text("eval,batch,candidate,cost\n0,1,0,1.25\n")
    run.save_state({"not": "an es"}, 1, np.zeros((2, 3)))
    return run.path


def damage(folder, name: str, how: str) -> None:
    path = folder / name
    data = path.read_bytes()
    path.write_bytes({"truncated": data[: len(data) // 2], "empty": b"", "foreign": b"\x80\x04K\x07."}[how])


@pytest.mark.parametrize("how", ["truncated", "empty", "foreign"])
def test_a_damaged_cma_es_state_is_refused_naming_the_file_and_the_results_are_untouched(folder, how):
    damage(folder, STATE, how)
    kept = {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}
    with pytest.raises(RunFolderError, match=STATE):
        resume(folder, check_backend=False)
    assert {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()} == kept


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (lambda c: "{ not json", "JSONDecodeError"),
        (lambda c: json.dumps({**c, "settings": {**c["settings"], "popsize": None, "sigma": 1}}), "TypeError"),
        (lambda c: json.dumps({k: v for k, v in c.items() if k != "scenarios"}), "KeyError"),
        (lambda c: json.dumps({**c, "x0": {**c["x0"], "not_a_parameter": 1.0}}), "not_a_parameter"),
    ],
)
def test_a_damaged_configuration_is_refused_naming_the_file(folder, change, says):
    path = folder / "config.json"
    path.write_text(change(json.loads(path.read_text())))
    results = (folder / RESULTS).read_bytes()
    with pytest.raises(RunFolderError, match=f"config.json is not a run's configuration .*{says}"):
        resume(folder, check_backend=False)
    assert (folder / RESULTS).read_bytes() == results


def test_sally_optimize_says_it_in_one_line_and_exits_2(folder):
    damage(folder, STATE, "truncated")
    done = subprocess.run(
        [sys.executable, "-m", "sally_optimizer", "--resume-from", str(folder), "--no-replay"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert f"{folder / STATE} is damaged" in done.stderr


def test_the_undamaged_state_loads_and_another_program_s_pickle_is_refused(folder):
    state = RunFolder.open(folder).load_state()
    assert state["batch"] == 1 and state["es"] == {"not": "an es"} and state["candidates"].shape == (2, 3)
    (folder / STATE).write_bytes(pickle.dumps([1, 2, 3]))
    with pytest.raises(RunFolderError, match="not a CMA-ES state of this optimizer"):
        RunFolder.open(folder).load_state()
