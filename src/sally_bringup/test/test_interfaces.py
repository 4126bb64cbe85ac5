"""Every custom message type published by one process arrives intact, field by field, in another."""

import importlib.util
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).with_name("interface_samples.py")


def load_samples():
    spec = importlib.util.spec_from_file_location("interface_samples", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.samples()


def fields(msg, prefix=""):
    """Flatten a message into (path, value) pairs, recursing into messages and sequences."""
    if hasattr(msg, "get_fields_and_field_types"):
        for name in msg.get_fields_and_field_types():
            yield from fields(getattr(msg, name), f"{prefix}.{name}")
    elif isinstance(msg, (list, tuple)) or type(msg).__name__ == "array":
        yield f"{prefix}.len", len(msg)
        for i, item in enumerate(msg):
            yield from fields(item, f"{prefix}[{i}]")
    else:
        yield prefix, msg


def test_every_custom_type_round_trips(graph, probe):
    samples = load_samples()
    defined = {p.stem for p in (Path(__file__).parents[2] / "sally_interfaces" / "msg").glob("*.msg")}
    assert set(samples) == defined, "a sample of each sally_interfaces message, and no more"
    recordings = {name: probe.record(type(msg), f"/samples/{name}", 10) for name, msg in samples.items()}
    graph.start_command("publisher", [sys.executable, str(SCRIPT)])
    for rec in recordings.values():
        probe.wait_for_messages(rec, 1, 20.0)
    for name, msg in samples.items():
        sent, received = dict(fields(msg)), dict(fields(recordings[name].last))
        assert received == pytest.approx(sent), name
        assert len(sent) > 3, name
