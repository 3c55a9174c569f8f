"""The state of a hand that its events add up to: who holds what, the melds, the discards.

A hand is told as a list of events (dicts, the lines of a record: ``docs/records.md``):
``{"e": "hand", ...}`` first, then every tile drawn, set aside, exchanged, discarded or
claimed, the result and ``{"e": "end", ...}``.  :class:`Fold` reads them one at a time
and gives after each a :class:`Snapshot`: every seat's concealed tiles (a record holds
every draw, so the state is complete), melds, flowers and discards, the wild tile, the
tiles left in the wall, the result.  :func:`fold` does it for a whole list.

This is bookkeeping of events, not the game's rules: an event is refused only when the
state cannot hold it — a tile discarded or melded that the seat does not hold, a fifth
copy of a tile, a claim of a discard that is not the last one, a draw from an empty wall,
a seat out of 0..3, an event after the end, a field of the wrong type or a tile
written otherwise than mjkit writes it — each a :class:`mjkit.HandError` naming the event
(``event 12``, or the record's line) and what is wrong.  Which moves the rules allow and
what a win is worth is the engine's business (:mod:`mjkit.table.engine`).

Counting the wall (``Snapshot.wall_left``): the hand is drawn out once
``options["exhaust"]`` tiles have been taken from the wall, as in the game kernel.  Every
``"draw"`` takes one, and so does every ``"flower"`` (a flower drawn is a tile taken; its
replacement is the ``"draw"`` that follows) — except the flower an exchange brought in: an
exchange swaps tiles with the wall and takes none, so only the flower's replacement is
taken.  The turned wild tile stays in the wall.

The fold is O(1) per event (a few tuples of one seat rebuilt), so the engine keeps one
:class:`Fold` beside its table and applies each event as it happens.
"""

from __future__ import annotations

import json
import types
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from ..errors import HandError, short_repr
from ..tiles import (N_KINDS, N_TILES, parse_tiles, tile_from_str, tile_to_str, tiles_of_counts,
                     tiles_to_str)
from ..validate import MAX_LEVEL

__all__ = ["Meld", "Snapshot", "Fold", "fold", "EVENTS", "RESULTS", "WAIT_RULES",
           "parse_event", "fan_keys_of", "MAX_NAME", "declared_text", "situation_names"]

#: The events of a hand and their fields (required, optional), see ``docs/records.md``.
EVENTS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "hand": (("rules", "seed", "hand", "wall_level", "level", "round_wind", "players",
              "options"), ()),
    "wild": (("tile",), ()),
    "draw": (("seat", "tile", "back"), ()),
    "flower": (("seat", "tile"), ()),
    "dealt": ((), ()),
    "exchange": (("seat", "gave", "got"), ()),
    "discard": (("seat", "tile"), ()),
    "chow": (("seat", "tiles", "tile", "from"), ()),
    "pung": (("seat", "tile", "from"), ()),
    "kong": (("seat", "tile"), ("from", "concealed", "added")),    # exactly one of these
    "pass": (("seat", "tile", "win"), ()),
    "win": (("seat", "tile", "from", "robbed", "counted", "total", "fans"), ()),
    "false_win": (("seat", "tile", "from", "counted", "total", "bar", "short", "fans"),
                  ("robbed",)),
    "drawn_out": ((), ()),
    "end": (("result", "payments"), ()),
}
#: The results a hand ends with (its last event before ``"end"``).
RESULTS = ("win", "false_win", "drawn_out")
#: The keys of a hand's ``options`` and what each may be.
OPTIONS = ("exchange", "wild", "wait_rule", "exhaust", "discard_wins", "claims")
#: How a table reads the waits of a declared hand (``options["wait_rule"]``).
WAIT_RULES = ("leftmost", "unique")
#: The longest player name a hand event may carry.
MAX_NAME = 64
#: Bounds of the numbers an event may carry (far beyond any real hand).
_MAX_FANS = 1_000_000
_MAX_PAYMENT = 10**9
_MAX_SEED = 2**63 - 1
_MAX_HAND = 2**31 - 1
_WINDS = "ESWN"
_MELD_SIZE = 3          # a meld counts three tiles toward a hand's 14 (a kong too)


@dataclass(frozen=True)
class Meld:
    """A meld on the table.

    Attributes
    ----------
    kind : {"chow", "pung", "kong", "concealed_kong"}
        ``"kong"`` is an exposed kong: claimed on a discard (明杠) or added to a pung (加杠).
    tile : int
        The meld's tile kind; a chow's first tile.
    claimed : int or None
        The tile taken from a discard (None for a concealed kong).
    from_seat : int or None
        The position that discarded it (None for a concealed kong).
    added : bool
        A kong made by adding the fourth tile to a pung (加杠).
    """

    kind: str
    tile: int
    claimed: int | None = None
    from_seat: int | None = None
    added: bool = False

    @property
    def tiles(self) -> tuple[int, ...]:
        """The meld's tile kinds: three for a chow or pung, four for a kong."""
        if self.kind == "chow":
            return (self.tile, self.tile + 1, self.tile + 2)
        return (self.tile,) * (3 if self.kind == "pung" else 4)


def _meld_notation(m: Meld) -> str:
    if m.kind == "concealed_kong":
        return "{" + tiles_to_str(m.tiles) + "}"
    return "[" + tiles_to_str(m.tiles) + "]"


def situation_names(flags: int) -> list:
    """The situation words of a win's kernel flags (``layout.F_*``), as :func:`mjkit.score`
    reads them after ``|``: ``self_drawn``, ``kong`` (杠上开花, or 抢杠和 on another's tile),
    ``last_wall``, ``heavenly_hand``, ``earthly_hand``."""
    from .._kernels import layout as L
    return [name for bit, name in ((L.F_SELF_DRAWN, "self_drawn"), (L.F_KONG, "kong"),
                                   (L.F_LAST_WALL, "last_wall"),
                                   (L.F_HEAVENLY_HAND, "heavenly_hand"),
                                   (L.F_EARTHLY_HAND, "earthly_hand")) if flags & bit]


def declared_text(melds: Iterable[Meld], concealed: Iterable[int], tile: int, flags: int,
                  seat: int, round_wind: int, flowers: Iterable[int] = ()) -> str:
    """The notation of a declared hand, its situation after ``|``: the text
    :func:`mjkit.score` reads (the table's outcome and the coach's win check both write it
    here).

    Parameters
    ----------
    melds : Meld
        The seat's melds (a concealed kong is written ``{5555m}``).
    concealed : int
        Concealed tiles per kind (34 counts), the winning tile included.
    tile : int
        The winning tile (written last).
    flags : int
        The situation (kernel flags ``layout.F_*``, :func:`situation_names`).
    seat, round_wind : int
    flowers : int
        The seat's flowers (34..41).
    """
    counts = [int(x) for x in concealed]
    counts[tile] -= 1
    parts = [_meld_notation(m) for m in melds]
    parts.append(tiles_to_str(tiles_of_counts(counts)) + " " + tile_to_str(tile))
    sit = situation_names(flags) + [f"seat={_WINDS[seat]}", f"round={_WINDS[round_wind]}"]
    fl = sorted(flowers)
    if fl:
        sit.append("flowers=" + tiles_to_str(fl))
    return "".join(parts) + " | " + " ".join(sit)


@dataclass(frozen=True)
class Snapshot:
    """The table after some events of a hand (everything a record shows).

    Attributes
    ----------
    index : int
        Events applied (0: before any).
    event : dict or None
        The last event applied, as given.
    players : tuple of str
        The players by position (0 the dealer, East); empty before the ``"hand"`` event.
    rules : str or None
    seed, hand : int or None
        The hand's seed and number.
    level : int
        The dealer's 连拉 level.
    round_wind : int
        0..3 (East..North).
    options : Mapping
        The hand's options (read-only): exchange, wild, wait_rule, exhaust, discard_wins,
        claims.
    wild : int or None
        The wild tile's kind (财神), once turned.
    hands : tuple of 4 tuples of int
        Each seat's concealed tile kinds, sorted.
    melds : tuple of 4 tuples of Meld
    discards : tuple of 4 tuples of (int, bool)
        Each seat's discards in order: ``(kind, taken)``, taken True once claimed (by a
        chow, pung, kong or a win on it).
    flowers : tuple of 4 tuples of int
        Each seat's flowers set aside (34..41).
    wall_left : int
        Tiles still to be taken before the hand is drawn out.
    dealt : bool
        The deal (and its flowers) is over.
    last_discard : (int, int) or None
        ``(seat, position in its discards)`` of the discard that may still be claimed.
    result : dict or None
        The ``"win"``, ``"false_win"`` or ``"drawn_out"`` event, once it came.
    payments : tuple of 4 int or None
        From the ``"end"`` event.
    done : bool
        The ``"end"`` event came.
    """

    index: int
    event: dict | None
    players: tuple
    rules: str | None
    seed: int | None
    hand: int | None
    level: int
    round_wind: int
    options: Mapping
    wild: int | None
    hands: tuple
    melds: tuple
    discards: tuple
    flowers: tuple
    wall_left: int
    dealt: bool
    last_discard: tuple | None
    result: dict | None
    payments: tuple | None
    done: bool

    def hand_size(self, seat: int) -> int:
        """Tiles of ``seat`` toward the hand's 14: the concealed ones, three per meld."""
        return len(self.hands[seat]) + _MELD_SIZE * len(self.melds[seat])


# ---------------------------------------------------------------- reading one event


class BadEvent(Exception):
    """A problem with an event, before the ``where`` of the message is known."""


def show_value(v: Any, limit: int = 40) -> str:
    """A value as JSON writes it (``true``, ``null``, ``"5m"``), cut to ``limit`` characters."""
    try:
        text = json.dumps(v, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        return short_repr(v, limit)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _seat(v: Any, key: str) -> int:
    if type(v) is not int or not 0 <= v <= 3:
        raise BadEvent(f"{key!r} must be a seat 0..3, got {show_value(v)}")
    return v


def _tile(v: Any, key: str, lo: int = 0, hi: int = N_KINDS, what: str = "a tile kind") -> int:
    if not isinstance(v, str):
        raise BadEvent(f"{key!r} must be {what} written as text (such as \"5m\"), got "
                   f"{show_value(v)}")
    try:
        t = tile_from_str(v)
    except HandError as exc:
        raise BadEvent(f"{key!r}: {exc}") from None
    if tile_to_str(t) != v:
        raise BadEvent(f"{key!r}: tile {show_value(v)} is not written as mjkit writes it "
                   f"({show_value(tile_to_str(t))})")
    if not lo <= t < hi:
        raise BadEvent(f"{key!r} must be {what}, got {show_value(v)}")
    return t


def _bool(v: Any, key: str) -> bool:
    if type(v) is not bool:
        raise BadEvent(f"{key!r} must be true or false, got {show_value(v)}")
    return v


def check_int(v: Any, key: str, lo: int, hi: int) -> int:
    if type(v) is not int or not lo <= v <= hi:
        raise BadEvent(f"{key!r} must be a whole number {lo}..{hi}, got {show_value(v)}")
    return v


def _fans(v: Any, key: str, keys: frozenset) -> dict:
    if type(v) is not dict:
        raise BadEvent(f"{key!r} must be an object of fan keys and counts, got {show_value(v)}")
    if len(v) > len(keys):
        raise BadEvent(f"{key!r} names {len(v)} fans; the rule set has {len(keys)}")
    for name, n in v.items():
        if name not in keys:
            raise BadEvent(f"{key!r}: {show_value(name)} is not a fan of this rule set")
        check_int(n, f"{key}.{name}", 1, _MAX_FANS)
    return v


def check_players(v: Any) -> tuple:
    if type(v) is not list or len(v) != 4:
        raise BadEvent(f"'players' must be a list of 4 names, got {show_value(v)}")
    for name in v:
        if type(name) is not str or not 1 <= len(name) <= MAX_NAME or not name.isprintable():
            raise BadEvent(f"'players': a name is printable text of 1..{MAX_NAME} characters, "
                       f"got {show_value(name)}")
    return tuple(v)


def _options(v: Any, rules) -> Mapping:
    if type(v) is not dict:
        raise BadEvent(f"'options' must be an object, got {show_value(v)}")
    _exact_keys(v, OPTIONS, (), "'options'")
    _bool(v["exchange"], "options.exchange")
    wild = v["wild"]
    if wild is not None and wild != "turned":
        _tile(wild, "options.wild", what="null, \"turned\" or a tile kind")
    if v["wait_rule"] not in WAIT_RULES or type(v["wait_rule"]) is not str:
        raise BadEvent(f"'options.wait_rule' must be one of {', '.join(WAIT_RULES)}, got "
                   f"{show_value(v['wait_rule'])}")
    check_int(v["exhaust"], "options.exhaust", 53, 144)
    claims = _bool(v["claims"], "options.claims")
    if _bool(v["discard_wins"], "options.discard_wins"):
        if not claims:
            raise BadEvent("'options': discard_wins is true but claims is false (a discard no "
                       "one may claim is won by no one)")
        if rules.self_drawn_only:
            raise BadEvent(f"'options': discard_wins is true, but rule set {rules.name!r} wins by "
                       "self-draw only")
    return types.MappingProxyType(dict(v))


def _exact_keys(ev: dict, required, optional, what: str) -> None:
    keys = set(ev)
    missing = [k for k in required if k not in keys]
    if missing:
        raise BadEvent(f"{what} lacks {', '.join(repr(k) for k in missing)}")
    extra = sorted(k for k in keys - set(required) - set(optional))
    if extra:
        raise BadEvent(f"{what} has unknown {'keys' if len(extra) > 1 else 'key'} "
                   f"{', '.join(show_value(k) for k in extra)}")


def parse_event(ev: Any, fan_keys: frozenset | None = None):
    """Check one event's shape and read its fields: ``(name, fields)``.

    Parameters
    ----------
    ev : dict
        The event.
    fan_keys : frozenset of str, optional
        The fan keys a ``"win"`` or ``"false_win"`` may name (the hand's rule set's).

    Returns
    -------
    (str, dict)
        The event's name and its fields with tiles as kinds (``"5m"`` -> 4), chow tiles
        as the first kind, a ``"hand"`` event's rules as a RuleSet.

    Raises
    ------
    HandError
        An event that is not an object, an unknown ``"e"``, a key missing or unknown, a
        value of the wrong type (a bool where a number goes, a number where a tile goes),
        a tile written otherwise than mjkit writes it.
    """
    try:
        return _parse(ev, fan_keys)
    except BadEvent as exc:
        raise HandError(str(exc), code="damaged") from None


def _parse(ev: Any, fan_keys):
    if type(ev) is not dict:
        raise BadEvent(f"an event is an object with an \"e\" key, got {show_value(ev)}")
    name = ev.get("e")
    if type(name) is not str or name not in EVENTS:
        raise BadEvent(f"unknown event {show_value(name)}; events are {', '.join(EVENTS)}")
    required, optional = EVENTS[name]
    _exact_keys(ev, ("e",) + required, optional, f"a {name!r} event")
    f: dict[str, Any] = {}
    if "seat" in ev:
        f["seat"] = _seat(ev["seat"], "seat")
    if name == "hand":
        from ..rules import get_rules

        if type(ev["rules"]) is not str or len(ev["rules"]) > 64:
            raise BadEvent(f"'rules' must be a rule set's name, got {show_value(ev['rules'])}")
        try:
            rules = get_rules(ev["rules"])
        except HandError as exc:
            raise BadEvent(f"'rules': {exc}") from None
        f["rules"] = rules
        f["seed"] = check_int(ev["seed"], "seed", 0, _MAX_SEED)
        f["hand"] = check_int(ev["hand"], "hand", 0, _MAX_HAND)
        f["wall_level"] = check_int(ev["wall_level"], "wall_level", 0, _MAX_HAND)
        f["level"] = check_int(ev["level"], "level", 0, MAX_LEVEL)
        if f["level"] and not rules.streak_points:
            raise BadEvent(f"'level' {f['level']}: rule set {rules.name!r} has no 连拉")
        if type(ev["round_wind"]) is not str or ev["round_wind"] not in tuple(_WINDS):
            raise BadEvent(f"'round_wind' must be one of E, S, W, N, got "
                       f"{show_value(ev['round_wind'])}")
        f["round_wind"] = _WINDS.index(ev["round_wind"])
        f["players"] = check_players(ev["players"])
        f["options"] = _options(ev["options"], rules)
    elif name in ("wild", "draw", "discard", "pung", "pass", "kong", "win", "false_win"):
        f["tile"] = _tile(ev["tile"], "tile")
    elif name == "flower":
        f["tile"] = _tile(ev["tile"], "tile", N_KINDS, N_TILES, "a flower (1f..8f)")
    elif name == "exchange":
        f["gave"] = _tile(ev["gave"], "gave")
        f["got"] = _tile(ev["got"], "got", 0, N_TILES, "a tile")
    elif name == "chow":
        tiles = ev["tiles"]
        if not isinstance(tiles, str) or len(tiles) > 16:
            raise BadEvent(f"'tiles' must be a chow written as text (such as \"345m\"), got "
                       f"{show_value(tiles)}")
        try:
            run = parse_tiles(tiles)
        except HandError as exc:
            raise BadEvent(f"'tiles': {exc}") from None
        first = run[0] if run else -1
        if (len(run) != 3 or first >= 27 or first % 9 > 6
                or run != [first, first + 1, first + 2]):
            raise BadEvent(f"'tiles' {tiles!r} is not a chow (three tiles in a row of one suit)")
        if tiles_to_str(run) != tiles:
            raise BadEvent(f"'tiles' {tiles!r} is not written as mjkit writes it "
                       f"({tiles_to_str(run)!r})")
        f["first"] = first
        f["tile"] = _tile(ev["tile"], "tile")
        if f["tile"] not in run:
            raise BadEvent(f"'tile' {ev['tile']} is not one of the chow's tiles {tiles}")
    if name in ("chow", "pung"):
        f["from"] = _seat(ev["from"], "from")
    elif name == "kong":
        how = [k for k in ("from", "concealed", "added") if k in ev]
        if len(how) != 1:
            raise BadEvent("a 'kong' event has exactly one of 'from' (on a discard), "
                       f"'concealed' or 'added', got {', '.join(how) or 'none'}")
        if how[0] == "from":
            f["from"] = _seat(ev["from"], "from")
        elif ev[how[0]] is not True:
            raise BadEvent(f"{how[0]!r} must be true, got {show_value(ev[how[0]])}")
        f["how"] = how[0]
    elif name in ("win", "false_win"):
        f["from"] = None if ev["from"] is None else _seat(ev["from"], "from")
        f["robbed"] = _bool(ev.get("robbed", False), "robbed")
        if f["robbed"] and f["from"] is None:
            raise BadEvent("a robbed kong ('robbed': true) needs the seat robbed in 'from'")
        f["counted"] = check_int(ev["counted"], "counted", 0, _MAX_FANS)
        f["total"] = check_int(ev["total"], "total", 0, _MAX_FANS)
        f["fans"] = _fans(ev["fans"], "fans", fan_keys or frozenset())
        if name == "false_win":
            f["bar"] = check_int(ev["bar"], "bar", 0, _MAX_FANS)
            f["short"] = check_int(ev["short"], "short", 1, _MAX_FANS)
            if f["short"] != f["bar"] - f["counted"]:
                raise BadEvent(f"'short' {f['short']} is not the bar {f['bar']} less the counted "
                           f"{f['counted']}")
    elif name == "draw":
        f["back"] = _bool(ev["back"], "back")
    elif name == "pass":
        f["win"] = _bool(ev["win"], "win")
    elif name == "end":
        if type(ev["result"]) is not str or ev["result"] not in RESULTS:
            raise BadEvent(f"'result' must be one of {', '.join(RESULTS)}, got "
                       f"{show_value(ev['result'])}")
        pay = ev["payments"]
        if type(pay) is not list or len(pay) != 4:
            raise BadEvent(f"'payments' must be a list of 4 whole numbers, got {show_value(pay)}")
        f["payments"] = tuple(check_int(p, "payments", -_MAX_PAYMENT, _MAX_PAYMENT) for p in pay)
        if sum(f["payments"]):
            raise BadEvent(f"'payments' {list(f['payments'])} do not sum to 0")
    return name, f


def fan_keys_of(rules) -> frozenset:
    """The keys of the fans rule set ``rules`` uses (those a win's ``fans`` may name)."""
    from ..rules.catalogue import catalogue_lists

    keys = catalogue_lists().key
    return frozenset(keys[i] for i in rules.used_fans())


# ---------------------------------------------------------------- the fold

_EMPTY4 = ((), (), (), ())


class Fold:
    """The state of one hand, event by event.

    ``Fold().apply(event)`` checks the event against the state, applies it and returns
    the new :class:`Snapshot`; a refused event raises :class:`mjkit.HandError` (code
    ``"damaged"``) and leaves the fold as it was.  :attr:`snapshot` is the latest state
    (index 0 before any event).

    Examples
    --------
    >>> f = Fold()
    >>> f.snapshot.index
    0
    """

    def __init__(self):
        self._i = 0
        self._phase = "start"       # start, deal, play, over (result seen), done (end seen)
        self.check_players: tuple = ()
        self._rules = None
        self._fan_keys: frozenset = frozenset()
        self._seed = self._hand = None
        self._level = 0
        self._round = 0
        self._options: Mapping = types.MappingProxyType({})
        self._wild: int | None = None
        self._counts = [[0] * N_KINDS for _ in range(4)]
        self._melds: list[list[Meld]] = [[], [], [], []]
        self._discards: list[list[list]] = [[], [], [], []]
        self._flowers: list[list[int]] = [[], [], [], []]
        self._out = [0] * N_KINDS          # copies of each kind out of the wall
        self._flowers_out: set[int] = set()
        self._wall_left = 0
        self._pending_flower: tuple | None = None   # (seat, flower) an exchange brought in
        self._last_discard: tuple | None = None
        self._last_kong: tuple | None = None        # (seat, tile) of an added kong
        self._discarded = False
        self._result: dict | None = None
        self._payments: tuple | None = None
        # tuples of the snapshot, rebuilt for a seat only when it changes
        self._t_hands = list(_EMPTY4)
        self._t_melds = list(_EMPTY4)
        self._t_discards = list(_EMPTY4)
        self._t_flowers = list(_EMPTY4)
        self.snapshot = self._snapshot(None)

    # -- public

    @property
    def index(self) -> int:
        """Events applied."""
        return self._i

    @property
    def done(self) -> bool:
        """Whether the ``"end"`` event came."""
        return self._phase == "done"

    def apply(self, event: Any, *, where: str | None = None) -> Snapshot:
        """Apply one event; the new :class:`Snapshot`.

        Parameters
        ----------
        event : dict
        where : str, optional
            How messages name the event (default ``"event <index>"``; a record reader
            gives ``"record line 57"``).

        Raises
        ------
        HandError
            ``"<where>: <what is wrong>"`` (code ``"damaged"``), the fold unchanged.
        """
        try:
            name, f = _parse(event, self._fan_keys)
            self._check(name, f)
            getattr(self, "_do_" + name)(f, event)
        except BadEvent as exc:
            raise HandError(f"{where or f'event {self._i}'}: {exc}", code="damaged") from None
        self._i += 1
        self.snapshot = self._snapshot(event)
        return self.snapshot

    # -- checks shared by the events

    def _check(self, name: str, f: dict) -> None:
        phase = self._phase
        if phase == "done":
            raise BadEvent(f"a {name!r} event after the hand's 'end'")
        if phase == "start":
            if name != "hand":
                raise BadEvent(f"a hand begins with a 'hand' event, not {name!r}")
            return
        if name == "hand":
            raise BadEvent("a second 'hand' event: a new hand begins only after 'end'")
        if self._pending_flower is not None:
            seat, flower = self._pending_flower
            if name != "flower" or f["seat"] != seat or f["tile"] != flower:
                came = (f"the flower {tile_to_str(f['tile'])} of seat {f['seat']}"
                        if name == "flower" else repr(name))
                raise BadEvent(f"seat {seat} got the flower {tile_to_str(flower)} in an exchange: "
                           f"a 'flower' event of it must follow, not {came}")
        if phase == "over":
            if name != "end":
                raise BadEvent(f"a {name!r} event after the hand's result "
                           f"({self._result['e']}): only 'end' may follow")
            return
        if name == "end":
            raise BadEvent("'end' before the hand's result (win, false_win or drawn_out)")
        if phase == "deal" and name not in ("wild", "draw", "flower", "dealt"):
            raise BadEvent(f"a {name!r} event during the deal (before 'dealt')")
        if phase == "play" and name in ("wild", "dealt"):
            raise BadEvent(f"a {name!r} event after the deal")

    def _size(self, seat: int) -> int:
        return sum(self._counts[seat]) + _MELD_SIZE * len(self._melds[seat])

    def _holds(self, seat: int, tile: int, n: int, what: str) -> None:
        have = self._counts[seat][tile]
        if have < n:
            copies = "it" if n == 1 else f"{n} copies ({have} held)"
            raise BadEvent(f"{what} by seat {seat}, who does not hold {copies}")

    def _take_from_wall(self, what: str) -> None:
        if self._wall_left <= 0:
            raise BadEvent(f"{what} with no tile left in the wall "
                       f"({self._options['exhaust']} taken)")

    def _fresh(self, tile: int, what: str, back_to_wall: int = -1) -> None:
        """A copy of ``tile`` comes out of the wall: a fifth one is refused."""
        out = self._out[tile] - (1 if back_to_wall == tile else 0)
        if out >= 4:
            raise BadEvent(f"{what}: a fifth copy of {tile_to_str(tile)} (all 4 are already out "
                       "of the wall)")

    def _claimable(self, tile: int, src: int, seat: int, what: str) -> int:
        """Position in ``src``'s discards of the discard ``seat`` claims."""
        if src == seat:
            raise BadEvent(f"{what}: seat {seat} claims its own discard")
        last = self._last_discard
        if last is None or last[0] != src or self._discards[src][last[1]][0] != tile:
            now = ("none" if last is None else
                   f"{tile_to_str(self._discards[last[0]][last[1]][0])} of seat {last[0]}")
            raise BadEvent(f"{what}: {tile_to_str(tile)} of seat {src} is not the discard that "
                       f"may be claimed (that is {now})")
        return last[1]

    def _new_meld(self, seat: int, what: str) -> None:
        if len(self._melds[seat]) >= 4:
            raise BadEvent(f"{what}: seat {seat} already has 4 melds")

    # -- the events (each checks everything before it changes anything)

    def _do_hand(self, f: dict, ev: dict) -> None:
        rules = f["rules"]
        self._rules = rules
        self._fan_keys = fan_keys_of(rules)
        self.check_players = f["players"]
        self._seed, self._hand = f["seed"], f["hand"]
        self._level, self._round = f["level"], f["round_wind"]
        self._options = f["options"]
        self._wall_left = f["options"]["exhaust"]
        self._phase = "deal"

    def _do_wild(self, f: dict, ev: dict) -> None:
        wild = self._options["wild"]
        if wild is None:
            raise BadEvent("a 'wild' event, but the hand plays without a wild tile "
                       "(options.wild is null)")
        if self._wild is not None:
            raise BadEvent("a second 'wild' event")
        if any(self._size(s) for s in range(4)):
            raise BadEvent("the 'wild' event comes before the first tile is dealt")
        if wild != "turned" and tile_from_str(wild) != f["tile"]:
            raise BadEvent(f"the wild tile {tile_to_str(f['tile'])} is not the fixed one of "
                       f"options.wild ({wild})")
        self._wild = f["tile"]

    def _do_draw(self, f: dict, ev: dict) -> None:
        seat, tile = f["seat"], f["tile"]
        what = f"draw of {tile_to_str(tile)} by seat {seat}"
        self._take_from_wall(what)
        self._fresh(tile, what)
        if self._size(seat) >= 14:
            raise BadEvent(f"{what}, who already has 14 tiles")
        self._wall_left -= 1
        self._out[tile] += 1
        self._counts[seat][tile] += 1
        self._t_hands[seat] = None
        self._last_discard = None
        self._last_kong = None

    def _do_flower(self, f: dict, ev: dict) -> None:
        seat, tile = f["seat"], f["tile"]
        what = f"flower {tile_to_str(tile)} set aside by seat {seat}"
        swapped = self._pending_flower is not None
        if tile in self._flowers_out:
            raise BadEvent(f"{what}: it is already out (each flower exists once)")
        if not swapped:
            self._take_from_wall(what)
            self._wall_left -= 1
        self._pending_flower = None
        self._flowers_out.add(tile)
        self._flowers[seat].append(tile)
        self._t_flowers[seat] = None
        self._last_discard = None
        self._last_kong = None

    def _do_dealt(self, f: dict, ev: dict) -> None:
        sizes = [self._size(s) for s in range(4)]
        if sizes != [14, 13, 13, 13]:
            raise BadEvent(f"the deal ends with {sizes} tiles by seat; it gives the dealer 14 "
                       "and the others 13")
        if self._options["wild"] is not None and self._wild is None:
            raise BadEvent("the deal ends without the 'wild' event, and the hand plays with a "
                       "wild tile")
        self._phase = "play"

    def _do_exchange(self, f: dict, ev: dict) -> None:
        seat, gave, got = f["seat"], f["gave"], f["got"]
        what = f"exchange of {tile_to_str(gave)} for {tile_to_str(got)}"
        by = f"{what} by seat {seat}"
        if not self._options["exchange"]:
            raise BadEvent(f"{by}, but the hand plays without the exchange (options.exchange "
                       "is false)")
        if self._discarded:
            raise BadEvent(f"{by} after the first discard (the exchange comes after the deal)")
        self._holds(seat, gave, 1, what)
        if got >= N_KINDS:
            if got in self._flowers_out:
                raise BadEvent(f"{by}: the flower is already out (each flower exists once)")
        else:
            self._fresh(got, by, back_to_wall=gave)
        self._counts[seat][gave] -= 1
        self._out[gave] -= 1
        if got >= N_KINDS:
            self._pending_flower = (seat, got)
        else:
            self._counts[seat][got] += 1
            self._out[got] += 1
        self._t_hands[seat] = None

    def _do_discard(self, f: dict, ev: dict) -> None:
        seat, tile = f["seat"], f["tile"]
        what = f"discard of {tile_to_str(tile)}"
        self._holds(seat, tile, 1, what)
        if self._size(seat) != 14:
            raise BadEvent(f"{what} by seat {seat}, who holds {self._size(seat)} tiles (a discard "
                       "is made from 14, melds counting 3)")
        self._counts[seat][tile] -= 1
        self._discards[seat].append([tile, False])
        self._last_discard = (seat, len(self._discards[seat]) - 1)
        self._last_kong = None
        self._discarded = True
        self._t_hands[seat] = self._t_discards[seat] = None

    def _claim(self, f: dict, name: str, used: list[int], meld: Meld) -> None:
        """A discard taken into a meld: ``used`` the tiles from the hand."""
        seat, src, tile = f["seat"], f["from"], f["tile"]
        what = f"{name} of {tile_to_str(tile)} by seat {seat} from seat {src}"
        pos = self._claimable(tile, src, seat, what)
        if name == "chow" and seat != (src + 1) % 4:
            raise BadEvent(f"{what}: only the next seat ({(src + 1) % 4}) may chow a discard")
        for t in set(used):
            n = used.count(t)
            if self._counts[seat][t] < n:
                copies = tile_to_str(t) if n == 1 else f"{n} copies of {tile_to_str(t)}"
                raise BadEvent(f"{what}: seat {seat} does not hold {copies}")
        if self._size(seat) != 13:
            raise BadEvent(f"{what}: seat {seat} holds {self._size(seat)} tiles, not 13")
        self._new_meld(seat, what)
        for t in used:
            self._counts[seat][t] -= 1
        self._discards[src][pos][1] = True
        self._melds[seat].append(meld)
        self._last_discard = None
        self._last_kong = None
        self._t_hands[seat] = self._t_melds[seat] = self._t_discards[src] = None

    def _do_chow(self, f: dict, ev: dict) -> None:
        first, tile = f["first"], f["tile"]
        used = [t for t in (first, first + 1, first + 2) if t != tile]
        self._claim(f, "chow", used, Meld("chow", first, tile, f["from"]))

    def _do_pung(self, f: dict, ev: dict) -> None:
        t = f["tile"]
        self._claim(f, "pung", [t, t], Meld("pung", t, t, f["from"]))

    def _do_kong(self, f: dict, ev: dict) -> None:
        seat, tile, how = f["seat"], f["tile"], f["how"]
        if how == "from":
            self._claim(f, "kong", [tile] * 3, Meld("kong", tile, tile, f["from"]))
            return
        what = f"{'concealed' if how == 'concealed' else 'added'} kong of {tile_to_str(tile)}"
        if self._size(seat) != 14:
            raise BadEvent(f"{what} by seat {seat}, who holds {self._size(seat)} tiles, not 14")
        if how == "concealed":
            self._holds(seat, tile, 4, what)
            self._new_meld(seat, what)
            self._counts[seat][tile] -= 4
            self._melds[seat].append(Meld("concealed_kong", tile))
            self._last_kong = None
        else:
            at = next((i for i, m in enumerate(self._melds[seat])
                       if m.kind == "pung" and m.tile == tile), None)
            if at is None:
                raise BadEvent(f"{what} by seat {seat}, who has no pung of it")
            self._holds(seat, tile, 1, what)
            self._counts[seat][tile] -= 1
            pung = self._melds[seat][at]
            self._melds[seat][at] = Meld("kong", tile, pung.claimed, pung.from_seat, True)
            self._last_kong = (seat, tile)
        self._last_discard = None
        self._t_hands[seat] = self._t_melds[seat] = None

    def _do_pass(self, f: dict, ev: dict) -> None:
        pass                # a decision, not a move: the state stays

    def _do_win(self, f: dict, ev: dict) -> None:
        seat, tile, src = f["seat"], f["tile"], f["from"]
        word = ev["e"].replace("_", " ")
        what = f"{word} on {tile_to_str(tile)}"
        if src is None:
            self._holds(seat, tile, 1, f"self-drawn {what}")
            if self._size(seat) != 14:
                raise BadEvent(f"{what}: seat {seat} holds {self._size(seat)} tiles, not 14")
        else:
            if src == seat:
                raise BadEvent(f"{what}: 'from' is the winner's own seat (a self-drawn win has "
                           "'from': null)")
            if self._size(seat) != 13:
                raise BadEvent(f"{what}: seat {seat} holds {self._size(seat)} tiles, not 13")
            if f["robbed"]:
                if self._last_kong != (src, tile):
                    raise BadEvent(f"{what}: seat {src} did not just add a kong of "
                               f"{tile_to_str(tile)} (a kong is robbed at once)")
                at = next(i for i, m in enumerate(self._melds[src])
                          if m.kind == "kong" and m.added and m.tile == tile)
                m = self._melds[src][at]
                self._melds[src][at] = Meld("pung", tile, m.claimed, m.from_seat)
                self._t_melds[src] = None
            else:
                pos = self._claimable(tile, src, seat, what)
                self._discards[src][pos][1] = True
                self._t_discards[src] = None
            self._counts[seat][tile] += 1
            self._t_hands[seat] = None
        self._result = ev
        self._phase = "over"
        self._last_discard = None
        self._last_kong = None

    _do_false_win = _do_win

    def _do_drawn_out(self, f: dict, ev: dict) -> None:
        if self._wall_left:
            raise BadEvent(f"drawn out with {self._wall_left} tiles still in the wall")
        self._result = ev
        self._phase = "over"

    def _do_end(self, f: dict, ev: dict) -> None:
        if ev["result"] != self._result["e"]:
            raise BadEvent(f"'end' says {ev['result']!r}, but the hand ended in "
                       f"{self._result['e']!r}")
        self._payments = f["payments"]
        self._phase = "done"

    # -- the snapshot

    def _snapshot(self, event) -> Snapshot:
        for s in range(4):
            if self._t_hands[s] is None:
                self._t_hands[s] = tuple(tiles_of_counts(self._counts[s]))
            if self._t_melds[s] is None:
                self._t_melds[s] = tuple(self._melds[s])
            if self._t_discards[s] is None:
                self._t_discards[s] = tuple((t, taken) for t, taken in self._discards[s])
            if self._t_flowers[s] is None:
                self._t_flowers[s] = tuple(self._flowers[s])
        return Snapshot(
            index=self._i, event=event, players=self.check_players,
            rules=None if self._rules is None else self._rules.name, seed=self._seed,
            hand=self._hand, level=self._level, round_wind=self._round,
            options=self._options, wild=self._wild, hands=tuple(self._t_hands),
            melds=tuple(self._t_melds), discards=tuple(self._t_discards),
            flowers=tuple(self._t_flowers), wall_left=self._wall_left,
            dealt=self._phase not in ("start", "deal"), last_discard=self._last_discard,
            result=self._result, payments=self._payments, done=self._phase == "done")


def fold(events: Iterable[dict]) -> list[Snapshot]:
    """The snapshots of a hand: one before any event, then one after each.

    Parameters
    ----------
    events : iterable of dict
        The hand's events, ``"hand"`` first.

    Returns
    -------
    list of Snapshot
        ``len(events) + 1`` snapshots.

    Raises
    ------
    HandError
        ``"event <i>: ..."`` for the first event the state cannot hold.
    """
    f = Fold()
    out = [f.snapshot]
    for ev in events:
        out.append(f.apply(ev))
    return out
