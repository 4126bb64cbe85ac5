"""``sally-report`` on files a user hands it that are not a run's: one line naming the file, exit 2,
nothing written. (A real run's report again from its MCAP: ``test_f2w_graph.py``.)"""

import json

import pytest

from sally_bringup.report_cli import main as sally_report

GOOD = {"graph": "f2w", "sequence": "f2w", "wall_time_s": 30.0, "exit_codes": {"graph": 0}}


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (b"{ not json", "JSONDecodeError"),
        (b"\xff\xfe\x00garbage", "UnicodeDecodeError"),
        (json.dumps([1, 2]).encode(), "a report is a JSON object"),
        (json.dumps({**GOOD, "walk": {"direction": "up"}}).encode(), "KeyError"),
        (json.dumps({**GOOD, "walk": {"direction": "up", "distance": "far"}}).encode(), "ValueError"),
        (json.dumps({**GOOD, "walk": {"direction": "sideways", "distance": 0.3}}).encode(), "walk direction"),
        (json.dumps({**GOOD, "exit_codes": [0]}).encode(), "exit_codes"),
        (json.dumps({**GOOD, "wall_time_s": "long"}).encode(), "ValueError"),
    ],
)
def test_a_damaged_live_report_is_refused_in_one_line(tmp_path, capsys, content, says):
    (tmp_path / "run.mcap").write_bytes(b"\x89MCAP0\r\n")  # (never read: the report is refused first)
    (tmp_path / "report.json").write_bytes(content)
    before = sorted(p.name for p in tmp_path.iterdir())
    assert sally_report([str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and f"{tmp_path / 'report.json'} is not a run's report" in err, err
    assert says in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == before, "nothing written"
    assert (tmp_path / "report.json").read_bytes() == content


@pytest.mark.parametrize("content", [b"", b"\x89MCAP0\r\n truncated", b"PK\x03\x04 a zip, not an MCAP"])
def test_a_damaged_recording_is_refused_in_one_line(tmp_path, capsys, content):
    (tmp_path / "run.mcap").write_bytes(content)
    (tmp_path / "report.json").write_text(json.dumps(GOOD))
    assert sally_report([str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and f"cannot read {tmp_path / 'run.mcap'}" in err, err
    assert not (tmp_path / "from_mcap").exists()
