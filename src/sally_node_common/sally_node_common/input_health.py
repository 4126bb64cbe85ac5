"""What a node knows about its inputs: refused messages and how long each stream has been silent.

Pure (the log is a callable). Every refusal is counted per topic and reason and logged as one
clear line; the first of each kind at once, then at most one line per ``log_every`` seconds per
kind with the number refused in between, so a flood of bad messages cannot flood the log and no
kind is hidden behind another. :meth:`values` is what the node puts on /diagnostics:
``rejected`` (total), ``rejected <topic> <reason>`` per kind, and ``age <topic> s`` per watched
stream heard so far (and every watched one); :meth:`stale` names those silent for longer than ``stale_after``.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterable


class InputHealth:
    """A node's input bookkeeping: rejections by topic and reason, when each input was last heard, what is stale."""

    def __init__(
        self,
        log: Callable[[str], None],
        watched: Iterable[str] = (),
        stale_after: float = 1.0,
        log_every: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._log, self._clock = log, clock
        self.stale_after, self.log_every = stale_after, log_every
        self.rejected: Counter[tuple[str, str]] = Counter()
        self.replayed: Counter[str] = Counter()
        self._logged: dict[tuple[str, str], tuple[float, int]] = {}
        start = clock()
        self._heard = {topic: start for topic in watched}
        self._ever = {topic: False for topic in watched}

    def watch(self, topic: str) -> None:
        """Watch ``topic`` from now on (its age counts from now until it is heard)."""
        self._heard[topic] = self._clock()
        self._ever[topic] = False

    def heard(self, topic: str) -> None:
        """A good message on ``topic``: from now on it has an age (watched ones have one from the start)."""
        self._heard[topic] = self._clock()
        self._ever[topic] = True

    def reject(self, topic: str, reason: str, detail: str, replayed: bool = False) -> bool:
        """Count and log a refused message; False (and only counted as ``replayed``) for an old
        message from a transient-local reader's history: a restarted node catching up, not a fault."""
        if replayed and reason == "out_of_order":
            self.replayed[topic] += 1
            return False
        key = (topic, reason)
        self.rejected[key] += 1
        now = self._clock()
        last, count_then = self._logged.get(key, (-float("inf"), 0))
        if now - last >= self.log_every:
            skipped = self.rejected[key] - count_then - 1
            more = f" ({skipped} more since the last line)" if skipped > 0 else ""
            self._log(f"rejected {topic} ({reason}): {detail}{more}")
            self._logged[key] = (now, self.rejected[key])
        return True

    @property
    def total(self) -> int:
        """How many messages were rejected, all topics."""
        return sum(self.rejected.values())

    def ages(self) -> dict[str, float]:
        """Seconds since each watched topic was last heard."""
        now = self._clock()
        return {topic: now - heard for topic, heard in self._heard.items()}

    def stale(self) -> dict[str, float]:
        """The topics not heard for longer than ``stale_after`` s, with their ages."""
        return {topic: age for topic, age in self.ages().items() if age > self.stale_after}

    def summary(self) -> str:
        """'' when all is well, else e.g. 'stale: /joint_states 3.2 s (never heard); 4 rejected'."""
        parts = []
        stale = self.stale()
        if stale:
            parts.append(
                "stale: "
                + ", ".join(f"{t} {a:.1f} s" + ("" if self._ever[t] else " (never heard)") for t, a in stale.items())
            )
        if self.total:
            parts.append(f"{self.total} rejected")
        return "; ".join(parts)

    def values(self) -> dict[str, object]:
        """The figures for /diagnostics."""
        out: dict[str, object] = {"rejected": self.total, "stale_inputs": ",".join(self.stale()) or "none"}
        out.update({f"rejected {topic} {reason}": n for (topic, reason), n in sorted(self.rejected.items())})
        out.update({f"replayed history skipped {topic}": n for topic, n in sorted(self.replayed.items())})
        out.update({f"age {topic} s": round(age, 3) for topic, age in self.ages().items()})
        return out
