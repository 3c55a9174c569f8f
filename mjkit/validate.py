"""Argument validators shared by every public function and the command line.

Each returns the value in its plain Python form or raises
:class:`mjkit.HandError` naming the argument, so no out-of-range integer
ever reaches a kernel (where it would wrap or overflow silently).  This is
the one home of these checks: whole numbers (:func:`whole`, :func:`decimal`
for text), seeds, 连拉 levels and level lists, yes/no flags
(:func:`boolean`), winds, flowers, the wild tile, the tiles seen outside a
hand (:func:`visible_counts`) and the language of a text (:func:`lang`);
``hand``, ``score``, the pictures, the simulator, the quiz, the app and the
CLI all call them, so a value is accepted (and an error worded) the same way
everywhere.
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Mapping, Set
from typing import Any

import numpy as np

from .errors import HandError, short_repr
from .messages import LANGS
from .tiles import (N_KINDS, N_TILES, is_flower, scan_tiles, tile_from_str, tile_index,
                    tile_to_str)

__all__ = ["scheduler_address", "DASK_SCHEMES", "whole", "decimal", "seed", "MAX_LEVEL", "level", "levels", "levels_text",
           "INT32_MAX", "MAX_ITEMS", "take", "boolean", "wind", "flowers", "flower_tile",
           "wild_kind", "MAX_VISIBLE", "visible_counts", "lang"]

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


def number(name: str, x, lo: float, hi: float) -> float:
    """``x`` as a float, or HandError naming ``name`` unless a finite number in ``lo..hi``
    (an int or a float; booleans and strings are refused)."""
    import math

    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, float, np.integer,
                                                             np.floating)):
        raise HandError(f"{name} must be a number, got {short_repr(x)}")
    v = float(x)
    if not math.isfinite(v) or not lo <= v <= hi:
        raise HandError(f"{name} must be a number in {lo}..{hi}, got {short_repr(x)}")
    return v


def seed(x, name: str = "seed") -> int:
    """A seed: a whole number >= 0, reduced to 63 bits."""
    return whole(name, x, 0) % (1 << 63)


def level(x, name: str = "lianla") -> int:
    """A 连拉 level: a whole number in 0..:data:`MAX_LEVEL`."""
    return whole(name, x, 0, MAX_LEVEL)


def decimal(text: str, name: str) -> int:
    """A whole number written in decimal (``"+12"``, ``" 7 "``), as an int.

    Refuses anything else, and more than 20 digits before any ``int()`` of
    the text (a huge string would take long to convert).
    """
    t = str(text).strip()
    digits = t[1:] if t[:1] in "+-" else t
    if not (digits.isascii() and digits.isdigit()) or len(digits) > 20:
        raise HandError(f"{name} must be a whole number, got {text!r}")
    return int(t)


def levels(x, name: str = "levels") -> list[int]:
    """Distinct 连拉 levels (an int or an iterable of them), sorted.

    A string is refused (write the levels as numbers; the command line's
    ``"0-8"`` is read by :func:`levels_text`).  At most ``MAX_LEVEL + 1``
    items are taken, so an endless or huge iterable (``range(10**9)``) is
    refused without being listed.
    """
    items = [x] if isinstance(x, (int, np.integer)) else x
    if isinstance(items, (str, bytes)):
        raise HandError(f"{name} must be whole numbers >= 0, got {x!r}")
    try:
        out = list(itertools.islice(iter(items), MAX_LEVEL + 2))
    except TypeError:
        raise HandError(f"{name} must be whole numbers >= 0, got {x!r}") from None
    if not out:
        raise HandError(f"{name} must name at least one level, got none")
    out = [whole(name, v, 0) for v in out]
    if len(set(out)) != len(out):
        raise HandError(f"{name} must not repeat, got {x!r}")
    return sorted(out)


def levels_text(text: str, name: str = "--levels") -> list[int]:
    """``"0-8"``, ``"0,2,5"`` or ``"0-3,8"`` as a sorted list of distinct levels."""
    out: list[int] = []
    for part in str(text).replace(" ", "").split(","):
        lo, sep, hi = part.partition("-")
        ends = [lo, hi] if sep else [lo]
        if not all(e.isascii() and e.isdigit() and len(e) <= 20 for e in ends):
            raise HandError(f"{name}: {text!r} is not a list of levels such as 0-8 or 0,2,5")
        a, b = int(ends[0]), int(ends[-1])
        if b < a:
            raise HandError(f"{name}: {part!r} is not a range of levels >= 0 (low-high)")
        # the ends are checked before a list is built (0-1000000000 is refused at once)
        if b > MAX_LEVEL:
            raise HandError(f"{name}: {part!r} goes past level {MAX_LEVEL}; a study plays "
                            "levels up to the first whose bar is 0 (8 in dazhong32: every "
                            "higher level plays like it)")
        out.extend(range(a, b + 1))
        if len(out) > MAX_LEVEL + 1:
            raise HandError(f"{name}: {text!r} names a level twice")
    if len(set(out)) != len(out):
        raise HandError(f"{name}: {text!r} names a level twice")
    return sorted(out)


#: Iterables handed to a validator are cut off here, so an endless generator
#: cannot hang us; no valid argument (tiles, melds, flowers) comes near it.
MAX_ITEMS = 64


def take(items: Any, limit: int, what: str) -> list:
    """At most ``limit`` items of an iterable, as a list; more (or a str) is an error."""
    if isinstance(items, (str, bytes)):
        raise HandError(f"{what} must be a sequence, not {type(items).__name__}")
    try:
        out = list(itertools.islice(iter(items), limit + 1))
    except Exception as exc:  # arbitrary objects: report instead of crashing
        raise HandError(f"{what} must be iterable, got {type(items).__name__}") from exc
    if len(out) > limit:
        raise HandError(f"too many {what} (more than {limit})", code="tile_count")
    return out


def boolean(x: Any, name: str, *, strict: bool = False) -> bool:
    """A yes/no value: ``True``/``False`` (numpy's too) or the integers 0 and 1.

    ``strict=True`` accepts only the Python ``True`` and ``False`` (the
    pictures' ``label=``, where ``1`` is more likely a size or a slip than a
    yes).
    """
    if x is True or x is False:
        return x
    if not strict:
        if isinstance(x, (bool, np.bool_)):
            return bool(x)
        try:
            i = operator.index(x)
        except Exception:       # noqa: BLE001 - any object may be passed
            i = None
        if i in (0, 1):
            return bool(i)
    raise HandError(f"{name} must be True or False, got {short_repr(x)}")


_WIND_NAMES = {
    "e": 0, "east": 0, "东": 0, "s": 1, "south": 1, "南": 1,
    "w": 2, "west": 2, "西": 2, "n": 3, "north": 3, "北": 3,
}
# _WIND_NAMES keys, and their capitalised and upper-case forms ("E", "South").
_WIND_EXACT = {form: w for k, w in _WIND_NAMES.items() for form in (k, k.title(), k.upper())}


def wind(x: Any, name: str = "wind") -> int:
    """A wind 0..3 (East, South, West, North) from an int or a name (``E``, ``south``, ``北``).

    Digits in strings are refused because ``"1"`` could mean South (0-based)
    or East (``1z``).
    """
    if isinstance(x, str):
        w = _WIND_EXACT.get(x)  # fast path for the usual spellings
        if w is None:
            w = _WIND_NAMES.get(x.strip().lower())
        if w is not None:
            return w
    elif not isinstance(x, (bool, np.bool_)):
        try:
            w = operator.index(x)
        except Exception:   # noqa: BLE001
            w = None
        if w is not None and 0 <= w <= 3:
            return w
    raise HandError(f"bad wind value {short_repr(x)} for {name}: expected 0..3 or E/S/W/N")


def flower_tile(tile: Any) -> int:
    """A flower's tile index (34..41), or HandError (code ``"unknown_tile"``)."""
    if not is_flower(tile):         # is_flower refuses what is not a tile at all
        raise HandError(f"{tile_to_str(tile)} is not a flower (flowers are 1f..8f)",
                        code="unknown_tile")
    return operator.index(tile)


def flowers(x: Any) -> int | list[int]:
    """A flower count 0..8 (an int or decimal text) or a list of flower tiles, as given.

    Flower tiles may be notation (``"1f3f"``) or a sequence of tiles
    (notation or indices).
    """
    if isinstance(x, (bool, np.bool_)):
        raise HandError(f"flowers must be a count or flower tiles, got {x!r}")
    if isinstance(x, str):
        text = x.strip()
        if not text:  # blank is not "no flowers": say 0
            raise HandError(f"flowers must be a count 0..8 or flower tiles such as 1f3f, "
                            f"got {short_repr(x)}")
        if not (text.isascii() and text.isdigit()):  # notation such as "1f3f"
            if len(text) > 64:
                raise HandError(f"flowers value too long: {short_repr(x)}")
            try:
                return [flower_tile(t) for t, _ in scan_tiles(text)]
            except HandError as exc:
                raise HandError(f"flowers must be a count 0..8 or flower tiles such as "
                                f"1f3f: {exc}", code=exc.code) from None
        if len(text.lstrip("0")) > 1:  # also keeps int() away from huge strings
            raise HandError(f"flowers out of range: {short_repr(text)} (expected 0..8)")
        x = int(text)
    if isinstance(x, (int, np.integer)):
        count = int(x)
        if not 0 <= count <= 8:
            raise HandError(f"flowers out of range: {short_repr(count)} (expected 0..8)")
        return count
    if not hasattr(x, "__iter__"):
        raise HandError("flowers must be a count, flower tiles or notation, got "
                        f"{type(x).__name__} {short_repr(x)}")
    items = take(x, MAX_ITEMS, "flowers")
    return [flower_tile(tile_from_str(t) if isinstance(t, str) else t) for t in items]


def wild_kind(x: Any, name: str = "wild") -> int:
    """The wild tile's kind (0..33) from notation (``"P"``, ``"5z"``) or an index; -1 for None."""
    if x is None:
        return -1
    if isinstance(x, str):
        try:
            t = tile_from_str(x.strip())
        except HandError as exc:
            raise HandError(f"{name} must be a tile such as 'P' or '5z': {exc}",
                            code=exc.code) from None
    elif isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_)):
        t = int(x)
    else:
        raise HandError(f"{name} must be a tile such as 'P' or '5z', got {x!r}")
    if not 0 <= t < N_KINDS:
        flower = N_KINDS <= t < N_TILES
        why = ": a flower cannot be the wild tile" if flower else " (not a flower)"
        raise HandError(f"{name} must be one of the 34 tile kinds{why}, got {short_repr(x)}",
                        code="unknown_tile")
    return t


#: The most tiles a ``visible=`` argument may list: every copy of the 34 kinds and the
#: 8 flowers (more is refused before any is read).
MAX_VISIBLE = 4 * N_KINDS + 8


def visible_counts(x: Any, name: str = "visible") -> np.ndarray:
    """The tiles seen outside a hand (``visible=``) as copies per kind, int64 ``(34,)``.

    The one reading of ``visible=`` for every function that takes it (``waits``,
    ``shanten``, ``distance_to``, ``targets``, ``win_chances``, ``advise``).

    Parameters
    ----------
    x : None, str or sequence of tiles
        None: nothing seen.  A str: notation as a hand's tile part is written, loose
        tiles and melds seen in brackets (``"1m E [456p]"``).  A sequence (list, tuple,
        numpy array, iterator): one tile per item, as notation (``"5m"``) or an index
        0..41.  Flowers are set aside: they are never live tiles.
    name : str
        The argument's name in messages.

    Returns
    -------
    numpy.ndarray
        Copies seen per kind.

    Raises
    ------
    HandError
        Naming ``name``, for anything else: a number, True/False, a dict or a set (a
        set holds one copy of each tile), bytes, a nested sequence, an item that is not
        one tile, notation that cannot be read, more than :data:`MAX_VISIBLE` tiles, or
        more than 4 copies of a kind (code ``"too_many_copies"``).  The copies in the
        hand are counted with these by the hand's reader
        (:func:`mjkit.shanten.read_hand_counts`).
    """
    counts = np.zeros(N_KINDS, np.int64)
    if x is None:
        return counts
    what = (f"{name} must be tiles in notation (such as '1m E [456p]') or a sequence of "
            "tiles (such as ['1m', 'E'] or tile indices)")
    if isinstance(x, str):
        from .hand import read_tile_part        # hand imports this module

        try:
            melds, tiles = read_tile_part(x)
        except HandError as exc:
            raise HandError(f"{name}: {exc}", code=exc.code) from None
        tiles = tiles + [t for m in melds for t in m.tiles]
    else:
        if isinstance(x, (bytes, bytearray, Mapping, Set)) or not hasattr(x, "__iter__"):
            raise HandError(f"{what}, got {type(x).__name__} {short_repr(x)}")
        tiles = []
        for t in take(x, MAX_VISIBLE, name):
            try:
                if isinstance(t, str):
                    tiles.append(tile_from_str(t))
                elif isinstance(t, (int, np.integer)) and not isinstance(t, (bool, np.bool_)):
                    tiles.append(tile_index(t))
                else:
                    raise HandError(f"{what}, got the item {short_repr(t)}")
            except HandError as exc:
                msg = str(exc)
                raise HandError(msg if msg.startswith(name) else f"{name}: {msg}",
                                code=exc.code) from None
    for t in tiles:
        if t < N_KINDS:
            counts[t] += 1
    over = np.flatnonzero(counts > 4)
    if len(over):
        t = int(over[0])
        raise HandError(f"{name}: {counts[t]} copies of {tile_to_str(t)} seen; only 4 exist",
                        code="too_many_copies")
    return counts


def lang(x: Any, name: str = "lang") -> str:
    """A language of the zh/en texts: ``"zh"`` or ``"en"`` (:data:`mjkit.messages.LANGS`).

    Raises
    ------
    HandError
        ``code="unknown_name"`` for anything else (``"fr"``, ``None``, ``"ZH"``).
    """
    if isinstance(x, str) and x in LANGS:
        return str(x)
    raise HandError(f"{name} must be zh or en: unknown language {short_repr(x)}",
                    code="unknown_name")


#: The schemes of a Dask scheduler address another process can reach (not ``inproc``).
DASK_SCHEMES = ("tcp", "tls", "ws", "wss", "ucx")


def scheduler_address(text, name: str = "scheduler") -> str:
    """A Dask scheduler address, checked without importing Dask.

    ``[SCHEME://]HOST:PORT`` as Dask reads it (no scheme: Dask's default, tcp): SCHEME one
    of :data:`DASK_SCHEMES`, HOST a name or an IPv4 address (ASCII letters, digits,
    ``.-_``) or an IPv6 address in brackets (``[::1]``), PORT 1-65535.

    Parameters
    ----------
    text : str
        The address.
    name : str
        What the error names (the CLI: ``--scheduler``).

    Returns
    -------
    str
        ``text``, unchanged.

    Raises
    ------
    HandError
        Not such an address; the message shows the form and what is wrong.
    """
    import ipaddress
    import re

    def bad(why):
        return HandError(f"{name}: not a Dask scheduler address ({why}): {text!r}; give "
                         f"SCHEME://HOST:PORT, e.g. tcp://127.0.0.1:8786 (SCHEME: "
                         f"{', '.join(DASK_SCHEMES)})")

    if not isinstance(text, str):
        raise HandError(f"{name} must be text, got {type(text).__name__}")
    if not text:
        raise bad("empty")
    if len(text) > 300 or not text.isascii() or not text.isprintable() or " " in text:
        raise bad("too long, or not printable ASCII without spaces")
    scheme, sep, place = text.partition("://")
    if not sep:
        scheme, place = "", text
    elif scheme == "inproc":
        raise bad("inproc:// addresses work only inside the process that made them")
    elif scheme not in DASK_SCHEMES:
        raise bad(f"unknown scheme {scheme!r}")
    if place.startswith("["):
        host, close, port = place[1:].partition("]")
        if not close or not port.startswith(":"):
            raise bad("an IPv6 host is [ADDRESS]:PORT")
        try:
            ipaddress.IPv6Address(host)
        except ValueError:
            raise bad(f"{host!r} is not an IPv6 address") from None
        port = port[1:]
    else:
        host, colon, port = place.rpartition(":")
        if not colon:
            raise bad("no port")
        if not re.fullmatch(r"[A-Za-z0-9._-]+", host):
            raise bad("no host" if not host else f"{host!r} is not a host name or address "
                      "(an IPv6 address goes in brackets: [::1]:8786)")
    if not (re.fullmatch(r"[0-9]{1,5}", port) and 1 <= int(port) <= 65535):
        raise bad(f"port {port!r} is not a whole number 1-65535" if port else "no port")
    return text
