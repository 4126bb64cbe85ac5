"""The one exception family of sally_sequencer."""

from __future__ import annotations


class SequenceError(ValueError):
    """An unknown sequence or foot, a bad target, a phase that cannot run; the message says which."""
