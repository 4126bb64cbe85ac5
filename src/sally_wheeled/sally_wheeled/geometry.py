"""The wheeled platform's dimensions, masses and names, with the reasoning behind each number.

The CAD of the wheeled Sally is not available, so the numbers are plausible ones for a 12 kg
four-wheeled magnetic crawler built around the same EML63mm-12 class magnets as the legged Sally:

* **Chassis** 0.40 x 0.28 x 0.06 m, 6 kg: room between the wheels for the batteries and the four
  magnet drivers; long enough (0.30 m wheelbase) that a 1 m wall leaves room to drive.
* **Rockers** (one per side, 0.36 m, 0.4 kg each) on a passive pivot about the lateral axis,
  coupled by a differential (one rocker's angle is minus the other's, an equality constraint):
  the rocker-bogie suspension of a four-wheeled platform. On a flat plate they stay level; over
  an edge or a bump both sides keep their wheels loaded.
* **Wheel pivots** (steering, +-100 deg): every wheel turns about the axis through its contact
  point, which makes the platform omnidirectional (swerve drive): drive up and sideways without
  turning the chassis.
* **Wheels** radius 0.05 m, width 0.04 m, 0.6 kg: a steel-rimmed magnetic wheel of this class.
  The rim is crowned: it touches a plate at one point (the collision shape is a sphere of the
  wheel's radius), so a wheel steers in place under its magnet's 800 N pull (a flat rim's line
  contact holds the steering by friction: design notes, "Why these values").
* **Magnets**: one per wheel, in the steering yoke (it turns with the wheel, does not spin with
  it), its core the EML63mm-12's (63 mm x 28 mm): 24 sampling spheres (a 4 x 6 grid, 4 across
  the wheel's width, 6 along its rolling direction) on a plane ``MAGNET_INSET`` inside the rim's
  contact face. Each sphere carries 1/24 of the core volume.

Body frame: x forward, y left, z away from the surface the wheels stand on (as for a floor robot).
"""

from __future__ import annotations

WHEELS = ("FL", "FR", "BL", "BR")
"""Front/back, left/right, as the legged Sally's feet."""

CHASSIS_HALF = (0.20, 0.14, 0.03)
"""Chassis box half sizes (m)."""
CHASSIS_MASS = 6.0
ROCKER_Y = 0.18
"""Lateral offset of each rocker pivot from the chassis centre (m)."""
ROCKER_HALF = (0.18, 0.01, 0.012)
ROCKER_MASS = 0.4
ROCKER_RANGE_DEG = 20.0
ROCKER_STIFFNESS = 20.0
"""N m/rad: a soft spring keeps the rockers level when the platform is lifted off (no load)."""
ROCKER_DAMPING = 2.0
WHEEL_X = 0.15
"""Fore/aft offset of each wheel pivot from its rocker pivot (m)."""
PIVOT_Z = -0.045
"""The steering pivot below the rocker pivot (m)."""
PIVOT_RANGE_DEG = 100.0
PIVOT_MASS = 0.3
WHEEL_Z = -0.03
"""The wheel's axle below its steering pivot (m)."""
WHEEL_RADIUS = 0.05
WHEEL_HALF_WIDTH = 0.02
WHEEL_MASS = 0.6
MAGNET_INSET = 0.004
"""Distance from the rim's contact line to the plane of the sampling spheres' centres (m)."""
SPHERE_RADIUS = 0.002
GRID_ACROSS = 4
GRID_ALONG = 6
GRID_PITCH = 0.008
"""Spacing of the sampling-sphere grid (m)."""
N_SPHERES = GRID_ACROSS * GRID_ALONG

STANDOFF = -(PIVOT_Z + WHEEL_Z - WHEEL_RADIUS)
"""Chassis centre to the surface the wheels touch, rockers level (m)."""


def wheel_end(wheel: str) -> float:
    """+1 for a front wheel, -1 for a back one."""
    return 1.0 if wheel[0] == "F" else -1.0


def rocker_body(side: str) -> str:
    """The name of the ``side`` rocker body."""
    return f"rocker_{side}"


def rocker_joint(side: str) -> str:
    """The name of the ``side`` rocker joint."""
    return f"rocker_{side}"


def pivot_body(wheel: str) -> str:
    """The name of wheel ``wheel``'s steering pivot body."""
    return f"pivot_{wheel}"


def pivot_joint(wheel: str) -> str:
    """The name of wheel ``wheel``'s steering pivot joint."""
    return f"pivot_{wheel}"


def wheel_body(wheel: str) -> str:
    """The name of wheel ``wheel``'s body."""
    return f"wheel_{wheel}"


def wheel_joint(wheel: str) -> str:
    """The name of wheel ``wheel``'s joint."""
    return f"wheel_{wheel}"


def magnet_body(wheel: str) -> str:
    """The name of wheel ``wheel``'s magnet body."""
    return f"em_wheel_{wheel}"


def sphere_geoms(wheel: str) -> tuple[str, ...]:
    """The names of wheel ``wheel``'s magnet sampling spheres."""
    return tuple(f"em_wheel_{wheel}_s{k}" for k in range(N_SPHERES))
