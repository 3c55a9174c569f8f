"""Exceptions raised by mjkit, and the helper that keeps their messages short."""

from __future__ import annotations

__all__ = ["HandError", "CODES", "short_repr"]

#: Every :attr:`HandError.code`, with what it means.  Callers branch on the
#: code, never on the message text (which may be reworded at any time).
CODES = {
    "bad_argument": "an argument of the wrong type or outside its range (the default)",
    "syntax": "notation that cannot be read: an unknown character, digits without a suit, "
              "unbalanced brackets, text too long",
    "unknown_tile": "no such tile (0m, 8z, index 42), or a tile of the wrong kind where one is "
                    "required (a flower among the hand's tiles, a suited tile as a flower)",
    "too_many_copies": "more than 4 copies of a tile in the hand, its melds and the visible tiles",
    "tile_count": "the wrong number of tiles (or melds) for a hand",
    "bad_meld": "a meld that is not a chow, pung or kong, or uses the wild tile where it cannot",
    "bad_flag": "situation flags that are unknown, given twice, or contradict each other, the "
                "hand or the rule set",
    "win_tile": "the winning tile is not in the hand",
    "unknown_name": "a name not among the known ones: rule set, fan, policy, language, choice",
    "not_found": "a saved study or file that does not exist",
    "damaged": "a saved file that fails its check or is not what it should be",
    "io": "a file or folder that cannot be created, read or written",
    "missing_dependency": "an optional package needed for this call is not installed",
}


class HandError(ValueError):
    """A tile, hand notation, situation or argument is invalid.

    Raised for every problem found while reading or validating a hand or an
    argument, so callers need to catch only this one exception.  It
    subclasses :class:`ValueError`, so ``except ValueError`` also works.

    Parameters
    ----------
    *args
        The message (as for any exception).
    code : str, default "bad_argument"
        What went wrong, for programs; one of :data:`CODES`:

        ``"bad_argument"``
            an argument of the wrong type or outside its range (the default);
        ``"syntax"``
            notation that cannot be read (unknown character, digits without
            a suit, unbalanced brackets, text too long);
        ``"unknown_tile"``
            no such tile (``0m``, ``8z``, index 42), or a tile of the wrong
            kind where one is required (a flower among the hand's tiles);
        ``"too_many_copies"``
            more than 4 copies of a tile in the hand, its melds and the
            visible tiles;
        ``"tile_count"``
            the wrong number of tiles (or melds) for a hand;
        ``"bad_meld"``
            a meld that is not a chow, pung or kong, or uses the wild tile
            where it cannot;
        ``"bad_flag"``
            situation flags that are unknown, given twice, or contradict
            each other, the hand or the rule set;
        ``"win_tile"``
            the winning tile is not in the hand;
        ``"unknown_name"``
            a name not among the known ones (rule set, fan, policy,
            language, choice);
        ``"not_found"``
            a saved study or file that does not exist;
        ``"damaged"``
            a saved file that fails its check;
        ``"io"``
            a file or folder that cannot be created, read or written;
        ``"missing_dependency"``
            an optional package needed for the call is not installed.

    Attributes
    ----------
    code : str
        The code given (or ``"bad_argument"``).  Kept when the error is
        pickled (a Dask worker's error reaches the caller with its code).

    Examples
    --------
    >>> err = HandError("6th copy of 1z (5 in hand, 1 in melds); only 4 exist",
    ...                 code="too_many_copies")
    >>> err.code
    'too_many_copies'
    """

    def __init__(self, *args, code: str = "bad_argument"):
        if code not in CODES:
            # a mistyped code would silently never match a caller's test
            raise ValueError(f"unknown HandError code {code!r}; known: {', '.join(CODES)}")
        super().__init__(*args)
        self.code = code


def short_repr(obj: object, limit: int = 40) -> str:
    """``repr`` truncated to ``limit`` characters, so huge inputs give readable messages.

    Never raises: an object whose ``repr`` fails shows as ``<type name>``
    (``repr`` of a huge int raises ValueError in Python >= 3.11).
    """
    try:
        text = repr(obj)
    except Exception:           # noqa: BLE001 - any object may be passed
        text = f"<{type(obj).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."
