"""Hands: melds, concealed tiles, the winning tile and the winning situation.

Notation (see ``docs/architecture.md``)::

    [123m]{EEEE}456p789s1p 1p | self_drawn seat=S flowers=13f

``[...]`` is an exposed chow, pung or kong, ``{....}`` a concealed kong, the
remaining tiles are the concealed hand and the last of them is the winning
tile (unless ``win_tile=`` is given).  Whitespace is ignored in the tile part.
After ``|`` come situation tokens: ``self_drawn``, ``last_copy``, ``kong``,
``last_wall``, ``seat=S``, ``round=E``, ``flowers=2`` / ``flowers=1f3f`` and
``win_tile=5m``, and the first-turn and ready-declaration flags of the 大众
rules: ``heavenly_hand`` (天和), ``earthly_hand`` (地和), ``human_hand`` (人和),
``heavenly_ready`` (天听), ``earthly_ready`` (地听), ``declared_ready`` (报听)
and ``double_ready`` (双报听); the Chinese names are accepted as aliases.

Every problem raises :class:`~mjkit.errors.HandError`, whose message says what
is wrong and, for notation errors, where.

Readers and writers of hand notation live here (tiles and tile groups in
:mod:`mjkit.tiles`): :func:`parse_hand`, :func:`read_tile_part`,
:func:`parse_meld`, :func:`parse_situation`; :func:`hand_text` (melds, tiles,
winning tile) and :func:`hand_to_str` (``str(hand)``).
"""

from __future__ import annotations

import itertools
import operator
import re
from collections.abc import Iterable
from dataclasses import MISSING, dataclass, field
from typing import Any

import numpy as np

from .errors import HandError
from .errors import short_repr as _short_repr
from .tiles import (
    HONOR_LETTERS, N_KINDS, counts34, scan_groups, scan_tiles, tile_from_str, tile_to_str,
    tiles_to_str,
)
from .tiles import tile_index as _index
# the argument validators live in validate.py (one home); short local names
from .validate import MAX_ITEMS as _MAX_ITEMS
from .validate import boolean as _as_bool
from .validate import flower_tile as _flower_index
from .validate import flowers as _as_flowers
from .validate import take as _take
from .validate import wind as _as_wind

__all__ = ["Meld", "Hand", "parse_hand", "parse_meld", "read_tile_part", "parse_situation",
           "hand_text", "hand_to_str", "MAX_TEXT_LEN", "MELD_KINDS"]

#: Longest notation string accepted; a real hand needs well under 100
#: characters, so anything longer is rejected before it is scanned.
MAX_TEXT_LEN = 1000
#: The kinds a :class:`Meld` may have.
MELD_KINDS = ("chow", "pung", "kong")

# First-turn and ready-declaration flags (大众 rules), with their Chinese names.
_SITUATION_ZH = {
    "heavenly_hand": "天和", "earthly_hand": "地和", "human_hand": "人和",
    "heavenly_ready": "天听", "earthly_ready": "地听", "declared_ready": "报听",
    "double_ready": "双报听",
}
_SITUATION_FLAGS = tuple(_SITUATION_ZH)
_FLAGS = ("self_drawn", "last_copy", "kong", "last_wall") + _SITUATION_FLAGS
_VALUED = ("seat_wind", "round_wind", "flowers", "win_tile")
_ALIASES = {"seat": "seat_wind", "round": "round_wind"}
_ALIASES.update({zh: name for name, zh in _SITUATION_ZH.items()})
_FLAG_SET = frozenset(_FLAGS)
_INT_ONLY = frozenset({int})
_KINDS = frozenset(range(N_KINDS))
# Situation names, aliases resolved: "flag" or "valued".
_SUFFIX_NAMES = {name: "flag" for name in _FLAGS}
_SUFFIX_NAMES.update({name: "valued" for name in _VALUED})


# --------------------------------------------------------------------------
# small converters; each turns one user value into a clean one or raises
# --------------------------------------------------------------------------

def _kind_index(tile: Any, what: str) -> int:
    """A tile index 0..33 (flowers refused)."""
    i = _index(tile)
    if i >= N_KINDS:
        raise HandError(f"flower {tile_to_str(i)} cannot be a {what}", code="unknown_tile")
    return i


def _as_tile(value: Any, what: str) -> int:
    return _kind_index(tile_from_str(value) if isinstance(value, str) else value, what)


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _check_count(n_concealed: int, n_melds: int) -> None:
    expected = 14 - 3 * n_melds
    if n_concealed != expected:
        plural = "" if n_melds == 1 else "s"
        raise HandError(f"wrong number of tiles: {n_concealed} concealed with "
                        f"{n_melds} meld{plural}, expected {expected}", code="tile_count")


def _canonical_situation(situation: dict[str, Any], source: str) -> dict[str, Any]:
    """Resolve aliases, refuse unknown or doubled keys, drop ``None`` values."""
    out: dict[str, Any] = {}
    for key, value in situation.items():
        name = _ALIASES.get(key, key)
        if name not in _SUFFIX_NAMES:
            raise HandError(f"unknown situation {source} {key!r}", code="bad_flag")
        if name in out:
            raise HandError(f"{name} given twice in the {source}s", code="bad_flag")
        out[name] = value
    return {k: v for k, v in out.items() if v is not None}


# --------------------------------------------------------------------------
# Meld
# --------------------------------------------------------------------------

@dataclass(frozen=True)
class Meld:
    """A declared set: an exposed chow, pung or kong, or a concealed kong.

    Parameters
    ----------
    kind : {"chow", "pung", "kong"}
    tile : int
        Lowest tile index of the set (0..33).
    concealed : bool, default False
        Only kongs can be concealed (``{5555p}``); concealed chows and pungs
        are simply part of the concealed tiles.
    """

    kind: str
    tile: int
    concealed: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.kind, str) or self.kind not in MELD_KINDS:
            raise HandError(f"unknown meld kind {_short_repr(self.kind)}: "
                            "expected 'chow', 'pung' or 'kong'", code="bad_meld")
        tile = self.tile
        if type(tile) is not int or not 0 <= tile < N_KINDS:
            tile = _kind_index(tile, "meld tile")
            object.__setattr__(self, "tile", tile)
        concealed = self.concealed
        if type(concealed) is not bool:
            concealed = _as_bool(concealed, "Meld.concealed")
            object.__setattr__(self, "concealed", concealed)
        if self.kind == "chow":
            if tile >= 27:
                raise HandError(f"chow {self._label()}: honours cannot form a chow",
                                code="bad_meld")
            if tile % 9 > 6:
                raise HandError(f"chow {self._label()} is not a run", code="bad_meld")
        if concealed and self.kind != "kong":
            raise HandError(f"concealed meld {self._label()} is not a kong: only "
                            "kongs are written in {}; put concealed sets with the "
                            "concealed tiles", code="bad_meld")

    def _label(self) -> str:
        # Works on unvalidated chows too (e.g. starting at 8m), for messages.
        step = 1 if self.kind == "chow" else 0
        n = 4 if self.kind == "kong" else 3
        body = tiles_to_str(min(self.tile + k * step, 41) for k in range(n))
        return f"{{{body}}}" if self.concealed else f"[{body}]"

    @property
    def tiles(self) -> tuple[int, ...]:
        """The 3 or 4 tile indices of the set."""
        if self.kind == "chow":
            return (self.tile, self.tile + 1, self.tile + 2)
        return (self.tile,) * (4 if self.kind == "kong" else 3)

    def __str__(self) -> str:
        label = _MELD_LABELS.get((self.kind, self.tile, self.concealed))
        return label if label is not None else self._label()

    @classmethod
    def from_tiles(cls, tiles: Iterable[int], concealed: bool = False) -> "Meld":
        """Recognise the set formed by ``tiles`` (in any order).

        Raises
        ------
        HandError
            If the tiles are no chow, pung or kong.
        """
        tiles = sorted(_index(t) for t in _take(tiles, _MAX_ITEMS, "meld tiles"))
        if not tiles:
            raise HandError("empty meld", code="bad_meld")
        if any(t >= N_KINDS for t in tiles):
            label = _label_of(tiles, concealed)
            raise HandError(f"meld {label} contains a flower; flowers are never "
                            "part of a set", code="bad_meld")
        distinct = len(set(tiles))
        if len(tiles) == 4:
            if distinct != 1:
                label = _label_of(tiles, concealed)
                raise HandError(f"kong {label} must be four copies of one tile", code="bad_meld")
            return cls("kong", tiles[0], concealed)
        if len(tiles) != 3:
            label = _label_of(tiles, concealed)
            raise HandError(f"meld {label} has {len(tiles)} tiles: expected 3 "
                            "(chow or pung) or 4 (kong)", code="bad_meld")
        if distinct == 1:
            return cls("pung", tiles[0], concealed)
        if distinct == 2:
            label = _label_of(tiles, concealed)
            raise HandError(f"meld {label} is neither a chow nor a pung", code="bad_meld")
        if any(t >= 27 for t in tiles):
            label = _label_of(tiles, concealed)
            raise HandError(f"chow {label}: honours cannot form a chow", code="bad_meld")
        if len({t // 9 for t in tiles}) != 1:
            label = _label_of(tiles, concealed)
            raise HandError(f"chow {label} mixes suits", code="bad_meld")
        if tiles[2] - tiles[0] != 2:
            label = _label_of(tiles, concealed)
            raise HandError(f"chow {label} is not a run", code="bad_meld")
        return cls("chow", tiles[0], concealed)


def _label_of(tiles: list[int], concealed: Any) -> str:
    body = tiles_to_str(tiles)
    return f"{{{body}}}" if concealed else f"[{body}]"


def _trusted_meld(kind: str, tile: int, concealed: bool) -> Meld:
    """A Meld from values already known to be valid, without __post_init__."""
    meld = object.__new__(Meld)
    meld.__dict__.update(kind=kind, tile=tile, concealed=concealed)
    return meld


def _meld_tables() -> tuple[dict, dict, dict]:
    """Every valid meld once (Melds are immutable, so they can be shared).

    Returns {(kind, tile, concealed): label} and, for exposed and concealed
    melds, {tiles in any order: Meld}, the bracket contents the tile-part
    scanner can take without :meth:`Meld.from_tiles`.
    """
    labels: dict[tuple[str, int, bool], str] = {}
    exposed: dict[tuple[int, ...], Meld] = {}
    closed: dict[tuple[int, ...], Meld] = {}
    for t in range(N_KINDS):
        sets = [("pung", t, False), ("kong", t, False), ("kong", t, True)]
        if t < 27 and t % 9 <= 6:
            sets.append(("chow", t, False))
        for kind, tile, concealed in sets:
            meld = _trusted_meld(kind, tile, concealed)
            labels[(kind, tile, concealed)] = meld._label()
            table = closed if concealed else exposed
            for order in set(itertools.permutations(meld.tiles)):
                table[order] = meld
    return labels, exposed, closed


_MELD_LABELS, _EXPOSED_MELDS, _CONCEALED_MELDS = _meld_tables()
_MELD_ONLY = frozenset({Meld})


# --------------------------------------------------------------------------
# Hand
# --------------------------------------------------------------------------

_OTHER_ZH = {"self_drawn": "自摸", "last_copy": "和绝张", "kong": "杠上开花/抢杠和",
             "last_wall": "妙手回春/海底捞月"}
_READY_DECLARATIONS = frozenset({"declared_ready", "heavenly_ready", "earthly_ready"})


def _flag_label(name: str) -> str:
    """``"heavenly_hand (天和)"``: a flag with its Chinese name, for messages."""
    return f"{name} ({_SITUATION_ZH.get(name) or _OTHER_ZH[name]})"


# Situation flags that can never hold together, and why (the end of the error
# message).  Only combinations impossible at a real table are listed; a few
# that depend on the seat or on a third flag are in Hand._check_situation.
_AT_THE_DEAL = "天和 wins on the dealt tiles, before any ready declaration"
_SITUATION_CONFLICTS = (
    # 天和: the dealer wins on the dealt tiles; nothing has happened yet.
    ("heavenly_hand", "earthly_hand", "天和 is the dealer's win, 地和 a non-dealer's"),
    ("heavenly_hand", "human_hand", "天和 is self-drawn, 人和 is won on a discard"),
    ("heavenly_hand", "heavenly_ready", _AT_THE_DEAL),
    ("heavenly_hand", "earthly_ready", _AT_THE_DEAL),
    ("heavenly_hand", "declared_ready", _AT_THE_DEAL),
    ("heavenly_hand", "double_ready", _AT_THE_DEAL),
    ("heavenly_hand", "kong", "a kong after the deal voids 天和"),
    ("heavenly_hand", "last_copy", "no tile has been shown at the deal"),
    ("heavenly_hand", "last_wall", "the wall is still full at the deal"),
    # 地和: a non-dealer wins on the first tile drawn.
    ("earthly_hand", "human_hand", "地和 is self-drawn, 人和 is won on a discard"),
    ("earthly_hand", "earthly_ready", "地听 is declared after the first draw, and 地和 "
                                      "wins on that draw"),
    ("earthly_hand", "kong", "a kong before the first draw voids 地和, and a kong "
                             "replacement is not the first draw"),
    ("earthly_hand", "last_wall", "the first draw is not the last tile of the wall"),
    # 人和: won on a discard before the winner's own first draw.
    ("human_hand", "earthly_ready", "人和 comes before the winner's first draw, 地听 "
                                    "after it"),
    ("human_hand", "kong", "robbing a kong needs a kong in the first go-round, which "
                           "voids 人和"),
    ("human_hand", "last_wall", "the wall is not used up in the first go-round"),
    # Ready declarations.
    ("heavenly_ready", "earthly_ready", "a hand is ready on the dealt tiles (天听) or "
                                        "only after the first draw (地听)"),
    ("double_ready", "kong", "杠上开花 or 抢杠和 puts a kong between the declaration and "
                             "the win, which voids 双报听"),
)


@dataclass(frozen=True, repr=False, init=False)
class Hand:
    """A complete hand at the moment of winning.

    Construction validates everything; use :func:`parse_hand` or
    :meth:`Hand.from_parts` for notation strings and friendlier inputs.

    Parameters
    ----------
    concealed : tuple of int
        Concealed tile indices 0..33, winning tile included (stored sorted).
    melds : tuple of Meld
        Declared sets, at most 4, in the order given.
    win_tile : int
        The winning tile; one of ``concealed``.
    self_drawn, last_copy, kong, last_wall : bool
        自摸, 和绝张, 杠上开花 (with ``self_drawn``) or 抢杠和 (without),
        妙手回春 / 海底捞月.
    seat_wind, round_wind : int
        0=East, 1=South, 2=West, 3=North (names such as ``"S"`` accepted).
    flowers : int
        Number of flowers, 0..8.
    flower_tiles : tuple of int
        The flower tiles (34..41) when known; empty if only the count is.
    heavenly_hand, earthly_hand, human_hand : bool
        天和 (the dealer, seat East, wins on the dealt tiles), 地和 (a
        non-dealer wins on the first tile drawn), 人和 (a win on a discard in
        the first go-round, before the winner's own first draw).
    heavenly_ready, earthly_ready, declared_ready, double_ready : bool
        天听 (ready on the dealt tiles, declared), 地听 (ready after the first
        draw, declared), 报听 (declared ready, then won), 双报听 (won within
        one go-round of the declaration).

    Combinations that cannot happen at a table are refused, e.g. 天和 that
    is not self-drawn or not East's, or 地和 together with 地听; see
    :meth:`_check_situation`.
    """

    concealed: tuple[int, ...]
    melds: tuple[Meld, ...]
    win_tile: int
    self_drawn: bool = False
    last_copy: bool = False
    kong: bool = False
    last_wall: bool = False
    seat_wind: int = 0
    round_wind: int = 0
    flowers: int = 0
    flower_tiles: tuple[int, ...] = field(default=())
    heavenly_hand: bool = False
    earthly_hand: bool = False
    human_hand: bool = False
    heavenly_ready: bool = False
    earthly_ready: bool = False
    declared_ready: bool = False
    double_ready: bool = False

    # Written out instead of generated: the generated __init__ of a frozen
    # dataclass sets each of the 18 fields with its own object.__setattr__
    # call (well over a microsecond in all); one dict update is a fraction of
    # that.  The signature is the dataclass one (a test compares them).
    def __init__(self, concealed: tuple[int, ...], melds: tuple[Meld, ...], win_tile: int,
                 self_drawn: bool = False, last_copy: bool = False, kong: bool = False,
                 last_wall: bool = False, seat_wind: int = 0, round_wind: int = 0,
                 flowers: int = 0, flower_tiles: tuple[int, ...] = (),
                 heavenly_hand: bool = False, earthly_hand: bool = False,
                 human_hand: bool = False, heavenly_ready: bool = False,
                 earthly_ready: bool = False, declared_ready: bool = False,
                 double_ready: bool = False) -> None:
        self.__dict__.update(
            concealed=concealed, melds=melds, win_tile=win_tile, self_drawn=self_drawn,
            last_copy=last_copy, kong=kong, last_wall=last_wall, seat_wind=seat_wind,
            round_wind=round_wind, flowers=flowers, flower_tiles=flower_tiles,
            heavenly_hand=heavenly_hand, earthly_hand=earthly_hand, human_hand=human_hand,
            heavenly_ready=heavenly_ready, earthly_ready=earthly_ready,
            declared_ready=declared_ready, double_ready=double_ready)
        self.__post_init__()

    def __post_init__(self) -> None:
        d = self.__dict__
        melds, concealed = d["melds"], d["concealed"]
        if (type(melds) is tuple and len(melds) <= 4 and _MELD_ONLY.issuperset(map(type, melds))
                and (type(concealed) is tuple or type(concealed) is list)
                and len(concealed) <= _MAX_ITEMS
                and _INT_ONLY.issuperset(map(type, concealed))
                and _KINDS.issuperset(concealed)
                and type(d["win_tile"]) is int and 0 <= d["win_tile"] < N_KINDS
                and type(d["self_drawn"]) is bool and type(d["last_copy"]) is bool
                and type(d["kong"]) is bool and type(d["last_wall"]) is bool
                and type(d["seat_wind"]) is int and 0 <= d["seat_wind"] <= 3
                and type(d["round_wind"]) is int and 0 <= d["round_wind"] <= 3
                and type(d["flowers"]) is int and 0 <= d["flowers"] <= 8
                and type(d["flower_tiles"]) is tuple and not d["flower_tiles"]
                # the first-turn / ready flags: usually all False, so "is False"
                # settles each with one test
                and (self.heavenly_hand is False or self.heavenly_hand is True)
                and (self.earthly_hand is False or self.earthly_hand is True)
                and (self.human_hand is False or self.human_hand is True)
                and (self.heavenly_ready is False or self.heavenly_ready is True)
                and (self.earthly_ready is False or self.earthly_ready is True)
                and (self.declared_ready is False or self.declared_ready is True)
                and (self.double_ready is False or self.double_ready is True)):
            # Already normal (plain ints and bools, no flower tiles): what the
            # general path below would do reduces to sorting the tiles.
            d["concealed"] = tuple(sorted(concealed))
        else:
            self._normalise()
        self._validate()

    def _normalise(self) -> None:
        """Turn loosely typed field values into canonical ones, or raise."""
        def put(name: str, value: Any) -> None:
            object.__setattr__(self, name, value)  # frozen: normalise in place

        melds = _take(self.melds, _MAX_ITEMS, "melds")
        if not all(isinstance(m, Meld) for m in melds):
            raise HandError("melds must be Meld objects")
        if len(melds) > 4:
            raise HandError(f"more than 4 melds ({len(melds)})", code="tile_count")
        concealed = sorted(_kind_index(t, "concealed tile")
                           for t in _take(self.concealed, _MAX_ITEMS, "concealed tiles"))
        put("melds", tuple(melds))
        put("concealed", tuple(concealed))
        put("win_tile", _kind_index(self.win_tile, "winning tile"))
        for name in _FLAGS:
            put(name, _as_bool(getattr(self, name), name))
        put("seat_wind", _as_wind(self.seat_wind, "seat_wind"))
        put("round_wind", _as_wind(self.round_wind, "round_wind"))
        count = _as_flowers(self.flowers)
        if not isinstance(count, int):
            raise HandError("Hand.flowers must be a count; pass the tiles as flower_tiles")
        flower_tiles = sorted(_flower_index(t)
                              for t in _take(self.flower_tiles, _MAX_ITEMS, "flower tiles"))
        for a, b in zip(flower_tiles, flower_tiles[1:]):
            if a == b:
                raise HandError(f"flower {tile_to_str(a)} repeated", code="too_many_copies")
        if flower_tiles and count != len(flower_tiles):
            raise HandError(f"flowers={count} but {len(flower_tiles)} flower tiles given")
        put("flowers", count)
        put("flower_tiles", tuple(flower_tiles))

    def _validate(self) -> None:
        """Checks that involve several fields at once (fields already normal)."""
        concealed, melds = self.concealed, self.melds
        if len(concealed) != 14 - 3 * len(melds):
            _check_count(len(concealed), len(melds))
        win = self.win_tile
        if win not in concealed:
            raise HandError(f"winning tile {tile_to_str(win)} is not in the hand", code="win_tile")
        # A fifth copy shows as two equal entries 4 apart in the sorted tiles.
        every = list(concealed)
        for m in melds:
            every += m.tiles
        every.sort()
        if any(map(operator.eq, every, every[4:])):
            in_hand, in_melds = self._counts_in_hand_and_melds()
            for t in range(N_KINDS):  # the lowest tile with too many copies
                c, m = in_hand[t], in_melds[t]
                if c + m > 4:
                    raise HandError(f"{_ordinal(c + m)} copy of {tile_to_str(t)} "
                                    f"({c} in hand, {m} in melds); only 4 exist",
                                    code="too_many_copies")
        if (self.heavenly_hand or self.earthly_hand or self.human_hand or self.heavenly_ready
                or self.earthly_ready or self.declared_ready or self.double_ready):
            self._check_situation()
        if not (self.kong or self.last_copy):
            return
        others = concealed.count(win) - 1  # copies besides the winning tile itself
        name = tile_to_str(win)
        if self.kong and self.self_drawn:
            if not any(m.kind == "kong" for m in melds):
                raise HandError("kong=True on a self-draw needs a kong meld (杠上开花)",
                                code="bad_flag")
        elif self.kong and (others or any(win in m.tiles for m in melds)):
            raise HandError(f"robbing a kong (抢杠和) but the hand already holds {name}",
                            code="bad_flag")
        if self.last_copy and others:
            copies = "1 other copy" if others == 1 else f"{others} other copies"
            verb = "is" if others == 1 else "are"
            raise HandError(f"last_copy (和绝张) but {copies} of {name} {verb} in "
                            "the concealed hand", code="bad_flag")

    def _check_situation(self) -> None:
        """The first-turn and ready-declaration flags against the rest.

        Only what cannot happen at a table is refused (see
        ``_SITUATION_CONFLICTS`` for the pairs).  "First go-round" for 人和 is
        read as in the 大众 rules: from the dealer's first discard until the
        winner's own first draw.  Runs only when one of these flags is set.
        """
        on = {name for name in _FLAGS if getattr(self, name)}
        for a, b, reason in _SITUATION_CONFLICTS:
            if a in on and b in on:
                raise HandError(f"{_flag_label(a)} and {_flag_label(b)} cannot both "
                                f"hold: {reason}", code="bad_flag")
        melds, seat = self.melds, self.seat_wind
        exposed = [m for m in melds if not m.concealed]
        if "heavenly_hand" in on:
            if not self.self_drawn:
                raise HandError("heavenly_hand (天和) needs self_drawn", code="bad_flag")
            if seat != 0:  # the dealer is East
                raise HandError(f"heavenly_hand (天和) needs seat=E, got "
                                f"seat={HONOR_LETTERS[seat]}: only the dealer wins "
                                "on the dealt tiles", code="bad_flag")
            if melds:  # even a concealed kong comes after the deal
                raise HandError(f"heavenly_hand (天和) allows no melds, got {melds[0]}: "
                                "even a concealed kong after the deal voids 天和", code="bad_flag")
        if "earthly_hand" in on:
            if not self.self_drawn:
                raise HandError("earthly_hand (地和) needs self_drawn", code="bad_flag")
            if seat == 0:  # the dealer's win on the dealt tiles is 天和
                raise HandError("earthly_hand (地和) needs a non-dealer seat (S, W or N), "
                                "got seat=E: the dealer's first win is 天和", code="bad_flag")
            if melds:  # no turn before the first draw, and any kong voids 地和
                raise HandError(f"earthly_hand (地和) allows no melds, got {melds[0]}: "
                                "the win comes on the first draw", code="bad_flag")
            if "last_copy" in on and seat != 3:
                # 和绝张 needs 3 copies shown; before a player's first draw only
                # the seats before it have discarded, one tile each: E, S, W
                # before North, fewer before South and West.
                raise HandError("earthly_hand (地和) with last_copy (和绝张) needs seat=N: "
                                "only North sees 3 discards before its first draw", code="bad_flag")
        if "human_hand" in on:
            if self.self_drawn:
                raise HandError("human_hand (人和) is a win on a discard: not with self_drawn",
                                code="bad_flag")
            if melds:  # the win comes before the winner's first turn
                raise HandError(f"human_hand (人和) allows no melds, got {melds[0]}: "
                                "the win comes before the winner's first draw", code="bad_flag")
            if "last_copy" in on and seat != 0:
                # 3 copies must be shown before the winning discard.  Before a
                # non-dealer's first draw at most 3 tiles are discarded, the
                # winning one included; the dealer sees E, S, W discard and
                # wins on North's.
                raise HandError("human_hand (人和) with last_copy (和绝张) needs seat=E: "
                                "only the dealer sees 3 discards before the winning one "
                                "in the first go-round", code="bad_flag")
        for name in ("heavenly_ready", "earthly_ready", "declared_ready"):
            if name in on and exposed:  # 报听 and friends need a concealed hand
                raise HandError(f"{_flag_label(name)} allows no exposed melds, got "
                                f"{exposed[0]}: only a concealed hand declares ready "
                                "(concealed kongs are fine)", code="bad_flag")
        if "declared_ready" in on and "heavenly_ready" not in on:
            # Before one's first draw the only declaration possible is 天听
            # (the dealer's comes with its first discard).
            for first in ("earthly_hand", "human_hand"):
                if first in on:
                    raise HandError(f"declared_ready (报听) with {_flag_label(first)} "
                                    "needs heavenly_ready (天听): before the first draw "
                                    "only 天听 can have been declared", code="bad_flag")
        if "double_ready" in on and not on & _READY_DECLARATIONS:
            raise HandError("double_ready (双报听) needs a ready declaration: "
                            "declared_ready (报听), heavenly_ready (天听) or "
                            "earthly_ready (地听)", code="bad_flag")

    def _counts_in_hand_and_melds(self) -> tuple[list[int], list[int]]:
        in_hand = [0] * N_KINDS
        for t in self.concealed:
            in_hand[t] += 1
        in_melds = [0] * N_KINDS
        for m in self.melds:
            for t in m.tiles:
                in_melds[t] += 1
        return in_hand, in_melds

    # -- constructors ------------------------------------------------------

    @classmethod
    def from_parts(cls, concealed: str | Iterable[int | str],
                   melds: str | Iterable[Meld | str] = (),
                   win_tile: int | str | None = None, **situation: Any) -> "Hand":
        """Build a hand from loosely typed parts.

        Parameters
        ----------
        concealed : str or iterable of int or str
            Concealed tiles in notation (``"456p789s1p1p"``) or as indices /
            tile strings.  Without ``win_tile`` the last one is the winning
            tile.  Flower tiles are set aside as flowers.
        melds : str or iterable of Meld or str, optional
            ``"[123m]{EEEE}"``, or a sequence of :class:`Meld` / ``"[123m]"``.
        win_tile : int or str, optional
            If ``concealed`` is one tile short it is added, otherwise it must
            be among the concealed tiles.
        **situation
            ``self_drawn``, ``last_copy``, ``kong``, ``last_wall``,
            ``seat_wind`` (``seat``), ``round_wind`` (``round``), ``flowers``
            (count, ``"1f3f"`` or a list of flower tiles), and
            ``heavenly_hand`` … ``double_ready`` (or their Chinese names
            ``天和`` … ``双报听``).

        Returns
        -------
        Hand
        """
        situation = _canonical_situation(situation, "keyword")
        if win_tile is not None:
            if "win_tile" in situation:
                raise HandError("win_tile given twice", code="bad_flag")
            situation["win_tile"] = win_tile
        if isinstance(concealed, str):
            _check_length(concealed)
            tiles = [t for t, _ in scan_tiles(concealed)]
        else:
            tiles = [tile_from_str(t) if isinstance(t, str) else _index(t)
                     for t in _take(concealed, _MAX_ITEMS, "concealed tiles")]
        if isinstance(melds, str):
            _check_length(melds)
            meld_list, loose = read_tile_part(melds)
            if loose:
                raise HandError(f"melds {_short_repr(melds)} contain tiles outside brackets",
                                code="syntax")
        else:
            meld_list = [m if isinstance(m, Meld) else parse_meld(m)
                         for m in _take(melds, _MAX_ITEMS, "melds")]
        return _build(cls, tiles, meld_list, situation)

    @classmethod
    def parse(cls, text: str, **situation: Any) -> "Hand":
        """Same as :func:`parse_hand`."""
        return parse_hand(text, **situation)

    # -- views ---------------------------------------------------------------

    def counts(self) -> np.ndarray:
        """Concealed tiles per kind, winning tile included: int64 ``(34,)``."""
        return counts34(self.concealed)

    def all_counts(self) -> np.ndarray:
        """All tiles per kind, melds included (a kong counts 4): int64 ``(34,)``."""
        counts = [0] * N_KINDS
        for t in self.concealed:
            counts[t] += 1
        for meld in self.melds:
            for t in meld.tiles:
                counts[t] += 1
        return np.array(counts, dtype=np.int64)

    @property
    def is_closed(self) -> bool:
        """True when no meld is exposed (concealed kongs keep a hand closed)."""
        return all(m.concealed for m in self.melds)

    def situation_tokens(self, all_winds: bool = False) -> list[str]:
        """The situation as notation tokens, e.g. ``["self_drawn", "seat=S"]``.

        Parameters
        ----------
        all_winds : bool, default False
            Write ``seat=`` and ``round=`` even when East (the default), so
            the text does not rely on the reader's defaults.  Otherwise only
            what differs from the defaults is written.
        """
        d = self.__dict__
        tokens = [name for name in _FLAGS if d[name]]
        if all_winds or self.seat_wind:
            tokens.append(_SEAT_TOKENS[self.seat_wind])
        if all_winds or self.round_wind:
            tokens.append(_ROUND_TOKENS[self.round_wind])
        if self.flower_tiles:
            tokens.append(f"flowers={tiles_to_str(self.flower_tiles)}")
        elif self.flowers:
            tokens.append(f"flowers={self.flowers}")
        return tokens

    def __str__(self) -> str:
        return hand_to_str(self)

    def __repr__(self) -> str:
        return f"Hand.parse({str(self)!r})"

    def _repr_svg_(self) -> str:
        """Notebook display: the hand as tiles (:func:`mjkit.pictures.hand_svg`)."""
        from .pictures import hand_svg  # lazily: `import mjkit` stays fast

        return hand_svg(self)


# --------------------------------------------------------------------------
# writing
# --------------------------------------------------------------------------

_SEAT_TOKENS = tuple(f"seat={w}" for w in HONOR_LETTERS[:4])
_ROUND_TOKENS = tuple(f"round={w}" for w in HONOR_LETTERS[:4])


def hand_text(tiles: Iterable[int], melds: Iterable[Meld] = (),
              win_tile: int | None = None) -> str:
    """The tile part of hand notation: melds, then tiles, then the winning tile.

    Parameters
    ----------
    tiles : iterable of int
        Concealed tile indices in any order (see
        :func:`mjkit.tiles.tiles_of_counts` for a count vector).
    melds : iterable of Meld, optional
        Written first, in the order given.
    win_tile : int, optional
        One copy of it is taken from ``tiles`` and written last, after a
        space (the notation's winning tile); without it the tiles are
        written as they are (a hand before the win, a pattern).

    Returns
    -------
    str
        For example ``"[123m]55m456p789sE E"``; what :func:`read_tile_part`
        reads back.

    Raises
    ------
    HandError
        If ``win_tile`` is not among ``tiles``, or for a bad tile index.
    """
    head = "".join([str(m) for m in melds])
    if win_tile is None:
        return head + tiles_to_str(tiles)
    rest = list(tiles)
    try:
        rest.remove(win_tile)
    except ValueError:
        raise HandError(f"winning tile {tile_to_str(win_tile)} is not among the tiles",
                        code="win_tile") from None
    return head + tiles_to_str(rest) + " " + tile_to_str(win_tile)


def hand_to_str(hand: Hand, *, all_winds: bool = False) -> str:
    """Hand notation of a :class:`Hand`, the ``| situation`` suffix included.

    ``str(hand)`` is ``hand_to_str(hand)``; :func:`parse_hand` reads either
    form back to an equal hand.

    Parameters
    ----------
    hand : Hand
    all_winds : bool, default False
        Write ``seat=`` and ``round=`` even when East (see
        :meth:`Hand.situation_tokens`).

    Returns
    -------
    str
        For example ``"[123m]55m456p789sEE E | self_drawn seat=S"``.
    """
    text = hand_text(hand.concealed, hand.melds, hand.win_tile)
    tokens = hand.situation_tokens(all_winds)
    return f"{text} | {' '.join(tokens)}" if tokens else text


# --------------------------------------------------------------------------
# parsing
# --------------------------------------------------------------------------

def _check_length(text: str) -> None:
    if len(text) > MAX_TEXT_LEN:
        raise HandError(f"input too long: {len(text)} characters "
                        f"(at most {MAX_TEXT_LEN})", code="syntax")


def parse_meld(text: Any) -> Meld:
    """Read exactly one meld, ``"[123m]"``, ``"[EEE]"`` or ``"{5555p}"``.

    Raises
    ------
    HandError
        If ``text`` is not a str holding exactly one bracketed meld.
    """
    if not isinstance(text, str):
        raise HandError(f"expected a Meld or a meld str, got {type(text).__name__}")
    _check_length(text)
    melds, loose = read_tile_part(text)
    if len(melds) != 1 or loose:
        raise HandError(f"expected exactly one meld, got {_short_repr(text)}", code="bad_meld")
    return melds[0]


def read_tile_part(text: str) -> tuple[list[Meld], list[int]]:
    """Read the tile part of hand notation (what comes before ``|``).

    Parameters
    ----------
    text : str
        Melds in brackets and loose tiles, e.g. ``"[123m]{EEEE}456p789s1p 1p"``;
        no situation suffix.

    Returns
    -------
    (list of Meld, list of int)
        The melds and the loose tile indices (flowers included), both in
        text order.

    Raises
    ------
    HandError
        For text that is not a str, longer than :data:`MAX_TEXT_LEN`, or
        not valid notation (the message says what and where).
    """
    if not isinstance(text, str):
        raise HandError(f"expected tiles in notation (str), got {type(text).__name__}")
    _check_length(text)
    scanned = _fast_tile_part(text)
    return scanned if scanned is not None else _read_tile_part_checked(text)


def _read_tile_part_checked(text: str) -> tuple[list[Meld], list[int]]:
    """:func:`read_tile_part` the slow way, which says exactly what is wrong and where."""
    melds: list[Meld] = []
    loose: list[tuple[int, int]] = []
    start = 0            # start of the current run of loose tiles
    open_at = -1         # position of the unclosed bracket, if any
    for pos, ch in enumerate(text):
        if ch in "[{":
            if open_at >= 0:
                raise HandError(f"unbalanced brackets: {ch!r} at position {pos} "
                                f"inside the meld opened at position {open_at}", code="syntax")
            loose += scan_tiles(text[start:pos], offset=start)
            open_at = pos
        elif ch in "]}":
            if open_at < 0:
                raise HandError(f"unbalanced brackets: {ch!r} at position {pos} "
                                "has no opening bracket", code="syntax")
            opener = text[open_at]
            if "[]{}".index(opener) + 1 != "[]{}".index(ch):
                raise HandError(f"unbalanced brackets: {opener!r} at position "
                                f"{open_at} closed by {ch!r} at position {pos}", code="syntax")
            inner = scan_tiles(text[open_at + 1:pos], offset=open_at + 1)
            if not inner:
                raise HandError(f"empty meld {opener}{ch} at position {open_at}", code="syntax")
            melds.append(Meld.from_tiles([t for t, _ in inner], concealed=opener == "{"))
            open_at, start = -1, pos + 1
    if open_at >= 0:
        raise HandError(f"unbalanced brackets: {text[open_at]!r} at position "
                        f"{open_at} is never closed", code="syntax")
    loose += scan_tiles(text[start:], offset=start)
    return melds, [t for t, _ in loose]


def _fast_tile_part(text: str) -> tuple[list[Meld], list[int]] | None:
    """:func:`read_tile_part` for well-formed text; ``None`` on anything unusual.

    One pass of :func:`mjkit.tiles.scan_groups`, the groups looked up in the
    tables of valid melds.  It accepts exactly what :func:`read_tile_part`
    accepts, with the same result; on any problem it gives up instead of
    raising, and the caller re-reads with :func:`read_tile_part`, which says
    what is wrong and where.
    """
    scanned = scan_groups(text)
    if scanned is None:
        return None
    groups, loose = scanned
    melds: list[Meld] = []
    for tiles, concealed in groups:
        meld = (_CONCEALED_MELDS if concealed else _EXPOSED_MELDS).get(tiles)
        if meld is None:
            return None
        melds.append(meld)
    return melds, loose


_SPACED_EQUALS = re.compile(r"\s=|=\s")


def parse_situation(text: str) -> dict[str, Any]:
    """Read the situation tokens of hand notation (what comes after ``|``).

    Parameters
    ----------
    text : str
        For example ``"self_drawn seat=S flowers=13f"``.

    Returns
    -------
    dict
        ``{name: value}`` with canonical names (aliases such as ``seat`` and
        the Chinese flag names resolved); flags map to True, valued tokens
        to their text (checked later, when the hand is built).

    Raises
    ------
    HandError
        For an unknown or doubled token, a flag with a value or a valued
        token without one (code ``"bad_flag"``).
    """
    if "," in text or "=" in text and _SPACED_EQUALS.search(text):
        # Commas, or spaces around "=": the general (regex) splitting.  Without
        # them it gives the same tokens as str.split (both split on Unicode
        # whitespace, str.isspace), so the usual case needs no regex.
        text = re.sub(r"\s*=\s*", "=", text)  # allow "seat = S"
        tokens = re.split(r"[\s,]+", text.strip())
    else:
        tokens = text.split()
    out: dict[str, Any] = {}
    for token in tokens:
        if not token:
            continue
        key, eq, value = token.partition("=")
        name = _ALIASES.get(key, key)
        kind = _SUFFIX_NAMES.get(name)
        if kind == "flag":
            if eq:
                raise HandError(f"situation token {key!r} takes no value", code="bad_flag")
            value = True
        elif kind == "valued":
            if not value:
                raise HandError(f"situation token {key!r} needs a value, e.g. {key}=…",
                                code="bad_flag")
        else:
            raise HandError(f"unknown situation token {_short_repr(token)}", code="bad_flag")
        if name in out:
            raise HandError(f"situation token {name!r} given twice", code="bad_flag")
        out[name] = value
    return out


def _build(cls: type[Hand], tiles: list[int], melds: list[Meld],
           situation: dict[str, Any]) -> Hand:
    """Shared tail of :func:`parse_hand` and :meth:`Hand.from_parts`:
    set flowers aside, settle the winning tile, normalise the situation.

    ``tiles`` are tile indices 0..41 (plain ints) and ``melds`` Meld objects,
    as the callers produce them.
    """
    if max(tiles, default=0) >= N_KINDS:
        tile_flowers = [t for t in tiles if t >= N_KINDS]
        tiles = [t for t in tiles if t < N_KINDS]
    else:
        tile_flowers, tiles = [], list(tiles)
    if len(melds) > 4:
        raise HandError(f"more than 4 melds ({len(melds)})", code="tile_count")

    # Flowers written among the tiles add to flower tiles given as a setting;
    # a bare count must agree with them.
    setting = situation.pop("flowers", None)
    value = [] if setting is None else _as_flowers(setting)
    if isinstance(value, list):
        flower_tiles = tile_flowers + value
        count = len(flower_tiles)
    else:
        count, flower_tiles = value, tile_flowers
        if tile_flowers and count != len(tile_flowers):
            raise HandError(f"flowers={count} but {len(tile_flowers)} flower tiles "
                            "are written in the hand")
    if len(set(flower_tiles)) != len(flower_tiles):
        for t in sorted(set(flower_tiles)):
            if flower_tiles.count(t) > 1:
                raise HandError(f"flower {tile_to_str(t)} repeated", code="too_many_copies")

    win = situation.pop("win_tile", None)
    if win is not None:
        win = _as_tile(win, "winning tile")
        if len(tiles) == 14 - 3 * len(melds) - 1:
            tiles.append(win)
    _check_count(len(tiles), len(melds))
    if win is None:
        win = tiles[-1]

    # What is left of the situation: flags and winds, canonical names only.
    fields: dict[str, Any] = {}
    for name, value in situation.items():
        if name in _FLAG_SET:
            fields[name] = value if value is True or value is False else _as_bool(value, name)
        else:  # seat_wind or round_wind
            fields[name] = _as_wind(value, name)
    if cls is not Hand:  # a subclass may add its own checks: the full path
        return cls(tuple(tiles), tuple(melds), win, flowers=count,
                   flower_tiles=tuple(flower_tiles), **fields)
    # Every field is now what Hand.__post_init__ would make of it (tile ints
    # 0..33, Meld objects, bools, winds 0..3, flowers 0..8 agreeing with
    # distinct flower tiles), so skip that and run only the checks across fields.
    tiles.sort()
    flower_tiles.sort()
    return _trusted_hand(tuple(tiles), tuple(melds), win, count, tuple(flower_tiles), fields)


# Every Hand field with its default, in field order (the first three have
# none; _trusted_hand always overwrites them).
_FIELD_DEFAULTS = {name: (None if f.default is MISSING else f.default)
                   for name, f in Hand.__dataclass_fields__.items()}


def _trusted_hand(concealed: tuple[int, ...], melds: tuple[Meld, ...], win_tile: int,
                  flowers: int, flower_tiles: tuple[int, ...],
                  situation: dict[str, Any]) -> Hand:
    """A Hand from fields already in canonical form (as ``Hand.__post_init__``
    leaves them: sorted tuples, plain ints and bools, each value in range);
    ``situation`` holds the flags and winds that differ from the defaults
    (canonical names).  Only the checks that involve several fields
    (:meth:`Hand._validate`) run.
    """
    hand = object.__new__(Hand)
    d = hand.__dict__
    d.update(_FIELD_DEFAULTS)
    d.update(concealed=concealed, melds=melds, win_tile=win_tile, flowers=flowers,
             flower_tiles=flower_tiles)
    if situation:
        d.update(situation)
    hand._validate()
    return hand


def parse_hand(text: str | Hand, **situation: Any) -> Hand:
    """Read a hand from notation.

    Parameters
    ----------
    text : str or Hand
        ``"[123m]{EEEE}456p789s1p 1p | self_drawn seat=S"``; see the module
        docstring.  A :class:`Hand` is returned with ``situation`` applied.
    **situation
        ``self_drawn``, ``last_copy``, ``kong``, ``last_wall``,
        ``seat_wind`` (alias ``seat``), ``round_wind`` (alias ``round``),
        ``flowers`` (count, ``"1f3f"`` or a list of flower tiles),
        ``win_tile`` (notation or index), and the first-turn / ready flags
        ``heavenly_hand`` (天和), ``earthly_hand`` (地和), ``human_hand``
        (人和), ``heavenly_ready`` (天听), ``earthly_ready`` (地听),
        ``declared_ready`` (报听), ``double_ready`` (双报听); the Chinese
        names work as keywords too.  They override the ``|`` suffix;
        ``None`` means "not given".

    Returns
    -------
    Hand

    Raises
    ------
    HandError
        For anything that is not a valid hand, including non-str input and
        text longer than :data:`MAX_TEXT_LEN`.

    Examples
    --------
    >>> str(parse_hand("[123m] 456p 789s 55m EE E", self_drawn=True))
    '[123m]55m456p789sEE E | self_drawn'
    """
    overrides = _canonical_situation(situation, "keyword") if situation else {}
    if type(text) is str and len(text) <= MAX_TEXT_LEN:  # the common case, fast
        tile_part, bar, suffix = text.partition("|")
        if not bar or "|" not in suffix:
            scanned = _fast_tile_part(tile_part)
            if scanned is not None:
                melds, tiles = scanned
                merged = parse_situation(suffix) if bar else {}
                if overrides:
                    merged.update(overrides)
                return _build(Hand, tiles, melds, merged)
        # anything unusual: the checked path below, for the exact error
    if isinstance(text, Hand):
        base: dict[str, Any] = {name: getattr(text, name) for name in _FLAGS}
        base.update(seat_wind=text.seat_wind, round_wind=text.round_wind,
                    flowers=list(text.flower_tiles) or text.flowers,
                    win_tile=text.win_tile)
        base.update(overrides)
        return _build(Hand, list(text.concealed), list(text.melds), base)
    if not isinstance(text, str):
        raise HandError(f"expected a hand in notation (str), got {type(text).__name__}")
    if type(text) is not str:
        text = str.__str__(text)  # a plain copy: subclasses may override methods
    _check_length(text)
    tile_part, bar, suffix = text.partition("|")
    if "|" in suffix:
        raise HandError(f"more than one '|' (second at position "
                        f"{len(tile_part) + 1 + suffix.index('|')})", code="syntax")
    melds, tiles = read_tile_part(tile_part)
    merged = parse_situation(suffix) if bar else {}
    merged.update(overrides)
    return _build(Hand, tiles, melds, merged)
