"""Studies over 连拉 levels: win odds per level and the streak chain they imply."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ..errors import HandError
from .engine import play_hands

__all__ = ["simulate", "streak_chain", "wilson"]

_Z95 = 1.959963984540054


def wilson(k, n, z=_Z95):
    """Wilson score interval of a binomial proportion ``k / n`` (95% by default)."""
    k = np.asarray(k, float)
    n = np.asarray(n, float)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = k / n
        den = 1 + z * z / n
        mid = (p + z * z / (2 * n)) / den
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    # exact ends: no successes cannot have a positive lower bound (rounding)
    lo = np.where(k == 0, 0.0, np.clip(mid - half, 0.0, 1.0))
    hi = np.where(k == n, 1.0, np.clip(mid + half, 0.0, 1.0))
    return (float(lo), float(hi)) if lo.ndim == 0 else (lo, hi)


def _levels(levels):
    try:
        out = [int(x) for x in levels]
    except TypeError:
        out = [int(levels)]
    if not out or min(out) < 0:
        raise HandError(f"levels must be whole numbers >= 0, got {levels!r}")
    return out


def simulate(rules="dazhong32", levels=range(9), hands=2000, *, seed=0, solitaire=False,
             dealer_policy="efficiency", others_policy="efficiency", exhaust=120,
             progress=None):
    """Win odds of the dealer and the others at each 连N拉N level.

    Parameters
    ----------
    rules : str or RuleSet
    levels : iterable of int
        连拉 levels to play (default 0..8).
    hands : int
        Hands per level.
    seed : int
        Same seed, same numbers (whatever the number of threads).
    solitaire : bool
        Only the dealer plays.
    dealer_policy, others_policy : str
        See :data:`mjkit.sim.POLICIES`.
    exhaust : int
        Tiles taken from the wall before the hand is drawn out.
    progress : bool, optional
        A progress bar over the levels (default: yes).

    Returns
    -------
    pandas.DataFrame
        One row per level: ``hands``, ``bar`` (fans the dealer's hand itself
        needs), ``dealer_wins``, ``p_dealer`` with its 95% Wilson interval
        (``p_dealer_lo``, ``p_dealer_hi``), ``p_other`` (and interval),
        ``p_drawn_out``, ``mean_draws_to_win`` (tiles drawn after the deal),
        ``mean_counted_dealer`` (counted fans of the dealer's wins).
    """
    from tqdm.auto import tqdm

    from ..rules import get_rules

    rs = get_rules(rules)
    rows = []
    for level in tqdm(_levels(levels), desc="levels", disable=progress is False):
        rec = play_hands(hands, rs, level=level, seed=seed, solitaire=solitaire,
                         exhaust=exhaust, dealer_policy=dealer_policy,
                         others_policy=others_policy)
        o = rec.outcomes
        w = o[:, 0]
        n = len(w)
        kd = int((w == 0).sum())
        ko = int((w > 0).sum())
        lo, hi = wilson(kd, n)
        olo, ohi = wilson(ko, n)
        wins = w >= 0
        rows.append({
            "level": level, "hands": n, "bar": rs.threshold(level), "dealer_wins": kd,
            "p_dealer": kd / n if n else math.nan, "p_dealer_lo": lo, "p_dealer_hi": hi,
            "other_wins": ko, "p_other": ko / n if n else math.nan, "p_other_lo": olo,
            "p_other_hi": ohi, "p_drawn_out": float((w < 0).mean()) if n else math.nan,
            "mean_draws_to_win": float(o[wins, 2].mean()) if wins.any() else math.nan,
            "mean_counted_dealer": float(o[w == 0, 4].mean()) if kd else math.nan,
        })
    return pd.DataFrame(rows).set_index("level")


def streak_chain(table, top=8):
    """The streak implied by per-level dealer win odds (a :func:`simulate` table).

    A dealer at 连k拉k who wins moves to 连k+1拉k+1; a win by another player
    or a drawn-out hand ends the streak (seed 003: after 荒牌 the next
    player deals).  Levels above ``top`` play like ``top`` (at 连8拉8 every
    hand already wins).

    Returns
    -------
    pandas.DataFrame
        Per level N: ``p_reach`` (reaching 连N拉N from 连0, the product of the
        win odds below it) and ``p_continue`` (the odds at N); ``.attrs``
        holds ``expected_length`` (expected number of dealer wins in a row).
    """
    p = table["p_dealer"]
    levels = sorted(int(x) for x in p.index)
    if levels != list(range(len(levels))) or len(levels) <= top:
        raise HandError(f"streak_chain needs the levels 0..{top} played")
    reach = [1.0]
    for k in range(top):
        reach.append(reach[-1] * float(p.loc[k]))
    pt = float(p.loc[top])
    tail = reach[top] * pt / (1 - pt) if pt < 1 else math.inf
    expected = sum(reach[1:]) + tail
    df = pd.DataFrame({"p_reach": reach, "p_continue": [float(p.loc[k]) for k in range(top + 1)]},
                      index=pd.RangeIndex(0, top + 1, name="level"))
    df.attrs["expected_length"] = expected
    return df
