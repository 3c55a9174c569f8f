"""Tile encoding, names and the compact text notation.

Every tile kind is an ``int`` index (see ``docs/architecture.md``):

- 0..8: 1..9 characters (万), ``1m`` .. ``9m``
- 9..17: 1..9 dots (饼), ``1p`` .. ``9p``
- 18..26: 1..9 bamboo (条), ``1s`` .. ``9s``
- 27..30: East, South, West, North winds, ``E S W N`` or ``1z`` .. ``4z``
- 31..33: white, green, red dragons (白 发 中), ``P F C`` or ``5z`` .. ``7z``
- 34..41: flowers 春 夏 秋 冬 梅 兰 竹 菊, ``1f`` .. ``8f``

The Unicode mahjong glyphs (U+1F000 block) are accepted as input too.
Everything that rejects input raises :class:`mjkit.errors.HandError`.

This module is the one home of the notation of tiles and tile groups:
readers :func:`tile_from_str`, :func:`parse_tiles`, :func:`scan_tiles`,
:func:`scan_groups` (bracketed groups, fast) and :func:`tile_index`; writers
:func:`tile_to_str`, :func:`tiles_to_str`, with :func:`counts34`,
:func:`tiles_of_counts` and :func:`set_tiles` between tiles, counts and sets.
Hand notation (melds, the winning tile, the ``|`` situation) is in
:mod:`mjkit.hand`.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable

import numpy as np

from .errors import HandError
from .errors import short_repr as _short_repr   # one home: errors.py

__all__ = [
    "N_KINDS", "N_FLOWERS", "N_TILES",
    "MAN", "PIN", "SOU", "SUITED", "WINDS", "DRAGONS", "HONORS", "FLOWERS",
    "EAST", "SOUTH", "WEST", "NORTH", "WHITE", "GREEN", "RED",
    "SUIT_LETTERS", "HONOR_LETTERS",
    "TILE_NAMES_ZH", "TILE_NAMES_EN", "TILE_GLYPHS",
    "tile_from_str", "tile_to_str", "parse_tiles", "scan_tiles", "tiles_to_str",
    "tile_index", "scan_groups", "tiles_of_counts", "set_tiles",
    "counts34", "tile_name", "tile_glyph",
    "is_suited", "suit_of", "rank_of", "is_terminal", "is_honor",
    "is_terminal_or_honor", "is_wind", "is_dragon", "is_flower",
]

#: Number of playable tile kinds (suits and honours, flowers excluded).
N_KINDS = 34
#: Number of flower tiles (each exists once).
N_FLOWERS = 8
#: Number of tile indices including flowers.
N_TILES = N_KINDS + N_FLOWERS

MAN = range(0, 9)
PIN = range(9, 18)
SOU = range(18, 27)
SUITED = range(0, 27)
WINDS = range(27, 31)
DRAGONS = range(31, 34)
HONORS = range(27, 34)
FLOWERS = range(34, 42)

EAST, SOUTH, WEST, NORTH = 27, 28, 29, 30
WHITE, GREEN, RED = 31, 32, 33

#: Suit letters in index order; ``z`` are honours, ``f`` flowers.
SUIT_LETTERS = "mps"
#: Honour letters in index order (27..33).
HONOR_LETTERS = "ESWNPFC"

_ZH_DIGITS = "一二三四五六七八九"
_HONOR_ZH = ("东风", "南风", "西风", "北风", "白板", "发财", "红中")
_HONOR_EN = ("East Wind", "South Wind", "West Wind", "North Wind",
             "White Dragon", "Green Dragon", "Red Dragon")
_FLOWER_ZH = ("春", "夏", "秋", "冬", "梅", "兰", "竹", "菊")
_FLOWER_EN = ("Spring", "Summer", "Autumn", "Winter",
              "Plum", "Orchid", "Bamboo", "Chrysanthemum")

#: Chinese name of each tile index, e.g. ``一万``, ``东风``, ``白板``, ``春``.
TILE_NAMES_ZH: tuple[str, ...] = (
    tuple(d + "万" for d in _ZH_DIGITS)
    + tuple(d + "饼" for d in _ZH_DIGITS)
    + tuple(d + "条" for d in _ZH_DIGITS)
    + _HONOR_ZH + _FLOWER_ZH
)
#: English name of each tile index, e.g. ``1 Character``, ``East Wind``.
TILE_NAMES_EN: tuple[str, ...] = (
    tuple(f"{r} Character" for r in range(1, 10))
    + tuple(f"{r} Dot" for r in range(1, 10))
    + tuple(f"{r} Bamboo" for r in range(1, 10))
    + _HONOR_EN + _FLOWER_EN
)

# The Unicode block does not follow our index order: winds, then red, green,
# white; characters, bamboo, then circles; the flowers (plum orchid bamboo
# chrysanthemum) come before the seasons (spring summer autumn winter).
_GLYPH_CP = (
    [0x1F007 + r for r in range(9)]           # 1m..9m
    + [0x1F019 + r for r in range(9)]         # 1p..9p (circles)
    + [0x1F010 + r for r in range(9)]         # 1s..9s (bamboos)
    + [0x1F000, 0x1F001, 0x1F002, 0x1F003]    # E S W N
    + [0x1F006, 0x1F005, 0x1F004]             # white, green, red
    + [0x1F026, 0x1F027, 0x1F028, 0x1F029]    # 春 夏 秋 冬
    + [0x1F022, 0x1F023, 0x1F024, 0x1F025]    # 梅 兰 竹 菊
)
#: Unicode glyph of each tile index.
TILE_GLYPHS: tuple[str, ...] = tuple(chr(cp) for cp in _GLYPH_CP)
_GLYPH_TO_TILE = {g: i for i, g in enumerate(TILE_GLYPHS)}

_SUIT_BASE = {"m": 0, "p": 9, "s": 18, "z": 27, "f": 34}
_SUIT_MAX_RANK = {"m": 9, "p": 9, "s": 9, "z": 7, "f": 8}
_DIGITS = "0123456789"   # ASCII only: str.isdigit() would accept "²" or "٣"

# Lookup tables for the fast paths.  _SCAN_CODE maps a character to a code:
# 0..9 a digit, _C_SUIT + k the k-th suit letter of _SUIT_ORDER, _C_TILE + t a
# character that is tile t by itself (honour letter or glyph), _C_BRACKET + k
# one of "[{]}" (only :func:`scan_groups` accepts those), _C_SPACE an
# ASCII space; characters missing from it are other whitespace or errors.
_C_OTHER, _C_SPACE, _C_SUIT, _C_TILE, _C_BRACKET = -1, -2, 10, 100, 200
_SUIT_ORDER = "mpszf"
#: For each suit letter, the tile of each digit 0..9 (-1: not a tile).
_SUIT_TILES = tuple(
    tuple(_SUIT_BASE[s] + r - 1 if 1 <= r <= _SUIT_MAX_RANK[s] else -1 for r in range(10))
    for s in _SUIT_ORDER
)
_SCAN_CODE: dict[str, int] = {d: int(d) for d in _DIGITS}
_SCAN_CODE.update({s: _C_SUIT + k for k, s in enumerate(_SUIT_ORDER)})
_SCAN_CODE.update({h: _C_TILE + 27 + k for k, h in enumerate(HONOR_LETTERS)})
_SCAN_CODE.update({g: _C_TILE + t for g, t in _GLYPH_TO_TILE.items()})
_SCAN_CODE.update({b: _C_BRACKET + k for k, b in enumerate("[{]}")})
_SCAN_CODE[" "] = _C_SPACE

#: Notation of each tile index (``tile_to_str``), and the character and group
#: (0 m, 1 p, 2 s, 3 honours, 4 flowers) it has in ``tiles_to_str``.
_TILE_STR: tuple[str, ...] = (
    tuple(f"{i % 9 + 1}{SUIT_LETTERS[i // 9]}" for i in range(27))
    + tuple(HONOR_LETTERS) + tuple(f"{k}f" for k in range(1, 9))
)
_TILE_CHAR: tuple[str, ...] = (
    tuple(str(i % 9 + 1) for i in range(27)) + tuple(HONOR_LETTERS)
    + tuple(str(k) for k in range(1, 9))
)
_TILE_GROUP: tuple[int, ...] = tuple(min(i // 9, 3) for i in range(34)) + (4,) * 8
_GROUP_SUFFIX = ("m", "p", "s", "", "f")
_INT_ONLY = frozenset({int})
_ALL_TILES = frozenset(range(42))


def _plain_tiles(seq: object) -> bool:
    """True if ``seq`` is a list or tuple of plain ``int`` tile indices 0..41."""
    return ((type(seq) is tuple or type(seq) is list)
            and _INT_ONLY.issuperset(map(type, seq)) and _ALL_TILES.issuperset(seq))


def tile_index(tile: object) -> int:
    """Check one tile index given as a number.

    Parameters
    ----------
    tile : int-like
        A Python or numpy integer 0..41 (booleans are refused).

    Returns
    -------
    int
        The index as a plain ``int``.

    Raises
    ------
    HandError
        For a non-integer (code ``"bad_argument"``) or an index out of range
        (``"unknown_tile"``).
    """
    if type(tile) is int and 0 <= tile < N_TILES:  # fast path: a plain index
        return tile
    if isinstance(tile, (bool, np.bool_)):
        # bool is an int subclass; True as "2m" would only hide a bug
        raise HandError(f"expected a tile index, got {tile!r}")
    try:
        i = operator.index(tile)
    except Exception as exc:  # any object may be passed; report, don't crash
        raise HandError(f"expected a tile index, got {type(tile).__name__} "
                        f"{_short_repr(tile)}") from exc
    if not 0 <= i < N_TILES:
        # _short_repr: str() of a huge int raises ValueError in Python >= 3.11
        raise HandError(f"tile index {_short_repr(i)} out of range 0..{N_TILES - 1}",
                        code="unknown_tile")
    return i


def scan_tiles(text: str, offset: int = 0) -> list[tuple[int, int]]:
    """Read a run of tiles, reporting where each one was written.

    Parameters
    ----------
    text : str
        Tiles in notation: digit runs closed by a suit letter (``123m``,
        ``1z``, ``3f``), honour letters ``E S W N P F C`` and mahjong glyphs.
        Whitespace is ignored anywhere, even inside a digit run.
    offset : int, optional
        Added to every reported position (used when ``text`` is a slice of a
        larger string, so messages point into the original).

    Returns
    -------
    list of (int, int)
        ``(tile index, position)`` pairs in text order; the position is that
        of the suit letter, honour letter or glyph.

    Raises
    ------
    HandError
        On an unknown character, digits without a suit letter, a suit letter
        without digits or an out-of-range rank such as ``0m``, ``8z``, ``9f``.
    """
    if not isinstance(text, str):
        raise HandError(f"expected a str of tiles, got {type(text).__name__}")
    out = _scan_fast(text, offset)
    if out is not None:
        return out
    return _scan_checked(text, offset)  # raises the exact error


def _scan_fast(text: str, offset: int) -> list[tuple[int, int]] | None:
    """:func:`scan_tiles` for well-formed text; ``None`` on anything unusual.

    It accepts exactly what :func:`_scan_checked` accepts, with the same
    result; whenever it meets a problem it gives up instead of raising, and
    the caller re-scans with :func:`_scan_checked` for the error message.
    """
    return _fast_pass(text, offset, None)


def _fast_pass(text: str, offset: int, groups: list | None) -> list | None:
    """The one pass behind :func:`scan_tiles` and :func:`scan_groups`.

    With ``groups`` None: ``(tile, position)`` pairs, brackets refused (plain
    tiles).  With a list: brackets allowed, each closed group appended to it
    as ``(tiles, concealed)``, and the loose tiles returned without positions
    (the hand reader needs none, and skipping them keeps it fast).  ``None``
    on anything unusual.
    """
    out: list = []
    cur = out            # where tiles go: loose, or the open group's tiles
    opener = -1          # code of the open bracket ("[" or "{"), -1: none
    with_pos = groups is None
    pending: list[int] = []  # ranks waiting for their suit letter
    code = _SCAN_CODE.get
    for pos, ch in enumerate(text):
        c = code(ch, _C_OTHER)
        if c < 10:
            if c >= 0:
                pending.append(c)
            elif c != _C_SPACE and not ch.isspace():
                return None
        elif c < _C_TILE:  # suit letter
            if not pending:
                return None
            ranks = _SUIT_TILES[c - _C_SUIT]
            for r in pending:
                t = ranks[r]
                if t < 0:
                    return None
                cur.append((t, pos + offset) if with_pos else t)
            pending = []
        elif c < _C_BRACKET:  # honour letter or glyph
            if pending:
                return None
            cur.append((c - _C_TILE, pos + offset) if with_pos else c - _C_TILE)
        else:  # bracket: digits may not run across one
            if pending or with_pos:
                return None
            if c < _C_BRACKET + 2:  # "[" or "{"
                if opener >= 0:
                    return None
                opener = c
                cur = []
            else:                   # "]" or "}": must close the same kind
                if opener != c - 2:
                    return None
                groups.append((tuple(cur), opener != _C_BRACKET))
                cur, opener = out, -1
    if pending or opener >= 0:
        return None
    return out


def _scan_checked(text: str, offset: int) -> list[tuple[int, int]]:
    """The reference scanner: slow, but says exactly what is wrong and where."""
    out: list[tuple[int, int]] = []
    pending: list[tuple[str, int]] = []  # digits waiting for their suit letter

    def no_suit() -> HandError:
        digits = "".join(d for d, _ in pending)
        return HandError(f"digits '{digits}' at position {pending[0][1] + offset} "
                         "have no suit letter", code="syntax")

    for pos, ch in enumerate(text):
        if ch.isspace():
            continue
        if ch in _DIGITS:
            pending.append((ch, pos))
        elif ch in _SUIT_BASE:
            if not pending:
                raise HandError(f"suit letter '{ch}' at position {pos + offset} "
                                "has no digits", code="syntax")
            top = _SUIT_MAX_RANK[ch]
            for d, dpos in pending:
                rank = int(d)
                if not 1 <= rank <= top:
                    raise HandError(f"{d}{ch} at position {dpos + offset} is not a "
                                    f"tile (ranks are 1{ch}..{top}{ch})", code="unknown_tile")
                out.append((_SUIT_BASE[ch] + rank - 1, pos + offset))
            pending.clear()
        elif ch in HONOR_LETTERS or ch in _GLYPH_TO_TILE:
            if pending:
                raise no_suit()
            tile = (27 + HONOR_LETTERS.index(ch) if ch in HONOR_LETTERS
                    else _GLYPH_TO_TILE[ch])
            out.append((tile, pos + offset))
        else:
            raise HandError(f"unknown character {ch!r} at position {pos + offset}", code="syntax")
    if pending:
        raise no_suit()
    return out


def parse_tiles(text: str) -> list[int]:
    """Parse plain tile notation into a list of indices, in text order.

    Parameters
    ----------
    text : str
        For example ``"123m E 1z 5f"``; no melds or situation suffix.

    Returns
    -------
    list of int

    Examples
    --------
    >>> parse_tiles("123m E 1z")
    [0, 1, 2, 27, 27]
    """
    return [tile for tile, _ in scan_tiles(text)]


def scan_groups(text: str) -> tuple[list[tuple[tuple[int, ...], bool]], list[int]] | None:
    """Split well-formed tile notation into bracketed groups and loose tiles, fast.

    One pass with lookup tables over the tile part of hand notation (what
    comes before ``|``): ``[...]`` and ``{...}`` groups and the tiles
    outside them.  It does not say what is wrong with bad text; it gives
    up, and the caller re-reads the text with the checked scanner
    (:func:`mjkit.hand.read_tile_part`), which raises the exact error.

    Parameters
    ----------
    text : str
        For example ``"[123m]{EEEE}456p789s1p 1p"``.

    Returns
    -------
    (groups, loose) or None
        ``groups``: ``(tiles, concealed)`` per bracket in text order, the
        tiles as written and ``concealed`` True for ``{...}``; ``loose``:
        the other tiles in text order.  ``None`` when the text holds
        anything unusual: an unknown character, digits without a suit
        letter or running into a bracket, a rank out of range, nested or
        unbalanced brackets.  Empty groups are returned as they are.
    """
    groups: list[tuple[tuple[int, ...], bool]] = []
    loose = _fast_pass(text, 0, groups)
    return None if loose is None else (groups, loose)


def set_tiles(kind: str, tile: int) -> tuple[int, ...]:
    """The tiles of a set: ``"chow"`` (three in a row), ``"pung"``, ``"kong"`` or ``"pair"``.

    Parameters
    ----------
    kind : {"chow", "pung", "kong", "pair"}
    tile : int
        Lowest tile of the set (not checked: the caller knows it is valid).

    Returns
    -------
    tuple of int

    Examples
    --------
    >>> set_tiles("chow", 0), set_tiles("pair", 27)
    ((0, 1, 2), (27, 27))
    """
    if kind == "chow":
        return (tile, tile + 1, tile + 2)
    n = _SET_SIZE.get(kind)
    if n is None:
        raise HandError(f"unknown set kind {_short_repr(kind)}: expected 'chow', 'pung', "
                        "'kong' or 'pair'", code="bad_meld")
    return (tile,) * n


_SET_SIZE = {"pung": 3, "kong": 4, "pair": 2}


def tiles_of_counts(counts: Iterable[int]) -> list[int]:
    """The tiles of a count vector, in index order.

    Parameters
    ----------
    counts : sequence of int
        Copies per kind, e.g. a ``(34,)`` array (the inverse of
        :func:`counts34`).

    Returns
    -------
    list of int

    Examples
    --------
    >>> tiles_of_counts([2, 0, 1])
    [0, 0, 2]
    """
    c = counts.tolist() if isinstance(counts, np.ndarray) else list(counts)
    return [t for t, k in enumerate(c) for _ in range(int(k))]


def tile_from_str(text: str) -> int:
    """Parse exactly one tile (``"5m"``, ``"E"``, ``"1z"``, ``"3f"``, a glyph).

    Raises
    ------
    HandError
        If ``text`` is not exactly one tile.
    """
    if not isinstance(text, str):
        raise HandError(f"expected a tile str, got {type(text).__name__}")
    if len(text) > 32:  # one tile is at most a few characters; don't scan junk
        raise HandError(f"expected exactly one tile, got {_short_repr(text)}", code="syntax")
    tiles = parse_tiles(text)
    if len(tiles) != 1:
        raise HandError(f"expected exactly one tile, got {_short_repr(text)}", code="syntax")
    return tiles[0]


def tile_to_str(tile: int) -> str:
    """Notation of one tile: ``"5m"``, honours as letters (``"E"``), ``"3f"``."""
    if type(tile) is int and 0 <= tile < N_TILES:
        return _TILE_STR[tile]
    i = tile_index(tile)
    if i < 27:
        return f"{i % 9 + 1}{SUIT_LETTERS[i // 9]}"
    if i < N_KINDS:
        return HONOR_LETTERS[i - 27]
    return f"{i - 33}f"


def tiles_to_str(tiles: Iterable[int]) -> str:
    """Canonical notation of a multiset of tiles.

    Tiles are sorted by index and grouped: ``123m456p789s``, then honour
    letters in index order (``ESWNPFC``), then flowers (``13f``).

    Examples
    --------
    >>> tiles_to_str([27, 0, 10, 9, 34])
    '1m12pE1f'
    """
    idx = sorted(tiles) if _plain_tiles(tiles) else sorted(tile_index(t) for t in tiles)
    # Sorted indices come grouped m, p, s, honours, flowers: write each tile's
    # character and close a group with its suffix letter (none for honours).
    out: list[str] = []
    group = -1
    for i in idx:
        g = _TILE_GROUP[i]
        if g != group:
            if group >= 0:
                out.append(_GROUP_SUFFIX[group])
            group = g
        out.append(_TILE_CHAR[i])
    if group >= 0:
        out.append(_GROUP_SUFFIX[group])
    return "".join(out)


def counts34(tiles: Iterable[int] | str) -> np.ndarray:
    """Count tiles per kind.

    Parameters
    ----------
    tiles : iterable of int or str
        Tile indices 0..33, or notation parsed with :func:`parse_tiles`.

    Returns
    -------
    numpy.ndarray
        ``int64`` array of shape ``(34,)``.

    Raises
    ------
    HandError
        For flowers (they have no slot among the 34 kinds) or bad indices.
    """
    if isinstance(tiles, str):
        tiles = parse_tiles(tiles)
    counts = [0] * N_KINDS
    for t in tiles:
        i = tile_index(t)
        if i >= N_KINDS:
            raise HandError(f"flower {tile_to_str(i)} has no slot in counts34", code="unknown_tile")
        counts[i] += 1
    return np.array(counts, dtype=np.int64)


def tile_name(tile: int, lang: str = "en") -> str:
    """Name of a tile in English (``"en"``) or Chinese (``"zh"``)."""
    from .validate import lang as check_lang   # validate imports this module: not at the top

    i = tile_index(tile)
    return (TILE_NAMES_ZH if check_lang(lang) == "zh" else TILE_NAMES_EN)[i]


def tile_glyph(tile: int) -> str:
    """Unicode mahjong glyph of a tile (U+1F000 block)."""
    return TILE_GLYPHS[tile_index(tile)]


def is_suited(tile: int) -> bool:
    """True for characters, dots and bamboo (indices 0..26)."""
    return tile_index(tile) < 27


def suit_of(tile: int) -> str:
    """Suit letter: ``"m"``, ``"p"``, ``"s"``, ``"z"`` (honours) or ``"f"``."""
    i = tile_index(tile)
    if i < 27:
        return SUIT_LETTERS[i // 9]
    return "z" if i < N_KINDS else "f"


def rank_of(tile: int) -> int:
    """Rank within the suit: 1..9 suited, 1..7 honours (``1z``..), 1..8 flowers."""
    i = tile_index(tile)
    if i < 27:
        return i % 9 + 1
    return i - 26 if i < N_KINDS else i - 33


def is_terminal(tile: int) -> bool:
    """True for suited 1s and 9s."""
    i = tile_index(tile)
    return i < 27 and i % 9 in (0, 8)


def is_honor(tile: int) -> bool:
    """True for winds and dragons (27..33)."""
    return 27 <= tile_index(tile) < N_KINDS


def is_terminal_or_honor(tile: int) -> bool:
    """True for terminals and honours (幺九)."""
    return is_terminal(tile) or is_honor(tile)


def is_wind(tile: int) -> bool:
    """True for the four winds (27..30)."""
    return 27 <= tile_index(tile) <= 30


def is_dragon(tile: int) -> bool:
    """True for the three dragons (31..33)."""
    return 31 <= tile_index(tile) <= 33


def is_flower(tile: int) -> bool:
    """True for flowers and seasons (34..41)."""
    return tile_index(tile) >= N_KINDS
