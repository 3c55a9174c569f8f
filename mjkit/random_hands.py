"""Seeded generator of random complete (winning) hands.

The generator is used by the test-suite (as input for the PyMahjongGB oracle),
by benchmarks and by the classroom quiz.  It does not try to reproduce the
distribution of hands seen at a real table: sampling is deliberately biased
towards rare patterns, so that a few thousand hands exercise nearly every fan
of the Chinese Official (国标) rules.

All randomness comes from the ``seed`` argument; no global random state is
read or modified.

Examples
--------
>>> from mjkit.random_hands import random_winning_hands
>>> hands = random_winning_hands(3, seed=7)
>>> len(hands)
3
>>> all(" | " in h for h in hands)
True

Notes
-----
Tile indices and notation follow ``docs/architecture.md``: 0..8 are ``1m..9m``,
9..17 ``1p..9p``, 18..26 ``1s..9s``, 27..30 the winds ``E S W N`` and
31..33 the dragons ``P F C`` (白 发 中).
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Callable, NamedTuple

import numpy as np

from .errors import HandError
from .hand import MELD_KINDS, Hand, Meld, hand_to_str, parse_hand
from .tiles import DRAGONS, HONORS, N_KINDS, SUITED, WINDS, set_tiles, tile_to_str
from .validate import whole

__all__ = [
    "random_closed_counts",
    "FORMS",
    "DEFAULT_FORM_WEIGHTS",
    "RandomHand",
    "random_winning_hands",
    "random_wild_hands",
    "random_hand_parts",
]

_SUITED = tuple(SUITED)
_WINDS = tuple(WINDS)
_DRAGONS = tuple(DRAGONS)
_HONOURS = tuple(HONORS)
_TERMINALS = (0, 8, 9, 17, 18, 26)

#: Hand forms the generator knows, in a fixed order.
FORMS = (
    "regular",
    "seven_pairs",
    "seven_shifted_pairs",
    "thirteen_orphans",
    "honors_knitted",
    "greater_honors_knitted",
    "knitted_straight",
    "nine_gates",
)

#: Default probability of each form.  The special forms are far more frequent
#: than in play because every one of them carries its own fan(s).
DEFAULT_FORM_WEIGHTS = {
    "regular": 0.72,
    "seven_pairs": 0.09,
    "seven_shifted_pairs": 0.03,
    "thirteen_orphans": 0.03,
    "honors_knitted": 0.04,
    "greater_honors_knitted": 0.03,
    "knitted_straight": 0.04,
    "nine_gates": 0.02,
}


@dataclass(frozen=True, repr=False, init=False)
class RandomHand(Hand):
    """A generated hand: a :class:`~mjkit.hand.Hand` that also records how it was drawn.

    It is a ``Hand`` in every respect (scoring, ``all_counts``, the
    PyMahjongGB adapter of the tests), with two more fields.  Its text,
    ``str(hand)`` or :meth:`notation`, always writes ``seat=`` and
    ``round=``, so it does not depend on the reader's defaults.

    Parameters
    ----------
    *args, **situation
        As for :class:`~mjkit.hand.Hand`.
    form : str, default "regular"
        One of :data:`FORMS`: the shape the hand was built as (a hand built
        as ``"regular"`` may of course also score as something else).
    theme : str, default "random"
        Name of the biased pattern used to draw the hand, for debugging.
    """

    form: str = "regular"
    theme: str = "random"

    def __init__(self, *args, form: str = "regular", theme: str = "random",
                 **situation) -> None:
        if form not in DEFAULT_FORM_WEIGHTS:
            raise HandError(f"unknown hand form {form!r}; expected one of {FORMS}",
                            code="unknown_name")
        self.__dict__.update(form=form, theme=str(theme))
        super().__init__(*args, **situation)

    def notation(self) -> str:
        """The hand in notation with its ``|`` suffix, winds always written."""
        return hand_to_str(self, all_winds=True)

    def to_hand(self) -> Hand:
        """The same hand as a plain :class:`~mjkit.hand.Hand` (form and theme dropped)."""
        return parse_hand(self)

    def __str__(self) -> str:
        return self.notation()


# Every valid meld once (Melds are immutable): the generator draws a great
# many, and a lookup is cheaper than constructing and checking each.
_MELDS = {(kind, t, concealed): Meld(kind, t, concealed)
          for kind in MELD_KINDS for t in range(N_KINDS) for concealed in (False, True)
          if (kind != "chow" or (t < 27 and t % 9 <= 6)) and (kind == "kong" or not concealed)}


# ---------------------------------------------------------------------------
# Pools of sets used by the themes
# ---------------------------------------------------------------------------


class _Pool(NamedTuple):
    """Candidate sets and pairs a theme may fill a hand with."""

    chows: tuple[int, ...]  # lowest tile of allowed chows
    pungs: tuple[int, ...]
    pairs: tuple[int, ...]
    p_chow: float  # probability of drawing a chow when both kinds are allowed


_ALL_CHOWS = tuple(s * 9 + r for s in range(3) for r in range(7))


def _pool_from_tiles(tiles, p_chow: float = 0.5, *, pungs_only: bool = False) -> _Pool:
    """Every set and pair made only of ``tiles``."""
    ts = frozenset(tiles)
    chows = () if pungs_only else tuple(
        c for c in _ALL_CHOWS if c in ts and c + 1 in ts and c + 2 in ts
    )
    srt = tuple(sorted(ts))
    return _Pool(chows, srt, srt, p_chow)


def _rank_tiles(ranks, honours: Sequence[int] = ()) -> tuple[int, ...]:
    return tuple(s * 9 + r - 1 for s in range(3) for r in ranks) + tuple(honours)


_POOL_ALL = _pool_from_tiles(range(N_KINDS), 0.6)
_POOL_SUITED = _pool_from_tiles(_SUITED, 0.6)
# 全带幺: every set and the pair contain a terminal or an honour.
_POOL_OUTSIDE = _Pool(
    tuple(c for c in _ALL_CHOWS if c % 9 in (0, 6)),
    _TERMINALS + _HONOURS,
    _TERMINALS + _HONOURS,
    0.6,
)
# 全带五: every set and the pair contain a 5.
_POOL_FIVES = _Pool(
    tuple(c for c in _ALL_CHOWS if c % 9 in (2, 3, 4)), (4, 13, 22), (4, 13, 22), 0.75
)
# Tiles of the "range" themes: (name, tiles, pungs_only, p_chow).
_RANGE_THEMES = {
    "simples": (_rank_tiles(range(2, 9)), False, 0.6),  # 断幺
    "upper": (_rank_tiles((7, 8, 9)), False, 0.4),  # 全大
    "middle": (_rank_tiles((4, 5, 6)), False, 0.4),  # 全中
    "lower": (_rank_tiles((1, 2, 3)), False, 0.4),  # 全小
    "upper_four": (_rank_tiles((6, 7, 8, 9)), False, 0.5),  # 大于五
    "lower_four": (_rank_tiles((1, 2, 3, 4)), False, 0.5),  # 小于五
    "green": ((19, 20, 21, 23, 25, 32), False, 0.4),  # 绿一色: 23468s + 发
    # 推不倒: 1234589p 245689s 白
    "reversible": ((9, 10, 11, 12, 13, 16, 17, 19, 21, 22, 23, 25, 26, 31), False, 0.5),
    "evens": (_rank_tiles((2, 4, 6, 8)), True, 0.0),  # 全双刻
    "terminals": (_TERMINALS, True, 0.0),  # 清幺九
    "terminals_honours": (_TERMINALS + _HONOURS, True, 0.0),  # 混幺九
    "honours": (_HONOURS, True, 0.0),  # 字一色
    "no_honours": (_SUITED, False, 0.7),  # 无字 / 平和
}
_RANGE_POOLS = {k: _pool_from_tiles(t, p, pungs_only=po) for k, (t, po, p) in _RANGE_THEMES.items()}


def _suit_pool(suit: int, honours: bool, p_chow: float = 0.6) -> _Pool:
    tiles = list(range(suit * 9, suit * 9 + 9))
    if honours:
        tiles += list(_HONOURS)
    return _pool_from_tiles(tiles, p_chow)


_SUIT_POOLS = {(s, h): _suit_pool(s, h) for s in range(3) for h in (False, True)}


class _Theme(NamedTuple):
    """What a theme function returns.

    ``sets`` are fixed ``(kind, tile)`` sets with kind ``"chow"``/``"pung"``;
    ``pool`` fills the rest; ``pair`` forces the pair tile when not None.
    The hint fields steer meld choice and the situation.
    """

    name: str
    sets: list
    pool: _Pool
    pair: int | None = None
    n_melds: int | None = None  # None: random
    n_kongs: int = 0  # pungs that must become kongs
    exposed_ok: bool = True  # False: only concealed kongs may be declared
    kong_exposed: bool | None = None  # force the kind of the forced kongs
    winds: tuple[int, ...] = ()  # winds worth matching with seat / round
    avoid_winds: tuple[int, ...] = ()  # winds seat / round must not equal
    self_drawn: bool | None = None
    plain: bool = False  # no situation flags at all
    win_on_pair: float = 0.0  # probability the winning tile completes the pair
    exposed_pungs_only: bool = False  # melded pungs never become kongs


# ---------------------------------------------------------------------------
# The generator proper
# ---------------------------------------------------------------------------


class _Generator:
    """Draws :class:`RandomHand` from a private ``random.Random`` stream.

    ``random.Random`` is used instead of calling ``numpy.random.Generator``
    per draw because scalar draws through numpy cost about a microsecond each,
    which would dominate the cost of a hand; it is seeded once from the
    numpy generator, so results are still fully determined by ``seed``.
    """

    def __init__(self, r: random.Random, biased: bool = True):
        self.r = r
        self.biased = biased
        self._forms = {
            "regular": self._regular,
            "seven_pairs": self._seven_pairs,
            "seven_shifted_pairs": self._seven_shifted_pairs,
            "thirteen_orphans": self._thirteen_orphans,
            "honors_knitted": self._honors_knitted,
            "greater_honors_knitted": self._greater_honors_knitted,
            "knitted_straight": self._knitted_straight,
            "nine_gates": self._nine_gates,
        }
        themes: list[tuple[float, Callable[[], _Theme]]] = [
            (0.16, self._t_random),
            (0.07, self._t_flush),
            (0.015, lambda: self._t_range("simples")),
            (0.015, lambda: self._t_range("no_honours")),
            (0.012, lambda: self._t_range("upper")),
            (0.012, lambda: self._t_range("middle")),
            (0.012, lambda: self._t_range("lower")),
            (0.012, lambda: self._t_range("upper_four")),
            (0.012, lambda: self._t_range("lower_four")),
            (0.015, lambda: self._t_range("green")),
            (0.015, lambda: self._t_range("reversible")),
            (0.015, lambda: self._t_range("evens")),
            (0.012, lambda: self._t_range("terminals")),
            (0.015, lambda: self._t_range("terminals_honours")),
            (0.015, lambda: self._t_range("honours")),
            (0.02, self._t_outside),
            (0.02, self._t_fives),
            (0.02, self._t_five_gates),
            (0.015, self._t_all_chows),
            (0.25, self._t_chow_pattern),
            (0.17, self._t_pung_pattern),
            (0.04, self._t_kongs),
            (0.02, self._t_tile_hog),
            (0.04, self._t_chicken),
        ]
        # Cumulative weights once, rather than on every draw.
        self._theme_cw = list(itertools.accumulate(w for w, _ in themes))
        self._theme_f = [f for _, f in themes]

    # -- helpers -----------------------------------------------------------

    def _choice_w(self, items, weights):
        return self.r.choices(items, weights)[0]

    @staticmethod
    def _add(counts: list[int], tiles) -> bool:
        """Add tiles if no tile would exceed 4 copies."""
        ok = True
        for t in tiles:
            counts[t] += 1
            if counts[t] > 4:
                ok = False
        if not ok:
            for t in tiles:
                counts[t] -= 1
        return ok

    # -- situation -----------------------------------------------------------

    def _situation(self, concealed, melds, win_tile, *, theme: _Theme | None = None):
        """Draw winds, flowers and a valid combination of flags."""
        r = self.r
        seat, rnd = r.randrange(4), r.randrange(4)
        if theme is not None and theme.winds and self.biased:
            # Matching the wind of a pung with the seat / round gives 门风刻 /
            # 圈风刻, which uniform winds would give only a quarter of the time.
            if r.random() < 0.6:
                seat = r.choice(theme.winds) - 27
            if r.random() < 0.6:
                rnd = r.choice(theme.winds) - 27
        if theme is not None and theme.avoid_winds:
            bad = {w - 27 for w in theme.avoid_winds}
            ok = [w for w in range(4) if w not in bad]
            if seat in bad:
                seat = r.choice(ok)
            if rnd in bad:
                rnd = r.choice(ok)
        flowers = 0 if r.random() < 0.5 else r.randint(1, 8)
        self_drawn = r.random() < 0.5
        if theme is not None and theme.self_drawn is not None:
            self_drawn = theme.self_drawn
        if theme is not None and theme.plain:
            return dict(self_drawn=self_drawn, last_copy=False, kong=False, last_wall=False,
                        seat_wind=seat, round_wind=rnd, flowers=flowers)

        n_conc_win = sum(1 for t in concealed if t == win_tile)
        in_meld = any(win_tile in m.tiles for m in melds)
        has_kong = any(m.kind == "kong" for m in melds)
        kong = last_copy = last_wall = False
        if self_drawn:
            # 杠上开花: the winning tile is the replacement drawn after a kong,
            # so the hand must contain a kong.
            if has_kong and r.random() < 0.3:
                kong = True
        elif n_conc_win == 1 and not in_meld and r.random() < 0.08:
            # 抢杠和: the three other copies are in the robbed pung/kong, so
            # none may be in our hand.
            kong = True
        if not kong and n_conc_win == 1 and r.random() < 0.12:
            last_copy = True  # 和绝张
        if not kong and r.random() < 0.07:
            last_wall = True  # 妙手回春 / 海底捞月
        return dict(self_drawn=self_drawn, last_copy=last_copy, kong=kong,
                    last_wall=last_wall, seat_wind=seat, round_wind=rnd, flowers=flowers)

    def _finish(self, concealed, melds, *, form, theme_name, win_tile=None,
                theme: _Theme | None = None) -> RandomHand:
        concealed = tuple(sorted(concealed))
        if win_tile is None:
            win_tile = self.r.choice(concealed)
        sit = self._situation(concealed, melds, win_tile, theme=theme)
        return RandomHand(concealed, tuple(melds), win_tile, form=form, theme=theme_name, **sit)

    # -- regular hands ---------------------------------------------------------

    def _regular(self) -> RandomHand:
        for _ in range(100):
            th = self.r.choices(self._theme_f, cum_weights=self._theme_cw)[0]() if self.biased else self._t_random()
            hand = self._build_regular(th)
            if hand is not None:
                return hand
        raise RuntimeError("could not build a regular hand")  # pragma: no cover

    def _draw_set(self, pool: _Pool, counts: list[int]):
        r = self.r
        for _ in range(20):
            if pool.chows and (not pool.pungs or r.random() < pool.p_chow):
                kind, tile = "chow", r.choice(pool.chows)
            else:
                kind, tile = "pung", r.choice(pool.pungs)
            if self._add(counts, set_tiles(kind, tile)):
                return kind, tile
        return None

    def _build_regular(self, th: _Theme) -> RandomHand | None:
        r = self.r
        counts = [0] * N_KINDS
        sets = []
        for kind, tile in th.sets:
            if not self._add(counts, set_tiles(kind, tile)):
                return None
            sets.append((kind, tile))
        while len(sets) < 4:
            s = self._draw_set(th.pool, counts)
            if s is None:
                return None
            sets.append(s)
        if th.pair is not None:
            pair = th.pair
            if not self._add(counts, (pair, pair)):
                return None
        else:
            ok = [t for t in th.pool.pairs if counts[t] <= 2]
            if not ok:
                return None
            pair = r.choice(ok)
            counts[pair] += 2
        r.shuffle(sets)

        # Which sets are declared.  Forced kongs first (they need a pung whose
        # fourth copy is still free), then other melds.
        n_melds = th.n_melds
        if n_melds is None:
            n_melds = self._choice_w((0, 1, 2, 3, 4), (0.3, 0.2, 0.2, 0.15, 0.15))
        if not th.exposed_ok:
            n_melds = min(n_melds, sum(1 for k, _ in sets if k == "pung"))
        melds: list[Meld] = []
        used = [False] * 4
        kong_cands = [i for i, (k, t) in enumerate(sets) if k == "pung" and counts[t] == 3]
        r.shuffle(kong_cands)
        if len(kong_cands) < th.n_kongs:
            return None
        for i in kong_cands[: th.n_kongs]:
            t = sets[i][1]
            exposed = th.kong_exposed if th.kong_exposed is not None else r.random() < 0.5
            if not th.exposed_ok:
                exposed = False
            melds.append(_MELDS["kong", t, not exposed])
            counts[t] += 1
            used[i] = True
        order = [i for i in range(4) if not used[i]]
        r.shuffle(order)
        for i in order:
            if len(melds) >= max(n_melds, th.n_kongs):
                break
            kind, t = sets[i]
            if kind == "chow":
                if not th.exposed_ok:
                    continue
                melds.append(_MELDS["chow", t, False])
            else:
                u = r.random()
                can_kong = counts[t] == 3 and not th.exposed_pungs_only
                if not th.exposed_ok:
                    if not can_kong:
                        continue
                    melds.append(_MELDS["kong", t, True])
                    counts[t] += 1
                elif can_kong and u < 0.15:
                    melds.append(_MELDS["kong", t, False])
                    counts[t] += 1
                elif can_kong and u < 0.3:
                    melds.append(_MELDS["kong", t, True])
                    counts[t] += 1
                else:
                    melds.append(_MELDS["pung", t, False])
            used[i] = True
        r.shuffle(melds)

        concealed = [pair, pair]
        for i, (kind, t) in enumerate(sets):
            if not used[i]:
                concealed.extend(set_tiles(kind, t))
        win_tile = pair if (th.win_on_pair and r.random() < th.win_on_pair) else None
        return self._finish(concealed, melds, form="regular", theme_name=th.name,
                            win_tile=win_tile, theme=th)

    # -- themes ----------------------------------------------------------------

    def _filler(self, suit: int | None = None) -> _Pool:
        """Pool for the sets a pattern theme does not fix.

        Restricting the filler to the pattern's suit now and then turns a
        pattern hand into 清一色 / 混一色, which combine with most patterns.
        """
        u = self.r.random()
        if suit is not None and u < 0.2:
            return _SUIT_POOLS[(suit, False)]
        if suit is not None and u < 0.35:
            return _SUIT_POOLS[(suit, True)]
        if u < 0.55:
            return _POOL_SUITED
        return _POOL_ALL

    def _t_random(self) -> _Theme:
        return _Theme("random", [], _POOL_ALL)

    def _t_flush(self) -> _Theme:
        s = self.r.randrange(3)
        h = self.r.random() < 0.5
        return _Theme("half_flush" if h else "full_flush", [], _SUIT_POOLS[(s, h)])

    def _t_range(self, name: str) -> _Theme:
        return _Theme(name, [], _RANGE_POOLS[name])

    def _t_outside(self) -> _Theme:
        return _Theme("outside", [], _POOL_OUTSIDE)

    def _t_fives(self) -> _Theme:
        return _Theme("fives", [], _POOL_FIVES)

    def _t_five_gates(self) -> _Theme:
        # 五门齐: one set in each suit, one wind, one dragon (set or pair).
        r = self.r
        sets = []
        for s in range(3):
            if r.random() < 0.6:
                sets.append(("chow", s * 9 + r.randrange(7)))
            else:
                sets.append(("pung", s * 9 + r.randrange(9)))
        w, d = r.choice(_WINDS), r.choice(_DRAGONS)
        if r.random() < 0.5:
            sets.append(("pung", w))
            pair = d
        else:
            sets.append(("pung", d))
            pair = w
        return _Theme("five_gates", sets, _POOL_ALL, pair=pair)

    def _t_all_chows(self) -> _Theme:
        # 平和: four chows and a suited pair.  Concealed-only sometimes, to get
        # 门前清 / 不求人 alongside.
        pool = _Pool(_ALL_CHOWS, (), _SUITED, 1.0)
        n = 0 if self.r.random() < 0.4 else None
        return _Theme("all_chows", [], pool, n_melds=n)

    def _t_chow_pattern(self) -> _Theme:
        r = self.r
        s = r.randrange(3)
        b = s * 9
        suits = [0, 1, 2]
        r.shuffle(suits)
        k = r.randrange(14)
        pair = None
        if k == 0:  # 一般高
            c = b + r.randrange(7)
            name, sets = "pure_double_chow", [("chow", c)] * 2
        elif k == 1:  # 喜相逢
            rk = r.randrange(7)
            name, sets = "mixed_double_chow", [("chow", suits[0] * 9 + rk), ("chow", suits[1] * 9 + rk)]
        elif k == 2:  # 连六
            c = b + r.randrange(4)
            name, sets = "short_straight", [("chow", c), ("chow", c + 3)]
        elif k == 3:  # 老少副
            name, sets = "terminal_chows", [("chow", b), ("chow", b + 6)]
        elif k == 4:  # 一色三同顺
            c = b + r.randrange(7)
            name, sets = "pure_triple_chow", [("chow", c)] * 3
        elif k == 5:  # 一色四同顺
            c = b + r.randrange(7)
            name, sets = "quadruple_chow", [("chow", c)] * 4
        elif k == 6:  # 一色三步高
            step = r.choice((1, 2))
            c = b + r.randrange(7 - 2 * step)
            name, sets = "pure_shifted_chows", [("chow", c + i * step) for i in range(3)]
        elif k == 7:  # 一色四步高
            step = r.choice((1, 2))
            c = b + (r.randrange(4) if step == 1 else 0)
            name, sets = "four_shifted_chows", [("chow", c + i * step) for i in range(4)]
        elif k == 8:  # 清龙
            name, sets = "pure_straight", [("chow", b), ("chow", b + 3), ("chow", b + 6)]
        elif k == 9:  # 花龙
            name, sets = "mixed_straight", [("chow", suits[i] * 9 + 3 * i) for i in range(3)]
        elif k == 10:  # 三色三同顺
            rk = r.randrange(7)
            name, sets = "mixed_triple_chow", [("chow", x * 9 + rk) for x in suits]
        elif k == 11:  # 三色三步高
            rk = r.randrange(5)
            name, sets = "mixed_shifted_chows", [("chow", suits[i] * 9 + rk + i) for i in range(3)]
        elif k == 12:  # 一色双龙会
            name, sets = "pure_terminal_chows", [("chow", b), ("chow", b), ("chow", b + 6), ("chow", b + 6)]
            pair = b + 4
        else:  # 三色双龙会
            x, y, z = suits
            name = "three_suited_terminal_chows"
            sets = [("chow", x * 9), ("chow", x * 9 + 6), ("chow", y * 9), ("chow", y * 9 + 6)]
            pair = z * 9 + 4
        return _Theme(name, list(sets), self._filler(s), pair=pair)

    def _t_pung_pattern(self) -> _Theme:
        r = self.r
        s = r.randrange(3)
        b = s * 9
        suits = [0, 1, 2]
        r.shuffle(suits)
        k = r.randrange(15)
        pair = None
        winds: tuple[int, ...] = ()
        pool = self._filler(s)
        if r.random() < 0.5:
            # All pungs (碰碰和) half of the time.
            pool = pool._replace(p_chow=0.0)
        if k == 0:
            name, sets = "all_pungs", []
            pool = _POOL_ALL._replace(p_chow=0.0)
        elif k == 1:  # 双同刻
            rk = r.randrange(9)
            name, sets = "double_pung", [("pung", suits[0] * 9 + rk), ("pung", suits[1] * 9 + rk)]
        elif k == 2:  # 三同刻
            rk = r.randrange(9)
            name, sets = "triple_pung", [("pung", x * 9 + rk) for x in suits]
        elif k == 3:  # 一色三节高
            c = b + r.randrange(7)
            name, sets = "pure_shifted_pungs", [("pung", c + i) for i in range(3)]
        elif k == 4:  # 一色四节高
            c = b + r.randrange(6)
            name, sets = "four_shifted_pungs", [("pung", c + i) for i in range(4)]
        elif k == 5:  # 三色三节高
            rk = r.randrange(7)
            name, sets = "mixed_shifted_pungs", [("pung", suits[i] * 9 + rk + i) for i in range(3)]
        elif k == 6:  # 三风刻
            ws = r.sample(_WINDS, 3)
            name, sets, winds = "big_three_winds", [("pung", w) for w in ws], tuple(ws)
        elif k == 7:  # 小四喜
            ws = list(_WINDS)
            r.shuffle(ws)
            name, sets, winds, pair = "little_four_winds", [("pung", w) for w in ws[:3]], tuple(ws[:3]), ws[3]
        elif k == 8:  # 大四喜
            name, sets, winds = "big_four_winds", [("pung", w) for w in _WINDS], _WINDS
        elif k == 9:  # 小三元
            ds = list(_DRAGONS)
            r.shuffle(ds)
            name, sets, pair = "little_three_dragons", [("pung", d) for d in ds[:2]], ds[2]
        elif k == 10:  # 大三元
            name, sets = "big_three_dragons", [("pung", d) for d in _DRAGONS]
        elif k == 11:  # 双箭刻 / 箭刻
            ds = r.sample(_DRAGONS, r.choice((1, 2)))
            name, sets = "dragon_pungs", [("pung", d) for d in ds]
        elif k == 12:  # 门风刻 / 圈风刻
            ws = r.sample(_WINDS, r.choice((1, 2)))
            name, sets, winds = "wind_pungs", [("pung", w) for w in ws], tuple(ws)
        elif k == 13:  # 四暗刻 / 三暗刻 / 双暗刻
            n = r.choice((2, 3, 4))
            tiles = r.sample(range(N_KINDS), n)
            name = f"concealed_pungs_{n}"
            pool = _POOL_ALL._replace(p_chow=0.0 if n == 4 else 0.6)
            return _Theme(name, [("pung", t) for t in tiles], pool, n_melds=0 if r.random() < 0.7 else 1,
                          exposed_ok=False, win_on_pair=0.5)
        else:  # 碰碰和 with honours (混幺九 ...)
            name, sets = "honour_pungs", [("pung", t) for t in r.sample(_HONOURS, r.choice((1, 2, 3)))]
        return _Theme(name, list(sets), pool, pair=pair, winds=winds)

    def _t_kongs(self) -> _Theme:
        # 三杠 / 四杠 / 双暗杠 / 双明杠 / 明暗杠.
        r = self.r
        n = self._choice_w((1, 2, 3, 4), (0.2, 0.4, 0.25, 0.15))
        tiles = r.sample(range(N_KINDS), n)
        u = r.random()
        exposed = None if u < 0.4 else (u < 0.7)
        return _Theme(f"kongs_{n}", [("pung", t) for t in tiles], _POOL_ALL,
                      n_kongs=n, kong_exposed=exposed)

    def _t_tile_hog(self) -> _Theme:
        # 四归一: four copies of one tile spread over sets, not declared as kong.
        r = self.r
        c = r.randrange(27)
        starts = [x for x in (c - 2, c - 1, c) if x >= 0 and x // 9 == c // 9 and x % 9 <= 6]
        start = r.choice(starts)
        if r.random() < 0.5:
            sets = [("pung", c), ("chow", start)]
        else:
            sets = [("chow", start), ("chow", r.choice(starts)), ("chow", r.choice(starts))]
            if r.random() < 0.5:
                return _Theme("tile_hog", sets[:2], _POOL_ALL, pair=c, exposed_pungs_only=True)
            sets.append(("chow", r.choice(starts)))
        return _Theme("tile_hog", sets, _POOL_ALL, exposed_pungs_only=True)

    def _t_chicken(self) -> _Theme:
        # 无番和 needs a hand that scores nothing: three suits (no 缺一门), an
        # honour pair (no 无字 / 平和 / 断幺) of a wind that is neither seat nor
        # round, at least one exposed meld and a discard (no 门前清 / 自摸),
        # no kongs and no terminal pungs.  Relations between the chows are
        # left to chance.
        r = self.r
        suits = [0, 1, 2]
        r.shuffle(suits)
        sets = [("chow", x * 9 + r.randrange(7)) for x in suits]
        if r.random() < 0.5:
            sets.append(("pung", r.randrange(27) // 9 * 9 + r.randrange(1, 8)))
        w = r.choice(_WINDS)
        return _Theme("chicken", sets, _POOL_SUITED._replace(p_chow=1.0), pair=w,
                      n_melds=r.choice((1, 2, 3)), avoid_winds=(w,), self_drawn=False,
                      plain=True, exposed_pungs_only=True)

    # -- special forms -----------------------------------------------------------

    def _pair_tiles(self) -> tuple[int, ...]:
        """Tiles to draw seven pairs from, biased towards one-category hands."""
        r = self.r
        k = r.randrange(10)
        if k < 3:
            return tuple(range(N_KINDS))
        if k < 5:
            s = r.randrange(3)
            return tuple(range(s * 9, s * 9 + 9)) + (_HONOURS if k == 4 else ())
        name = r.choice(("simples", "upper", "middle", "lower", "upper_four", "lower_four",
                         "green", "reversible", "terminals_honours", "honours", "no_honours"))
        return _RANGE_THEMES[name][0]

    def _seven_pairs(self) -> RandomHand:
        r = self.r
        while True:
            tiles = self._pair_tiles()
            # Pairs of the same tile twice (四归一 in 七对) are allowed.
            n_double = 0 if r.random() < 0.6 else r.choice((1, 1, 2))
            if len(tiles) < 7 - n_double:
                continue
            distinct = r.sample(tiles, 7 - n_double)
            pairs = distinct + r.sample(distinct, n_double)
            concealed = [t for t in pairs for _ in (0, 1)]
            return self._finish(concealed, [], form="seven_pairs", theme_name="seven_pairs")

    def _seven_shifted_pairs(self) -> RandomHand:
        c = self.r.randrange(3) * 9 + self.r.randrange(3)
        concealed = [t for t in range(c, c + 7) for _ in (0, 1)]
        return self._finish(concealed, [], form="seven_shifted_pairs", theme_name="seven_shifted_pairs")

    def _thirteen_orphans(self) -> RandomHand:
        orphans = list(_TERMINALS + _HONOURS)
        concealed = orphans + [self.r.choice(orphans)]
        return self._finish(concealed, [], form="thirteen_orphans", theme_name="thirteen_orphans")

    def _knitted(self) -> list[int]:
        """The 9 tiles of a knitted straight: 147, 258, 369 in permuted suits."""
        suits = [0, 1, 2]
        self.r.shuffle(suits)
        return [suits[i] * 9 + i + 3 * j for i in range(3) for j in range(3)]

    def _honors_knitted(self) -> RandomHand:
        # 全不靠: 14 distinct tiles from the 9 knitted + 7 honours, with 7..9
        # suited; 7 honours would be 七星不靠, which has its own form, so only
        # 5 or 6 honours here.
        r = self.r
        n_h = r.choice((5, 6))
        concealed = r.sample(self._knitted(), 14 - n_h) + r.sample(_HONOURS, n_h)
        return self._finish(concealed, [], form="honors_knitted", theme_name="honors_knitted")

    def _greater_honors_knitted(self) -> RandomHand:
        concealed = self.r.sample(self._knitted(), 7) + list(_HONOURS)
        return self._finish(concealed, [], form="greater_honors_knitted",
                            theme_name="greater_honors_knitted")

    def _knitted_straight(self) -> RandomHand:
        # 组合龙: the 9 knitted tiles + one set + a pair; the set may be declared.
        r = self.r
        while True:
            counts = [0] * N_KINDS
            knit = self._knitted()
            for t in knit:
                counts[t] += 1
            s = self._draw_set(_POOL_ALL, counts)
            if s is None:
                continue
            pair = r.randrange(N_KINDS)
            if not self._add(counts, (pair, pair)):
                continue
            kind, t = s
            melds = []
            concealed = knit + [pair, pair]
            u = r.random()
            if u < 0.45:
                concealed += set_tiles(kind, t)
            elif kind == "chow":
                melds.append(_MELDS["chow", t, False])
            elif counts[t] == 3 and u < 0.6:
                melds.append(_MELDS["kong", t, False])
            elif counts[t] == 3 and u < 0.75:
                melds.append(_MELDS["kong", t, True])
            else:
                melds.append(_MELDS["pung", t, False])
            return self._finish(concealed, melds, form="knitted_straight",
                                theme_name="knitted_straight")

    def _nine_gates(self) -> RandomHand:
        r = self.r
        b = r.randrange(3) * 9
        base = [b, b, b] + [b + i for i in range(1, 8)] + [b + 8] * 3
        extra = b + r.randrange(9)
        # The fan needs the 13 tiles before the win to be 1112345678999, i.e.
        # the winning tile is the extra one; sometimes win on another tile to
        # exercise the boundary.
        win = extra if r.random() < 0.85 else r.choice(base)
        return self._finish(base + [extra], [], form="nine_gates", theme_name="nine_gates",
                            win_tile=win)

    # -- entry point ---------------------------------------------------------------

    def hand(self, form: str) -> RandomHand:
        return self._forms[form]()


class _FastRandom(random.Random):
    """``random.Random`` with cheaper ``choice`` / ``randrange`` / ``randint``.

    The stock methods draw rejection-sampled integers through
    ``getrandbits``; scaling one ``random()`` float is about three times
    faster, and its bias (below 2**-50 for the tiny ranges used here) is
    irrelevant for test data.
    """

    def choice(self, seq):
        return seq[int(self.random() * len(seq))]

    def randrange(self, start, stop=None, step=1):
        if stop is None:
            start, stop = 0, start
        if step != 1:  # pragma: no cover - not used by the generator
            return super().randrange(start, stop, step)
        return start + int(self.random() * (stop - start))

    def randint(self, a, b):
        return a + int(self.random() * (b - a + 1))

    def shuffle(self, x):
        rnd = self.random
        for i in range(len(x) - 1, 0, -1):
            j = int(rnd() * (i + 1))
            x[i], x[j] = x[j], x[i]


def _make_rng(seed) -> random.Random:
    """Private ``random.Random`` derived from an int seed or a numpy Generator."""
    if isinstance(seed, np.random.Generator):
        # One draw from the caller's generator: successive calls with the same
        # Generator object give different hands, as numpy users expect.
        return _FastRandom(int(seed.integers(0, 2**63 - 1)))
    if seed is None:
        return _FastRandom(int(np.random.default_rng().integers(0, 2**63 - 1)))
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
        seed = whole("seed", seed, 0)  # numpy refuses negative seeds
        # Going through numpy's SeedSequence spreads nearby seeds (0, 1, 2 ...)
        # over unrelated streams.
        return _FastRandom(int(np.random.default_rng(int(seed)).integers(0, 2**63 - 1)))
    raise HandError(f"seed must be None, an int or a numpy.random.Generator, "
                    f"not {type(seed).__name__}")


def _form_weights(forms) -> tuple[list[str], list[float]]:
    """The forms to draw and their weights, from the ``forms`` argument."""
    if forms is None:
        items = list(DEFAULT_FORM_WEIGHTS.items())
    elif isinstance(forms, str):
        items = [(forms, 1.0)]
    elif isinstance(forms, Mapping):
        items = list(forms.items())
    else:
        try:
            items = [(f, DEFAULT_FORM_WEIGHTS.get(f, 0.0) if isinstance(f, str) else 0.0)
                     for f in forms]
        except TypeError:
            raise HandError(f"forms must be a form name, a sequence of names or a mapping "
                            f"of names to weights, got {type(forms).__name__}") from None
    names, weights = [], []
    for f, w in items:
        if not isinstance(f, str) or f not in DEFAULT_FORM_WEIGHTS:
            raise HandError(f"unknown hand form {f!r}; expected one of {FORMS}",
                            code="unknown_name")
        if isinstance(w, (bool, np.bool_)) or not isinstance(w, (int, float, np.integer,
                                                                   np.floating)):
            raise HandError(f"weight of form {f!r} must be a number, got {w!r}")
        if not math.isfinite(w) or w < 0:
            raise HandError(f"weight of form {f!r} must be finite and >= 0, got {w!r}")
        names.append(f)
        weights.append(float(w))
    if not names or sum(weights) <= 0:
        raise HandError("no hand form with a positive weight")
    return names, weights


def random_hand_parts(
    n: int,
    seed: int | np.random.Generator | None = None,
    *,
    forms: str | Sequence[str] | Mapping[str, float] | None = None,
    biased: bool = True,
) -> list[RandomHand]:
    """Generate ``n`` random complete hands as :class:`RandomHand` objects.

    Parameters
    ----------
    n : int
        Number of hands.
    seed : int, numpy.random.Generator or None
        Source of randomness.  The same int gives the same hands; the first
        ``k`` hands of a call do not depend on ``n``.  A Generator is advanced
        by one draw.  None draws fresh OS entropy.
    forms : str, sequence of str, mapping of str to float, or None
        Which hand forms (see :data:`FORMS`) to produce.  None uses
        :data:`DEFAULT_FORM_WEIGHTS`; a sequence keeps those default weights
        for the listed forms only; a mapping gives explicit weights.
    biased : bool, default True
        When True, regular hands are drawn through "themes" (flushes, chow
        and pung patterns, tile ranges, kongs, chicken hands ...) so that
        rare fans appear often.  When False regular hands draw their sets
        uniformly from every chow and pung (still random melds and
        situation), which is closer to ordinary hands.

    Returns
    -------
    list of RandomHand
        :class:`~mjkit.hand.Hand` objects that also carry ``form`` and
        ``theme``.

    Raises
    ------
    HandError
        For a negative or non-integer ``n``, a bad ``seed``, an unknown form
        or a weight that is not a finite number >= 0.

    Notes
    -----
    Guarantees for every hand: at most 4 copies of any tile over melds and
    concealed tiles; 14 tiles plus one per kong; the concealed tiles complete
    the hand in its form; the winning tile is one of the concealed tiles.
    Flags: ``kong`` is either 杠上开花 (self-drawn, hand has a kong) or
    抢杠和 (discard, no other copy of the winning tile in the hand, never
    with ``last_copy``); ``last_copy`` only when the winning tile is the only
    concealed copy; ``last_wall`` never together with ``kong``.
    """
    n = whole("n", n, 0)
    gen = _Generator(_make_rng(seed), biased=biased)
    names, weights = _form_weights(forms)
    r = gen.r
    cum = list(itertools.accumulate(weights))
    # The form is drawn hand by hand (not all up front) so that the first k
    # hands are the same whatever n is.
    return [gen.hand(r.choices(names, cum_weights=cum)[0]) for _ in range(n)]


def random_winning_hands(
    n: int,
    seed: int | np.random.Generator | None = None,
    *,
    forms: str | Sequence[str] | Mapping[str, float] | None = None,
    biased: bool = True,
) -> list[str]:
    """Generate ``n`` random complete hands in contract notation.

    Each string includes the `` | `` situation suffix, e.g.
    ``"[123m]{EEEE}1456p789s 1p | self_drawn seat=S round=W flowers=2"``.

    Parameters
    ----------
    n, seed, forms, biased
        See :func:`random_hand_parts`.

    Returns
    -------
    list of str

    Examples
    --------
    >>> random_winning_hands(2, seed=1) == random_winning_hands(2, seed=1)
    True
    """
    return [hand_to_str(p, all_winds=True)
            for p in random_hand_parts(n, seed, forms=forms, biased=biased)]


def random_wild_hands(n: int, n_wild: int, seed=None, *, self_drawn: bool = True):
    """Random winning hands with ``n_wild`` concealed tiles turned into a wild tile.

    Each hand of :func:`random_winning_hands` gets a wild kind it does not
    hold (so the four copies stay available) and ``n_wild`` of its concealed
    tiles, chosen at random (the winning tile among them three times in ten),
    replaced by it: the wild tiles can always complete the hand again.

    Parameters
    ----------
    n : int
        Number of hands.
    n_wild : int
        Wild tiles per hand, 0..4.
    seed : int, numpy Generator or None
    self_drawn : bool
        Make every hand self-drawn (``dazhong32`` wins by self-draw only).

    Returns
    -------
    list of (Hand, str)
        The hand (winds East, no flowers) and its wild tile kind in notation.

    Raises
    ------
    HandError
        For a bad ``n``, ``n_wild`` or ``seed``.
    """
    n = whole("n", n, 0)
    n_wild = whole("n_wild", n_wild, 0, 4)
    rng = _make_rng(seed)
    out = []
    batch_seed = rng.randrange(2**62)
    while len(out) < n:
        for h in random_hand_parts(2 * (n - len(out)) + 8, seed=batch_seed):
            used = set(h.concealed) | {t for m in h.melds for t in m.tiles}
            free = [t for t in range(N_KINDS) if t not in used]
            if len(h.concealed) < n_wild or not free:
                continue
            w = rng.choice(free)
            conc = list(h.concealed)
            for i in rng.sample(range(len(conc)), n_wild):
                conc[i] = w
            if n_wild and rng.random() < 0.3:
                win = w
            else:
                win = conc[rng.randrange(len(conc))]
            # Only the tiles are kept: the winds stay East, the flowers none.
            out.append((Hand(tuple(conc), h.melds, win, self_drawn=self_drawn),
                        tile_to_str(w)))
            if len(out) == n:
                break
        batch_seed += 1
    return out


def random_closed_counts(n: int, seed: int, n_tiles: int = 13) -> np.ndarray:
    """Random closed hands as counts: the first tiles of shuffled walls.

    Parameters
    ----------
    n : int
        Number of hands.
    seed : int
        Seed of numpy's ``default_rng``, >= 0.
    n_tiles : int, default 13
        Tiles per hand, 0..136.

    Returns
    -------
    numpy.ndarray
        int64 ``(n, 34)``: the first ``n_tiles`` tiles of each shuffled
        136-tile wall, per kind.

    Raises
    ------
    HandError
        For an argument that is not a whole number in its range.
    """
    n = whole("n", n, 0)
    n_tiles = whole("n_tiles", n_tiles, 0, 136)
    rng = np.random.default_rng(whole("seed", seed, 0))
    out = np.zeros((n, N_KINDS), np.int64)
    for lo in range(0, n, 20_000):
        m = min(n, lo + 20_000) - lo
        tiles = np.argsort(rng.random((m, 136)), axis=1)[:, :n_tiles] // 4
        np.add.at(out[lo:lo + m], (np.repeat(np.arange(m), n_tiles), tiles.ravel()), 1)
    return out
