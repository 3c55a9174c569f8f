"""The probability of a legal win within the draws left, and what to discard for it.

:func:`win_chances` answers, for a player's hand (13 tiles, or 14 before a discard), the
rule set's bar (the 连拉 level counted, or ``min_fans``), the tiles the player can see and
the number of draws left: the probability of a **legal** self-drawn win (counted fans at
the bar; never a P胡) within those draws under the best play, and the expected counted
fans of that win, per candidate discard.

The model (see :mod:`mjkit._kernels.winprob`): one player, no claims and no kongs; every
unseen tile is live and each draw takes one of them uniformly; tiles drawn never come
back.  ``mode="exact"`` answers exactly for that model (the search grows about 400-fold
per draw, so up to :data:`MAX_DRAWS` draws); ``mode="graph"`` plays the useful exchanges
toward the nearest accepted complete hands, for any number of draws; ``mode="deep"``
(the default) is exact up to :data:`EXACT_UP_TO` draws and the graph beyond.

With no draw left there is nothing to search: every choice's ``p_win`` is 0, answered at
once in every mode.  A search that takes seconds shows a progress bar and stops between
two of its pieces when asked (Ctrl-C, a notebook's stop, or the caller's ``stop``
callback: :class:`SearchStopped`), within a fraction of a second.
"""

from __future__ import annotations

import functools
import math
import signal
import threading
import time
from dataclasses import dataclass, field

import numpy as np
from numba import types

from . import value_index as VI
from ._kernels import fast_play as KF
from ._kernels import index_query as KQ
from ._kernels import target_chances as KT
from ._kernels import winprob as KW
from ._kernels.bundles import ShantenTables
from ._kernels.shanten import WS_LEN as SWS_LEN, init_workspace
from ._lazy import pandas as pd
from .distance import nearest_patterns, target_fans
from .errors import HandError
from .fast_calibration import fast_p_win
from .rules import get_rules
from .score import check_wild_melds, legal_counted, situation_row
from .shanten import read_hand_counts, shanten_tables
from .tiles import N_KINDS, tile_to_str, tiles_of_counts, tiles_to_str
from .validate import whole, wild_kind, wind

__all__ = ["MAX_DRAWS", "Chance", "SearchStopped", "WinChances", "alone_chances",
           "fast_choice", "fast_order", "fast_rates", "fast_void_discard", "p_alone",
           "win_chances"]

MAX_DRAWS = 4   # the exact search's limit here (its key holds up to KW.MAX_DRAWS)
EXACT_UP_TO = 3        # mode="deep": the exact search up to this many draws, else the graph
MAX_GRAPH_DRAWS = 200
MODES = ("deep", "exact", "graph", "fast")
_MAX_NODES = 100_000    # per graph; beyond, the graph is cut (``WinChances.cut``)
PROGRESS_AFTER = 0.5    # seconds of a search before its progress bar shows
SCORE_CHUNK = 1024      # complete hands scored per call between two stop checks
_FEW_TARGETS = 48       # a cut graph is tried again toward the likeliest targets only
FAST_TARGETS = 1024     # mode="fast": the nearest targets it rates (more are left out)


@dataclass(frozen=True)
class Chance:
    """One choice: discard ``tile`` (None for a 13-tile hand), then play on for the draws left."""

    tile: str | None
    p_win: float
    exp_fans: float       # expected counted fans given a win (nan when p_win is 0)


@dataclass
class WinChances:
    """What :func:`win_chances` found: the choices, best first."""

    hand: str
    rules: str
    bar: int
    lianla: int
    draws: int
    choices: list
    states: int
    seconds: float
    wild: str | None = None
    is_win: bool = False          # the 14 tiles are already a legal self-drawn win
    win_fans: int = -1
    cut: bool = False             # a graph reached its node limit: p_win is underestimated
    exact: bool = True            # exact: the exact search, or no draw left (else the graph:
                                  # a lower bound)
    mode: str = "deep"
    situation: dict = field(default_factory=dict)
    by_efficiency: bool = False   # fast mode at a void bar: played for tile efficiency

    @property
    def best(self):
        """The best :class:`Chance`: the highest ``p_win``, then ``exp_fans`` (in the fast
        mode, the discard it plays; at a void bar, ``by_efficiency``, the tile-efficiency
        discard, whose ``p_win`` may be below another's)."""
        return self.choices[0]

    @property
    def p_win(self):
        """``p_win`` of the best choice."""
        return self.best.p_win

    def to_frame(self):
        """One row per choice, best first: ``tile, p_win, exp_fans``."""
        return pd.DataFrame([{"tile": c.tile, "p_win": c.p_win, "exp_fans": c.exp_fans}
                             for c in self.choices])

    def __repr__(self):
        head = (f"WinChances({self.hand!r}, rules={self.rules!r}, bar={self.bar}, "
                f"lianla={self.lianla}, draws={self.draws})")
        rows = [f"  {c.tile or '-':>3}  p_win {c.p_win:.6f}  exp_fans "
                + ("-" if np.isnan(c.exp_fans) else f"{c.exp_fans:.2f}") for c in self.choices]
        return "\n".join([head] + rows)


_LEAF_KEY = types.UniTuple(types.int64, 3)
_PACK21 = 8 ** np.arange(21, dtype=np.int64)     # counts (0..4) 3 bits a kind


def _sws():
    sws = np.zeros(SWS_LEN, np.int64)
    init_workspace(sws)
    return sws


def _order(c):
    return (-c.p_win, -(0.0 if np.isnan(c.exp_fans) else c.exp_fans))


class SearchStopped(Exception):
    """A search ended early because its caller's ``stop`` callback asked (see
    :func:`win_chances`); nothing was returned."""


class _Steps:
    """Progress and stopping of one search, between two of its pieces of work.

    Parameters
    ----------
    progress : bool or None
        True: a bar from the first piece; False: none; None: a bar once the search has
        taken :data:`PROGRESS_AFTER` seconds.
    stop : callable or None
        Asked between two pieces; a true answer ends the search (:class:`SearchStopped`).
    desc, unit : str
        The bar's label and unit.

    Used as a context manager around the search, which closes the bar however the search
    ends and, in the main thread, takes Ctrl-C (SIGINT, a notebook's stop) over: the
    interrupt is noted and KeyboardInterrupt raised at the next :meth:`check`, between two
    kernel calls (a second Ctrl-C raises it at once: a kernel compiling on first use may
    take a minute to reach the next check).  Raised where Python happens to be, it could
    fire inside numba's conversion of a kernel's arguments or result, which calls Python
    without checking for an error: a crash (a segmentation fault after a Ctrl-C during
    the graph), a SystemError or a TypeError instead of the interrupt.  A handler of the
    caller's own (not Python's default) is left alone.
    """

    def __init__(self, progress, stop, desc, unit):
        self.progress = None if progress is None else bool(progress)
        self.stop = stop
        self.desc = desc
        self.unit = unit
        self.total = 0
        self.done = 0
        self.bar = None
        self.t0 = time.perf_counter()
        self.interrupted = False
        self._sigint = None

    def __enter__(self):
        if (threading.current_thread() is threading.main_thread()
                and signal.getsignal(signal.SIGINT) is signal.default_int_handler):
            self._sigint = signal.signal(signal.SIGINT, self._note_interrupt)
        return self

    def _note_interrupt(self, signum, frame):
        if self.interrupted:            # a second Ctrl-C: at once, wherever Python is
            raise KeyboardInterrupt
        self.interrupted = True

    def __exit__(self, exc_type, exc, tb):
        if self._sigint is not None:
            signal.signal(signal.SIGINT, self._sigint)
            self._sigint = None
        if self.bar is not None:
            self.bar.close()
            self.bar = None
        if self.interrupted and exc_type is None:
            raise KeyboardInterrupt

    def check(self):
        """End the search if it was interrupted or the caller asked."""
        if self.interrupted:
            raise KeyboardInterrupt
        if self.stop is not None and self.stop():
            raise SearchStopped(f"{self.desc}: stopped by the caller after {self.done} of "
                                f"{self.total} {self.unit}s")

    def step(self, n=1):
        """``n`` pieces done: the bar moves (or appears), then the stop check."""
        self.done += n
        if self.bar is not None:
            self.bar.update(n)
        elif self.progress is not False and self.done < self.total and (
                self.progress or time.perf_counter() - self.t0 > PROGRESS_AFTER):
            from tqdm.auto import tqdm
            self.bar = tqdm(total=self.total, initial=self.done, desc=self.desc,
                            unit=self.unit, leave=False)
        self.check()


def _stop_callable(stop):
    if stop is not None and not callable(stop):
        raise HandError(f"stop must be a callable (such as threading.Event().is_set) or "
                        f"None, got {type(stop).__name__}")
    return stop


class _Judge:
    """Verdicts on complete hands by the batch scorer, for the kernels to look up.

    ``steps`` (a :class:`_Steps`, optional) is asked to stop between two batches of
    :data:`SCORE_CHUNK` hands.
    """

    def __init__(self, rs, row, bar, steps=None):
        self.rs = rs
        self.row = row
        self.bar = bar
        self.steps = steps
        self.verdicts = KW.Verdicts(KW.new_dict(_LEAF_KEY, types.int64),
                                    KW.new_dict(_LEAF_KEY, types.int64))
        self.known = {}           # the graph's verdicts: (counts key a, b, winning tile) -> fans

    def check(self):
        """:meth:`_Steps.check` of the search, if any: a pause where it may end."""
        if self.steps is not None:
            self.steps.check()

    def judge(self, counts, wins):
        """Counted fans (or -1) of the self-drawn wins on ``wins`` with 14-tile ``counts``."""
        if len(counts) <= SCORE_CHUNK:
            return legal_counted(self.row, counts, wins, self.rs, self.bar)
        out = np.empty(len(counts), np.int64)
        for i in range(0, len(counts), SCORE_CHUNK):
            self.check()
            j = i + SCORE_CHUNK
            out[i:j] = legal_counted(self.row, counts[i:j], wins[i:j], self.rs, self.bar)
        return out

    def judge_keyed(self, keys, counts, wins):
        """:meth:`judge` of distinct hands keyed by rows ``(a, b, winning tile)``, each
        scored once per question (the graphs of the discards share many)."""
        rows = [tuple(k) for k in keys.tolist()]
        fans = np.array([self.known.get(k, -2) for k in rows], np.int64)
        todo = np.flatnonzero(fans == -2)
        if len(todo):
            fans[todo] = self.judge(counts[todo], wins[todo])
            self.known.update(zip([rows[i] for i in todo], fans[todo].tolist()))
        return fans

    def settle(self):
        """Score what the last search left pending; False when nothing was."""
        pending = self.verdicts.pending
        if len(pending) == 0:
            return False
        keys = list(pending.keys())
        pending.clear()
        arr = np.array(keys, np.int64)
        counts = np.zeros((len(keys), N_KINDS), np.int64)
        KW.node_counts(arr, counts)
        fans = self.judge(counts, arr[:, 2])
        for k, f in zip(keys, fans):
            self.verdicts.fans[k] = int(f)
        return True


#: The exact search splits the discards after the first draw into a piece each from this
#: many draws (its pieces then take a fraction of a second: 0.4 s at most measured on a
#: loaded core, for ``"1234567m1234567p"`` at 4 draws).
SPLIT_FROM = 4


def _search(c, pool, draws, prob, tabs, sws, judge, steps):
    """The exact search: ``(out_p, out_f, states)``, ``(V, F)`` for the 13 counts ``c``
    (slot 0) or after each discard ``d`` of 14 (slot ``d``; NaN where ``d`` is not held).

    In pieces (:func:`mjkit._kernels.winprob.root_discards`: a discard of the start, a
    first draw, then the discards after it, one by one from :data:`SPLIT_FROM` draws), a
    ``steps.step()`` for each (discard, first draw) and a ``steps.check()`` between two
    pieces.  One memory serves every piece of a pass; a pass that met complete hands
    without a verdict is searched again once they are scored (usually two passes of
    similar cost: the bar counts both).  The values (the choice and the sums made in the
    kernel's order) and the states remembered are those of one search of the whole.
    """
    n = int(c.sum()) + 3 * int(prob.n_melds)
    discards = [-1] if n % 3 == 1 else np.flatnonzero(c).tolist()
    live = np.flatnonzero(pool).tolist()
    draws = np.int64(draws)
    n_pools = [int(KW.root_live(c, pool, draws, np.int64(d), prob, tabs, sws))
               for d in discards]
    spans = [(e, e + 1) for e in range(N_KINDS)] if draws >= SPLIT_FROM else [(0, N_KINDS)]
    steps.total = 2 * len(discards) * len(live)
    while True:
        out_p = np.full(N_KINDS, np.nan)
        out_f = np.full(N_KINDS, np.nan)
        memo_p, memo_f = KW.new_dict(), KW.new_dict()
        states = 0
        for d, n_pool in zip(discards, n_pools):
            acc_p = acc_f = 0.0
            d64 = np.int64(d)
            held = c.copy()
            if d >= 0:
                held[d] -= 1
            for x in live:
                if n_pool:
                    w = int(pool[x])
                    f = int(KW.root_win(c, pool, d64, np.int64(x), prob, tabs, sws,
                                        judge.verdicts))
                    if f >= 0:
                        acc_p += float(w)
                        acc_f += float(w * f)
                    elif draws > 1:
                        best_p, best_f = -1.0, 0.0
                        held[x] += 1
                        for e0, e1 in spans:
                            if e1 - e0 == 1 and held[e0] == 0:
                                continue
                            best_p, best_f, states = KW.root_discards(
                                c, pool, draws, d64, np.int64(x), np.int64(e0), np.int64(e1),
                                best_p, best_f, prob, tabs, sws, judge.verdicts, memo_p, memo_f)
                            steps.check()
                        held[x] -= 1
                        acc_p += w * best_p
                        acc_f += w * best_f
                steps.step()
            slot = max(d, 0)
            out_p[slot] = acc_p / n_pool if n_pool else 0.0
            out_f[slot] = acc_f / n_pool if n_pool else 0.0
        if not judge.settle():
            # every start searched is remembered too in the whole search's count
            return out_p, out_f, states + sum(n > 0 for n in n_pools)
        if steps.done >= steps.total:       # a third pass (not expected): a longer bar
            steps.total += len(discards) * len(live)


def win_chances(hand, draws, rules="dazhong32", *, lianla=0, min_fans=None, visible=None,
                wild=None, seat_wind="E", round_wind="E", melds=None, mode="deep",
                progress=None, stop=None):
    """Probability of a legal self-drawn win within ``draws`` draws, per discard.

    Parameters
    ----------
    hand : str, Hand, 34 counts or sequence of tiles
        13 or 14 tiles counting each meld as 3, as :func:`mjkit.shanten.shanten` reads
        them (``"[123p]45m..."``).  Wild tiles held are tiles of the ``wild`` kind.
    draws : int
        Draws left to the player: 0..:data:`MAX_DRAWS` with ``mode="exact"``, else
        0..:data:`MAX_GRAPH_DRAWS`.  With 0 no win can come (wins are self-drawn, and
        14 tiles that already win are reported by ``is_win``, not as a choice): every
        ``p_win`` is 0, answered without a search in every mode (the fast mode still
        rates the discards, for the order it plays them).
    rules : str or RuleSet
    lianla : int
        The dealer's 连N拉N level (seat East only); its 4N fans count toward the bar.
    min_fans : int, optional
        The bar in counted fans, the 连拉 line included (default: the rule set's minimum).
    visible : str or sequence of tiles, optional
        Tiles the player sees elsewhere (discards, others' melds, a turned wild
        indicator): not live.  Read by :func:`mjkit.validate.visible_counts`.
    wild : str or int, optional
        The wild tile kind (财神).
    seat_wind, round_wind : str or int
        Default East, East.
    melds : str or sequence of Meld, optional
        The melds when ``hand`` is counts or a tile list.
    mode : {"deep", "exact", "graph", "fast"}
        ``"exact"``: the exact search (up to :data:`MAX_DRAWS` draws).  ``"graph"``: the
        graph of useful exchanges toward the accepted complete hands nearest to the hand
        (see Notes).  ``"deep"``: the exact search up to :data:`EXACT_UP_TO` draws, the
        graph beyond.  ``"fast"``: the simulator's rating (:func:`fast_rates`; see
        Notes), its ``p_win`` a calibrated estimate.
    progress : bool, optional
        A progress bar over the search's pieces: the discards the graph values, or the
        exact search's (discard, first draw) pairs.  Default: once the search has taken
        :data:`PROGRESS_AFTER` seconds; True: from the start; False: never.  The exact
        search takes up to about a minute on one core at :data:`MAX_DRAWS` draws (e.g.
        ``"1234567m1234567p"``, ~760,000 states); the graph with wild tiles many seconds.
    stop : callable, optional
        Asked (without arguments) between two pieces of the search and between two
        batches of :data:`SCORE_CHUNK` hands scored; a true answer ends the search with
        :class:`SearchStopped` (e.g. ``stop=event.is_set`` for a worker thread).
        Interrupting (Ctrl-C, a notebook's stop) takes effect at the same points, within
        a fraction of a second: KeyboardInterrupt reaches the caller (during the search
        the interrupt is held until then: raised inside numba's handling of a kernel
        call it could crash the process).

    Returns
    -------
    WinChances
        ``choices``: one :class:`Chance` per distinct discard of a 14-tile hand (one, with
        ``tile=None``, for 13 tiles), best first; ``is_win`` when the 14 tiles already are
        a legal win.  ``exact`` is True for the exact search and with no draw left.

    Raises
    ------
    HandError
        A malformed hand, a fifth copy, a wrong tile count, ``draws`` outside
        0..MAX_DRAWS, a bad ``min_fans``, a ``visible`` that is not tiles, a ``stop``
        that is not callable, 连拉 off the dealer's seat or in a rule set without it.
    SearchStopped
        ``stop`` answered true.

    Notes
    -----
    Wins are self-drawn, with no flowers and without the situation fans of the last
    tile of the wall, a kong or 和绝张 (the model does not know when the wall ends).
    Kongs are not declared: a fourth copy is simply held.

    The graph (``mode="deep"`` beyond :data:`EXACT_UP_TO` draws) plays only *useful*
    exchanges: each draw either brings the hand one tile nearer to one of the accepted
    complete patterns at the least number of missing tiles (``distance_to``'s targets,
    the discard chosen among those that keep it so) or is thrown back; hand changes at an
    equal distance and detours through farther targets are not played, so its ``p_win``
    is the value of a restricted policy, at most the optimum.  A tile drawn never comes
    back; a tile thrown back at once leaves the useful kinds' live copies as they were
    (tomohxx's mahjong-win-prob model, whose published table the graph reproduces when
    it too must take every useful tile).  A graph over its node limit is retried toward
    the targets likeliest to be completed alone, with the likeliest alone as a floor
    (``cut``: an underestimate).  Wild tiles held are jokers toward the targets nearest
    to the other tiles; a drawn wild tile fills any gap.

    The fast mode (:func:`fast_rates`, the simulator's decisions) rates every discard by
    the chances of the nearest accepted targets, each completed alone (a product of
    hypergeometric tails, slightly above the exact chance), and plays the discard whose
    targets' chances sum highest.  Its ``p_win`` is that rating read through a monotone
    map fitted on the fast mode's own one-player games (:mod:`mjkit.fast_calibration`:
    an estimate, calibrated for ``dazhong32`` without wild tiles, up to 17 draws);
    ``exp_fans`` weighs the targets' counted fans at their best last tile by their
    chances (with wild tiles the targets are read as natural tiles, so a fan such as
    无财神 may be counted that the joker-filled hand would lose).
    """
    t0 = time.perf_counter()
    rs = get_rules(rules)
    if mode not in MODES:
        raise HandError(f"mode must be one of {MODES}, got {mode!r}", code="unknown_name")
    exact = mode == "exact"
    draws = whole("draws", draws, 0, MAX_DRAWS if exact else MAX_GRAPH_DRAWS)
    exact = exact or (mode == "deep" and draws <= EXACT_UP_TO)
    fast = mode == "fast"
    seat = wind(seat_wind, "seat_wind")
    rnd = wind(round_wind, "round_wind")
    level = rs.streak_level(lianla, seat)
    bar = target_fans(rs, min_fans, level)
    wk = wild_kind(wild)
    stop = _stop_callable(stop)
    counts, meld_list, melded, seen = read_hand_counts(hand, melds, visible)
    n_conc = int(counts.sum())
    k = len(meld_list)
    if n_conc not in (13 - 3 * k, 14 - 3 * k):
        raise HandError(f"win_chances needs 13 or 14 tiles (melds count 3), got "
                        f"{n_conc + 3 * k}", code="tile_count")
    if wk >= 0:
        check_wild_melds(meld_list, wk)
    pool = np.ascontiguousarray(4 - counts - melded - seen, np.int64)
    c = np.ascontiguousarray(counts, np.int64)
    prob = KW.WinProblem(np.ascontiguousarray(melded, np.int64), np.int64(k), np.int64(wk))
    tabs = ShantenTables(*shanten_tables())    # shanten_tables() is cached
    sws = _sws()
    desc = "win chances (exact)" if exact else "win chances"
    steps = _Steps(progress, stop, desc, "piece" if exact else "discard")
    judge = _Judge(rs, situation_row(meld_list, seat, rnd, True, level, wk), bar, steps)
    text = tiles_to_str(tiles_of_counts(counts))
    is_win = False
    wf = -1
    cut = False
    by_eff = False
    discard = n_conc == 14 - 3 * k
    if discard:
        held = np.flatnonzero(c)
        wf = int(judge.judge(np.tile(c, (len(held), 1)), held).max())
        is_win = wf >= 0
    if fast:
        choices, by_eff = _fast_chances(c, meld_list, melded, pool, draws, rs, bar, level,
                                        (seat, rnd), wk, discard, judge)
        states = 0
    elif draws == 0:
        # no draw left, no win: nothing to search (every choice is worth 0, exactly)
        exact = True
        states = 0
        choices = [Chance(tile_to_str(int(d)), 0.0, float("nan")) for d in held] \
            if discard else [Chance(None, 0.0, float("nan"))]
    elif discard:
        choices = []
        with steps:
            if exact:
                out_p, out_f, states = _search(c, pool, draws, prob, tabs, sws, judge, steps)
                choices = [Chance(tile_to_str(d), float(out_p[d]), _given(out_p[d], out_f[d]))
                           for d in range(N_KINDS) if c[d] > 0]
            else:
                states = 0
                steps.total = len(held)
                for d in held:
                    c[d] -= 1
                    try:
                        p, f, n, whole_graph = _graph_value(c, meld_list, melded, pool, draws,
                                                            rs, bar, level, (seat, rnd, wk),
                                                            judge)
                    finally:
                        c[d] += 1
                    states += n
                    cut = cut or not whole_graph
                    choices.append(Chance(tile_to_str(int(d)), p, _given(p, f)))
                    steps.step()
    else:
        with steps:
            if exact:
                out_p, out_f, states = _search(c, pool, draws, prob, tabs, sws, judge, steps)
                p, f = out_p[0], out_f[0]
            else:
                steps.total = 1
                p, f, states, whole_graph = _graph_value(c, meld_list, melded, pool, draws,
                                                         rs, bar, level, (seat, rnd, wk), judge)
                cut = not whole_graph
        choices = [Chance(None, float(p), _given(p, f))]
    if mode != "fast":        # the fast mode's choices are in the order it plays them
        choices.sort(key=_order)
    return WinChances(text, rs.name, int(bar), level, draws, choices, int(states),
                      time.perf_counter() - t0, wild=None if wk < 0 else tile_to_str(wk),
                      is_win=is_win, win_fans=wf, cut=cut, exact=exact and not fast, mode=mode,
                      situation={"seat_wind": seat, "round_wind": rnd},
                      by_efficiency=by_eff)


def p_alone(need, draws, pool):
    """Exact probability that ``draws`` draws from a pool bring every needed tile.

    The draws take tiles without replacement, uniformly, from ``pool`` live tiles; the
    numbers of copies of each kind drawn then follow a multivariate hypergeometric law.
    This sums its exact probability (integer counts of draws, one division at the end)
    over every way of getting at least the needed copies of each kind.

    Parameters
    ----------
    need : iterable of (int, int)
        ``(copies needed, live copies)`` per needed kind.
    draws : int
        Tiles drawn (capped at ``pool``: every live tile drawn).
    pool : int
        Live tiles in all (at least the live copies of the needed kinds).

    Returns
    -------
    float
        1.0 when nothing is needed; 0.0 when a kind needs more than its live copies or
        more tiles are needed than drawn.

    Raises
    ------
    HandError
        Counts that are not whole numbers >= 0, or live copies summing past ``pool``.

    Examples
    --------
    >>> p_alone([(1, 4)], 1, 40)          # one of 4 live tiles among 40 on one draw
    0.1
    """
    pairs = tuple((whole("copies needed", n, 0), whole("live copies", u, 0)) for n, u in need)
    draws = whole("draws", draws, 0)
    pool = whole("pool", pool, 0)
    if sum(u for _, u in pairs) > pool:
        raise HandError(f"live copies of the needed kinds ({sum(u for _, u in pairs)}) "
                        f"exceed the pool ({pool})")
    return p_alone_of(tuple(sorted(pairs)), min(draws, pool), pool)


@functools.lru_cache(maxsize=65536)
def p_alone_of(pairs, draws, pool):
    """:func:`p_alone` of checked, sorted ``(needed, live)`` pairs (cached)."""
    # ways[s]: sets of s tiles among the needed kinds' live copies that hold at least
    # the needed copies of each kind (a product of the kinds' binomial rows)
    ways = [1]
    live = 0
    for n, u in pairs:
        if n > u:
            return 0.0
        row = [math.comb(u, k) if k >= n else 0 for k in range(u + 1)]
        out = [0] * (len(ways) + u)
        for i, a in enumerate(ways):
            if a:
                for k in range(n, u + 1):
                    out[i + k] += a * row[k]
        ways = out
        live += u
    rest = pool - live
    hits = sum(w * math.comb(rest, draws - s) for s, w in enumerate(ways) if s <= draws and w)
    return hits / math.comb(pool, draws)


def fast_rates(counts, meld_list, melded, pool, draws, rs, bar, level, winds, wild,
               discard=True, out=None, judge=None):
    """The fast mode's rating of each discard of ``counts`` (or of ``counts`` itself).

    The accepted complete patterns nearest to the tiles held (wild tiles left out: they
    are jokers), up to :data:`FAST_TARGETS`, each rated by the chance of drawing its
    missing tiles (:mod:`mjkit._kernels.target_chances`).  A closed hand at East seat
    and round (the value index's situation) is answered by one kernel
    (:func:`mjkit._kernels.fast_play.fast_rate`); melds or other winds go through
    :func:`mjkit.distance.nearest_patterns`, which scores the candidates in the
    situation.

    Parameters
    ----------
    counts, melded, pool : int64 (34,)
        Concealed tiles (14 or 13 less 3 per meld), tiles in melds, live copies.
    meld_list : list of Meld
    draws : int
        Draws left after the discard.
    rs : RuleSet
    bar, level : int
        Counted fans a win must reach; the 连拉 level.
    winds : (seat, round)
    wild : int
        The wild kind (-1 none).
    discard : bool
        Rate each discard (``counts`` a 14-tile hand) or ``counts`` itself (slot 0).
    out : DiscardChances, optional
        Reused output arrays.
    judge : _Judge, optional
        Scores the targets for ``out.fans`` (without one, ``fans`` is 0).

    Returns
    -------
    (DiscardChances, patterns)
        ``patterns``: the targets (int64 (k, 34)); ``best`` indexes them.
    """
    if out is None:
        out = KT.discard_chances_out()
    draws = np.int64(draws)
    wild = np.int64(wild)
    if not meld_list and tuple(winds) == (0, 0):
        # the index's own situation: the kernels alone (fast_play)
        ft = fast_tables(rs, max(bar - level * rs.streak_points, 0))
        fs = fast_scratch()
        if judge is None:
            n = KF.fast_rate(counts, pool, draws, wild, bool(discard), ft, fs)
            for a, b in zip(out, fs.out):
                a[:] = b
            return out, fs.targets[:n].copy()
        pats = fs.targets[:KF.fast_targets(counts, pool, wild, ft, fs)].copy()
    else:
        plain = counts
        if wild >= 0 and counts[wild]:
            plain = counts.copy()
            plain[wild] = 0
        _, pats, _ = nearest_patterns(plain, meld_list, melded, pool, rs, bar, level,
                                      (winds[0], winds[1], True), FAST_TARGETS)
    fans = np.zeros(len(pats))
    if judge is not None and len(pats):
        fans = np.maximum(_target_fans(pats, counts, judge), 0).astype(float)
    KT.discard_chances(counts, pool, draws, wild, bool(discard), KT.TargetSet(pats, fans),
                       out)
    return out, pats


def fast_tables(rs, need):
    """The :class:`~mjkit._kernels.fast_play.FastTables` of rule set ``rs`` for targets of
    ``need`` counted fans (closed hands in the index's situation), kept per rule set."""
    key = ("fast_tables", int(need))
    ft = rs._cache.get(key)
    if ft is None:
        index = VI.value_index(rs)
        fam = VI.families()
        melds = KQ.no_melds(fam)
        prune = KQ.value_bound_of(need) if need > 0 else KQ.NO_BOUND
        accept = index.accept_codes(need, need)
        ft = KF.FastTables(fam.arrays(), VI.query_layout(0), index.bounds(), index.ids,
                           accept, melds, situation_row([], 0, 0, True, 0), int(need),
                           int(prune), ShantenTables(*shanten_tables()),
                           bool((accept == KQ.ACCEPT_YES).all()))
        rs._cache[key] = ft
    return ft


_FAST_SCRATCH = threading.local()


def fast_scratch():
    """This thread's :class:`~mjkit._kernels.fast_play.FastScratch` (a decision writes
    into it)."""
    fs = getattr(_FAST_SCRATCH, "fs", None)
    if fs is None:
        fs = _FAST_SCRATCH.fs = KF.FastScratch(
            VI.thread_scratch(0), np.zeros((FAST_TARGETS, N_KINDS), np.int64),
            np.zeros(FAST_TARGETS), np.zeros(N_KINDS, np.int64), KT.discard_chances_out(),
            _sws(), np.zeros(N_KINDS, np.int64),
            np.zeros(N_KINDS, np.int64))
    return fs


def _target_fans(pats, h, judge):
    """Counted fans of each target completed from ``h``, at its best last tile (-1: none
    legal), by the batch scorer."""
    need = pats > h[None, :]
    rows, last = np.nonzero(need)
    fans = np.full(len(pats), -1, np.int64)
    if len(rows):
        f = judge.judge(pats[rows], last)
        np.maximum.at(fans, rows, f)
    return fans


def _fast_chances(c, meld_list, melded, pool, draws, rs, bar, level, winds, wild, discard,
                  judge):
    """``win_chances(mode="fast")``'s choices, in the order the fast mode plays them, and
    whether the first is a void bar's tile-efficiency discard."""
    out, _ = fast_rates(c, meld_list, melded, pool, draws, rs, bar, level, winds, wild,
                        discard, judge=judge)
    need = max(bar - level * rs.streak_points, 0)       # from the hand itself
    lead = -1
    if discard:
        lead = fast_void_discard(c, meld_list, pool, rs, need, winds, wild)
    kinds = fast_order(out, c, lead) if discard else np.zeros(1, np.int64)
    choices = []
    for x in kinds:
        p = fast_p_win(float(out.score[x]), int(out.short[x]), draws, need)
        f = float(out.fans[x]) if p > 0 else float("nan")
        choices.append(Chance(tile_to_str(int(x)) if discard else None, p, f))
    return choices, lead >= 0


def fast_void_discard(counts, meld_list, pool, rs, need, winds, wild):
    """The discard the fast mode plays at a void bar, -1 elsewhere.

    A bar is void when every complete closed hand in the value index's situation (East
    seat and round, self-drawn) reaches it; the fast mode then plays the tile-efficiency
    discard (:func:`mjkit._kernels.fast_play.void_discard`).  Hands with melds or in
    another situation are rated by their targets alone.
    """
    if meld_list or tuple(winds) != (0, 0):
        return -1
    return int(KF.void_discard(counts, pool, np.int64(wild), fast_tables(rs, need),
                               fast_scratch()))


def _grain(x):
    """Scores on the fast mode's comparison grid (``fast_play.SCORE_GRAIN``)."""
    return (np.asarray(x, float) * KF.SCORE_GRAIN + 0.5).astype(np.int64)


def fast_order(out, counts, lead=-1):
    """The kinds held, best first as the fast mode plays them: ``lead`` (a void bar's
    tile-efficiency discard, :func:`fast_void_discard`) if given, then the fewest tiles
    missing (``short``), the most live useful tiles (``useful``), the highest ``score``,
    then ``top`` (both on the grid of ``fast_play.SCORE_GRAIN``), then the lowest kind
    (``out`` from :func:`fast_rates`; ``fast_play.fast_pick`` is the same order)."""
    held = np.flatnonzero(counts)
    order = held[np.lexsort((held, -_grain(out.top[held]), -_grain(out.score[held]),
                             -out.useful[held], out.short[held]))]
    if lead >= 0:
        order = np.concatenate([[lead], order[order != lead]]).astype(np.int64)
    return order


def fast_choice(out, counts, lead=-1):
    """The discard the fast mode plays: the first of :func:`fast_order`."""
    return int(fast_order(out, counts, lead)[0])


def _given(p, f):
    return float(f / p) if p > 0 else float("nan")


def _graph_value(h0, meld_list, melded, pool, draws, rs, bar, level, situation, judge):
    """``(p, f, nodes, whole)`` of the 13 counts ``h0`` by the exchange graph.

    The graph toward every nearest target first, within ``_MAX_NODES``; when that is cut,
    the graph toward the ``_FEW_TARGETS`` targets likeliest to be completed alone, and
    the likeliest target alone as a floor (each the value of a policy: the best of them
    is kept, an underestimate, and ``whole`` is False).  ``situation`` is ``(seat, round,
    wild kind)``: wild tiles held are jokers toward the targets nearest to the other tiles
    (targets needing more copies of a kind than are unseen are left out), and a cut graph
    with wild tiles is not retried.
    """
    seat, rnd, wild = situation
    plain = h0.copy()
    if wild >= 0:
        plain[wild] = 0
    cap = 4096
    while True:
        best, pats, _ = nearest_patterns(plain, meld_list, melded, pool, rs, bar, level,
                                         (seat, rnd, True), cap)
        judge.check()
        if len(pats) < cap or cap >= 1 << 16:
            break
        cap *= 4
    if best < 0:
        return 0.0, 0.0, 0, True
    p, f, n, whole_graph = _graph_on(h0, pats, pool, draws, judge, _MAX_NODES, wild)
    if whole_graph or wild >= 0:
        return p, f, n, whole_graph
    alone = alone_chances(h0, pats, pool, draws)
    few = pats[np.argsort(-alone, kind="stable")[:_FEW_TARGETS]]
    q, fq, m, _ = _graph_on(h0, few, pool, draws, judge, _MAX_NODES, wild)
    if q > p:
        p, f = q, fq
    q, fq = _alone_floor(h0, pats, alone, judge)
    if q > p:
        p, f = q, fq
    return p, f, n + m, False


def _graph_on(h0, pats, pool, draws, judge, max_nodes, wild):
    """``(p, f, nodes, whole)``: the exchange graph from ``h0`` toward ``pats``."""
    g, whole_graph = KW.exchange_graph(h0, pool, pats.astype(np.int8), np.int64(max_nodes),
                                       np.int64(wild))
    judge.check()
    if len(g.win_x):
        # each win candidate: its node's counts plus the drawn tile; nodes differing only
        # in the tiles drawn on the way share their complete hands, scored once
        node = np.repeat(np.arange(len(g.miss)), np.diff(g.win_ptr))
        counts = g.counts[node].astype(np.int64)
        counts[np.arange(len(node)), g.win_x] += 1
        packed = np.stack([counts[:, :21] @ _PACK21, counts[:, 21:] @ _PACK21[:13], g.win_x],
                          axis=1)
        _, first, back = np.unique(packed, axis=0, return_index=True, return_inverse=True)
        g.win_fans[:] = judge.judge_keyed(packed[first], counts[first],
                                          g.win_x[first])[back.ravel()]
    p, f = KW.graph_values(g, pool, np.int64(draws), np.int64(pool.sum()), False)
    return float(p), float(f), len(g.miss), bool(whole_graph)


def alone_chances(h0, pats, pool, draws):
    """:func:`p_alone` of each target of ``pats`` (int (k, 34)) from the counts ``h0``.

    Many targets need the same tiles: one exact probability per distinct need.
    """
    if len(pats) == 0:
        return np.zeros(0)
    n_pool = int(pool.sum())
    draws = min(draws, n_pool)
    need = np.maximum(pats - h0[None, :], 0)
    kinds, inverse = np.unique(need, axis=0, return_inverse=True)
    p_kind = np.empty(len(kinds))
    for j, nd in enumerate(kinds):
        at = np.flatnonzero(nd)
        p_kind[j] = p_alone_of(tuple(sorted(zip(nd[at].tolist(), pool[at].tolist()))),
                               draws, n_pool)
    return p_kind[inverse.reshape(-1)]


def _alone_floor(h0, pats, alone, judge):
    """``(p, f)`` of the target likeliest to be completed alone (``alone``: the chances)."""
    if len(pats) == 0 or alone.max() <= 0:
        return 0.0, 0.0
    best = int(np.argmax(alone))
    best_p = float(alone[best])
    t = pats[best].astype(np.int64)
    last = np.flatnonzero(np.maximum(t - h0, 0))
    fans = judge.judge(np.tile(t, (len(last), 1)), last).max()
    if fans < 0:
        return 0.0, 0.0
    return best_p, best_p * float(fans)
