"""Exceptions raised by mjkit."""

__all__ = ["HandError"]


class HandError(ValueError):
    """A tile, hand notation or situation is invalid.

    Raised for every problem found while reading or validating a hand, so
    callers need to catch only this one exception.  It subclasses
    :class:`ValueError`, so ``except ValueError`` also works.
    """
