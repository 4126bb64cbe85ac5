"""The one exception family of sally_ik_node."""

from __future__ import annotations


class IKError(ValueError):
    """A target, foot or configuration the IK cannot use; the message says which and why."""
