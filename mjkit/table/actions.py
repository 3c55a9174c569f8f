"""What a player at the table does, and its notation: ``discard 5m``, ``chow 345m``, ``pung``.

An :class:`Action` is a small frozen value: a ``kind`` (one of :data:`KINDS`), a ``tile``
(the tile discarded, the first tile of a chow, the tile of a pung or kong) and, for the
起手换牌 exchange only, the ``tiles`` given up.  It prints in a short notation and
:func:`parse_action` reads it back::

    discard 5m          the tile (never a flower: flowers are set aside by themselves)
    chow 345m           the chow to make with the discard; "chow 3m" is the same chow
    chow                any chow, when only one is possible
    pung  /  pung 5m    碰 the discard (the tile may be left out)
    kong 7p / kong      明杠 on a discard, or a concealed or added kong on one's own turn
    win                 declare a win (on the discard, the kong or one's own draw)
    pass                let the discard (or the win) go
    exchange 1m 9p E    起手换牌: give up 0..3 tiles ("exchange" alone: none)

Reading is tolerant of case and spaces (``" Chow 3M"``, ``"exchange 1m e"``); printing
always gives the canonical form (``str(action)``).  An action written without its tile
(``pung``, ``chow``, ``kong``) is completed from the legal actions of the moment by
:meth:`Action.normalise` (or :func:`resolve`), which names the choices when more than one
fits.  :func:`exchange_choices` lists every legal exchange of a hand.

The game kernel (:mod:`mjkit._kernels.game`) takes and returns actions as rows of four
ints ``[code, a, b, c]``; the codes (:data:`A_DISCARD` ...) are defined here, their one
home, with :meth:`Action.to_kernel` and :func:`from_kernel`.

Every bad text or value raises :class:`mjkit.HandError` naming it and what is wrong.
"""

from __future__ import annotations

import itertools
import operator
import re
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

import numpy as np

from ..errors import HandError, short_repr
from ..tiles import N_KINDS, N_TILES, scan_tiles, tile_to_str, tiles_to_str

__all__ = [
    "KINDS", "A_NONE", "A_DISCARD", "A_CHOW", "A_PUNG", "A_KONG", "A_WIN", "A_PASS",
    "A_EXCHANGE", "KERNEL_CODES", "Action", "parse_action", "as_action", "resolve",
    "to_kernel", "from_kernel", "exchange_choices", "MAX_EXCHANGE", "action_text",
]

#: The kinds of action, in the order of their kernel codes.
KINDS = ("discard", "chow", "pung", "kong", "win", "pass", "exchange")

# Kernel codes: a row [code, a, b, c] (unused fields -1); their one home is the kernel's
# bundle module, read here.
from .._kernels.game_state import (  # noqa: E402
    A_CHOW, A_DISCARD, A_EXCHANGE, A_KONG, A_NONE, A_PASS, A_PUNG, A_WIN,
)

#: Kernel code of each kind.
KERNEL_CODES = {"discard": A_DISCARD, "chow": A_CHOW, "pung": A_PUNG, "kong": A_KONG,
                "win": A_WIN, "pass": A_PASS, "exchange": A_EXCHANGE}

#: The most tiles one player may give up in the 起手换牌 exchange (seed 001 A.c: 三张).
MAX_EXCHANGE = 3

#: Longest action text read (the longest real one, "exchange 1m 2m 3m", is far shorter).
_MAX_TEXT = 120

_WITH_TILE = frozenset({"discard", "chow", "pung", "kong"})      # tile allowed
_TILE_OPTIONAL = frozenset({"chow", "pung", "kong"})             # ... and may be left out
_HONOUR_TOKEN = re.compile(r"[eswnpfcESWNPFC]+")
_LETTERS = re.compile(r"[A-Za-z]+")
_DIGITS = "0123456789"


def _kind_tile(x: Any, what: str) -> int:
    """A tile kind 0..33 given as a plain int (booleans refused)."""
    if isinstance(x, (bool, np.bool_)):
        raise HandError(f"{what} must be a tile kind 0..33, got {x!r}")
    try:
        i = operator.index(x)
    except TypeError:
        raise HandError(f"{what} must be a tile kind 0..33, got {short_repr(x)}") from None
    if not 0 <= i < N_KINDS:
        extra = " (a flower is never played: it is set aside)" if N_KINDS <= i < N_TILES else ""
        raise HandError(f"{what} must be a tile kind 0..33, got {short_repr(i)}{extra}",
                        code="unknown_tile")
    return int(i)


def _check_chow_start(t: int) -> None:
    if t >= 27:
        raise HandError(f"{tile_to_str(t)} is an honour, and honours make no chow",
                        code="bad_meld")
    if t % 9 > 6:
        raise HandError(f"no chow starts at {tile_to_str(t)}: a chow is three tiles in a row "
                        "of one suit, starting at 1..7", code="bad_meld")


@dataclass(frozen=True)
class Action:
    """One decision of a player: ``Action(kind, tile=None, tiles=())``.

    Parameters
    ----------
    kind : {"discard", "chow", "pung", "kong", "win", "pass", "exchange"}
    tile : int, optional
        A tile kind 0..33: the tile discarded (required for ``"discard"``), the chow's
        first tile, the pung's or kong's tile; None for a chow, pung or kong left to be
        completed by :meth:`normalise`, and for the other kinds.
    tiles : tuple of int
        ``"exchange"`` only: the 0..3 tiles given up, in the order they are swapped (each
        for the tile at the next random place of the wall: the order matters).

    Raises
    ------
    HandError
        An unknown kind, a tile where the kind takes none (or none where it needs one),
        a flower or index out of range, a chow that cannot start at its tile, more than
        three exchange tiles.

    Examples
    --------
    >>> str(Action("chow", 2))
    'chow 345m'
    >>> parse_action("exchange E 1m") == Action("exchange", tiles=(0, 27))
    True
    """

    kind: str
    tile: int | None = None
    tiles: tuple = ()

    def __post_init__(self):
        kind = self.kind
        if not isinstance(kind, str) or kind not in KINDS:
            raise HandError(f"unknown action kind {short_repr(kind)}; known: {', '.join(KINDS)}",
                            code="unknown_name")
        if self.tile is not None:
            if kind not in _WITH_TILE:
                raise HandError(f"a {kind} action takes no tile, got {short_repr(self.tile)}")
            object.__setattr__(self, "tile", _kind_tile(self.tile, f"the tile of a {kind}"))
            if kind == "chow":
                _check_chow_start(self.tile)
        elif kind == "discard":
            raise HandError("a discard needs its tile, e.g. Action('discard', 4) for 5m")
        tiles = self.tiles
        if isinstance(tiles, (str, bytes)) or not hasattr(tiles, "__iter__"):
            raise HandError(f"tiles must be a tuple of tile kinds, got {short_repr(tiles)}")
        tiles = list(itertools.islice(iter(tiles), MAX_EXCHANGE + 1))
        if tiles and kind != "exchange":
            raise HandError(f"only an exchange gives up tiles; a {kind} got {short_repr(tiles)}")
        if len(tiles) > MAX_EXCHANGE:
            raise HandError(f"an exchange gives up at most {MAX_EXCHANGE} tiles (seed 001 "
                            "A.c: 三张)", code="tile_count")
        # in the order given: the order they are swapped in (each for the next random
        # place of the wall), so two orders of one set are two different exchanges
        object.__setattr__(self, "tiles",
                           tuple(_kind_tile(t, "an exchanged tile") for t in tiles))

    def __str__(self) -> str:
        if self.kind == "exchange":
            return " ".join(["exchange", *(tile_to_str(t) for t in self.tiles)])
        if self.tile is None:
            return self.kind
        if self.kind == "chow":
            return f"chow {tiles_to_str((self.tile, self.tile + 1, self.tile + 2))}"
        return f"{self.kind} {tile_to_str(self.tile)}"

    def __repr__(self) -> str:
        return f"Action({str(self)!r})"

    @property
    def complete(self) -> bool:
        """False for a chow, pung or kong written without its tile."""
        return self.tile is not None or self.kind not in _TILE_OPTIONAL

    def matches(self, legal: "Action") -> bool:
        """Whether ``legal`` (a complete action) is this action, its tile filled in if left out.

        ``Action("pung")`` matches ``Action("pung", 4)``; a complete action matches only
        itself (an exchange: the same tiles in any order).
        """
        if not isinstance(legal, Action) or legal.kind != self.kind or \
                sorted(legal.tiles) != sorted(self.tiles):
            return False
        return self.tile is None or self.tile == legal.tile

    def normalise(self, legal: Iterable["Action"], *, what: str | None = None) -> "Action":
        """The one action of ``legal`` this action means.

        Parameters
        ----------
        legal : iterable of Action
            The legal actions of the moment (complete ones, as the table lists them).
        what : str, optional
            Who is asked, put before the message (e.g. ``"seat 2 (claim)"``).

        Returns
        -------
        Action
            The legal action matching this one (:meth:`matches`): ``pung`` becomes
            ``pung 5m`` when 5m is the tile to pung.

        Raises
        ------
        HandError
            Naming the action and the legal ones: when none matches, or when the action
            left its tile out and several fit (``chow`` when 345m and 456m can both be
            made: say which).
        """
        legal = list(legal)
        fits = [a for a in legal if self.matches(a)]
        if len(fits) == 1:
            return self if self.kind == "exchange" else fits[0]   # its tiles in its order
        who = f"{what}: " if what else ""
        if not fits:
            raise HandError(f"{who}'{self}' is not a legal action now; legal: "
                            f"{_listing(legal)}")
        raise HandError(f"{who}'{self}' could be {_listing(fits)}: say which, e.g. "
                        f"'{fits[0]}'")

    #: The same as :meth:`normalise`.
    resolve = normalise

    def to_kernel(self) -> tuple[int, int, int, int]:
        """The row ``(code, a, b, c)`` the game kernel reads (unused fields -1).

        Raises
        ------
        HandError
            For a chow, pung or kong without its tile (:meth:`normalise` it first).
        """
        if not self.complete:
            raise HandError(f"'{self}' has no tile yet: normalise it against the legal actions "
                            "before it goes to the kernel")
        code = KERNEL_CODES[self.kind]
        if self.kind == "exchange":
            fields = list(self.tiles) + [-1] * (MAX_EXCHANGE - len(self.tiles))
            return (code, *fields)
        return (code, -1 if self.tile is None else self.tile, -1, -1)


def _listing(actions: Sequence[Action], limit: int = 12) -> str:
    """The actions as notation, comma-separated, cut after ``limit`` (with the count)."""
    if not actions:
        return "none"
    head = ", ".join(str(a) for a in actions[:limit])
    return head if len(actions) <= limit else f"{head}, ... ({len(actions)} in all)"


def _normalise_case(rest: str) -> str:
    """Tile text with its letters in mjkit's case: a letter after digits (spaces between
    allowed) is their suit letter, in small letters (``5M`` -> ``5m``); the letters after
    it, or not after digits, are honours, in capitals when they all are (``e`` -> ``E``).
    Each character stays where it is (positions in messages point into the text)."""
    out = list(rest)
    for m in _LETTERS.finditer(rest):
        i = m.start()
        before = rest[:i].rstrip()
        if before and before[-1] in _DIGITS:
            out[i] = out[i].lower() if out[i] in "MPSZF" else out[i]
            i += 1
        word = rest[i:m.end()]
        if word and _HONOUR_TOKEN.fullmatch(word):
            out[i:m.end()] = word.upper()
    return "".join(out)


def parse_action(text: str) -> Action:
    """Read an action from its notation.

    Parameters
    ----------
    text : str
        ``"discard 5m"``, ``"chow 345m"`` or ``"chow 3m"`` (the chow from 3m), ``"chow"``,
        ``"pung"`` or ``"pung 5m"``, ``"kong 7p"`` or ``"kong"``, ``"win"``, ``"pass"``,
        ``"exchange 1m 9p E"`` (0..3 tiles).  Case and spaces are free: the verb in any
        case, a word of honour letters in any case (``e``), a suit letter after a digit in
        any case (``5M``).

    Returns
    -------
    Action

    Raises
    ------
    HandError
        Naming the text and what is wrong: not a str or too long, an unknown verb, tiles
        that cannot be read, the wrong number of tiles, a flower, a chow of honours or
        one that does not start at 1..7 (``chow 8m``), a pung or kong of mixed tiles,
        more than three exchange tiles.

    Examples
    --------
    >>> parse_action(" Chow 4m ")
    Action('chow 456m')
    >>> str(parse_action("exchange e 9P 1m"))
    'exchange 1m 9p E'
    """
    if not isinstance(text, str):
        raise HandError(f"an action is text such as 'discard 5m', got {type(text).__name__} "
                        f"{short_repr(text)}")
    if len(text) > _MAX_TEXT:
        raise HandError(f"action text too long ({len(text)} characters): {short_repr(text)}",
                        code="syntax")
    s = text.strip()
    low = s.lower()
    verb = next((v for v in KINDS if low.startswith(v)
                 and (len(s) == len(v) or not s[len(v)].isalpha())), None)
    if verb is None:
        word = s.split()[0] if s.split() else s
        raise HandError(f"action {text!r}: unknown verb {word!r}; an action is one of "
                        f"{', '.join(KINDS)} (e.g. 'discard 5m', 'chow 345m', 'pung', "
                        "'exchange 1m 9p E')", code="syntax")
    rest = s[len(verb):]
    start = len(text) - len(text.lstrip()) + len(verb)     # where ``rest`` is in ``text``
    try:
        tiles = [t for t, _ in scan_tiles(_normalise_case(rest), start)]
    except HandError as exc:
        raise HandError(f"action {text!r}: {exc}", code=exc.code) from None
    try:
        return _build(verb, tiles)
    except HandError as exc:
        raise HandError(f"action {text!r}: {exc}", code=exc.code) from None


def _build(verb: str, tiles: list[int]) -> Action:
    """The action ``verb`` with the tiles read after it (checked)."""
    flowers = [t for t in tiles if t >= N_KINDS]
    if flowers:
        raise HandError(f"{tile_to_str(flowers[0])} is a flower: flowers are set aside by "
                        "themselves, never played", code="unknown_tile")
    n = len(tiles)
    if verb in ("win", "pass"):
        if n:
            raise HandError(f"{verb} takes no tile", code="syntax")
        return Action(verb)
    if verb == "exchange":
        if n > MAX_EXCHANGE:
            raise HandError(f"{n} tiles: an exchange gives up at most {MAX_EXCHANGE}",
                            code="tile_count")
        return Action("exchange", tiles=tuple(tiles))
    if verb == "discard":
        if n != 1:
            raise HandError(f"a discard names exactly one tile, got {n}", code="tile_count")
        return Action("discard", tiles[0])
    if n == 0:
        return Action(verb)
    if verb == "chow":
        if n == 1:
            _check_chow_start(tiles[0])
            return Action("chow", tiles[0])
        run = sorted(tiles)
        if n != 3:
            raise HandError(f"a chow is three tiles in a row (or its first tile), got {n}",
                            code="tile_count")
        _check_chow_start(run[0])
        if run != [run[0], run[0] + 1, run[0] + 2]:
            raise HandError(f"{tiles_to_str(run)} is not three tiles in a row of one suit",
                            code="bad_meld")
        return Action("chow", run[0])
    size = 3 if verb == "pung" else 4
    if n not in (1, size) or len(set(tiles)) != 1:
        raise HandError(f"a {verb} names its tile once (or all {size} copies), got "
                        f"{tiles_to_str(tiles)}", code="bad_meld")
    return Action(verb, tiles[0])


def as_action(x: Any) -> Action:
    """``x`` as an :class:`Action`: an Action as it is, text read by :func:`parse_action`.

    Raises
    ------
    HandError
        Anything else, or text that is not an action.
    """
    if isinstance(x, Action):
        return x
    if isinstance(x, str):
        return parse_action(x)
    raise HandError(f"an action is an Action or text such as 'discard 5m', got "
                    f"{type(x).__name__} {short_repr(x)}")


def resolve(action: Any, legal: Iterable[Action], *, what: str | None = None) -> Action:
    """The legal action ``action`` (an Action or its text) means: :meth:`Action.normalise`."""
    return as_action(action).normalise(legal, what=what)


def to_kernel(action: Any) -> tuple[int, int, int, int]:
    """The kernel row of ``action`` (an Action or its text): :meth:`Action.to_kernel`."""
    return as_action(action).to_kernel()


def from_kernel(row: Any) -> Action:
    """The action of a kernel row ``[code, a, b, c]``.

    Raises
    ------
    HandError
        A row that is not four whole numbers, an unknown code (:data:`A_NONE` included:
        an empty row is no action), a tile out of range, or fields set where the code
        takes none.
    """
    try:
        vals = [int(operator.index(v)) for v in row]
    except TypeError:
        raise HandError(f"a kernel action row is four whole numbers, got {short_repr(row)}") \
            from None
    if len(vals) != 4 or any(isinstance(v, (bool, np.bool_)) for v in row):
        raise HandError(f"a kernel action row is four whole numbers, got {short_repr(row)}")
    code, a, b, c = vals
    if not 1 <= code <= len(KINDS):
        raise HandError(f"kernel action row {vals}: unknown code {code}")
    kind = KINDS[code - 1]
    if kind == "exchange":
        given = [a, b, c]
        n = next((i for i, v in enumerate(given) if v == -1), 3)
        if any(v != -1 for v in given[n:]):
            raise HandError(f"kernel action row {vals}: exchange tiles after an unused field")
        return Action("exchange", tiles=tuple(given[:n]))
    if b != -1 or c != -1:
        raise HandError(f"kernel action row {vals}: a {kind} uses only its first field")
    if kind in ("win", "pass"):
        if a != -1:
            raise HandError(f"kernel action row {vals}: a {kind} takes no tile")
        return Action(kind)
    return Action(kind, a)


def exchange_choices(counts34: Any, wild_kind: Any = None) -> list[Action]:
    """Every legal 起手换牌 exchange of a hand: 0..3 of its tiles, never the wild kind.

    Parameters
    ----------
    counts34 : sequence of int
        The hand's copies per kind (34 whole numbers 0..4).
    wild_kind : int or None
        The wild tile's kind (None or -1: no wild tile).  A wild tile is never given up.

    Returns
    -------
    list of Action
        One ``"exchange"`` action per multiset of tiles (no duplicates), the empty
        exchange first, then by number of tiles and in tile order.

    Raises
    ------
    HandError
        For counts that are not 34 whole numbers 0..4, or a bad ``wild_kind``.
    """
    if isinstance(counts34, (str, bytes)) or not hasattr(counts34, "__iter__"):
        raise HandError(f"counts34 must be 34 copy counts, got {short_repr(counts34)}")
    counts = list(itertools.islice(iter(counts34), N_KINDS + 1))
    if len(counts) != N_KINDS:
        raise HandError(f"counts34 must hold 34 copy counts, got {len(counts)}"
                        + (" or more" if len(counts) > N_KINDS else ""))
    try:
        counts = [int(operator.index(c)) for c in counts]
    except TypeError:
        raise HandError("counts34 must hold whole numbers") from None
    if any(not 0 <= c <= 4 for c in counts):
        raise HandError("counts34 must hold copy counts 0..4", code="too_many_copies")
    wild = -1 if wild_kind is None else wild_kind
    if not (isinstance(wild, (int, np.integer)) and not isinstance(wild, (bool, np.bool_))
            and -1 <= wild < N_KINDS):
        raise HandError(f"wild_kind must be a tile kind 0..33, -1 or None, got "
                        f"{short_repr(wild_kind)}")
    held = [k for k in range(N_KINDS) if counts[k] and k != wild]
    out = [Action("exchange")]
    for n in range(1, MAX_EXCHANGE + 1):
        for combo in itertools.combinations_with_replacement(held, n):
            if all(combo.count(k) <= counts[k] for k in set(combo)):
                out.append(Action("exchange", tiles=combo))
    return out


def action_text(action, lang="zh"):
    """An action in words for a person (a button, the coach, the review): ``打 5万``,
    ``碰 7饼``, ``吃 345万``, ``和`` / ``discard 5m`` ...; ``action`` is an :class:`Action` or
    its notation."""
    from .. import messages as M
    from ..pictures import tile_label

    a = as_action(action)
    if a.kind in ("win", "pass"):
        return M.text("action." + a.kind, lang)
    if a.kind == "exchange":
        if not a.tiles:
            return M.text("action.keep", lang)
        return M.text("action.exchange", lang,
                      tiles=" ".join(tile_label(k, lang) for k in a.tiles))
    if a.kind == "chow" and a.tile is not None:
        return M.text("action.chow", lang,
                      tiles="".join(tile_label(a.tile + i, lang) for i in range(3)))
    if a.tile is None:
        return M.text("action." + a.kind, lang, tile="").strip()
    return M.text("action." + a.kind, lang, tile=tile_label(a.tile, lang))
