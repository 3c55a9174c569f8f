"""One-player games: how often a discard policy reaches a legal win at a bar, on seeded walls.

A one-player game (issue 14's test bed for the advisor): the player is dealt 14 tiles from
a shuffled 136-tile set and then draws ``draws`` more, one per turn, discarding after each;
no other player, no claims, no kongs, no wild tiles or flowers.  The player declares a
self-drawn win as soon as the 14 tiles are a **legal** win at the bar (counted fans, the
rule set's evaluator, never a P胡).  Game ``i`` of ``seed`` is always the same wall, so
policies are compared on the same games.

Policies (``policy=``):

* ``"efficiency"``, ``"value"``: the simulator's built-in players (the same kernels as
  :func:`mjkit.sim.play_hands`), ``"value"`` aiming at directions worth ``bar - slack``;
* ``"distance"``: discard to the least ``distance_to`` (exchanges to an accepted complete
  hand, the value index), ties broken by the live copies of the useful tiles, then the
  lowest kind;
* ``"fast"``: the fast mode (:func:`mjkit.winprob.fast_rates`, :func:`~mjkit.winprob.
  fast_choice`; at a void bar the tile-efficiency discard), which records its calibrated
  ``p_win`` at the first decision;
* ``"advisor"``: the discard :func:`mjkit.winprob.win_chances` rates best (``mode=``), which
  also records its predicted ``p_win`` at the first decision (for calibration).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from .._kernels import policy as P
from .._kernels import solo as KS
from .._kernels import fast_play as KF
from .._kernels.bundles import ShantenTables
from .._kernels.game_state import SEAT_DTYPE
from .._lazy import pandas as pd
from ..distance import nearest_patterns
from ..errors import HandError
from ..rules import get_rules
from ..score import legal_counted, situation_row
from ..shanten import shanten_tables
from ..tiles import tile_from_str, tiles_of_counts
from ..validate import seed as _seed
from ..validate import whole
from .directions import direction_arrays
from .study import wilson  # noqa: F401  (one home; re-exported for callers of solo)

__all__ = ["SOLO_POLICIES", "SoloGames", "solo_games", "compare_policies", "wilson"]

SOLO_POLICIES = ("efficiency", "value", "distance", "fast", "advisor")
N_TILES = 136
N_KINDS = 34
MAX_DRAWS = N_TILES - 14


def walls(seed, first, n):
    """Kinds ``(n, 136)`` of games ``first .. first + n - 1``: each its own seeded stream."""
    out = np.empty((n, N_TILES), np.int64)
    for j in range(n):
        rng = np.random.default_rng(np.random.SeedSequence([seed, first + j]))
        out[j] = rng.permutation(N_TILES) // 4
    return out


@dataclass
class SoloGames:
    """Outcomes of one-player games (see the module docstring).

    Attributes
    ----------
    policy, rules : str
    bar, draws, seed, first : int
    won : bool (n,)
    counted : int (n,)
        Counted fans of the win, -1 without one.
    won_at : int (n,)
        Draws taken when the win came (0: the dealt 14 tiles), -1 without one.
    first_p : float (n,)
        The advisor's (or the fast mode's) predicted ``p_win`` at the first decision (1
        when the deal is a win); nan for the other policies.
    seconds : float
    hands : int (n, 34)
        Each game's 14 tiles at its end (the winning hand, or the last drawn).
    last : int (n,)
        The tile drawn last (-1: none drawn).
    trace : float (k, 5)
        ``trace=True`` with ``policy="fast"``: per decision ``(game, draws left, score,
        short, top)`` of the discard played (:class:`~mjkit._kernels.target_chances.
        DiscardChances`).
    """

    policy: str
    rules: str
    bar: int
    draws: int
    seed: int
    first: int
    won: np.ndarray
    counted: np.ndarray
    won_at: np.ndarray
    first_p: np.ndarray
    seconds: float
    hands: np.ndarray
    last: np.ndarray
    trace: np.ndarray = field(default_factory=lambda: np.zeros((0, 5)))

    @property
    def n(self):
        return len(self.won)

    @property
    def rate(self):
        """Share of the games won."""
        return float(self.won.mean()) if self.n else float("nan")

    def interval(self):
        """95% Wilson interval of the win rate."""
        return wilson(int(self.won.sum()), self.n)


class _Kernel:
    """The simulator's built-in policies, for a batch of games."""

    def __init__(self, name, rs, bar, n, slack, commit):
        self.policy = P.POLICY_VALUE if name == "value" else P.POLICY_EFFICIENCY
        self.dirs = direction_arrays(rs)
        self.tabs = ShantenTables(*shanten_tables())
        self.seats = np.zeros(n, SEAT_DTYPE)
        self.seats["aim"] = -1
        self.seats["aim2"] = -1
        self.want = np.int64(bar - slack)
        self.commit = np.int64(commit)

    def decide(self, hands, seen, active, left):
        out = np.empty(len(hands), np.int64)
        KS.solo_discards(np.int64(self.policy), hands, seen, active, self.seats, self.want,
                         self.commit, self.dirs, self.tabs, out)
        return out


class _Distance:
    """Least distance to an accepted hand, then most live useful tiles, then lowest kind."""

    def __init__(self, rs, bar):
        self.rs = rs
        self.bar = bar
        self.none = np.zeros(N_KINDS, np.int64)

    def one(self, h, seen):
        unseen = np.ascontiguousarray(4 - h - seen, np.int64)
        best_key = None
        best = -1
        for d in np.flatnonzero(h):
            h13 = h.copy()
            h13[d] -= 1
            over, pats, _ = nearest_patterns(h13, [], self.none, unseen, self.rs, self.bar,
                                             0, (0, 0, True), 4096)
            if over < 0:
                key = (1 << 20, 0, int(d))
            else:
                useful = (pats > h13[None, :]).any(axis=0)
                key = (13 - int(over), -int(unseen[useful].sum()), int(d))
            if best_key is None or key < best_key:
                best_key = key
                best = int(d)
        return best

    def decide(self, hands, seen, active, left):
        return np.array([self.one(hands[g], seen[g]) if active[g] else -1
                         for g in range(len(hands))], np.int64)


class _Fast:
    """The fast mode (:func:`mjkit._kernels.fast_play.solo_fast`): the discard leaving the
    fewest tiles missing, then the most live useful tiles, then the targets' highest summed
    chance, then the likeliest single target, then the lowest kind (at a void bar, one
    every complete closed hand reaches, the tile-efficiency discard); every decision of a
    batch in one kernel call."""

    def __init__(self, rs, bar, n, trace):
        from ..winprob import fast_scratch, fast_tables    # winprob imports the scorer
        self.ft = fast_tables(rs, bar)
        self.fs = fast_scratch()
        self.bar = bar
        self.rated = np.zeros((n, 3))
        self.first = None
        self.trace = [] if trace else None     # see SoloGames.trace

    def decide(self, hands, seen, active, left):
        from ..fast_calibration import fast_p_win
        out = np.full(len(hands), -1, np.int64)
        # a void bar's discard is rated only where its p_win is kept
        rate = self.first is None or self.trace is not None
        KF.solo_fast(hands, seen, active, np.int64(left), self.ft, self.fs, out, self.rated,
                     rate)
        g = np.flatnonzero(active)
        if self.first is None:      # only the first decision's prediction is kept
            p = np.full(len(hands), np.nan)
            for i in g:
                p[i] = fast_p_win(float(self.rated[i, 0]), int(self.rated[i, 1]), left,
                                  self.bar)
            self.first = p
        if self.trace is not None:
            self.trace.extend(zip(g.tolist(), [int(left)] * len(g),
                                  self.rated[g, 0].tolist(),
                                  self.rated[g, 1].astype(int).tolist(),
                                  self.rated[g, 2].tolist()))
        return out


class _Advisor:
    """The discard :func:`mjkit.winprob.win_chances` rates best."""

    def __init__(self, rs, bar, mode):
        self.rs = rs
        self.bar = bar
        self.mode = mode
        self.first = None

    def decide(self, hands, seen, active, left):
        from ..winprob import win_chances     # imported here: winprob imports the scorer
        out = np.full(len(hands), -1, np.int64)
        p = np.full(len(hands), np.nan)
        for g in np.flatnonzero(active):
            res = win_chances(hands[g], left, self.rs, min_fans=self.bar,
                              visible=tiles_of_counts(seen[g]), mode=self.mode)
            out[g] = tile_from_str(res.best.tile)
            p[g] = res.p_win
        if self.first is None:
            self.first = p
        return out


def solo_games(policy, n_games, *, bar=0, draws=17, rules="dazhong32", seed=0, first=0,
               mode="deep", slack=4, commit=5, progress=None, trace=False):
    """Play ``n_games`` one-player games with ``policy`` (see the module docstring).

    Parameters
    ----------
    policy : {"efficiency", "value", "distance", "fast", "advisor"}
    n_games : int
    bar : int
        Counted fans a win must reach (``min_fans``; 0: any complete hand).
    draws : int
        Draws after the 14 dealt tiles (17: about a player's share of a four-player wall).
    rules : str or RuleSet
    seed, first : int
        Games ``first .. first + n_games - 1`` of ``seed``: the same walls for every policy.
    mode : str
        The advisor's ``win_chances`` mode.
    slack, commit : int
        The value-aware player's allowance for small fans and its commit need (as in
        :func:`mjkit.sim.play_hands`).
    progress : bool, optional
        A progress bar over the turns (default: for the Python policies).
    trace : bool
        ``policy="fast"``: keep every decision's rating in ``SoloGames.trace`` (the data
        :mod:`mjkit.fast_calibration` is fitted on).

    Returns
    -------
    SoloGames
    """
    t0 = time.perf_counter()
    if policy not in SOLO_POLICIES:
        raise HandError(f"policy must be one of {SOLO_POLICIES}, got {policy!r}",
                        code="unknown_name")
    rs = get_rules(rules)
    n = whole("n_games", n_games, 1, 10_000_000)
    bar = whole("bar", bar, 0, 1000)
    draws = whole("draws", draws, 0, MAX_DRAWS)
    seed = _seed(seed)
    first = whole("first", first, 0)
    wall = walls(seed, first, n)
    hands = np.zeros((n, N_KINDS), np.int64)
    for j in range(14):
        np.add.at(hands, (np.arange(n), wall[:, j]), 1)
    seen = np.zeros((n, N_KINDS), np.int64)
    won = np.zeros(n, bool)
    counted = np.full(n, -1, np.int64)
    won_at = np.full(n, -1, np.int64)
    row = situation_row([], 0, 0, True, 0)
    last = np.full(n, -1, np.int64)
    if policy in ("efficiency", "value"):
        player = _Kernel(policy, rs, bar, n, whole("slack", slack, -200, 200),
                         whole("commit", commit, 0, 14))
    elif policy == "distance":
        player = _Distance(rs, bar)
    elif policy == "fast":
        player = _Fast(rs, bar, n, trace)
    else:
        player = _Advisor(rs, bar, mode)
    # the deal: a win on any of the 14 tiles
    for k in range(N_KINDS):
        has = hands[:, k] > 0
        if has.any():
            f = legal_counted(row, hands[has], np.full(int(has.sum()), k), rs, bar)
            idx = np.flatnonzero(has)[f > counted[has]]
            counted[idx] = f[f > counted[has]]
    won[:] = counted >= 0
    won_at[won] = 0
    bar_it = None
    if progress or (progress is None and policy in ("distance", "fast", "advisor")):
        from tqdm.auto import tqdm
        bar_it = tqdm(total=draws, desc=f"{policy} at {bar}", leave=False)
    for step in range(draws):
        active = ~won
        if not active.any():
            break
        d = player.decide(hands, seen, active, draws - step)
        g = np.flatnonzero(active)
        hands[g, d[g]] -= 1
        seen[g, d[g]] += 1
        x = wall[g, 14 + step]
        hands[g, x] += 1
        last[g] = x
        f = legal_counted(row, hands[g], x, rs, bar)
        hit = g[f >= 0]
        won[hit] = True
        counted[hit] = f[f >= 0]
        won_at[hit] = step + 1
        if bar_it is not None:
            bar_it.update(1)
    if bar_it is not None:
        bar_it.close()
    first_p = np.full(n, np.nan)
    if policy in ("advisor", "fast"):
        first_p = player.first if player.first is not None else first_p
        first_p = np.where(won_at == 0, 1.0, first_p)
    tr = np.zeros((0, 5))
    if policy == "fast" and trace:
        tr = np.array(player.trace, float).reshape(-1, 5)
    return SoloGames(policy, rs.name, bar, draws, seed, first, won, counted, won_at, first_p,
                     time.perf_counter() - t0, hands, last, tr)


def compare_policies(n_games, bars=(0, 8, 16, 32), policies=SOLO_POLICIES, **kw):
    """Win rates of ``policies`` on the same games at each bar: one row per (bar, policy).

    Columns: ``bar, policy, games, wins, rate, lo, hi`` (95% Wilson interval),
    ``mean_counted`` (of the wins), ``seconds``.
    """
    rows = []
    for b in bars:
        for pol in policies:
            r = solo_games(pol, n_games, bar=b, **kw)
            lo, hi = r.interval()
            rows.append({"bar": b, "policy": pol, "games": r.n, "wins": int(r.won.sum()),
                         "rate": r.rate, "lo": lo, "hi": hi,
                         "mean_counted": float(r.counted[r.won].mean()) if r.won.any()
                         else float("nan"), "seconds": r.seconds})
    return pd.DataFrame(rows)
