"""What to discard at 连N: the win probability at the bar per discard, with the reasons.

:func:`advise` puts together what a player wants to read at each turn: for every
candidate discard of a 14-tile hand (or for a 13-tile hand itself) the probability of a
**legal** win within the draws left and the expected counted fans of that win
(:func:`mjkit.winprob.win_chances`), how far the hand left is from a complete hand worth
the bar (:func:`mjkit.distance_to`), the useful tiles with their live copies, and the
nearest accepted complete hands that carry the most of the chance, each with
:func:`p_alone`, the exact probability that all its missing tiles arrive in time.

No scoring is done here: the win probabilities come from :mod:`mjkit.winprob`, the
distances and target patterns from :func:`mjkit.distance.nearest_patterns` (the search
behind ``distance_to``) and the fans of a target from
:func:`mjkit.distance.best_result` (the evaluator).

Examples
--------
>>> adv = advise("123m234m345m67m99sE", lianla=2, draws_left=12)   # doctest: +SKIP
>>> adv.best.tile, round(adv.p_win, 3)                              # doctest: +SKIP
('E', 0.609)
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from html import escape

import numpy as np

from . import messages as M
from .fonts import css_stack
from . import value_index as VI
from ._lazy import pandas as pd
from .distance import best_result, fans_text, nearest_patterns, target_fans
from .errors import HandError
from .hand import hand_text
from .rules import get_rules
from .shanten import read_hand_counts
from .tiles import N_KINDS, tile_from_str, tile_to_str, tiles_of_counts, tiles_to_str
from .validate import lang as check_lang
from .validate import whole, wild_kind, wind
from .winprob import (MAX_DRAWS, MAX_GRAPH_DRAWS, MODES, alone_chances, p_alone,
                      win_chances)

__all__ = ["Advice", "AdviceRow", "AdviceTarget", "advise", "default_draws", "p_alone",
           "percent"]

#: The wall of the draws estimate: 136 tiles, a 14-tile dead wall, 53 dealt (13 each
#: and the dealer's 14th), the rest drawn in turn by four players.
WALL, DEAD_WALL, DEALT, PLAYERS = 136, 14, 53, 4

# Nearest patterns gathered per hand (grown 4-fold while full, up to the last value);
# beyond, the useful tiles are completed by one query per remaining live kind.
_CAPACITY = (4096, 16384, 65536)


def default_draws(n_visible=0):
    """Draws a player has left, estimated from the number of tiles seen.

    Four players draw in turn from a 136-tile wall less a 14-tile dead wall and the 53
    tiles dealt, so ``max(0, (136 - 14 - 53 - n_visible) // 4)``: 17 at the start, one
    fewer per four tiles seen (discards and melds of the others).

    Parameters
    ----------
    n_visible : int
        Tiles visible to the player outside the hand.

    Returns
    -------
    int
    """
    n = whole("n_visible", n_visible, 0)
    return max(0, (WALL - DEAD_WALL - DEALT - n) // PLAYERS)


@dataclass(frozen=True)
class AdviceTarget:
    """A nearest accepted complete hand and the chance of completing it alone.

    Attributes
    ----------
    hand : str
        The complete hand in notation, its best winning tile last (as
        :attr:`mjkit.distance.Target.hand`).
    need : str
        The tiles it still needs.
    counted : int
        Its counted fans toward the bar (连拉 included).
    fans : tuple of str
        Its counted fans, ``"清一色 24"``.
    p_alone : float
        The exact probability that every needed tile arrives within the draws left
        (:func:`p_alone` over the live pool): the chance of a player aiming at this
        target alone.
    """

    hand: str
    need: str
    counted: int
    fans: tuple
    p_alone: float


@dataclass(frozen=True)
class AdviceRow:
    """One discard (``tile``; None for a 13-tile hand) and what it leaves.

    Attributes
    ----------
    tile : str or None
    p_win : float
        Probability of a legal win within the draws left (as the
        :class:`mjkit.winprob.Chance`).
    exp_fans : float
        Expected counted fans given a win (nan when ``p_win`` is 0).
    exp_per_hand : float
        ``p_win * exp_fans`` (0 when ``p_win`` is 0).
    distance : int or None
        :func:`mjkit.distance_to` of the hand left, the discarded tile counted as seen;
        None when no accepted complete hand can be reached.
    useful : tuple of (str, int)
        Every kind some nearest accepted target needs more of than the hand holds, with
        its live copies.
    targets : tuple of AdviceTarget
        Nearest accepted targets, the most likely first (:attr:`AdviceTarget.p_alone`).
    """

    tile: str | None
    p_win: float
    exp_fans: float
    exp_per_hand: float
    distance: int | None
    useful: tuple
    targets: tuple

    @property
    def live(self):
        """Live copies of the useful tiles in all."""
        return sum(n for _, n in self.useful)


def percent(p):
    """A probability as the tables show it: ``"60.9%"``; below 0.1% two significant digits
    (``"0.0046%"``), below 0.0001% ``"<0.0001%"``; ``"0%"`` for none."""
    if p <= 0:
        return "0%"
    if p < 1e-6:
        return "<0.0001%"
    if p < 1e-3:
        return f"{100 * p:.{1 - math.floor(math.log10(100 * p))}f}%"
    return f"{100 * p:.1f}%"


def _fans(f):
    return "-" if np.isnan(f) else f"{f:.1f}"


@dataclass
class Advice:
    """What :func:`advise` found: one :class:`AdviceRow` per discard, best first.

    Attributes
    ----------
    hand, rules : str
    bar : int
        Counted fans a legal win needs (连拉 included).
    lianla : int
        The 连拉 level counted.
    draws : int
        Draws left to the player (given or estimated).
    wild : str or None
    is_win : bool
        The 14 tiles are already a legal self-drawn win ...
    win_fans : int
        ... worth this many counted fans (-1 when not a legal win).
    cut : bool
        A search graph reached its node limit: ``p_win`` is underestimated.
    seconds : float
    chances : WinChances
        What :func:`mjkit.winprob.win_chances` returned.
    rows : list of AdviceRow
        In the order of ``chances.choices``.
    """

    hand: str
    rules: str
    bar: int
    lianla: int
    draws: int
    wild: str | None
    is_win: bool
    win_fans: int
    cut: bool
    seconds: float
    chances: object = field(repr=False)
    rows: list = field(repr=False)

    @property
    def best(self):
        """The best :class:`AdviceRow` (highest ``p_win``, then ``exp_fans``)."""
        return self.rows[0]

    @property
    def p_win(self):
        """``p_win`` of the best row."""
        return self.best.p_win

    def to_frame(self):
        """One row per discard, best first.

        Columns ``tile, p_win, exp_fans, exp_per_hand, distance, useful, live, targets``:
        ``useful`` as ``"3m×3 6m×2"`` (kind × live copies), ``live`` their sum,
        ``targets`` as ``"<hand> 25.1%; ..."`` (each with its ``p_alone``).
        """
        cols = ["tile", "p_win", "exp_fans", "exp_per_hand", "distance", "useful", "live",
                "targets"]
        df = pd.DataFrame([{
            "tile": r.tile, "p_win": r.p_win, "exp_fans": r.exp_fans,
            "exp_per_hand": r.exp_per_hand, "distance": r.distance,
            "useful": _useful_text(r.useful), "live": r.live,
            "targets": "; ".join(f"{t.hand} {percent(t.p_alone)}" for t in r.targets),
        } for r in self.rows], columns=cols)
        df["distance"] = df["distance"].astype("Int64")
        return df

    def summary(self, lang="en"):
        """A few lines: the best discard, its chance, distance and useful tiles, its target.

        Parameters
        ----------
        lang : {"en", "zh"}

        Raises
        ------
        HandError
            An unknown language.
        """
        lang = check_lang(lang)
        b = self.best
        where = M.text("advise.level", lang, n=self.lianla) if self.lianla else ""
        fields = dict(hand=self.hand, tile=b.tile, p=percent(b.p_win), draws=self.draws,
                      bar=self.bar, where=where, fans=_fans(b.exp_fans))
        key = "advise.head.hold" if b.tile is None else "advise.head.discard"
        lines = [M.text(key, lang, **fields)]
        if self.is_win:
            lines.append(M.text("advise.win", lang, fans=self.win_fans))
        if b.distance is None:
            lines.append(M.text("advise.no_target", lang, bar=self.bar))
        else:
            lines.append(M.text("advise.distance", lang, distance=b.distance, bar=self.bar,
                                useful=_useful_text(b.useful) or "-", live=b.live))
            if b.targets:
                t = b.targets[0]
                lines.append(M.text("advise.target", lang, hand=t.hand, counted=t.counted,
                                    fans=" ".join(t.fans), p=percent(t.p_alone)))
        if self.cut:
            lines.append(M.text("advise.cut", lang))
        elif self.chances.mode == "fast":
            lines.append(M.text("advise.fast", lang))
            if self.chances.by_efficiency:
                lines.append(M.text("advise.fast_efficiency", lang))
        elif not self.chances.exact:
            lines.append(M.text("advise.lower_bound", lang))
        if self.wild is not None:
            lines.append(M.text("advise.wild", lang, wild=self.wild))
        return "\n".join(lines)

    def table(self, lang="en"):
        """The rows as aligned text lines (what ``python -m mjkit advise`` prints), then a
        line saying what each column is."""
        from .text_table import table

        lang = check_lang(lang)
        rows = []
        for r in self.rows:
            main = r.targets[0] if r.targets else None
            rows.append([r.tile or "-", percent(r.p_win), _fans(r.exp_fans),
                         f"{r.exp_per_hand:.2f}", "-" if r.distance is None else str(r.distance),
                         _useful_text(r.useful) or "-", str(r.live),
                         "-" if main is None else f"{main.hand} {percent(main.p_alone)}"])
        return (table(M.value("advise.columns", lang), rows, right=(1, 2, 3, 4, 6))
                + [M.text("advise.legend", lang)])

    def __str__(self):
        return self.summary()

    def to_html(self, lang="zh", size=40):
        """HTML: the hand as tiles with ``p_win`` under each, a bar chart, the table.

        Parameters
        ----------
        lang : {"zh", "en"}
            Language of the tile labels and of the summary.
        size : float
            Tile height in pixels.
        """
        from .pictures import tile_data_uri, tile_svg, tiles_svg

        lang = check_lang(lang)
        by_tile = {r.tile: r for r in self.rows}
        wk = -1 if self.wild is None else tile_from_str(self.wild)
        best = self.best.tile
        cells = []
        counts, melds, _, _ = read_hand_counts(self.hand)
        for t in tiles_of_counts(counts):
            name = tile_to_str(t)
            r = by_tile.get(name)
            mark = ("outline:2px solid #d4a017;background:#fff6d5" if r is not None and
                    name == best else "")
            cap = "" if r is None else percent(r.p_win)
            cells.append(f'<div style="text-align:center;padding:1px;{mark}">'
                         f'{tile_svg(t, size=size, lang=lang, state="wild" if t == wk else None)}'
                         f'<div style="font-size:11px">{escape(cap)}</div></div>')
        for m in melds:
            n = len(m.tiles)
            states = [("concealed" if m.concealed and i in (0, n - 1) else
                       None if m.concealed else "exposed") for i in range(n)]
            cells.append(f'<div style="margin-left:8px">'
                         f'{tiles_svg(m.tiles, size=size, lang=lang, states=states)}</div>')
        parts = [f'<div class="mjkit-advice" style="font-family:{css_stack()}">',
                 '<div style="display:flex;align-items:flex-start;gap:1px">'
                 + "".join(cells) + "</div>",
                 "<p>" + "<br>".join(escape(x) for x in self.summary(lang).splitlines())
                 + "</p>"]
        if best is not None:
            parts.append(_bar_chart(self.rows, tile_data_uri, lang))
        parts.append(self.to_frame().to_html(index=False))
        parts.append("</div>")
        return "".join(parts)

    def _repr_html_(self):
        return self.to_html()


def _useful_text(useful):
    return " ".join(f"{t}×{n}" for t, n in useful)


def _bar_chart(rows, tile_uri, lang):
    """Inline SVG: one bar per discard, its tile's picture on the left, ``p_win`` on the right."""
    top = max(r.p_win for r in rows)
    h, tw, bar_w = 26, 18, 240
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{tw + bar_w + 70}" '
           f'height="{h * len(rows) + 4}" role="img" aria-label="p_win per discard">'
           f'<title>p_win per discard</title>']
    for i, r in enumerate(rows):
        y = i * h + 2
        w = 0.0 if top <= 0 else bar_w * r.p_win / top
        colour = "#d4a017" if i == 0 else "#5b8fd6"
        out.append(f'<image x="0" y="{y}" width="{tw}" height="{h - 2}" '
                   f'href="{tile_uri(r.tile, size=h - 2, lang=lang, label=False)}"/>'
                   f'<rect x="{tw + 4}" y="{y + 5}" width="{w:.1f}" height="{h - 12}" '
                   f'fill="{colour}"/><text x="{tw + 8 + w:.1f}" y="{y + h / 2 + 4}" '
                   f'font-size="11" font-family="sans-serif">{percent(r.p_win)}</text>')
    out.append("</svg>")
    return "".join(out)


def advise(hand, rules="dazhong32", lianla=0, draws_left=None, visible=(), wild=None,
           mode="deep", *, min_fans=None, seat_wind="E", round_wind="E", melds=None,
           progress=None, stop=None, top_targets=3):
    """What to discard for the best chance of a legal win before the wall runs out.

    Parameters
    ----------
    hand : str, Hand, 34 counts or sequence of tiles
        13 or 14 tiles, each meld counting 3 (``"[123p]45m..."``), as
        :func:`mjkit.winprob.win_chances` reads them.
    rules : str or RuleSet
    lianla : int
        The dealer's 连N拉N level (seat East only): its 4N fans count toward the bar.
    draws_left : int, optional
        Draws left to the player, 0..200 (0..4 with ``mode="exact"``).  Default: the
        estimate :func:`default_draws` from the number of visible tiles,
        ``max(0, (136 - 14 - 53 - len(visible)) // 4)`` (17 with nothing visible).
    visible : str or sequence of tiles
        Tiles the player sees elsewhere (discards, others' melds): not live.  Read by
        :func:`mjkit.validate.visible_counts`.
    wild : str or int, optional
        The wild tile kind (财神).
    mode : {"deep", "exact", "graph", "fast"}
        The search of :func:`mjkit.winprob.win_chances`.
    min_fans : int, optional
        The bar in counted fans, the 连拉 line included (default: the rule set's
        minimum).
    seat_wind, round_wind : str or int
    melds : str or sequence of Meld, optional
        The melds when ``hand`` is counts or a tile list.
    progress : bool, optional
        Progress bars: if the rule set's value index must be built (once), and over the
        search's pieces once it has taken half a second (default: then; True: from the
        start; False: never).  The exact search at 4 draws can take a minute
        (:func:`~mjkit.winprob.win_chances`); Ctrl-C (a notebook's stop) ends it within a
        fraction of a second.  With no draw left nothing is searched (every ``p_win`` is
        0).
    stop : callable, optional
        Asked between two pieces of the search; a true answer ends it with
        :class:`~mjkit.winprob.SearchStopped` (e.g. ``stop=event.is_set`` for a worker
        thread).
    top_targets : int
        Targets kept per row, 0..50.

    Returns
    -------
    Advice

    Raises
    ------
    HandError
        A malformed hand, a fifth copy, a wrong tile count, ``draws_left`` or
        ``top_targets`` out of range, an unknown mode, a bad ``min_fans``, a ``visible``
        that is not tiles (the message names ``visible``), 连拉 off the dealer's seat or in
        a rule set without it, and whatever :func:`~mjkit.winprob.win_chances` refuses.
    SearchStopped
        ``stop`` answered true.

    Notes
    -----
    ``p_win`` and ``exp_fans`` are :func:`~mjkit.winprob.win_chances`' (its model: one
    player, self-drawn wins, no claims or kongs; its approximations are documented there).
    The distance, useful tiles and targets of a row are those of the 13 tiles left, the
    discarded tile counted as seen (it is not live any more, as in the win probability's
    pool): exactly :func:`mjkit.distance_to` with ``visible`` plus the discard.  Useful
    tiles are exactly the live kinds whose draw lowers that distance.  With a wild tile,
    the distance and the targets read the wild tiles as their own kind (``distance_to``
    knows no wild tiles): the distance is then an upper bound; ``p_win`` is wild-aware.
    """
    t0 = time.perf_counter()
    rs = get_rules(rules)
    counts, meld_list, melded, seen = read_hand_counts(hand, melds, visible)
    if mode not in MODES:
        raise HandError(f"mode must be one of {MODES}, got {mode!r}", code="unknown_name")
    if draws_left is None:
        draws = default_draws(int(seen.sum()))
    else:
        draws = whole("draws_left", draws_left, 0,
                      MAX_DRAWS if mode == "exact" else MAX_GRAPH_DRAWS)
    top = whole("top_targets", top_targets, 0, 50)
    seat = wind(seat_wind, "seat_wind")
    rnd = wind(round_wind, "round_wind")
    level = rs.streak_level(lianla, seat)
    bar = target_fans(rs, min_fans, level)
    wk = wild_kind(wild)
    k = len(meld_list)
    n_conc = int(counts.sum())
    if n_conc not in (13 - 3 * k, 14 - 3 * k):
        raise HandError(f"advise needs 13 or 14 tiles (melds count 3), got {n_conc + 3 * k}",
                        code="tile_count")
    # before the search, which would build a missing value index without a progress bar
    VI.value_index(rs, progress=progress)
    # the hand and the tiles seen as read once (an iterator given is used up)
    chances = win_chances(counts, draws, rs, lianla=lianla, min_fans=min_fans,
                          visible=tiles_of_counts(seen), wild=wild, seat_wind=seat_wind,
                          round_wind=round_wind, melds=meld_list, mode=mode,
                          progress=progress, stop=stop)
    pool = np.ascontiguousarray(4 - counts - melded - seen, np.int64)
    reach = _Reach(meld_list, melded, pool, rs, bar, level, (seat, rnd), draws, top)
    rows = []
    for c in chances.choices:
        h = counts.copy()
        if c.tile is not None:
            h[tile_from_str(c.tile)] -= 1
        distance, useful, targets = reach.row(h)
        per_hand = c.p_win * c.exp_fans if c.p_win > 0 else 0.0
        rows.append(AdviceRow(c.tile, c.p_win, c.exp_fans, float(per_hand), distance, useful,
                              targets))
    return Advice(hand_text(tiles_of_counts(counts), meld_list), rs.name, chances.bar,
                  chances.lianla, draws, None if wk < 0 else tile_to_str(wk), chances.is_win,
                  chances.win_fans, chances.cut, time.perf_counter() - t0, chances, rows)


class _Reach:
    """Distance, useful tiles and targets of 13-tile hands against one live pool."""

    def __init__(self, meld_list, melded, pool, rs, bar, level, winds, draws, top):
        self.meld_list = meld_list
        self.melded = melded
        self.pool = pool
        self.rs = rs
        self.bar = bar
        self.level = level
        self.situation = (winds[0], winds[1], True)     # the win probability's: self-drawn
        self.draws = draws
        self.top = top
        self.n = 13 - 3 * len(meld_list)
        self._scored = {}      # pattern bytes -> best_result (rows share many targets)

    def _nearest(self, h, unseen, capacity):
        return nearest_patterns(h, self.meld_list, self.melded, unseen, self.rs, self.bar,
                                self.level, self.situation, capacity)

    def row(self, h):
        """``(distance, useful, targets)`` of the concealed counts ``h``."""
        for cap in _CAPACITY:
            best, pats, _ = self._nearest(h, self.pool, cap)
            if len(pats) < cap:
                break
        if best < 0:
            return None, (), ()
        need = np.maximum(pats - h, 0)
        useful = set(np.flatnonzero(need.any(axis=0)).tolist())
        if len(pats) == _CAPACITY[-1]:
            # some patterns at the best overlap may be missing: a live kind is useful
            # exactly when holding one more of it raises the best overlap
            for x in np.flatnonzero(self.pool > 0):
                if int(x) in useful:
                    continue
                h2 = h.copy()
                h2[x] += 1
                u2 = self.pool.copy()
                u2[x] -= 1
                if self._nearest(h2, u2, 1)[0] > best:
                    useful.add(int(x))
        useful = tuple((tile_to_str(x), int(self.pool[x])) for x in sorted(useful))
        return self.n - best, useful, self._targets(h, pats, need)

    def _targets(self, h, pats, need):
        if not self.top:
            return ()
        p = alone_chances(h, pats, self.pool, self.draws)
        # the most likely first, ties in the order of the patterns' counts
        keys = [pats[:, t] for t in range(N_KINDS - 1, -1, -1)] + [-p]
        order = np.lexsort(keys)[:self.top]
        situation = {"self_drawn": True, "seat_wind": "ESWN"[self.situation[0]],
                     "round_wind": "ESWN"[self.situation[1]]}
        out = []
        for i in order:
            key = pats[i].tobytes()
            if key not in self._scored:
                self._scored[key] = best_result(pats[i], self.meld_list, self.rs, self.level,
                                                situation)
            r = self._scored[key]
            out.append(AdviceTarget(
                hand="?" if r is None else str(r.hand).split("|")[0].strip(),
                need=tiles_to_str(tiles_of_counts(need[i])),
                counted=-1 if r is None else r.counted_points,
                fans=() if r is None else fans_text(r), p_alone=float(p[i])))
        return tuple(out)
