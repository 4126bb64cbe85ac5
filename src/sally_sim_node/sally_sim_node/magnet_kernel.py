"""Compiled inner loop of the magnet model: every sphere of every magnet against every plate.

One call per physics step does all the work that naive Python would do in 64 ``mj_geomDistance``
calls. Plates are static boxes, so the sphere-to-plate distance is exact and analytic: the
distance from the sphere centre to the box minus the sphere radius. When a sphere touches or
sinks into a plate (d <= 0) the force points along the plate's face normal, into the plate.
"""

from __future__ import annotations

import numpy as np
from numba import njit

NO_SURFACE = -1


@njit(cache=True, fastmath=False, nogil=True, inline="always")
def nearest_plate(px, py, pz, plate_pos, plate_rot, plate_half, sphere_radius):
    """The plate nearest the sphere centred at (px, py, pz): (its surface distance, its index or
    NO_SURFACE with no plates, the world direction the sphere is pulled in: toward the closest point
    of the box, or into the plate along the normal of the face it is at once it touches)."""
    best_d = np.inf
    best_k = NO_SURFACE
    dx = dy = dz = 0.0
    for k in range(plate_pos.shape[0]):
        R = plate_rot[k]
        rx = px - plate_pos[k, 0]
        ry = py - plate_pos[k, 1]
        rz = pz - plate_pos[k, 2]
        # sphere centre in the plate frame
        lx = R[0, 0] * rx + R[1, 0] * ry + R[2, 0] * rz
        ly = R[0, 1] * rx + R[1, 1] * ry + R[2, 1] * rz
        lz = R[0, 2] * rx + R[1, 2] * ry + R[2, 2] * rz
        hx = plate_half[k, 0]
        hy = plate_half[k, 1]
        hz = plate_half[k, 2]
        ox = abs(lx) - hx
        oy = abs(ly) - hy
        oz = abs(lz) - hz
        outside = np.sqrt(max(ox, 0.0) ** 2 + max(oy, 0.0) ** 2 + max(oz, 0.0) ** 2)
        centre_d = outside if outside > 0.0 else max(ox, max(oy, oz))
        d = centre_d - sphere_radius
        if d < best_d:
            best_d = d
            best_k = k
            if d > 0.0:
                # toward the closest point of the box
                cx = min(max(lx, -hx), hx) - lx
                cy = min(max(ly, -hy), hy) - ly
                cz = min(max(lz, -hz), hz) - lz
                norm = np.sqrt(cx * cx + cy * cy + cz * cz)
                cx /= norm
                cy /= norm
                cz /= norm
            else:
                # into the plate along the normal of the face the sphere is at
                cx = cy = cz = 0.0
                if ox >= oy and ox >= oz:
                    cx = -1.0 if lx > 0.0 else 1.0
                elif oy >= oz:
                    cy = -1.0 if ly > 0.0 else 1.0
                else:
                    cz = -1.0 if lz > 0.0 else 1.0
            dx = R[0, 0] * cx + R[0, 1] * cy + R[0, 2] * cz
            dy = R[1, 0] * cx + R[1, 1] * cy + R[1, 2] * cz
            dz = R[2, 0] * cx + R[2, 1] * cy + R[2, 2] * cz
    return best_d, best_k, dx, dy, dz


@njit(cache=True, fastmath=False, nogil=True, inline="always")
def clip_and_apply(i, body, fx, fy, fz, tx, ty, tz, max_force, out_force, out_torque, out_sphere_force, xfrc):
    """Magnet ``i``'s summed force and torque, scaled down (with each sphere's force) so that the
    force is at most ``max_force``, written out and added to its ``body``'s applied wrench."""
    magnitude = np.sqrt(fx * fx + fy * fy + fz * fz)
    scale = 1.0
    if magnitude > max_force:
        scale = max_force / magnitude
        for s in range(out_sphere_force.shape[1]):
            out_sphere_force[i, s, 0] *= scale
            out_sphere_force[i, s, 1] *= scale
            out_sphere_force[i, s, 2] *= scale
    out_force[i, 0] = fx * scale
    out_force[i, 1] = fy * scale
    out_force[i, 2] = fz * scale
    out_torque[i, 0] = tx * scale
    out_torque[i, 1] = ty * scale
    out_torque[i, 2] = tz * scale
    xfrc[body, 0] += out_force[i, 0]
    xfrc[body, 1] += out_force[i, 1]
    xfrc[body, 2] += out_force[i, 2]
    xfrc[body, 3] += out_torque[i, 0]
    xfrc[body, 4] += out_torque[i, 1]
    xfrc[body, 5] += out_torque[i, 2]


@njit(cache=True, fastmath=False, nogil=True)
def magnet_step(
    geom_xpos,  # (ngeom, 3) world positions of all geoms (MjData view)
    xipos,  # (nbody, 3) body centres of mass (MjData view)
    xfrc,  # (nbody, 6) xfrc_applied (MjData view), written for magnet bodies
    external,  # (nbody, 6) external wrenches the caller wants applied, copied into xfrc first
    sphere_geoms,  # (M, S) int geom ids of the sampling spheres
    magnet_bodies,  # (M,) int body ids
    enabled,  # (M,) bool
    plate_pos,  # (P, 3)
    plate_rot,  # (P, 3, 3) plate frame -> world rotation
    plate_half,  # (P, 3) box half sizes
    sphere_radius,  # float
    coefficient,  # C in F = C / d^4
    min_distance,  # distance floor of the formula
    max_distance,  # no force at or beyond this
    max_force,  # per-magnet clip
    out_force,  # (M, 3) applied force
    out_torque,  # (M, 3) applied torque about the body CoM
    out_min_distance,  # (M,) smallest sphere distance (computed also when disabled)
    out_surface,  # (M,) plate index of that sphere, NO_SURFACE when beyond max_distance
    out_sphere_distance,  # (M, S)
    out_sphere_force,  # (M, S, 3) per-sphere attraction after the clip scale
):
    """The dipole-dipole force and torque on every enabled magnet from its sampling spheres and the plates (numba)."""
    xfrc[:, :] = external
    n_magnets, n_spheres = sphere_geoms.shape
    for i in range(n_magnets):
        body = magnet_bodies[i]
        fx = fy = fz = 0.0
        tx = ty = tz = 0.0
        min_d = np.inf
        surface = NO_SURFACE
        for s in range(n_spheres):
            px, py, pz = geom_xpos[sphere_geoms[i, s]]
            best_d, best_k, dx, dy, dz = nearest_plate(px, py, pz, plate_pos, plate_rot, plate_half, sphere_radius)
            out_sphere_distance[i, s] = best_d
            if best_d < min_d:
                min_d = best_d
                surface = best_k
            f = 0.0
            if enabled[i] and best_d < max_distance:
                f = coefficient / max(best_d, min_distance) ** 4
            sfx, sfy, sfz = f * dx, f * dy, f * dz
            out_sphere_force[i, s, 0], out_sphere_force[i, s, 1], out_sphere_force[i, s, 2] = sfx, sfy, sfz
            fx += sfx
            fy += sfy
            fz += sfz
            ax, ay, az = px - xipos[body, 0], py - xipos[body, 1], pz - xipos[body, 2]
            tx += ay * sfz - az * sfy
            ty += az * sfx - ax * sfz
            tz += ax * sfy - ay * sfx
        out_min_distance[i] = min_d
        out_surface[i] = surface if min_d < max_distance else NO_SURFACE
        clip_and_apply(i, body, fx, fy, fz, tx, ty, tz, max_force, out_force, out_torque, out_sphere_force, xfrc)
