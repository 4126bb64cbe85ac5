"""The magnet interlock in a real graph: the wall walk from a wall start with BR's magnet failed
(``magnets:=FL,FR,BL``). The plan's first step would let FL go with only FR and BL holding; the
sequencer refuses that switch and the run stops there, failed, with three magnets still holding and
every planted foot where it stood. (Without the interlock the walk goes on two magnets: BR slides
9 mm down the wall and the run fails 27 s later.)"""

from pathlib import Path

import pytest

from sally_bringup.runner import run_graph

pytestmark = [pytest.mark.graph, pytest.mark.timeout(300)]
ARGUMENTS = {
    "pacing": "lockstep",
    "composed": "true",
    "record": "false",
    "sequence": "wall_walk",
    "start": "wall",
    "direction": "up",
    "distance": "0.30",
    "magnets": "FL,FR,BL",
}


def test_a_walk_on_a_failed_magnet_stops_before_a_foot_lets_go(tmp_path: Path):
    from sally_bringup.environment import lease_domain

    with lease_domain() as lease:
        result = run_graph("f2w", ARGUMENTS, run_dir=tmp_path, domain_id=lease.domain_id, out=None, wall_timeout=200)
    report = result.report
    assert result.exit_code == 1 and report is not None and not report["success"]
    said = report["problems"][0]
    assert "FL magnet off refused: it would leave 2 magnets holding (BL, FR) with no foot on the floor" in said, said
    assert report["min_magnets_holding"] == 3  # never fewer, to the run's end
    assert report["stance_drift_mm"] < 2.0  # every holding foot stayed where it stood
    assert report["sim_time_s"] < 5.0  # stopped at the first release (the walk's first shift is 1.5 s)
