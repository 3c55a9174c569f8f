"""Distance to value: how many tiles from a complete hand worth at least T fans.

A 32番 player never asks only "how far from a complete hand?" (that is
:func:`mjkit.shanten.shanten`) but "how far from one worth 32?".
:func:`distance_to` answers exactly for closed hands, in the same units as
shanten: -1 the hand is complete and worth it, 0 one tile from such a hand,
``d`` means ``d + 1`` more tiles must be drawn (each of the first ``d``
followed by a discard; the last one wins).

How it is exact
---------------
A hand of ``n`` concealed tiles (13 or 14, minus 3 per meld) is ``d`` away
from a target pattern ``P`` (a complete hand as tile counts) when it shares
``13 - 3k - d`` tiles with it (``overlap = sum(min(hand, P))``): exchanging
the other tiles one by one reaches ``P`` and nothing reaches it faster,
since each exchange brings in at most one tile of ``P``.  So the distance is
``13 - 3k - max overlap`` over every complete pattern worth enough, and a
pattern needing more copies of a tile than are unseen (the hand's own tiles,
its melds and the visible tiles counted; never a fifth copy) does not
count.  For a closed hand the candidates are all ~28 million complete closed
patterns, whose values :func:`mjkit.value_index.value_index` holds; the
branch-and-bound query visits patterns in order of falling overlap and
stops at the first one worth enough, so no bound is approximate.  In a
situation other than the index's (another seat or round wind, a win on a
discard) or with melds, the candidates are re-scored by the evaluator in
that situation before they are accepted (``.verified``), using a bound on
how much the situation can add (圈风刻 + 门风刻) to skip the hopeless ones.
The tests compare the result with a brute force over every completion of
every kept subset of the hand.

Examples
--------
>>> d = distance_to("123m234m345m678m9m", min_fans=32, rules="dazhong32")
>>> d.distance                       # 清一色 + 一色三步高: ready
0
>>> d.targets[0].need
'9m'
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np
from ._lazy import pandas as pd  # imported on first use: scoring needs no pandas

from . import messages as M
from . import value_index as VI
from ._kernels import index_query as KQ
from ._kernels.index_query import IndexQuery, MeldRanking
from .errors import HandError
from .rules import get_rules
from .validate import INT32_MAX, boolean, whole, wind
from .score import score, situation_row
from .hand import Hand, hand_text
from .shanten import read_hand_counts
from .tiles import N_KINDS, tile_to_str, tiles_of_counts, tiles_to_str

__all__ = ["DistanceResult", "Target", "distance_to"]

_WIND = "ESWN"
_BINOM = np.array([[math.comb(n, k) for k in range(5)] for n in range(5)], np.float64)


@dataclass(frozen=True)
class Target:
    """One complete hand at the shortest distance.

    Attributes
    ----------
    hand : str
        The complete hand in notation, its best winning tile last.
    keep, discard, need : str
        Tiles of the hand to keep, to let go, and to draw.
    need_unseen : tuple
        ``(tile, copies needed, copies unseen)`` per tile to draw.
    ways : int
        Ways to draw the needed tiles from the unseen copies
        (``prod C(unseen, needed)``): more ways, an easier target.
    counted : int
        Fans toward the bar of the complete hand (连拉 included).
    fans : tuple
        Its counted fans (zh names) with their points, as ``"清一色 24"``.
    result : ScoreResult
    """

    hand: str
    keep: str
    discard: str
    need: str
    need_unseen: tuple
    ways: int
    counted: int
    fans: tuple
    result: object = field(repr=False, compare=False, default=None)


@dataclass
class DistanceResult:
    """What :func:`distance_to` found.

    Attributes
    ----------
    hand : str
    rules : str
    min_fans : int
        Counted fans the target must reach (连拉 included).
    lianla : int
    distance : int or None
        -1 complete and worth ``min_fans``; ``d >= 0``: ``d + 1`` tiles to
        draw; None when no complete hand reaches ``min_fans`` from here.
    fit : int
        Tiles of the hand that belong to the nearest target (melds not
        counted): seed 000's "6看 7停 8上" counts these (with melds, add 3
        each).
    targets : list of Target
        Examples at that distance, easiest first.
    situation : dict
    verified : int
        Candidates scored by the evaluator during the search (0 when the
        index decided everything).
    seconds : float
    """

    hand: str
    rules: str
    min_fans: int
    lianla: int
    distance: int | None
    fit: int
    targets: list
    situation: dict
    verified: int = 0
    seconds: float = 0.0

    @property
    def draws(self):
        """Tiles still to draw (``distance + 1``; 0 when complete)."""
        return None if self.distance is None else self.distance + 1

    def to_frame(self):
        """One row per example target."""
        return pd.DataFrame(
            [{"target": t.hand, "keep": t.keep, "discard": t.discard, "need": t.need,
              "ways": t.ways, "counted": t.counted, "fans": " ".join(t.fans)}
             for t in self.targets],
            columns=["target", "keep", "discard", "need", "ways", "counted", "fans"])

    def summary(self, lang="en"):
        """A few lines a player reads at a glance."""
        lang = M.lang_or_en(lang)
        if self.distance is None:
            return M.text("distance.none", lang, hand=self.hand, fans=self.min_fans)
        t = self.targets[0] if self.targets else None
        key = ("distance.complete" if self.distance < 0 else
               "distance.ready" if self.distance == 0 else "distance.away")
        where = M.text(key, lang, fans=self.min_fans, distance=self.distance, draws=self.draws,
                       plural="s" if self.draws != 1 else "")
        lines = [M.text("distance.head", lang, hand=self.hand, where=where, fit=self.fit)]
        if t is not None:
            lines.append(M.text("distance.example", lang, hand=t.hand, counted=t.counted,
                                fans=" ".join(t.fans)))
            if t.need:
                lines.append(M.text("distance.plan", lang, keep=t.keep, need=t.need,
                                    discard=t.discard or ("—" if lang == "zh" else "-")))
        return "\n".join(lines)

    def __str__(self):
        return self.summary()

    def _repr_html_(self):
        head = self.summary().splitlines()[0]
        return f"<p>{head}</p>" + self.to_frame().to_html(index=False)


def best_result(pattern, melds, rs, lianla, situation):
    """The best score of a complete pattern over its winning tiles, or None.

    Parameters
    ----------
    pattern : array of 34 ints
        The concealed tiles (as counts) of a complete hand.
    melds : list of Meld
        The hand's melds.
    rs : RuleSet
    lianla : int
    situation : dict
        ``self_drawn``, ``seat_wind``, ``round_wind`` for :func:`mjkit.score`.

    Returns
    -------
    ScoreResult or None
        The winning reading with the most counted fans (shared by
        :func:`distance_to` and :func:`mjkit.targets.targets`); None when no
        winning tile gives a legal win.
    """
    tiles = tiles_of_counts(pattern)
    best = None
    for w in sorted(set(tiles)):
        try:
            r = score(Hand.from_parts(tiles, melds, win_tile=w, **situation), rules=rs,
                      lianla=lianla)
        except HandError:
            continue
        if r.is_win and (best is None or r.counted_points > best.counted_points):
            best = r
    return best


def fans_text(r):
    """The counted fans of a result: ``"<zh> <value>"``, ``"<zh>×<n> <value>"`` if repeated."""
    return tuple(f"{f.zh} {f.value}" if f.count == 1 else f"{f.zh}×{f.count} {f.value}"
                 for f in r.fans)


def _target(pattern, h, unseen, melds, rs, lianla, situation):
    keep = np.minimum(h, pattern)
    need = pattern - keep
    drop = h - keep
    r = best_result(pattern, melds, rs, lianla, situation)
    need_unseen = tuple((tile_to_str(t), int(need[t]), int(unseen[t]))
                        for t in range(N_KINDS) if need[t] > 0)
    ways = 1
    for _, k, u in need_unseen:
        ways *= math.comb(u, k)

    def text(c):
        return tiles_to_str(tiles_of_counts(c))

    hand = "?" if r is None else str(r.hand).split("|")[0].strip()
    return Target(hand=hand, keep=text(keep), discard=text(drop), need=text(need),
                  need_unseen=need_unseen, ways=ways,
                  counted=-1 if r is None else r.counted_points,
                  fans=() if r is None else fans_text(r), result=r)


def _situation(rs, seat_wind, round_wind, self_drawn):
    seat = wind(seat_wind, "seat_wind")
    rnd = wind(round_wind, "round_wind")
    if self_drawn is None:
        self_drawn = True
    self_drawn = boolean(self_drawn, "self_drawn")
    if rs.self_drawn_only and not self_drawn:
        raise HandError(f"rule set {rs.name!r} wins by self-draw only: self_drawn=False "
                        "has no legal target")
    return seat, rnd, self_drawn


def target_fans(rs, min_fans, lianla):
    """The fan target: ``min_fans`` checked, or the rule set's minimum when None."""
    if min_fans is None:
        return rs.minimum
    # bounded so that the bar and every fan sum stay inside the kernels' ints
    return whole("min_fans", min_fans, 0, INT32_MAX)


_NO_BOUNDS = KQ.no_bounds()


def nearest_patterns(h, meld_list, melded, unseen, rs, target, level, situation, capacity,
                     progress=None):
    """The accepted complete patterns sharing the most tiles with a hand.

    Parameters
    ----------
    h, melded, unseen : int64 (34,)
        Concealed counts, copies inside the melds, copies still unseen.
    meld_list : list of Meld
    rs : RuleSet
    target : int
        Counted fans (the 连拉 line included) a pattern must reach.
    level : int
        The hand's 连拉 level.
    situation : (seat, round, self_drawn)
    capacity : int
        Most patterns returned.
    progress : bool, optional
        Progress bar if the value index must be built.

    Returns
    -------
    (best, patterns, verified)
        The best overlap ``sum(min(h, P))`` (-1: no accepted pattern), up to ``capacity``
        concealed patterns at that overlap (int64 (n, 34)) and the number of patterns
        scored to decide.  ``n == capacity`` may mean that more were left out.
    """
    seat, rnd, self_drawn = situation
    k = len(meld_list)
    need = max(target - level * rs.streak_points, 0)    # from the hand itself
    row = situation_row(meld_list, seat, rnd, self_drawn, level)
    winds = seat != 0 or rnd != 0
    wind_mode = False
    meld_counts = np.zeros(N_KINDS, np.int64)
    pos_s = pos_h = np.zeros(0, np.int32)
    cls_of = np.zeros((1, 1, 1, 1), np.int64)
    full_off = np.zeros(1, np.int64)
    pts = rs.points_list
    # what another seat or round wind can add: 圈风刻 + 门风刻
    slack = (pts[rs.fan_index("PREVALENT_WIND")] + pts[rs.fan_index("SEAT_WIND")]
             if winds else 0)
    bounds = _NO_BOUNDS
    prune = KQ.NO_BOUND
    if k:
        fam = VI.meld_families(k)
        ids = np.zeros(0, np.uint16)
        accept = np.zeros(1, np.int8)
        if self_drawn and all(m.kind != "kong" for m in meld_list):
            # A self-drawn hand with chows and pungs never scores more than the
            # same tiles closed (不求人 becomes 自摸, exposed pungs are not
            # concealed, the winning tile has fewer choices), so a part whose
            # closed counterpart is below the bar is skipped unscored.
            index = VI.value_index(rs, progress=progress)
            ids = index.ids
            accept = index.accept_codes(need - slack, 1 << 30)
            meld_counts = melded.astype(np.int64)
            pos_s, pos_h, cls_of = VI.rank_tables()
            full_off = VI.families().class_off
    else:
        fam = VI.families()
        index = VI.value_index(rs, progress=progress)
        ids = index.ids
        if not self_drawn:
            # a discard win never scores more than the self-drawn one (不求人 4
            # becomes 门前清 2, 自摸 goes, a pung won on the discard is exposed)
            accept, lowest = index.accept_codes(need - slack, 1 << 30), need - slack
        elif winds:
            wind_mode = True
            accept, lowest = index.accept_codes(need - slack, need), need - slack
        else:
            accept, lowest = index.accept_codes(need, need), need
        bounds = index.bounds()
        prune = KQ.value_bound_of(lowest) if lowest > 0 else KQ.NO_BOUND
    pool = np.zeros((capacity, N_KINDS), np.int64)
    all_tiles = bool(k) or not self_drawn
    query = IndexQuery(h, unseen, True, ids, accept, wind_mode, row, all_tiles, int(target),
                       int(prune))
    melds = MeldRanking(meld_counts, pos_s, pos_h, cls_of, full_off, fam.suit_ptr, fam.hon_ptr)
    best, n_ex, verified = KQ.nearest(fam.arrays(), VI.query_layout(k), query, melds,
                                      rs.kernel_rules(), bounds, pool, VI.thread_scratch(k))
    return int(best), pool[:n_ex], int(verified)


def distance_to(hand, min_fans=None, rules="dazhong32", *, lianla=0, visible=None,
                seat_wind="E", round_wind="E", self_drawn=None, examples=3, melds=None,
                progress=None):
    """Fewest exchanges to a complete hand whose counted fans reach ``min_fans``.

    Parameters
    ----------
    hand : str, Hand, 34 counts or sequence of tiles
        13 or 14 tiles counting each meld as 3, as for
        :func:`mjkit.shanten.shanten` (e.g. ``"123m234m345m678m9m"`` or
        ``"[123p]45m..."``).
    min_fans : int, optional
        Fans toward the bar the complete hand must reach, the 连拉 line
        included (default: the rule set's minimum, 32 for ``dazhong32``).
    rules : str or RuleSet
    lianla : int
        The dealer's 连N拉N level: the hand itself then needs
        ``min_fans - 4N``.
    visible : str or sequence of tiles, optional
        Tiles seen elsewhere: a target needing more copies than are unseen
        does not count.
    seat_wind, round_wind : str or int
        Default East, East (as the value index).
    self_drawn : bool, optional
        Win by self-draw (default; the only way in ``dazhong32``).  False
        values the target as won on a discard.
    examples : int
        How many example targets to return (1..50).
    melds : str or sequence of Meld, optional
        The melds when ``hand`` is counts or a tile list.
    progress : bool, optional
        Progress bar if the rule set's value index must be built (once,
        a few minutes; then cached on disk).

    Returns
    -------
    DistanceResult

    Raises
    ------
    HandError
        A malformed hand, a fifth copy, a wrong tile count, a bad
        ``min_fans``, 连拉 in a rule set without it, or a discard win in
        ``dazhong32``.

    Notes
    -----
    The value of a complete hand is the best over its choices of winning
    tile, self-drawn unless ``self_drawn=False``, with no flowers, no wild
    tile and ``wait_rule="unique"``.  Closed hands in the index's situation
    are answered from the index alone (about a millisecond or less once it
    is loaded); other situations and hands with melds re-score the
    candidates and take longer (see ``benchmarks/bench_reach.py``).
    """
    t0 = time.perf_counter()
    rs = get_rules(rules)
    seat, rnd, self_drawn = _situation(rs, seat_wind, round_wind, self_drawn)
    # a level in 0..MAX_LEVEL, in a rule set with 连拉, for the dealer only
    level = rs.streak_level(lianla, seat)
    target = target_fans(rs, min_fans, level)
    examples = whole("examples", examples, 1, 50)
    counts, meld_list, melded, seen = read_hand_counts(hand, melds, visible)
    k = len(meld_list)
    unseen = (4 - counts - melded - seen).astype(np.int64)
    h = np.ascontiguousarray(counts, np.int64)
    # ties at the best overlap, to pick the easiest examples from (fewer with
    # melds, where each one costs a scoring)
    best, pool, verified = nearest_patterns(
        h, meld_list, melded, unseen, rs, target, level, (seat, rnd, self_drawn),
        examples if k else max(4 * examples, 16), progress)
    n_ex = len(pool)
    situation = {"self_drawn": self_drawn, "seat_wind": _WIND[seat],
                 "round_wind": _WIND[rnd]}
    text = hand_text(tiles_of_counts(counts), meld_list)
    if best < 0:
        return DistanceResult(text, rs.name, target, level, None, 0, [], situation,
                              int(verified), time.perf_counter() - t0)
    # the easiest examples first (most ways to draw what is missing); only
    # those shown are scored in full
    need = np.maximum(pool[:n_ex] - h, 0)
    ways = np.prod(_BINOM[np.minimum(unseen, 4)[None, :], need], axis=1)
    order = sorted(range(n_ex), key=lambda i: (-ways[i], pool[i].tolist()))[:examples]
    found = [_target(pool[i], h, unseen, meld_list, rs, level, situation) for i in order]
    return DistanceResult(text, rs.name, target, level, 13 - 3 * k - int(best), int(best),
                          found, situation, int(verified), time.perf_counter() - t0)
