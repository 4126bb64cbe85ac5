"""The dipole-dipole magnet model on the real Sally model: formula, range, direction, clip."""

import math

import mujoco
import numpy as np
import pytest

from sally_description import LEGS, PhysicsParams
from sally_description.constants import magnet_body, sampler_geoms
from sally_sim_node import SimulationError, Simulator

MU0 = 4e-7 * math.pi
SPHERE_VOLUME = math.pi * 0.0315**2 * 0.028 / 8  # EML63mm-12 core (63 x 28 mm) shared by 8 spheres


def dipole_force(distance: float, Br: float) -> float:
    """The dipole-dipole formula: F = 3 mu0 m^2 / (2 pi (2d)^4), m = Br V / mu0."""
    m = Br * SPHERE_VOLUME / MU0
    return 3 * MU0 * m**2 / (2 * math.pi * (2 * distance) ** 4)


def place(sim: Simulator, dx=0.0, dz=0.0) -> None:
    """Translate the whole robot from its spawn pose and recompute positions."""
    qpos, _ = sim.get_state()
    qpos[0] += dx
    qpos[2] += dz
    sim.set_state(qpos)
    sim.magnets.apply(sim.data, np.zeros((sim.model.nbody, 6)))


def floor_gap(sim: Simulator, leg="FL") -> np.ndarray:
    r = sim.model.geom(sampler_geoms(leg)[0]).size[0]
    return np.array([sim.data.geom_xpos[sim.model.geom(g).id][2] - r for g in sampler_geoms(leg)])


@pytest.mark.parametrize("distance", [0.010, 0.030])
def test_sphere_force_matches_the_formula(distance):
    sim = Simulator(params=PhysicsParams(Br=0.5))  # weak enough that 8 spheres at 10 mm stay under the clip
    place(sim, dz=distance - floor_gap(sim).mean())
    assert floor_gap(sim) == pytest.approx(np.full(8, distance), abs=1e-12)
    i = LEGS.index("FL")
    assert sim.magnets.sphere_distance[i] == pytest.approx(np.full(8, distance), rel=1e-12)
    expected = dipole_force(distance, 0.5)
    for f in sim.magnets.sphere_force[i]:
        assert np.linalg.norm(f) == pytest.approx(expected, rel=1e-9)
        assert f / np.linalg.norm(f) == pytest.approx([0, 0, -1], abs=1e-12)
    assert sim.magnets.force[i] == pytest.approx([0, 0, -8 * expected], rel=1e-9)
    readout = sim.magnet_readouts()["FL"]
    assert readout.surface == "floor" and readout.min_distance == pytest.approx(distance)
    assert readout.in_contact is (distance <= 0.003)


def test_total_is_clipped_to_max_force_per_wheel():
    sim = Simulator(params=PhysicsParams(Br=1.88, max_force_per_wheel=900.0))
    place(sim, dz=0.010 - floor_gap(sim).mean())
    assert 8 * dipole_force(0.010, 1.88) > 900.0
    for leg in LEGS:
        assert sim.magnet_readouts()[leg].magnitude == pytest.approx(900.0, rel=1e-12)


def test_no_force_beyond_max_magnetic_distance():
    params = PhysicsParams(max_magnetic_distance=0.02)
    sim = Simulator(params=params)
    place(sim, dz=0.0201 - floor_gap(sim).mean())
    r = sim.magnet_readouts()["FL"]
    assert r.magnitude == 0.0 and r.surface == "none" and r.min_distance == pytest.approx(0.0201)
    place(sim, dz=-0.0002)
    assert sim.magnet_readouts()["FL"].magnitude == pytest.approx(8 * dipole_force(0.0199, 1.88), rel=1e-9)


def test_direction_into_the_floor_when_sunk_in():
    sim = Simulator()
    place(sim, dz=-0.002 - floor_gap(sim).mean())
    i = LEGS.index("FL")
    assert (sim.magnets.sphere_distance[i] < 0).all()
    for f in sim.magnets.sphere_force[i]:
        assert f / np.linalg.norm(f) == pytest.approx([0, 0, -1], abs=1e-12)
    assert sim.magnet_readouts()["FL"].surface == "floor"


def test_direction_into_the_wall_when_sunk_in():
    sim = Simulator()
    i = LEGS.index("FL")
    # FL's spheres 3 mm past the wall's inner face and well above the floor
    qpos, _ = sim.get_state()
    qpos[2] += 0.2
    sim.set_state(qpos)
    sphere_x = max(sim.data.geom_xpos[sim.model.geom(g).id][0] for g in sampler_geoms("FL"))
    place(sim, dx=0.503 - sphere_x + sim.model.geom(sampler_geoms("FL")[0]).size[0])
    sunk = sim.magnets.sphere_distance[i] <= 0
    assert sunk.any()
    for f in sim.magnets.sphere_force[i][sunk]:
        assert f / np.linalg.norm(f) == pytest.approx([1, 0, 0], abs=1e-12)
    assert sim.magnet_readouts()["FL"].surface == "wall"


def test_disabled_magnet_pulls_nothing_but_still_reports_distance():
    sim = Simulator(magnets_on={"FR": False})
    sim.magnets.apply(sim.data, np.zeros((sim.model.nbody, 6)))
    fr = sim.magnet_readouts()["FR"]
    assert (fr.enabled, fr.magnitude, fr.surface) == (False, 0.0, "floor")
    assert sim.data.xfrc_applied[sim.model.body(magnet_body("FR")).id] == pytest.approx(np.zeros(6))
    assert sim.magnet_readouts()["FL"].magnitude > 0


def test_applied_wrench_is_force_and_torque_about_the_com():
    sim = Simulator(params=PhysicsParams(Br=0.6))
    qpos, _ = sim.get_state()
    qpos[3:7] = [math.cos(0.05), math.sin(0.05), 0, 0]  # tilt so the spheres sit at different gaps
    qpos[2] += 0.01
    sim.set_state(qpos)
    external = np.zeros((sim.model.nbody, 6))
    external[0, 2] = 5.0
    sim.magnets.apply(sim.data, external)
    for i, leg in enumerate(LEGS):
        body = sim.model.body(magnet_body(leg)).id
        spheres = np.array([sim.data.geom_xpos[sim.model.geom(g).id] for g in sampler_geoms(leg)])
        forces = sim.magnets.sphere_force[i]
        torque = np.cross(spheres - sim.data.xipos[body], forces).sum(axis=0)
        assert sim.data.xfrc_applied[body, :3] == pytest.approx(forces.sum(axis=0), rel=1e-12)
        assert sim.data.xfrc_applied[body, 3:] == pytest.approx(torque, rel=1e-9, abs=1e-12)
    assert sim.data.xfrc_applied[0, 2] == 5.0  # external wrenches pass through


def test_distances_agree_with_mujoco_geom_distance():
    """The analytic sphere-to-box distance against MuJoCo's own mj_geomDistance, on random poses."""
    sim = Simulator()
    rng = np.random.default_rng(7)
    plates = [sim.model.geom(n).id for n in ("floor_plate", "wall_plate")]
    fromto = np.zeros(6)
    checked = 0
    for _ in range(20):
        qpos = sim.model.qpos0.copy()
        qpos[:3] = [rng.uniform(-0.3, 0.3), rng.uniform(-0.3, 0.3), rng.uniform(0.12, 0.3)]
        quat = rng.normal(size=4)
        qpos[3:7] = quat / np.linalg.norm(quat)
        sim.set_state(qpos)
        sim.magnets.apply(sim.data, np.zeros((sim.model.nbody, 6)))
        for i, leg in enumerate(LEGS):
            for s, g in enumerate(sampler_geoms(leg)):
                gid = sim.model.geom(g).id
                ref = min(mujoco.mj_geomDistance(sim.model, sim.data, gid, p, 0.5, fromto) for p in plates)
                if 0.0 < ref < 0.5:
                    assert sim.magnets.sphere_distance[i, s] == pytest.approx(ref, abs=1e-6)
                    checked += 1
    assert checked > 300


def test_unknown_foot_lists_the_valid_ones():
    sim = Simulator()
    with pytest.raises(SimulationError, match=r"unknown foot 'XX'; valid: \['FL', 'FR', 'BL', 'BR'\]"):
        sim.set_magnet("XX", True)


def test_a_magnet_names_the_surface_it_is_near_as_the_room_does():
    """In scene room a magnet 10 mm under the ceiling is pulled up onto it and says "ceiling"; one on
    the floor says "floor" (surfaces are named by the scene's data, not by the corner's plates)."""
    from sally_description import build_model
    from sally_description.scene import CEILING_HEIGHT

    sim = Simulator(build_model(scene="room"))
    assert sim.magnets.surfaces == ("floor", "wall", "ceiling")
    r = sim.model.geom(sampler_geoms("FL")[0]).size[0]
    top = max(sim.data.geom_xpos[sim.model.geom(g).id][2] + r for g in sampler_geoms("FL"))
    place(sim, dz=CEILING_HEIGHT - 0.010 - top)
    readouts = sim.magnet_readouts()
    assert readouts["FL"].surface == "ceiling" and readouts["FL"].min_distance == pytest.approx(0.010, abs=1e-9)
    assert sim.magnets.force[LEGS.index("FL")][2] > 0.0  # up, into the ceiling
    floor = Simulator(build_model(scene="room"))
    place(floor, dz=0.002 - floor_gap(floor).min())
    assert floor.magnet_readouts()["FL"].surface == "floor"
