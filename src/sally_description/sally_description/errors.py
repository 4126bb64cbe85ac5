"""The one exception family of sally_description."""

from __future__ import annotations


class DescriptionError(ValueError):
    """A model file, bake or physics parameter that cannot be used.

    Messages name the offending item and, where there is a finite set, the valid options.
    """


class ParameterError(DescriptionError):
    """A physics parameter that is unknown, non-finite or out of its valid range."""
