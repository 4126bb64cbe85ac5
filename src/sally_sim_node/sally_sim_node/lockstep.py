"""Which commands the sim takes (servo commands or efforts, by stamp), and how long a gated period
waits for one. No ROS, no clock.

Two pacing families take commands differently:

* **Gated** (lockstep, and realtime with ``synchronous``): the sim publishes the state of stamp t
  and steps on only once the command stamped t has come (:meth:`CommandGate.expect`,
  :meth:`CommandGate.offer_gated`). An older stamp is a late answer (counted, not applied), a newer
  one than the state waited on cannot be an answer (rejected as ``future``), and a stamp older than
  the last answer is out of order (rejected).
* **Free** (realtime, fast): any command stamped at or before sim time and not older than the last
  one is taken (:meth:`CommandGate.offer_free`); an unstamped command is always taken.

:class:`LockstepWait` is one gated period's wait, driven by the caller's clock: it says whether to
keep waiting (and until when), to re-send the state (one lost at discovery), or that the wait is
over without an answer.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from sally_node_common.inputs import OUT_OF_ORDER


class Verdict(str, Enum):
    """What becomes of a command the sim is offered."""

    TAKEN = "taken"
    """Apply it."""
    LATE = "late"
    """An answer to a state already stepped, or a duplicate: counted, not applied."""
    REJECTED = "rejected"
    """Bad input: the reason and text say why."""


@dataclass(frozen=True)
class Admission:
    """The verdict on one command, and for a rejected one its reason and detail."""

    verdict: Verdict
    reason: str = ""
    """For REJECTED: the reason counted on /diagnostics (``out_of_order``, ``future``)."""
    detail: str = ""


TAKEN, LATE = Admission(Verdict.TAKEN), Admission(Verdict.LATE)


class CommandGate:
    """The stamp bookkeeping of commands (stamps in ns of sim time)."""

    def __init__(self) -> None:
        self.awaiting = -1
        """Gated: the stamp of the state waiting for its answer (-1 before the first)."""
        self.answered = -2
        """Gated: the stamp of the latest answer taken (-2 before any)."""
        self.controller_back = False
        """Gated, while the sim holds the pose: a controller answers again (late), so the next periods
        wait for it once more instead of outrunning it."""
        self.last_stamp = 0
        """Free: the newest stamp taken."""
        self.last_wall = -float("inf")
        """Realtime/fast: when the latest command came (monotonic s)."""

    @property
    def ever_answered(self) -> bool:
        """Whether any state has been answered yet."""
        return self.answered >= 0

    def expect(self, stamp: int) -> None:
        """Gated: the state of ``stamp`` goes out now; only a command with this stamp answers it."""
        self.awaiting = stamp

    def is_answered(self, stamp: int) -> bool:
        """Whether the state of ``stamp`` has had its answer."""
        return self.answered == stamp

    def offer_gated(self, stamp: int, holding: bool) -> Admission:
        """A command stamped ``stamp`` while the sim waits on :attr:`awaiting` (``holding``: the
        watchdog holds the pose)."""
        if stamp == self.awaiting and stamp != self.answered:
            self.answered = stamp
            return TAKEN
        if self.ever_answered and stamp < self.answered:
            return Admission(
                Verdict.REJECTED,
                OUT_OF_ORDER,
                f"command stamped {stamp} ns after one stamped {self.answered} ns",
            )
        if stamp <= self.awaiting:
            if holding and stamp > self.answered:
                self.controller_back = True
            return LATE
        return Admission(Verdict.REJECTED, "future", f"command stamped {stamp} ns, after the sim's {self.awaiting} ns")

    def offer_free(self, stamp: int, now: int) -> Admission:
        """A command stamped ``stamp`` (0: unstamped) when sim time is ``now``."""
        if not stamp:
            return TAKEN
        if stamp < self.last_stamp:
            return Admission(
                Verdict.REJECTED,
                OUT_OF_ORDER,
                f"command stamped {stamp} ns after one stamped {self.last_stamp} ns",
            )
        if stamp > now:
            return Admission(Verdict.REJECTED, "future", f"command stamped {stamp} ns, after the sim's {now} ns")
        self.last_stamp = stamp
        return TAKEN

    def wait_for(self, holding: bool, timeout: float, held_wait: float) -> tuple[bool, float]:
        """How long a gated period waits for its answer: ``(held, seconds)``.

        Before any answer ever, as long as it takes (the controller is coming up); while the pose
        is held and no controller came back, ``held_wait`` (the sim goes on holding); else
        ``timeout`` (after which the hold engages)."""
        held = holding and self.ever_answered and not self.controller_back
        if held:
            return True, held_wait
        return False, timeout if self.ever_answered else float("inf")

    def hold_engaged(self) -> None:
        """The command watchdog took over: the controller is no longer answering."""
        self.controller_back = False

    def restart_free(self) -> None:
        """After a reset: free pacing takes any stamp at or before sim time again."""
        self.last_stamp = 0


class Step(str, Enum):
    """What the sim does next while it waits for an answer."""

    WAIT = "wait"
    RESEND = "resend"
    EXPIRED = "expired"


@dataclass(frozen=True)
class WaitStep:
    """The next wait step and, for WAIT, how long."""

    step: Step
    seconds: float = 0.0
    """For WAIT: how long to wait at most before asking again."""


class LockstepWait:
    """One gated period's wait for its answer, from ``start`` (the caller's clock, seconds).

    Without an answer the state is re-sent every ``resend`` seconds (a reply lost while discovery
    settles) until ``limit`` has passed; a held wait only waits (the sim holds the pose, nothing is
    lost)."""

    def __init__(self, start: float, limit: float, resend: float, held: bool = False) -> None:
        if resend <= 0:
            raise ValueError(f"resend must be > 0 s, got {resend}")
        self.start, self.limit, self.resend_every, self.held = start, limit, resend, held
        self._resend_at = start + resend
        self.resends = 0

    def next(self, now: float) -> WaitStep:
        """What to do at ``now`` when the answer has not come yet."""
        end = self.start + self.limit
        if now >= end:
            return WaitStep(Step.EXPIRED)
        if self.held:
            return WaitStep(Step.WAIT, end - now)
        if now < self._resend_at:
            return WaitStep(Step.WAIT, min(self._resend_at, end) - now)
        self._resend_at = now + self.resend_every
        self.resends += 1
        return WaitStep(Step.RESEND)
