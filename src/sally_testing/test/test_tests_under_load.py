"""benchmarks/tests_under_load.py runs what it names: every test id it lists is one pytest finds."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def test_every_listed_test_id_exists():
    listed = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "tests_under_load.py"), "--list"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert listed.returncode == 0, listed.stderr
    ids = listed.stdout.split()
    assert len(ids) >= 5, ids
    collected = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *ids],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert collected.returncode == 0, collected.stdout[-2000:] + collected.stderr[-2000:]
    found = collected.stdout.splitlines()
    for test_id in ids:
        assert any(line == test_id or line.startswith(test_id + "::") for line in found), test_id
