"""Joint-space PID: tau = Kp e + Ki integral(e) + Kd (qdot_ref - qdot).

Defaults Kp 500, Ki 200, Kd 30, integral clamp 100 (Sally's joint servos: the sim's servos take
these as their own gains; this PID runs them in Python for the effort path's controller).
Per-joint gains. The derivative acts on the measurement (no kick when a target jumps), with an
optional velocity reference. The
integral clamp bounds the integral *term* Ki * integral(e) in N m, and integration is skipped on a
joint whose output is saturated in the direction of its error (anti-windup). Efforts are limited
to ``effort_limit``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from .inputs import InputError


class PIDError(InputError):
    """Gains or a target the PID cannot use; the message says which and why."""

    def __init__(self, detail: str, reason: str = "invalid") -> None:
        super().__init__(reason, detail)


DEFAULT_KP = 500.0
DEFAULT_KI = 200.0
DEFAULT_KD = 30.0
DEFAULT_I_CLAMP = 100.0


@dataclass(frozen=True)
class PIDGains:
    """Per-joint PID gains, integral clamp and effort limit."""

    kp: np.ndarray
    ki: np.ndarray
    kd: np.ndarray
    i_clamp: np.ndarray
    effort_limit: np.ndarray

    @classmethod
    def uniform(
        cls,
        n: int,
        kp: float = DEFAULT_KP,
        ki: float = DEFAULT_KI,
        kd: float = DEFAULT_KD,
        i_clamp: float = DEFAULT_I_CLAMP,
        effort_limit: float | np.ndarray = np.inf,
    ) -> PIDGains:
        """The same gains for each of ``n`` joints."""
        full = lambda v: np.broadcast_to(np.asarray(v, dtype=float), (n,)).copy()  # noqa: E731
        return cls(full(kp), full(ki), full(kd), full(i_clamp), full(effort_limit))

    def __post_init__(self) -> None:
        n = None
        for name in ("kp", "ki", "kd", "i_clamp", "effort_limit"):
            value = np.array(getattr(self, name), dtype=float)
            if value.ndim != 1 or (n is not None and len(value) != n):
                raise PIDError(f"PID {name} must be a vector of one value per joint ({n or 'n'})")
            n = len(value)
            if np.isnan(value).any() or (value < 0).any() or (name != "effort_limit" and np.isinf(value).any()):
                raise PIDError(f"PID {name} must be non-negative and finite, got {value.tolist()}")
            value.setflags(write=False)
            object.__setattr__(self, name, value)

    def __len__(self) -> int:
        return len(self.kp)


class JointPID:
    """Stateful PID over n joints; the per-joint arithmetic is one compiled loop (it runs at 2 kHz)."""

    def __init__(self, gains: PIDGains) -> None:
        self.gains = gains
        n = len(gains)
        self.integral = np.zeros(n)
        self._zeros = np.zeros(n)
        self._i_limit = np.divide(gains.i_clamp, gains.ki, out=np.full(n, np.inf), where=gains.ki > 0)

    def reset(self) -> None:
        """Zero the integral."""
        self.integral[:] = 0.0

    def update(
        self, target: np.ndarray, q: np.ndarray, qdot: np.ndarray, dt: float, qdot_ref: np.ndarray | None = None
    ) -> np.ndarray:
        """Efforts for one control period of ``dt`` seconds (a new array each call)."""
        g = self.gains
        out = np.empty(len(g.kp))
        _pid_kernel(
            np.asarray(target, dtype=float), np.asarray(q, dtype=float), np.asarray(qdot, dtype=float),
            self._zeros if qdot_ref is None else np.asarray(qdot_ref, dtype=float), float(dt),
            g.kp, g.ki, g.kd, self._i_limit, g.effort_limit, self.integral, out,
        )  # fmt: skip
        return out


@njit(cache=True, nogil=True)
def _pid_kernel(target, q, qdot, qdot_ref, dt, kp, ki, kd, i_limit, effort_limit, integral, out):
    for j in range(len(kp)):
        e = target[j] - q[j]
        u = kp[j] * e + kd[j] * (qdot_ref[j] - qdot[j])
        # anti-windup: integrate only where P+D is not already saturated along the error
        if not ((u >= effort_limit[j] and e > 0.0) or (u <= -effort_limit[j] and e < 0.0)):
            integral[j] = min(max(integral[j] + e * dt, -i_limit[j]), i_limit[j])
        u += ki[j] * integral[j]
        out[j] = min(max(u, -effort_limit[j]), effort_limit[j])
