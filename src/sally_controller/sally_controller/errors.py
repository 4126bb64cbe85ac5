"""The one exception family of sally_controller."""

from __future__ import annotations


class ControllerError(ValueError):
    """A gain, limit, target or state the controller cannot use; the message says which and why."""
