"""The wheeled platform: its model, the shared magnet model on its wheels, its drive modes and
their costs, the CLI and the viewer. Real MuJoCo throughout."""

import math
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from sally_description.errors import ParameterError
from sally_sim_node.magnets import MagnetArray
from sally_wheeled import geometry as g
from sally_wheeled.model import Start, build_spec
from sally_wheeled.modes import DIVERGED_COST, ModeConfig, run_mode, score
from sally_wheeled.params import WheeledParams
from sally_wheeled.platform import WheeledSim
from sally_wheeled.viewer import S_KEY, SPACE_KEY, Controls

SPEED = 0.05


def test_the_model_is_built_in_memory_with_its_parts():
    model = build_spec().compile()
    names = {model.joint(i).name for i in range(model.njnt)}
    for wheel in g.WHEELS:
        assert {g.pivot_joint(wheel), g.wheel_joint(wheel)} <= names
        assert all(model.geom(s).size[0] == g.SPHERE_RADIUS for s in g.sphere_geoms(wheel))
        assert len(g.sphere_geoms(wheel)) == 24
    assert {g.rocker_joint("L"), g.rocker_joint("R")} <= names and model.neq == 1  # the differential
    assert model.nu == 8 and model.opt.timestep == 0.0005
    assert {model.geom(i).name for i in range(model.ngeom)} >= {"floor_plate", "wall_plate"}


def test_the_magnets_are_the_legged_sims_model_clipped_per_wheel():
    params = WheeledParams(max_force_per_wheel=500.0)
    sim = WheeledSim(params)
    assert isinstance(sim.magnets, MagnetArray)
    sim.run(0.2)
    for wheel, readout in sim.readouts().items():
        assert readout.enabled and readout.in_contact and readout.surface == "wall", wheel
        assert readout.magnitude == pytest.approx(500.0, rel=1e-6)  # the clip: the wheel sits on the plate
        assert readout.force[0] > 0.99 * readout.magnitude  # into the wall (+x)


def test_it_holds_on_the_wall_with_the_magnets_on_and_slides_off_with_them_off():
    held = WheeledSim()
    held.run(0.3)
    start = held.position()
    held.run(1.0)
    assert np.linalg.norm(held.position() - start) < 1e-4
    loose = WheeledSim(magnets_on=False)
    start = loose.position()
    loose.run(0.5)
    assert start[2] - loose.position()[2] > 0.05  # it falls
    assert not any(r.in_contact for r in loose.readouts().values())


@pytest.mark.parametrize(
    "command, axis, sign", [((SPEED, 0.0), 2, 1), ((-SPEED, 0.0), 2, -1), ((0.0, SPEED), 1, 1), ((0.0, -SPEED), 1, -1)]
)
def test_the_drive_moves_it_the_right_way_along_the_wall(command, axis, sign):
    sim = WheeledSim()
    sim.run(0.3)
    sim.drive(*command)
    sim.run(0.5)  # the wheels steer
    start = sim.position()
    sim.run(1.0)
    moved = sim.position() - start
    assert moved[axis] == pytest.approx(sign * SPEED, rel=0.05)
    off = [a for a in range(3) if a != axis]
    assert np.abs(moved[off]).max() < 1e-3
    assert all(r.in_contact for r in sim.readouts().values())


def test_on_the_floor_it_drives_toward_the_wall():
    sim = WheeledSim(start=Start("floor", distance=0.6))
    sim.run(0.3)
    x0 = sim.position()[0]
    sim.drive(SPEED * 2, 0.0)
    sim.run(1.0)
    assert sim.position()[0] - x0 == pytest.approx(0.1, rel=0.05)
    assert {r.surface for r in sim.readouts().values()} == {"floor"}


def test_each_mode_scores_a_good_run_low():
    config = ModeConfig(settle=0.3, duration=1.0, speed=SPEED)
    hold = run_mode("hold", config=config)
    assert hold.cost < 1e-4 and hold.trace.shape[1] == 4
    for mode in ("drive_sideways", "drive_up"):
        result = run_mode(mode, config=config)
        assert result.metrics["velocity"] == pytest.approx(SPEED, rel=0.05), mode
        assert result.cost < 0.005, (mode, result.metrics)


def test_a_soft_wheel_brake_sags_and_costs_more():
    """drive_kp 1 N m/rad: the weight's 1.5 N m per wheel turns each wheel ~1.5 rad (overdamped,
    time constant ~1 s), so the platform is still sliding down during the hold."""
    config = ModeConfig(settle=0.3, duration=1.0)
    soft = run_mode("hold", WheeledParams(drive_kp=1.0), config)
    assert soft.cost > 0.01 and soft.trace[-1, 3] < soft.trace[0, 3]  # down the wall
    assert soft.cost > 1000 * run_mode("hold", config=config).cost


def test_score_is_the_documented_formula():
    t = np.linspace(0.0, 2.0, 201)
    trace = np.column_stack([t, 0.001 * t, 0.04 * t, np.zeros_like(t)])  # 0.04 m/s along y, 1 mm/s in x
    cost, metrics = score("drive_sideways", trace, 0.05)
    assert metrics["velocity"] == pytest.approx(0.04) and metrics["drift_speed"] == pytest.approx(0.001)
    assert cost == pytest.approx(0.01 + 0.001)
    cost, metrics = score("hold", trace, 0.05)
    assert cost == pytest.approx(math.hypot(0.002, 0.08))
    with pytest.raises(ValueError, match="unknown mode"):
        run_mode("fly")
    assert DIVERGED_COST > 1.0


def test_bad_parameters_are_refused_by_name(tmp_path):
    with pytest.raises(ParameterError, match=r"drive_kp = 0.0 is outside its valid range \[1, 300\]"):
        WheeledParams(drive_kp=0.0)
    with pytest.raises(ParameterError, match=r"unknown wheeled parameter\(s\) \['kp'\]"):
        WheeledParams.from_mapping({"kp": 1.0})
    bad = tmp_path / "p.json"
    bad.write_text("{")
    with pytest.raises(ParameterError, match="not valid JSON"):
        WheeledParams.from_file(bad)
    with pytest.raises(ValueError, match="start surface 'ceiling'"):
        Start("ceiling")
    with pytest.raises(ValueError, match="above the wheels'"):
        WheeledSim().drive(5.0, 0.0)


def test_keys_toggle_the_drive_and_the_pause():
    controls = Controls()
    assert controls.key(S_KEY) == "drive on" and controls.driving
    assert controls.key(SPACE_KEY) == "paused" and controls.paused
    assert controls.key(S_KEY) == "drive off" and controls.key(SPACE_KEY) == "resumed"
    assert controls.key(65) == "" and not controls.driving and not controls.paused


def cli(*args, env=None):
    return subprocess.run(
        [sys.executable, "-m", "sally_wheeled", *args], capture_output=True, text=True, timeout=120, env=env
    )


def test_the_cli_runs_a_mode_headless_and_refuses_bad_input(tmp_path):
    done = cli("--headless", "--mode", "drive_up", "--duration", "1")
    assert done.returncode == 0, done.stderr
    last = done.stdout.strip().splitlines()[-1].split()
    assert last[:3] == ["wheeled", "drive_up", "cost"] and float(last[3]) < 0.005
    assert last[4::2] == ["velocity", "velocity_error", "drift_speed"]
    (tmp_path / "p.json").write_text('{"Br": 9}')
    done = cli("--headless", "--params", str(tmp_path / "p.json"))
    assert done.returncode == 2 and "Br = 9 is outside its valid range" in done.stderr
    assert "Traceback" not in done.stderr


def test_the_viewer_opens_on_a_virtual_display_and_drives(tmp_path):
    """MuJoCo's passive viewer under Xvfb, driving for 1 s of sim time, then closing cleanly; a
    headless run's snapshot renders. Skipped, with the reason, where Xvfb is absent."""
    from sally_bringup.processes import wait_until

    if shutil.which("Xvfb") is None:
        pytest.skip("Xvfb is not installed (Debian: apt-get install xvfb): the viewer is not tried")
    number = 300 + os.getpid() % 200
    xvfb = subprocess.Popen(["Xvfb", f":{number}", "-screen", "0", "800x600x24"], stderr=subprocess.DEVNULL)
    try:
        assert wait_until(lambda: os.path.exists(f"/tmp/.X11-unix/X{number}"), 10.0), "Xvfb did not start"
        env = {**os.environ, "DISPLAY": f":{number}"}
        done = cli("--duration", "1", "--drive", "--mode", "drive_sideways", env=env)
        assert done.returncode == 0, done.stderr
        assert "viewer open" in done.stdout
        png = tmp_path / "wheeled.png"
        done = cli("--headless", "--duration", "0.5", "--snapshot", str(png), env=env)
        assert done.returncode == 0, done.stderr
        from PIL import Image

        pixels = np.asarray(Image.open(png))
        assert pixels.shape == (480, 640, 3) and pixels.std() > 10  # a rendered scene, not a blank image
    finally:
        xvfb.terminate()
        xvfb.wait(5.0)
