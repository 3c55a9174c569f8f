"""The fast mode's rating read as a probability of a legal win: a fitted monotone map.

The fast mode (:func:`mjkit.winprob.fast_rates`) rates a discard by the summed chances of
the targets it leaves open, each completed alone.  That sum ranks discards well but is not
a probability: targets overlap (their union is smaller), and play re-aims every turn
toward targets the rating never saw (the realised chance is larger).  Its ``p_win`` is
therefore read off a map fitted on what actually happened: one-player games played by the
fast mode itself (:func:`mjkit.sim.solo.solo_games`, ``trace=True``), every decision's
``(draws left, short, score)`` paired with whether that game was won.

The map (``mjkit/_fast_calibration_table.py``, written by
``benchmarks/fit_fast_calibration.py``; the games, seeds and date: :func:`fit_info`)
holds, per bar the hand itself must reach, per number of draws left and per group of
``short`` values (the fewest tiles a target still misses: the strongest single
predictor; neighbouring values are pooled until a group has :data:`MIN_GROUP` decisions
and so that fewer tiles missing never reads as less likely), a non-decreasing
piecewise-linear function of the score: the group's decisions are put in score bins of
at least :data:`MIN_BIN`, the bins' win rates are made non-decreasing by pooling
adjacent violators (which keeps the fitted mean equal to the observed one), and the
knots sit at the bins' mean scores.  Between bars and between draws it interpolates
linearly; beyond the fitted ranges it holds the nearest fitted value.
It is checked on other seeds by the tests and by ``benchmarks/bench_policies.py``.

What it is not: the map is fitted in the one-player model (no claims, no other players'
wins), with no wild tiles, for ``dazhong32`` at 连0; elsewhere it is an extrapolation.
"""

from __future__ import annotations

import functools

import numpy as np

from . import storage
from .errors import HandError

__all__ = ["MIN_BIN", "fast_p_win", "fit_info", "fit_table"]

MIN_BIN = 150       # decisions per score bin at least
MIN_GROUP = 400     # decisions per group of short cells at least
NO_TARGET = 9       # the cell of the decisions with no target reachable (short 99)


def _short_cell(short):
    """The table's cell of a ``short`` (fewest tiles missing; 99: no target reachable)."""
    return NO_TARGET if short >= NO_TARGET else min(max(int(short), 1), NO_TARGET - 1)


def fit_table(bars, lefts, shorts, scores, won, *, min_bin=MIN_BIN):
    """The calibration table from decisions of fast-mode games.

    Parameters
    ----------
    bars, lefts, shorts : int arrays (k,)
        Per decision: the bar of its game (fans the hand itself must reach), the draws
        left after the discard and the discard's ``short`` (fewest tiles a target misses).
    scores : float array (k,)
        The discard's ``score``.
    won : bool array (k,)
        Whether the decision's game was won afterwards.
    min_bin : int
        Decisions per score bin at least (a group with fewer is one bin).

    Returns
    -------
    dict
        ``{"bars": [...], "lefts": [...], "knots": {"bar,left": [[short lo, short hi,
        [score...], [p...], decisions], ...]}}``: every (bar, left) of the grid, each
        with groups of the ``short`` cells its decisions had (:func:`_groups`).
    """
    bars = np.asarray(bars, np.int64)
    lefts = np.asarray(lefts, np.int64)
    shorts = np.array([_short_cell(x) for x in np.asarray(shorts, np.int64)], np.int64)
    scores = np.asarray(scores, float)
    won = np.asarray(won, bool)
    if not (len(bars) == len(lefts) == len(shorts) == len(scores) == len(won)):
        raise ValueError("fit_table needs arrays of one length")
    knots = {}
    for b in np.unique(bars):
        for m in np.unique(lefts[bars == b]):
            sel = (bars == b) & (lefts == m)
            knots[f"{int(b)},{int(m)}"] = _groups(shorts[sel], scores[sel], won[sel], min_bin)
    out = {"bars": sorted({int(b) for b in bars}), "lefts": sorted({int(m) for m in lefts}),
           "knots": knots}
    missing = [f"{b},{m}" for b in out["bars"] for m in out["lefts"] if f"{b},{m}" not in knots]
    if missing:
        raise ValueError(f"fit_table: no decisions at (bar, draws left) {missing[:5]}")
    return out


def _groups(shorts, scores, won, min_bin):
    """``[[lo, hi, scores, rates, n], ...]``: the fits of one (bar, draws left).

    Neighbouring ``short`` cells are pooled until each group holds at least
    ``MIN_GROUP`` decisions, then adjacent groups whose win rates rise with ``short``
    (fewer tiles missing must not win less) are pooled too; each group is then fitted
    in score.
    """
    groups = []                         # [lo, hi, mask]
    for c in np.unique(shorts):
        mask = shorts == c
        if groups and groups[-1][2].sum() < MIN_GROUP:
            groups[-1][1] = int(c)
            groups[-1][2] = groups[-1][2] | mask
        else:
            groups.append([int(c), int(c), mask])
    if len(groups) > 1 and groups[-1][2].sum() < MIN_GROUP:
        lo, hi, mask = groups.pop()
        groups[-1][1] = hi
        groups[-1][2] = groups[-1][2] | mask
    merged = True
    while merged:
        merged = False
        for i in range(len(groups) - 1):
            if won[groups[i][2]].mean() < won[groups[i + 1][2]].mean():
                groups[i] = [groups[i][0], groups[i + 1][1], groups[i][2] | groups[i + 1][2]]
                del groups[i + 1]
                merged = True
                break
    return [[lo, hi] + _cell(scores[mask], won[mask], min_bin) + [int(mask.sum())]
            for lo, hi, mask in groups]


def _cell(s, won, min_bin):
    """``[scores, rates]``: a non-decreasing piecewise-linear fit of one cell."""
    order = np.argsort(s, kind="stable")
    s = s[order]
    w = won[order].astype(float)
    # bins of >= min_bin decisions, never splitting equal scores
    edges = [0]
    while edges[-1] < len(s):
        j = min(edges[-1] + min_bin, len(s))
        while j < len(s) and s[j] == s[j - 1]:
            j += 1
        if len(s) - j < min_bin:
            j = len(s)
        edges.append(j)
    xs, ys, ns = [], [], []
    for a, c in zip(edges[:-1], edges[1:]):
        xs.append(float(s[a:c].mean()))
        ys.append(float(w[a:c].mean()))
        ns.append(c - a)
    # bins never share a score, so their means rise; a mean's rounding can still put it an
    # ulp below the previous one
    xs = np.maximum.accumulate(xs).tolist()
    return [xs, _pool_adjacent(ys, ns)]


def _pool_adjacent(ys, ns):
    """Non-decreasing weighted least-squares fit of ``ys`` (weights ``ns``)."""
    blocks = []                  # [mean, weight, count]
    for y, n in zip(ys, ns):
        blocks.append([y, n, 1])
        while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:
            y2, n2, c2 = blocks.pop()
            y1, n1, c1 = blocks.pop()
            blocks.append([(y1 * n1 + y2 * n2) / (n1 + n2), n1 + n2, c1 + c2])
    out = []
    for y, _, c in blocks:
        out += [y] * c
    return out


def _on_knots(table, b, m, short, score):
    c = _short_cell(short)
    groups = table["knots"][f"{b},{m}"]
    # the group holding c, else (a short this bar and draws never saw) the nearest
    g = min(groups, key=lambda g: (0 if g[0] <= c <= g[1] else min(abs(c - g[0]),
                                                                    abs(c - g[1]))))
    return float(np.interp(score, g[2], g[3]))


def _between(values, v):
    """``(lo, hi, weight of hi)`` of ``v`` among the sorted ``values`` (held at the ends)."""
    if v <= values[0]:
        return values[0], values[0], 0.0
    if v >= values[-1]:
        return values[-1], values[-1], 0.0
    j = int(np.searchsorted(values, v))
    lo, hi = values[j - 1], values[j]
    return lo, hi, (v - lo) / (hi - lo)


def fast_p_win(score, short, draws, bar, table=None):
    """The calibrated probability of a legal win for a fast-mode ``score``.

    Parameters
    ----------
    score : float
        :func:`mjkit.winprob.fast_rates`' ``score`` of the discard (>= 0).
    short : int
        Its ``short``: the fewest tiles a target misses (99: none reachable).
    draws : int
        Draws left after the discard (0: no win can come).
    bar : int
        Counted fans the hand itself must reach (the bar less the 连拉 fans).
    table : dict, optional
        A table of :func:`fit_table` (default: the shipped one, checked against its digest
        on first use).

    Returns
    -------
    float in [0, 1]
    """
    if table is None:
        table = _shipped()[1]
    if not np.isfinite(score) or score < 0:
        raise HandError(f"a fast-mode score is a finite number >= 0, got {score!r}")
    if draws <= 0:
        return 0.0
    b0, b1, wb = _between(table["bars"], max(int(bar), 0))
    m0, m1, wm = _between(table["lefts"], int(draws))
    p = 0.0
    for b, fb in ((b0, 1.0 - wb), (b1, wb)):
        if fb == 0.0:
            continue
        for m, fm in ((m0, 1.0 - wm), (m1, wm)):
            if fm == 0.0:
                continue
            p += fb * fm * _on_knots(table, b, m, short, score)
    return min(max(p, 0.0), 1.0)


def _check(fit, table):
    """The shipped table, checked: a damaged one must give no numbers at all."""
    try:
        bars, lefts, knots = table["bars"], table["lefts"], table["knots"]
        ok = (bars == sorted(set(bars)) and lefts == sorted(set(lefts)) and len(bars) > 0
              and len(lefts) > 0 and set(knots) == {f"{b},{m}" for b in bars for m in lefts})
        for groups in knots.values():
            ok = ok and len(groups) > 0
            last = 0
            for lo, hi, xs, ys, n in groups:
                ok = ok and last < lo <= hi <= NO_TARGET and n >= 1
                last = hi
                ok = ok and len(xs) == len(ys) >= 1
                ok = ok and all(a <= b for a, b in zip(xs, xs[1:]))
                ok = ok and all(a <= b for a, b in zip(ys, ys[1:]))
                ok = ok and all(0.0 <= y <= 1.0 for y in ys)
        ok = ok and storage.digest_bytes(storage.canonical_json(table)) == fit["digest"]
    except (KeyError, TypeError, ValueError, AttributeError):
        ok = False
    if not ok:
        raise RuntimeError(_DAMAGED)
    return table


_DAMAGED = ("the fast mode's calibration table (mjkit/_fast_calibration_table.py) is missing "
            "or damaged: reinstall mjkit, or refit it with "
            "python benchmarks/fit_fast_calibration.py")


@functools.lru_cache(maxsize=None)
def _shipped():
    try:
        from ._fast_calibration_table import FIT, TABLE
    except ImportError:
        raise RuntimeError(_DAMAGED) from None
    return FIT, _check(FIT, TABLE)


def fit_info():
    """How the shipped table was fitted: games per bar, seed, draws, date, digest."""
    return dict(_shipped()[0])
