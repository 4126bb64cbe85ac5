"""Unit-cube coordinates and the results folder's files."""

import math

import numpy as np
import pytest

from sally_description.params import Dim
from sally_search.convergence import plot_convergence
from sally_search.records import append_row, read_rows, write_atomic
from sally_search.space import decode, encode, from_unit, to_unit, values_from_row

SPACE = (Dim("a", 0.01, 100.0, log=True), Dim("b", -1.0, 1.0, log=False), Dim("n", 0, 50, log=False, integer=True))


def test_coordinates_round_trip_on_log_and_linear_scales():
    values = {"a": 1.0, "b": 0.5, "n": 20}
    x = encode(SPACE, values)
    assert x.tolist() == pytest.approx([0.5, 0.75, 0.4])
    assert decode(SPACE, x) == pytest.approx(values)
    assert isinstance(decode(SPACE, [0.0, 0.0, 0.41])["n"], int)
    assert decode(SPACE, [-1.0, 2.0, 0.0]) == pytest.approx({"a": 0.01, "b": 1.0, "n": 0})  # clipped
    assert from_unit(SPACE[0], 1.0) == 100.0 and to_unit(SPACE[0], 0.1) == pytest.approx(0.25)
    with pytest.raises(ValueError, match="3 finite numbers"):
        decode(SPACE, [0.5, math.nan, 0.5])
    with pytest.raises(ValueError, match="3 finite numbers"):
        decode(SPACE, [0.5])


def test_a_row_gives_back_its_values():
    assert values_from_row(SPACE, {"a": "2.5", "b": "-0.25", "n": "7.0", "cost": "1"}) == {"a": 2.5, "b": -0.25, "n": 7}
    with pytest.raises(ValueError, match="lacks parameter n"):
        values_from_row(SPACE, {"a": "1", "b": "0"})


def test_rows_survive_a_cut_last_line_and_files_are_replaced_whole(tmp_path):
    path = tmp_path / "results.csv"
    append_row(path, ("eval", "cost"), {"eval": 1, "cost": 0.5})
    append_row(path, ("eval", "cost"), {"eval": 2})
    with open(path, "a") as f:
        f.write("3")  # a kill in the middle of a row
    assert read_rows(path) == [{"eval": "1", "cost": "0.5"}, {"eval": "2", "cost": ""}]
    assert read_rows(tmp_path / "none.csv") == []
    write_atomic(tmp_path / "best.json", "{}\n")
    write_atomic(tmp_path / "state.pkl", b"\x00", binary=True)
    assert (tmp_path / "best.json").read_text() == "{}\n" and (tmp_path / "state.pkl").read_bytes() == b"\x00"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["best.json", "results.csv", "state.pkl"]


def test_the_convergence_plot_is_drawn(tmp_path):
    path = plot_convergence(np.array([3.0, 1.0, 2.0, 0.001]), tmp_path / "convergence.png", "test")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
