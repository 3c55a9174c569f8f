"""What one player at the table may see: :class:`Observation`.

An observation holds exactly what the player at one position knows: its own concealed
tiles, every seat's melds, discards (in order, claimed ones marked) and flowers, the wild
kind, the wall left, the dealer's 连拉 level and each seat's bar, whose decision it is and
the last event.  Built by :meth:`mjkit.table.Table.observe`; :func:`check_observation`
verifies one built elsewhere (another program's, or read from disk) field by field, and
:func:`seen_counts` gives the copies of each kind every player has seen, as the built-in
players count them.

mjkit's table shows concealed kongs face up (their kind is public, as the simulator's
players have always counted them).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import HandError, short_repr
from ..tiles import N_KINDS, tile_to_str, tiles_to_str
from .state import Meld

__all__ = ["Observation", "observation", "check_observation", "seen_counts"]

_ASKING = ("exchange", "turn", "discard", "claim", "rob")
_MELD_KINDS = ("chow", "pung", "kong", "concealed_kong")


@dataclass(frozen=True)
class Observation:
    """What the player at position ``seat`` sees.

    Attributes
    ----------
    seat : int
        The player's position (0 is the dealer, East; its seat wind).
    rules : str
    hand : tuple of int
        Its concealed tiles (kinds, sorted).
    drawn : int or None
        The tile it has just drawn (its own turn), else None.
    melds : tuple of 4 tuples of Meld
        Every seat's melds (:class:`mjkit.table.state.Meld`), by position.
    discards : tuple of 4 tuples of (int, bool)
        Every seat's discards in order, each ``(kind, taken)`` (taken: claimed by a meld).
    flowers : tuple of 4 tuples of int
        Every seat's flowers set aside (34..41).
    wild : int or None
        The wild kind (财神) of the hand.
    wall_left : int
        Tiles still to be taken before the hand is drawn out.
    level : int
        The dealer's 连拉 level.
    bars : tuple of 4 int
        Counted fans each position's own hand needs (the dealer's 连拉 line taken off).
    round_wind : int
    to_act : int or None
        The position asked now.
    asking : str or None
        What it is asked (``"exchange"``, ``"turn"``, ``"discard"``, ``"claim"``,
        ``"rob"``).
    tile : int or None
        The tile asked about: a claim's discard, the tile added to a pung (``"rob"``).
    from_seat : int or None
        Who discarded it (or added it to a pung).
    first_round : bool
        No claim or kong yet and the dealer has not drawn again (天和 / 地和 possible).
    replacement : bool
        The player's last tile came from a kong (杠上开花 possible).
    last : dict or None
        The last event of the hand (the record's form).
    options : dict
        The table's rules of play (``Table.options``: 起手换牌, wild tiles, how waits are
        read, the wall's length, wins on discards, claims).
    """

    seat: int
    rules: str
    hand: tuple
    drawn: int | None
    melds: tuple
    discards: tuple
    flowers: tuple
    wild: int | None
    wall_left: int
    level: int
    bars: tuple
    round_wind: int
    to_act: int | None
    asking: str | None
    tile: int | None
    from_seat: int | None
    first_round: bool
    replacement: bool
    last: dict | None
    options: dict

    def counts(self):
        """The concealed tiles as counts per kind (int64 (34,))."""
        c = np.zeros(N_KINDS, np.int64)
        for k in self.hand:
            c[k] += 1
        return c

    def __str__(self):
        lines = [f"seat {self.seat} ({'ESWN'[self.seat]}), {self.rules}, level {self.level}, "
                 f"bar {self.bars[self.seat]}, wall left {self.wall_left}"
                 + (f", wild {tile_to_str(self.wild)}" if self.wild is not None else ""),
                 f"hand: {tiles_to_str(self.hand)}"
                 + (f" (drawn {tile_to_str(self.drawn)})" if self.drawn is not None else "")]
        for p in range(4):
            ms = " ".join(_meld_text(m) for m in self.melds[p])
            ds = " ".join(tile_to_str(k) + ("*" if taken else "") for k, taken in
                          self.discards[p])
            lines.append(f"  {p} {'ESWN'[p]}: melds [{ms}] discards [{ds}]"
                         + (f" flowers {tiles_to_str(self.flowers[p])}" if self.flowers[p]
                            else ""))
        if self.asking:
            lines.append(f"asked: seat {self.to_act}, {self.asking}"
                         + (f" on {tile_to_str(self.tile)}" if self.tile is not None else ""))
        return "\n".join(lines)


def _meld_text(m):
    if m.kind == "chow":
        return tiles_to_str([m.tile, m.tile + 1, m.tile + 2])
    n = 3 if m.kind == "pung" else 4
    text = tiles_to_str([m.tile] * n)
    return f"[{text}]" if m.kind == "concealed_kong" else text


def observation(table, seat):
    """The :class:`Observation` of position ``seat`` at ``table`` now."""
    snap = table.snapshot()
    t = table._t
    h = t.hand[0]
    asking = table.asking
    asked = table.to_act
    tile = frm = None
    drawn = None
    if asking in ("claim", "rob"):
        tile = int(h["d"])
        frm = int(h["cur"])
    if asking == "turn" and asked == seat and int(h["w"]) >= 0:
        drawn = int(h["w"])
    par = table._par
    bars = tuple(max(par.minimum - (par.dealer_bonus if p == 0 else 0), 0) for p in range(4))
    hand = tuple(int(k) for k in np.repeat(np.arange(N_KINDS), t.conc[seat]))
    last = None
    if table.events:
        ev = table.events[-1]
        if ev["e"] in ("draw", "exchange") and ev.get("seat") != seat:
            # another seat's draw or exchange: its tiles are hidden (flowers are shown)
            last = {k: v for k, v in ev.items() if k not in ("tile", "gave", "got")}
        else:
            last = dict(ev)
    return Observation(
        seat=seat, rules=table.rules.name, hand=hand, drawn=drawn,
        melds=tuple(tuple(ms) for ms in snap.melds),
        discards=tuple(tuple(ds) for ds in snap.discards),
        flowers=tuple(tuple(fs) for fs in snap.flowers),
        wild=None if int(h["wild"]) < 0 else int(h["wild"]),
        wall_left=int(h["limit"] - h["taken"]), level=table.level, bars=bars,
        round_wind=table.round_wind, to_act=asked, asking=asking, tile=tile, from_seat=frm,
        first_round=bool(h["first_round"]),
        replacement=bool(h["replacement"]), last=last, options=dict(table.options))


def seen_counts(obs):
    """Copies of each kind every player has seen, as the built-in players count them: every
    discard (claimed ones included) and every meld's tiles but the claimed one (already
    counted as a discard); int64 (34,)."""
    seen = np.zeros(N_KINDS, np.int64)
    for p in range(4):
        for k, _ in obs.discards[p]:
            seen[k] += 1
        for m in obs.melds[p]:
            if m.kind == "chow":
                for i in range(3):
                    seen[m.tile + i] += 1
            else:
                seen[m.tile] += 3 if m.kind == "pung" else 4
            if m.claimed is not None:
                seen[m.claimed] -= 1
    return seen


def _int(x, what, lo, hi):
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, np.integer)) or \
            not lo <= x <= hi:
        raise HandError(f"observation: {what} must be an int {lo}..{hi}, got {short_repr(x)}")
    return int(x)


def _opt_int(x, what, lo, hi):
    return None if x is None else _int(x, what, lo, hi)


def check_observation(obs):
    """Verify every field of an :class:`Observation` made elsewhere (another program's, or
    read back); returns it, or raises :class:`~mjkit.errors.HandError` naming the field.

    Checks types and ranges, that no kind is seen more than four times between the
    player's hand, the melds and the discards, that the tile counts fit a hand (13 or 14
    less three per meld) and that what is asked agrees with the seat.
    """
    if not isinstance(obs, Observation):
        raise HandError(f"an observation must be a mjkit.table.Observation, got "
                        f"{short_repr(obs)}")
    seat = _int(obs.seat, "seat", 0, 3)
    from ..rules import get_rules
    try:
        get_rules(obs.rules)
    except Exception:
        raise HandError(f"observation: rules {short_repr(obs.rules)} is not a rule set") \
            from None
    if not isinstance(obs.hand, tuple):
        raise HandError("observation: hand must be a tuple of tile kinds")
    for k in obs.hand:
        _int(k, "a hand tile", 0, N_KINDS - 1)
    _opt_int(obs.drawn, "drawn", 0, N_KINDS - 1)
    if obs.drawn is not None and obs.drawn not in obs.hand:
        raise HandError(f"observation: the drawn tile {tile_to_str(obs.drawn)} is not in the "
                        "hand")
    for name in ("melds", "discards", "flowers"):
        v = getattr(obs, name)
        if not isinstance(v, tuple) or len(v) != 4 or not all(isinstance(x, tuple) for x in v):
            raise HandError(f"observation: {name} must be four tuples, one per position")
    for p in range(4):
        if len(obs.melds[p]) > 4:
            raise HandError(f"observation: seat {p} has {len(obs.melds[p])} melds (at most 4)")
        for m in obs.melds[p]:
            if not isinstance(m, Meld) or m.kind not in _MELD_KINDS:
                raise HandError(f"observation: seat {p}'s meld {short_repr(m)} is not a Meld")
            _int(m.tile, f"seat {p}'s meld tile", 0, 33 if m.kind != "chow" else 26)
            if m.kind == "chow" and m.tile % 9 > 6:
                raise HandError(f"observation: seat {p} has a chow from "
                                f"{tile_to_str(m.tile)}")
            _opt_int(m.claimed, f"seat {p}'s claimed tile", 0, N_KINDS - 1)
            _opt_int(m.from_seat, f"seat {p}'s meld source", 0, 3)
        for d in obs.discards[p]:
            if not isinstance(d, tuple) or len(d) != 2 or not isinstance(d[1], bool):
                raise HandError(f"observation: seat {p}'s discard {short_repr(d)} must be "
                                "(kind, taken)")
            _int(d[0], f"seat {p}'s discard", 0, N_KINDS - 1)
        for f in obs.flowers[p]:
            _int(f, f"seat {p}'s flower", N_KINDS, N_KINDS + 7)
    counts = seen_counts(obs)            # the melds and discards, checked above
    for k in obs.hand:
        counts[k] += 1
    over = np.flatnonzero(counts > 4)
    if len(over):
        raise HandError(f"observation: {tile_to_str(int(over[0]))} is seen "
                        f"{int(counts[over[0]])} times (four copies exist)")
    n_melds = len(obs.melds[seat])
    if len(obs.hand) + 3 * n_melds not in (13, 14):
        raise HandError(f"observation: {len(obs.hand)} concealed tiles with {n_melds} melds "
                        "is not a hand (13 or 14 tiles, a meld counting three)")
    _opt_int(obs.wild, "wild", 0, N_KINDS - 1)
    _int(obs.wall_left, "wall_left", 0, 144)
    _int(obs.level, "level", 0, 10**6)
    if not isinstance(obs.bars, tuple) or len(obs.bars) != 4:
        raise HandError("observation: bars must be four ints")
    for b in obs.bars:
        _int(b, "a bar", 0, 10**6)
    _int(obs.round_wind, "round_wind", 0, 3)
    if obs.asking is not None and obs.asking not in _ASKING:
        raise HandError(f"observation: asking must be one of {_ASKING}, got "
                        f"{short_repr(obs.asking)}")
    _opt_int(obs.to_act, "to_act", 0, 3)
    _opt_int(obs.tile, "tile", 0, N_KINDS - 1)
    _opt_int(obs.from_seat, "from_seat", 0, 3)
    if obs.asking in ("claim", "rob") and (obs.tile is None or obs.from_seat is None or
                                            obs.from_seat == seat):
        raise HandError("observation: a claim needs the tile and another seat it came from")
    for name in ("first_round", "replacement"):
        if not isinstance(getattr(obs, name), bool):
            raise HandError(f"observation: {name} must be True or False")
    _check_options(obs.options)
    return obs


#: The keys of ``Observation.options`` and a check of each value.
_OPTIONS = {
    "exchange": lambda v: isinstance(v, bool),
    "wild": lambda v: v is None or isinstance(v, str),
    "wait_rule": lambda v: v in ("unique", "leftmost"),
    "exhaust": lambda v: isinstance(v, int) and not isinstance(v, bool) and 53 <= v <= 144,
    "discard_wins": lambda v: isinstance(v, bool),
    "claims": lambda v: isinstance(v, bool),
}


def _check_options(options):
    if not isinstance(options, dict):
        raise HandError(f"observation: options must be a dict, got {short_repr(options)}")
    for k, v in options.items():
        check = _OPTIONS.get(k)
        if check is None:
            raise HandError(f"observation: unknown option {short_repr(k)}; known: "
                            f"{', '.join(_OPTIONS)}")
        if not check(v):
            raise HandError(f"observation: option {k} = {short_repr(v)} is not valid")
