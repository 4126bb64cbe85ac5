"""The one exception family of sally_controller."""

from __future__ import annotations

from sally_node_common.inputs import InputError


class ControllerError(InputError):
    """A gain, limit, target or state the controller cannot use; the message says which and why,
    ``reason`` the kind (:mod:`sally_node_common.inputs`' vocabulary for inputs)."""

    def __init__(self, detail: str, reason: str = "invalid") -> None:
        super().__init__(reason, detail)
