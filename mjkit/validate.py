"""Argument validators shared by every public function and the command line.

Each returns the value in its plain Python form or raises
:class:`mjkit.HandError` naming the argument, so no out-of-range integer
ever reaches a kernel (where it would wrap or overflow silently).
"""

from __future__ import annotations

import operator

import numpy as np

from .errors import HandError

__all__ = ["whole", "seed", "MAX_LEVEL", "level", "INT32_MAX"]

#: Largest value an int32 kernel field can hold.
INT32_MAX = 2**31 - 1

#: The highest 连拉 level accepted anywhere.  Streaks past 连8拉8 are real
#: (seed 000 §一.5: "连8拉8以上，任何牌型都可胡牌") and their 4N fans are
#: shown, so the API does not stop at 8; the cap keeps every kernel field
#: and fan sum far inside int32 (a study refuses levels past the one whose
#: bar is already 0, since they all play alike).
MAX_LEVEL = 1000


def whole(name: str, x, lo: int | None = None, hi: int | None = None) -> int:
    """``x`` as an int, or HandError naming ``name`` unless a whole number in ``lo..hi``.

    Booleans, floats and strings are refused (``True`` is not a count);
    numpy integers are accepted.
    """
    if isinstance(x, (bool, np.bool_)):
        raise HandError(f"{name} must be a whole number, got {x!r}")
    try:
        v = operator.index(x)
    except TypeError:
        raise HandError(f"{name} must be a whole number, got {x!r}") from None
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        if hi is None:
            where = f">= {lo}"
        elif lo is None:
            where = f"<= {hi}"
        else:
            where = f"in {lo}..{hi}"
        raise HandError(f"{name} must be a whole number {where}, got {x!r}")
    return int(v)


def seed(x, name: str = "seed") -> int:
    """A seed: a whole number >= 0, reduced to 63 bits."""
    return whole(name, x, 0) % (1 << 63)


def level(x, name: str = "lianla") -> int:
    """A 连拉 level: a whole number in 0..:data:`MAX_LEVEL`."""
    return whole(name, x, 0, MAX_LEVEL)
