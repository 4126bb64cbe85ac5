"""Physics parameters: the 14-dim space, validation with clear messages, dict/JSON/YAML loading."""

import json
import math

import pytest

from sally_description import DEFAULT_PARAMS, PARAM_NAMES, PARAM_SPACE, ParameterError, PhysicsParams


def test_space_is_seed_000s():
    assert len(PARAM_SPACE) == 14
    ranges = {d.name: (d.low, d.high, d.log) for d in PARAM_SPACE}
    assert ranges["max_force_per_wheel"] == (800.0, 1500.0, True)
    assert ranges["solimp_dmin"] == (0.001, 0.999, False)
    assert ranges["Br"] == (0.5, 2.0, True)
    assert DEFAULT_PARAMS.solref[1] == 10.0 and DEFAULT_PARAMS.solimp[1] == 0.9999


def test_defaults_are_seed_000s_best_magnet():
    assert (DEFAULT_PARAMS.Br, DEFAULT_PARAMS.max_magnetic_distance) == (1.88, 0.0575)
    assert (DEFAULT_PARAMS.max_force_per_wheel, DEFAULT_PARAMS.noslip_iterations) == (800.7, 49)


def test_mapping_overrides_defaults():
    p = PhysicsParams.from_mapping({"Br": 1.5, "noslip_iterations": 10.0})
    assert p.Br == 1.5 and p.noslip_iterations == 10 and isinstance(p.noslip_iterations, int)
    assert p.margin == DEFAULT_PARAMS.margin


@pytest.mark.parametrize(
    "values, pattern",
    [
        ({"Br": 2.5}, r"Br = 2.5 is outside its valid range \[0.5, 2\] T"),
        ({"max_force_per_wheel": 100}, r"max_force_per_wheel = 100 is outside .*\[800, 1500\]"),
        ({"margin": math.nan}, r"margin must be finite"),
        ({"solref_timeconst": math.inf}, r"solref_timeconst must be finite"),
        ({"noslip_iterations": 3.5}, r"noslip_iterations must be a whole number"),
        ({"sliding_friction": "high"}, r"sliding_friction must be a number"),
        ({"solimp_dmin": True}, r"solimp_dmin must be a number"),
        ({"friction": 1.0}, r"unknown physics parameter\(s\) \['friction'\]; valid: \['sliding_friction'"),
    ],
)
def test_bad_values_name_the_parameter(values, pattern):
    with pytest.raises(ParameterError, match=pattern):
        PhysicsParams.from_mapping(values)


def test_json_round_trip(tmp_path):
    p = PhysicsParams.from_mapping({"Br": 1.2, "margin": 0.001})
    path = tmp_path / "best_params.json"
    path.write_text(json.dumps(p.as_dict()))
    assert PhysicsParams.from_file(path) == p
    assert list(p.as_dict()) == list(PARAM_NAMES)


def test_yaml_file(tmp_path):
    path = tmp_path / "params.yaml"
    path.write_text("Br: 1.1\nmax_magnetic_distance: 0.03\n")
    p = PhysicsParams.from_file(path)
    assert (p.Br, p.max_magnetic_distance) == (1.1, 0.03)


@pytest.mark.parametrize(
    "name, text, pattern",
    [
        ("bad.json", '{"Br": 9.0}', r"bad.json: Br = 9.0 is outside"),
        ("bad.yaml", "solimp_width: -1\n", r"bad.yaml: solimp_width = -1 is outside"),
        ("typo.json", '{"Brr": 1.0}', r"unknown physics parameter\(s\) \['Brr'\]"),
        ("broken.json", '{"Br": 1.0', r"broken.json' is not valid"),
        ("broken.yaml", "Br: [1.0\n", r"broken.yaml' is not valid"),
        ("list.json", "[1, 2]", r"must be a mapping"),
    ],
)
def test_bad_files_are_rejected_with_the_reason(tmp_path, name, text, pattern):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(ParameterError, match=pattern):
        PhysicsParams.from_file(path)


def test_missing_file(tmp_path):
    with pytest.raises(ParameterError, match="cannot read physics parameter file"):
        PhysicsParams.from_file(tmp_path / "missing.json")
