"""The chance of completing each of a few target hands, per discard: the fast mode's arithmetic.

Given the 14 tiles in hand, the live copies of each kind, the draws left and the accepted
complete patterns nearest to the hand (the value index's ``nearest`` finds them), this
rates every candidate discard by the chances of the targets it leaves open.

One target ``t`` from the 13 tiles ``h`` needs ``n_k = max(t_k - h_k, 0)`` more copies
of kind ``k``; it is reached within ``D`` draws from ``N`` live tiles (``u_k`` of kind
``k``) when the draws hold at least ``n_k`` of every needed kind (the surplus tiles are
the discards on the way).  The chance of that is approximated by the product of the
kinds' hypergeometric tails ``P(X_k >= n_k)``, ``X_k ~ Hypergeom(N, u_k, D)``; the kinds'
counts are weakly negatively correlated, so the product is slightly high.  Wild tiles
held fill the needs whose filling helps most (a greedy choice); a wild tile drawn is one
more joker: conditioned on ``j`` of the ``W`` live wild copies among the draws, the other
``D - j`` draws are uniform over the ``N - W`` other live tiles.  Without wild tiles a
target's chance is one product, and a discard changes at most one of its factors (by a
precomputed ratio of tails), so rating 14 discards costs one product per target.

Per discard the kernel returns the sum of the targets' chances (the expected number of
targets completed alone: the fast mode's ranking score, since it rewards keeping several
directions open), their union ``1 - prod(1 - p_t)`` and maximum (bounds a calibrated
``p_win`` is read from), and the chance-weighted mean of the targets' counted fans.
Every table is an argument; nothing here scores a hand.
"""

import math
from typing import NamedTuple

import numpy as np
from numba import njit

N_KINDS = 34
MAX_COPY = 4
MAX_WILD_DRAWN = 4       # live copies of the wild kind (it has four)


class TargetSet(NamedTuple):
    """The targets a decision is rated against.

    Attributes
    ----------
    pats : int64 (k, 34)
        Accepted complete patterns (concealed tiles; melds outside).
    fans : float64 (k,)
        Each target's counted fans (0 when unknown: ``exp_fans`` is then 0).
    """

    pats: np.ndarray
    fans: np.ndarray


class DiscardChances(NamedTuple):
    """Per discarded kind (float64 (34,) each; -1 in ``score`` for a kind not held).

    Attributes
    ----------
    score : sum of the targets' chances (the ranking score).
    union : ``1 - prod(1 - p_t)``.
    top : the likeliest target's chance.
    fans : chance-weighted mean counted fans of the targets.
    best : int64 (34,), the likeliest target (-1: none reachable).
    short : int64 (34,), the fewest tiles a target is missing (wild tiles held filling
        gaps; 99: no target reachable).
    useful : int64 (34,), the live copies of the kinds the targets missing ``short``
        tiles still need (the breadth of the nearest targets).
    """

    score: np.ndarray
    union: np.ndarray
    top: np.ndarray
    fans: np.ndarray
    best: np.ndarray
    short: np.ndarray
    useful: np.ndarray


def discard_chances_out():
    """An empty :class:`DiscardChances` for :func:`discard_chances` to fill."""
    z = np.zeros(N_KINDS)
    return DiscardChances(z.copy(), z.copy(), z.copy(), z.copy(), np.zeros(N_KINDS, np.int64),
                          np.zeros(N_KINDS, np.int64), np.zeros(N_KINDS, np.int64))


@njit(cache=True)
def _log_choose(n, k):
    return math.lgamma(n + 1.0) - math.lgamma(k + 1.0) - math.lgamma(n - k + 1.0)


@njit(cache=True)
def hyper_tails(n_pool, draws, out):
    """``out[n, u] = P(X >= n)``, ``X ~ Hypergeom(n_pool, u, draws)``, for n, u in 0..4."""
    d = min(draws, n_pool)
    for u in range(MAX_COPY + 1):
        pm = np.zeros(MAX_COPY + 1)
        if u <= n_pool:
            for k in range(u + 1):
                if k > d or d - k > n_pool - u:
                    continue
                pm[k] = math.exp(_log_choose(u, k) + _log_choose(n_pool - u, d - k)
                                 - _log_choose(n_pool, d))
        s = 0.0
        for n in range(MAX_COPY, -1, -1):
            if n <= u:
                s += pm[n]
                out[n, u] = s
            else:
                out[n, u] = 0.0
        out[0, u] = 1.0


@njit(cache=True)
def _hyper_pmf(n_pool, good, draws, out):
    """``out[j] = P(J = j)``, ``J ~ Hypergeom(n_pool, good, draws)``, j in 0..4."""
    d = min(draws, n_pool)
    for j in range(MAX_WILD_DRAWN + 1):
        out[j] = 0.0
        if j <= good and j <= d and d - j <= n_pool - good:
            out[j] = math.exp(_log_choose(good, j) + _log_choose(n_pool - good, d - j)
                              - _log_choose(n_pool, d))


@njit(cache=True, inline="always")
def _filled_chance(nd, lv, m, jokers, tails, j, loc):
    """Chance of the needs ``nd[:m]`` (live ``lv[:m]``) with ``jokers`` filling the worst;
    ``tails[j]`` the tails with ``j`` wild tiles drawn, ``loc`` 34 ints of scratch (read
    by index, not as a view or a new array: this runs per target and discard)."""
    if jokers > 0:
        left = 0
        for i in range(m):
            left += nd[i]
        if jokers >= left:
            return 1.0
        # a local copy: the caller's needs stay as they are
        for i in range(m):
            loc[i] = nd[i]
        for _ in range(jokers):
            pick = -1
            gain = -1.0
            for i in range(m):
                if loc[i] == 0:
                    continue
                a = tails[j, loc[i], lv[i]] if loc[i] <= lv[i] else 0.0
                b = tails[j, loc[i] - 1, lv[i]] if loc[i] - 1 <= lv[i] else 0.0
                # an impossible need first, then the largest relative gain
                g = 1e300 if a <= 0.0 else b / a
                if g > gain:
                    gain = g
                    pick = i
            loc[pick] -= 1
        p = 1.0
        for i in range(m):
            if loc[i] > 0:
                if loc[i] > lv[i]:
                    return 0.0
                p *= tails[j, loc[i], lv[i]]
        return p
    p = 1.0
    for i in range(m):
        if nd[i] > lv[i]:
            return 0.0
        p *= tails[j, nd[i], lv[i]]
    return p


@njit(cache=True, inline="always")
def _target_chance(nd, lv, m, held_wild, pmf_wild, tails_by_j, loc):
    """Chance of one target: needs ``nd[:m]``, wild tiles held and drawn as jokers."""
    p = 0.0
    for j in range(MAX_WILD_DRAWN + 1):
        if pmf_wild[j] <= 0.0:
            continue
        p += pmf_wild[j] * _filled_chance(nd, lv, m, held_wild + j, tails_by_j, j, loc)
    return p


@njit(cache=True, inline="always")
def _add(out, x, p, miss, fans, i, missing, kinds, needed):
    """Count target ``i`` (chance ``p``, ``missing`` tiles of the kinds in the bit mask
    ``needed``) for discard ``x``; ``kinds[x]``: the kinds the nearest targets need."""
    if p <= 0.0:
        return
    if missing < out.short[x]:
        out.short[x] = missing
        kinds[x] = needed
    elif missing == out.short[x]:
        kinds[x] |= needed
    out.score[x] += p
    miss[x] *= 1.0 - min(p, 1.0)
    out.fans[x] += p * fans
    if p > out.top[x]:
        out.top[x] = p
        out.best[x] = i


@njit(cache=True)
def discard_chances(h, live, draws, wild, discard, targets, out):
    """Rate every discard of the 14 tiles ``h`` by the chances of ``targets``.

    Parameters
    ----------
    h : int64 (34,)
        Concealed tiles (14 less 3 per meld; 13 less 3 per meld with ``discard`` False),
        wild tiles held counted at the wild kind.
    live : int64 (34,)
        Copies of each kind that can still be drawn (the wild kind's: wild tiles).
    draws : int
        Draws left after this discard.
    wild : int
        The wild kind, -1 for none.
    discard : bool
        True: rate each discard of ``h``.  False: rate ``h`` itself, in slot 0.
    targets : TargetSet
        Patterns of the tiles other than the wild ones (wild tiles held are jokers).
    out : DiscardChances
        Filled per kind; kinds not held get ``score = -1`` (``discard`` False: slot 0
        only).
    """
    pats = targets.pats
    k_targets = pats.shape[0]
    held_w = h[wild] if wild >= 0 else 0
    n_live = 0
    for x in range(N_KINDS):
        n_live += live[x]
    w_live = live[wild] if wild >= 0 else 0
    pmf = np.zeros(MAX_WILD_DRAWN + 1)
    tails = np.zeros((MAX_WILD_DRAWN + 1, MAX_COPY + 1, MAX_COPY + 1))
    if w_live > 0:
        _hyper_pmf(n_live, w_live, draws, pmf)
        for j in range(MAX_WILD_DRAWN + 1):
            if pmf[j] > 0.0:
                hyper_tails(n_live - w_live, max(draws - j, 0), tails[j])
    else:
        pmf[0] = 1.0
        hyper_tails(n_live, draws, tails[0])
    miss = np.ones(N_KINDS)
    kinds = np.zeros(N_KINDS, np.uint64)      # per discard: bits of the kinds needed
    held = np.empty(N_KINDS, np.int64)      # the kinds a discard can be
    n_held = 0
    for x in range(N_KINDS):
        if discard and h[x] > 0:
            held[n_held] = x
            n_held += 1
        out.score[x] = -1.0 if (h[x] == 0 if discard else x > 0) else 0.0
        out.union[x] = 0.0
        out.top[x] = 0.0
        out.fans[x] = 0.0
        out.best[x] = -1
        out.short[x] = 99
    nd = np.empty(N_KINDS, np.int64)
    lv = np.empty(N_KINDS, np.int64)
    loc = np.empty(N_KINDS, np.int64)
    at = np.empty(N_KINDS, np.int64)
    plain = held_w == 0 and w_live == 0
    t0 = tails[0]
    step = np.zeros((MAX_COPY + 1, MAX_COPY + 1))    # tails[a + 1, u] / tails[a, u]
    for a in range(MAX_COPY):
        for u in range(a + 1, MAX_COPY + 1):
            if t0[a, u] > 0.0:
                step[a, u] = t0[a + 1, u] / t0[a, u]
    for i in range(k_targets):
        # the target's needs from the 14 tiles (the wild kind's own copies are jokers)
        m = 0
        total = 0
        needed = np.uint64(0)
        short = False
        for k in range(N_KINDS):
            if k == wild:
                continue
            need = pats[i, k] - h[k]
            if need > 0:
                if need > live[k] + held_w + w_live:
                    short = True
                    break
                nd[m] = need
                total += need
                needed |= np.uint64(1) << np.uint64(k)
                lv[m] = live[k]
                at[k] = m
                m += 1
            else:
                at[k] = -1
        if short:
            continue
        if plain and discard:
            # no wild tile anywhere: one product per target, and each discard changes
            # at most one of its factors
            base = 1.0
            for j in range(m):
                base *= t0[nd[j], lv[j]] if nd[j] <= lv[j] else 0.0
            if base <= 0.0:
                continue            # every discard leaves it out of reach
            for j in range(n_held):
                x = held[j]
                nx = needed
                if h[x] > pats[i, x]:
                    p = base                # a surplus tile: the needs stay
                    missing = total
                elif at[x] >= 0:
                    p = base * step[nd[at[x]], lv[at[x]]]
                    missing = total + 1
                else:
                    # x was exactly covered: throwing it makes a need of one
                    p = base * t0[1, live[x]]
                    missing = total + 1
                    nx |= np.uint64(1) << np.uint64(x)
                _add(out, x, p, miss, targets.fans[i], i, missing, kinds, nx)
            continue
        base = -1.0
        for x in range(N_KINDS if discard else 1):
            if not discard:
                p = _target_chance(nd, lv, m, held_w, pmf, tails, loc)
                _add(out, x, p, miss, targets.fans[i], i, max(total - held_w, 0), kinds,
                     needed)
                continue
            if h[x] == 0:
                continue
            w = held_w
            missing = total
            nx = needed
            if x == wild:
                w -= 1
                p = _target_chance(nd, lv, m, w, pmf, tails, loc)
            elif h[x] > pats[i, x]:
                # a surplus tile: the needs stay
                if base < 0.0:
                    base = _target_chance(nd, lv, m, w, pmf, tails, loc)
                p = base
            elif at[x] >= 0:
                nd[at[x]] += 1
                p = _target_chance(nd, lv, m, w, pmf, tails, loc)
                nd[at[x]] -= 1
                missing += 1
            else:
                # x was exactly covered: throwing it makes a need of one
                nd[m] = 1
                lv[m] = live[x]
                p = _target_chance(nd, lv, m + 1, w, pmf, tails, loc)
                missing += 1
                nx |= np.uint64(1) << np.uint64(x)
            _add(out, x, p, miss, targets.fans[i], i, max(missing - w, 0), kinds, nx)
    for x in range(N_KINDS):
        out.useful[x] = 0
        if out.score[x] < 0.0:
            continue
        for k in range(N_KINDS):
            if (kinds[x] >> np.uint64(k)) & np.uint64(1):
                out.useful[x] += live[k]
        out.union[x] = 1.0 - miss[x]
        if out.score[x] > 0.0:
            out.fans[x] /= out.score[x]
