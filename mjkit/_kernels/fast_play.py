"""The fast mode's whole decision in one kernel: targets, ratings, the discard.

:func:`fast_decide` runs the value index's query for the accepted patterns nearest to
the tiles held (:func:`.index_query.nearest`, wild tiles left out: they are jokers),
rates every discard by the chances of those targets
(:func:`.target_chances.discard_chances`) and picks the discard the fast mode plays:
the fewest tiles missing to a target (``short``), then the most live copies of the kinds
those nearest targets still need (``useful``), then the highest ``score`` (the summed
chances), then the highest ``top``, then the lowest kind, scores compared on a grid of
:data:`SCORE_GRAIN` so that ties in exact arithmetic stay ties
(``mjkit.winprob.fast_order`` is the same order).

At a *void* bar, one every complete closed hand reaches (``FastTables.void``: at 连8 in
``dazhong32``, say), the value of a target no longer matters and the fast mode plays the
tile-efficiency discard instead (:func:`.policy.efficiency_discard`, the simulator's
``efficiency`` player): lowest need, then most live useful tiles, then the least
connected tile.  In one-player games that choice wins more often there than the summed
target chances (``docs/architecture.md``); the ratings are still computed, since the
calibrated ``p_win`` is read from them.  :func:`solo_fast` plays it for a
batch of one-player games, so a simulation never returns to Python between decisions.

The query is compiled without the scorer (``rules=None``): the accept codes must be
``ACCEPT_YES`` / ``ACCEPT_NO`` only, which is the case for a closed hand, self-drawn,
in the index's situation (East seat and round).  :func:`mjkit.winprob.fast_rates`
falls back to the general query for every other situation.
"""

from typing import NamedTuple

import numpy as np
from numba import njit

from .index_query import IndexQuery, nearest
from .policy import efficiency_discard
from .target_chances import TargetSet, discard_chances

N_KINDS = 34
SCORE_GRAIN = 2.0 ** 40     # scores and tops are compared as integers of 2**-40
# Bump whenever the fast mode's choices change: the calibration's training games
# (benchmarks/fit_fast_calibration.py) and the strength records are keyed by it.
# 2: the tile-efficiency discard at a void bar; scores compared on the grid.
# 3: the fewest tiles missing, then the live useful tiles, before the score.
FAST_PLAY_VERSION = 3


class FastTables(NamedTuple):
    """What every decision of one bar reads (``mjkit.winprob.fast_tables``).

    Attributes
    ----------
    fam : PatternFamilies
    lay : QueryLayout
    bounds : ValueBounds
    ids : uint16 or uint32
        The value index's row per pattern.
    accept : int8
        Per row ``ACCEPT_YES`` or ``ACCEPT_NO`` (the bar).
    melds : MeldRanking
        Empty (no meld mode).
    row : int32
        The situation row (unused: nothing is verified).
    bar : int
        Counted fans a target reaches.
    prune : int
        The bounds' value of the bar (``index_query.value_bound_of``).
    tabs : ShantenTables
        The need tables of the tile-efficiency discard.
    void : bool
        Every pattern is accepted: the fast mode plays the tile-efficiency discard.
    """

    fam: tuple
    lay: tuple
    bounds: tuple
    ids: np.ndarray
    accept: np.ndarray
    melds: tuple
    row: np.ndarray
    bar: int
    prune: int
    tabs: tuple
    void: bool


class FastScratch(NamedTuple):
    """One decision's work space and outputs (``mjkit.winprob.fast_scratch``).

    Attributes
    ----------
    query : QueryScratch
    targets : int64 (cap, 34)
        The targets found (the first ``n`` rows).
    fans : float64 (cap,)
        Zeros (the batch kernels do not score targets).
    plain : int64 (34,)
        The hand without its wild tiles.
    out : DiscardChances
        The ratings of the last decision.
    sws : int64
        The need reading's work space (``shanten.init_workspace``).
    seen : int64 (34,)
        Copies of each kind out of reach (the tile-efficiency discard's view).
    nocap : int64 (34,)
        Zeros (no kind capped).
    """

    query: tuple
    targets: np.ndarray
    fans: np.ndarray
    plain: np.ndarray
    out: tuple
    sws: np.ndarray
    seen: np.ndarray
    nocap: np.ndarray


@njit(cache=True)
def fast_targets(h, live, wild, ft, fs):
    """The targets of the tiles ``h`` into ``fs.targets``; returns how many."""
    plain = fs.plain
    for t in range(N_KINDS):
        plain[t] = h[t]
    if wild >= 0:
        plain[wild] = 0
    q = IndexQuery(plain, live, True, ft.ids, ft.accept, False, ft.row, False, ft.bar,
                   ft.prune)
    _, n, _ = nearest(ft.fam, ft.lay, q, ft.melds, None, ft.bounds, fs.targets, fs.query)
    return n


@njit(cache=True)
def fast_rate(h, live, draws, wild, discard, ft, fs):
    """Rate each discard of ``h`` (or ``h`` itself, ``discard`` False) into ``fs.out``;
    returns the number of targets (``fs.targets[:n]``)."""
    n = fast_targets(h, live, wild, ft, fs)
    discard_chances(h, live, draws, wild, discard, TargetSet(fs.targets[:n], fs.fans[:n]),
                    fs.out)
    return n


@njit(cache=True, inline="always")
def _grain(x):
    return np.int64(x * SCORE_GRAIN + 0.5)


@njit(cache=True)
def fast_pick(out, h):
    """The discard the ratings ``out`` of the 14 tiles ``h`` rate best: the fewest tiles
    missing (``short``), then the most live useful tiles toward the targets missing that
    few (``useful``), then the highest ``score``, then ``top``, then the lowest kind."""
    best = -1
    for x in range(N_KINDS):
        if h[x] == 0:
            continue
        if best < 0:
            best = x
            continue
        if out.short[x] != out.short[best]:
            if out.short[x] < out.short[best]:
                best = x
            continue
        if out.useful[x] != out.useful[best]:
            if out.useful[x] > out.useful[best]:
                best = x
            continue
        a = _grain(out.score[x])
        b = _grain(out.score[best])
        if a > b or (a == b and _grain(out.top[x]) > _grain(out.top[best])):
            best = x
    return best


@njit(cache=True)
def void_discard(h, live, wild, ft, fs):
    """At a void bar (``ft.void``) the tile-efficiency discard of the 14 tiles ``h``; -1
    otherwise."""
    if not ft.void:
        return -1
    for t in range(N_KINDS):
        fs.seen[t] = max(4 - h[t] - live[t], 0)
    k, _ = efficiency_discard(h, np.int64(0), wild, fs.nocap, fs.seen, ft.tabs, fs.sws)
    return k


@njit(cache=True)
def fast_decide(h, live, draws, wild, ft, fs):
    """The fast mode's discard of the 14 tiles ``h`` (ratings left in ``fs.out``)."""
    fast_rate(h, live, draws, wild, True, ft, fs)
    x = void_discard(h, live, wild, ft, fs)
    return x if x >= 0 else fast_pick(fs.out, h)


@njit(cache=True)
def solo_fast(hands, seen, active, draws, ft, fs, out, trace, rate):
    """``out[g]``: the fast mode's discard in one-player game ``g`` (for ``active[g]``).

    At a void bar the discard needs no rating; it is rated only when ``rate`` asks for
    its ``p_win`` (the first decision, or a calibration trace), so the decision then
    costs what the tile-efficiency discard costs.

    Parameters
    ----------
    hands, seen : int64 (n, 34)
        The 14 tiles held; the tiles the player has thrown (no wild tiles, no melds).
    active : bool (n,)
    draws : int
        Draws left after the discard.
    ft : FastTables
    fs : FastScratch
    out : int64 (n,)
    trace : float64 (n, 3)
        Per game the chosen discard's ``score``, ``short`` and ``top`` (left as they
        are at a void bar without ``rate``).
    rate : bool
    """
    live = np.zeros(N_KINDS, np.int64)
    wild = np.int64(-1)
    for g in range(hands.shape[0]):
        if not active[g]:
            out[g] = -1
            continue
        h = hands[g]
        for t in range(N_KINDS):
            live[t] = 4 - h[t] - seen[g, t]
        if ft.void and not rate:
            out[g] = void_discard(h, live, wild, ft, fs)
            continue
        x = fast_decide(h, live, draws, wild, ft, fs)
        out[g] = x
        trace[g, 0] = fs.out.score[x]
        trace[g, 1] = fs.out.short[x]
        trace[g, 2] = fs.out.top[x]
