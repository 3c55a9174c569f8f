"""Exact probability of a legal win within a number of draws (expectimax over draws and discards).

The model (one player, no claims, no kongs): the tiles the player cannot see form the
pool; each draw takes a tile uniformly from what is left of the pool; after a draw the
player declares a self-drawn win when the 14 tiles are a **legal** win (the evaluator's
counted fans reach the bar: never a P胡), else discards one of the 14 and, while draws
remain, draws again.  A drawn tile never returns to the pool, discarded or not.

The value of a 13-tile hand with ``r`` draws left is

    V(h, r) = sum_x  pool[x] / N * ( 1 if h + x is a legal win
                                     else max_d V(h + x - d, r - 1) )   (0 when r = 0)

and ``F(h, r)``, the expected counted fans of the win (0 when there is none), follows the
same choices (the discard with the highest ``V``, then the highest ``F``).  The search is
exact: a hand whose structural need (``shanten.analyse``, wild tiles as jokers) exceeds
the draws left cannot win and is cut, which never cuts a win; every other line is
followed.  States are remembered by the tiles drawn and discarded so far, which fixes
both the hand and the pool.

The search runs in pieces (:func:`root_discards`: one discard of the start, one first
draw, then some of the discards after it), each a call from Python, so a caller can show
progress and stop between two of them; the memory lives across the pieces.

None of these kernels calls the evaluator: numba would link a copy of it into each of
them and optimise it again (minutes of compiling).  A search meets a complete shape it
has no verdict for, records it in ``pending`` and counts it as no win; the caller scores
the pending hands with the batch scorer ``score_batch`` runs (already compiled) and
searches again.  Counting an unknown leaf as no win explores a superset of what the true
verdicts explore, so the second search finds every verdict it needs.

Explicit stacks only (no recursion: see docs/architecture.md), typed dictionaries for
the memory.  The entry points release the GIL (``nogil``): the hand builder runs them on a
worker thread while the notebook stays responsive.
"""

from typing import NamedTuple

import numpy as np
from numba import njit, types
from numba.typed import Dict

from .shanten import wild_need

N_KINDS = 34
MAX_DRAWS = 6          # draws and discards encode into one int64 key up to 6 of each
_BASE = 35             # key digits: kind + 1
_NODE_KEY = types.UniTuple(types.int64, 2)     # a node's 34 counts, 3 bits each
_GRAPH_KEY = types.UniTuple(types.int64, 4)    # a graph node: its counts and tiles drawn


class WinProblem(NamedTuple):
    """One question to the exact search, as arrays (made by ``mjkit.winprob``).

    Attributes
    ----------
    melded : int64 (34,)
        Copies of each kind inside the melds (the need reading's limits).
    n_melds : int64
    wild : int64
        The wild kind, -1 for none.
    """

    melded: np.ndarray
    n_melds: np.int64
    wild: np.int64


class Verdicts(NamedTuple):
    """What the search knows of complete hands, keyed by (counts key a, b, winning tile).

    Attributes
    ----------
    fans : typed Dict
        Counted fans of a legal win, or -1 (complete but not legal).
    pending : typed Dict
        Complete hands met without a verdict (value unused).
    """

    fans: object
    pending: object


@njit(cache=True)
def _node_key(c):
    """34 counts as two int64 (3 bits a kind)."""
    a = np.int64(0)
    b = np.int64(0)
    for t in range(21):
        a |= np.int64(c[t]) << (3 * t)
    for t in range(21, 34):
        b |= np.int64(c[t]) << (3 * (t - 21))
    return a, b


@njit(cache=True)
def node_counts(keys, out):
    """The counts of each ``(a, b, ...)`` key row of :func:`_node_key` into ``out[i]``."""
    for i in range(keys.shape[0]):
        a = keys[i, 0]
        b = keys[i, 1]
        for t in range(21):
            out[i, t] = (a >> (3 * t)) & 7
        for t in range(21, 34):
            out[i, t] = (b >> (3 * (t - 21))) & 7


@njit(cache=True)
def win_fans(c, x, prob, tabs, sws, verdicts):
    """Counted fans of the self-drawn win on ``x`` with the 14 counts ``c``; -1: no legal win.

    A complete shape without a verdict yet is recorded in ``verdicts.pending`` (-1 now).
    """
    if wild_need(c, prob.n_melds, prob.wild, prob.melded, tabs, sws) != 0:
        return -1
    a, b = _node_key(c)
    key = (a, b, np.int64(x))
    if key in verdicts.fans:
        return verdicts.fans[key]
    verdicts.pending[key] = 0
    return -1


@njit(cache=True)
def _key(held, pool, c0, pool0):
    """The state as the sorted tiles drawn, then the sorted tiles discarded (base-35 digits)."""
    key = np.int64(0)
    for k in range(N_KINDS):
        for _ in range(pool0[k] - pool[k]):
            key = key * _BASE + (k + 1)
    key = key * _BASE              # separator: keeps (drawn, discarded) pairs apart
    for k in range(N_KINDS):
        for _ in range(c0[k] + pool0[k] - pool[k] - held[k]):
            key = key * _BASE + (k + 1)
    return key


@njit(cache=True)
def expectimax(held, pool, draws, c0, pool0, prob, tabs, sws, verdicts, memo_p, memo_f):
    """``(V, F)`` of the 13-tile (less melds) counts ``held`` with ``draws`` draws left.

    ``pool`` holds the tiles left to draw; ``c0`` and ``pool0`` are the hand and pool at
    the start of the question (the memory's keys are relative to them).  ``held`` and
    ``pool`` are restored on return.  Chance nodes sit at even stack depths, discard
    choices at odd ones.
    """
    depth_max = 2 * draws + 1
    cur = np.full(depth_max, -1, np.int64)          # the draw or discard being tried
    acc_p = np.zeros(depth_max)                      # chance: weighted sum; choice: best
    acc_f = np.zeros(depth_max)
    keys = np.zeros(depth_max, np.int64)
    n_pool = np.int64(0)
    for k in range(N_KINDS):
        n_pool += pool[k]
    j = 0
    ret_p = 0.0
    ret_f = 0.0
    returning = False
    while True:
        if j % 2 == 0:
            # chance node: draw x with weight pool[x]
            left = draws - j // 2
            if cur[j] == -1 and not returning:
                acc_p[j] = 0.0
                acc_f[j] = 0.0
                done = left <= 0 or n_pool == 0
                if not done:
                    # the structural need of 13 tiles is the draws it takes at best
                    if wild_need(held, prob.n_melds, prob.wild, prob.melded, tabs, sws) > left:
                        done = True
                if done:
                    ret_p = 0.0
                    ret_f = 0.0
                    returning = True
                    j -= 1
                    if j < 0:
                        return ret_p, ret_f
                    continue
                key = _key(held, pool, c0, pool0)
                keys[j] = key
                if key in memo_p:
                    ret_p = memo_p[key]
                    ret_f = memo_f[key]
                    returning = True
                    j -= 1
                    if j < 0:
                        return ret_p, ret_f
                    continue
            if returning:
                # a choice below finished: its value times the weight of the draw
                x = cur[j]
                w = pool[x] + 1
                acc_p[j] += w * ret_p
                acc_f[j] += w * ret_f
                held[x] -= 1
                pool[x] += 1
                n_pool += 1
                returning = False
            x = cur[j] + 1
            pushed = False
            while x < N_KINDS:
                if pool[x] > 0:
                    w = pool[x]
                    held[x] += 1
                    f = win_fans(held, x, prob, tabs, sws, verdicts)
                    if f >= 0:
                        acc_p[j] += w
                        acc_f[j] += w * f
                        held[x] -= 1
                    elif left > 1:
                        pool[x] -= 1
                        n_pool -= 1
                        cur[j] = x
                        cur[j + 1] = -1
                        j += 1
                        pushed = True
                        break
                    else:
                        held[x] -= 1
                x += 1
            if pushed:
                continue
            # every draw tried
            total = n_pool
            p = acc_p[j] / total
            f = acc_f[j] / total
            memo_p[keys[j]] = p
            memo_f[keys[j]] = f
            cur[j] = -1
            ret_p = p
            ret_f = f
            returning = True
            j -= 1
            if j < 0:
                return ret_p, ret_f
        else:
            # discard choice: the best of the distinct kinds held
            if cur[j] == -1 and not returning:
                acc_p[j] = -1.0
                acc_f[j] = 0.0
            if returning:
                d = cur[j]
                held[d] += 1
                if ret_p > acc_p[j] + 1e-15 or (ret_p > acc_p[j] - 1e-15 and ret_f > acc_f[j]):
                    acc_p[j] = ret_p
                    acc_f[j] = ret_f
                returning = False
            d = cur[j] + 1
            while d < N_KINDS and held[d] == 0:
                d += 1
            if d < N_KINDS:
                held[d] -= 1
                cur[j] = d
                cur[j + 1] = -1
                j += 1
                continue
            cur[j] = -1
            ret_p = acc_p[j]
            ret_f = acc_f[j]
            returning = True
            j -= 1


def new_dict(key_type=types.int64, value_type=types.float64):
    """An empty typed dictionary (the memories and verdicts the kernels fill)."""
    return Dict.empty(key_type=key_type, value_type=value_type)


@njit(cache=True, nogil=True)
def root_live(c, pool, draws, d, prob, tabs, sws):
    """Live tiles at the start of the search of ``c`` less ``d`` (``d = -1``: ``c`` is 13
    counts less melds), or 0 when that hand cannot win: no draw left, no live tile, or a
    structural need beyond the draws."""
    held = c.copy()
    if d >= 0:
        held[d] -= 1
    n_pool = np.int64(0)
    for k in range(N_KINDS):
        n_pool += pool[k]
    if draws <= 0 or n_pool == 0:
        return np.int64(0)
    if wild_need(held, prob.n_melds, prob.wild, prob.melded, tabs, sws) > draws:
        return np.int64(0)
    return n_pool


@njit(cache=True, nogil=True)
def root_win(c, pool, d, x, prob, tabs, sws, verdicts):
    """Counted fans of the self-drawn win on ``x`` drawn into ``c`` less ``d`` (``d = -1``:
    ``c``), or -1 (:func:`win_fans`: a hand without a verdict yet is left pending)."""
    held = c.copy()
    if d >= 0:
        held[d] -= 1
    held[x] += 1
    return win_fans(held, x, prob, tabs, sws, verdicts)


@njit(cache=True, nogil=True)
def root_discards(c, pool, draws, d, x, e0, e1, best_p, best_f, prob, tabs, sws, verdicts,
                  memo_p, memo_f):
    """One piece of the search: after discarding ``d`` from ``c`` (``d = -1``: none) and
    drawing ``x``, the discards ``e`` in ``e0 .. e1 - 1`` (kinds held), each valued by
    :func:`expectimax` with a draw less, kept as :func:`expectimax`'s choice nodes keep
    them: the highest ``V``, then the highest ``F``, from ``(best_p, best_f)`` on (start
    with ``(-1.0, 0.0)``).

    Returns ``(best_p, best_f, states)``, states: the number remembered.  A caller that
    runs every span of kinds in order gets the choice node's value; times the live copies
    of ``x``, summed over the live kinds in kind order (a legal win on ``x``:
    :func:`root_win`, counts the copies and the copies times its fans) and divided by the
    live tiles (:func:`root_live`), it is the start's value, as :func:`expectimax` sums a
    chance node.  ``memo_*`` is the memory shared by every piece of one search (keys
    relative to ``c`` and ``pool``, so every discard of a 14-tile ``c`` shares it); the
    start itself is not remembered (every other state has drawn a tile: no other key is
    its).
    """
    held = c.copy()
    if d >= 0:
        held[d] -= 1
    held[x] += 1
    pl = pool.copy()
    pl[x] -= 1
    for e in range(e0, e1):
        if held[e] == 0:
            continue
        held[e] -= 1
        p, fe = expectimax(held, pl, draws - 1, c, pool, prob, tabs, sws, verdicts, memo_p,
                           memo_f)
        held[e] += 1
        if p > best_p + 1e-15 or (p > best_p - 1e-15 and fe > best_f):
            best_p = p
            best_f = fe
    return best_p, best_f, len(memo_p)


# ---------------------------------------------------------------- the graph of useful exchanges
#
# For more draws than the exact search reaches: the hands on the way from the start to the
# accepted complete patterns at the least number of missing tiles (``targets``), one useful
# exchange at a time (draw a tile a target misses, discard one it does not need).  A draw that
# leads nowhere closer is thrown back (the hand stays).  A node is a hand *and* the tiles
# drawn on the way to it (kept or thrown since): its live copies are the start's pool less
# those, so a tile drawn never comes back.  A tile thrown back at once is only known to be
# one of the hand's useless kinds: the wall shrinks by one per draw and the useful kinds'
# live copies stay (tomohxx's model, mahjong-win-prob).


class Graph(NamedTuple):
    """The exchange graph of one start hand (nodes in order of decreasing missing tiles).

    Attributes
    ----------
    counts : int8 (n, 34)
        Each node's concealed counts.
    drawn : int8 (n, 34)
        The tiles drawn on the way from the start to the node (no longer live).
    miss : int64 (n,)
        Tiles it misses from its nearest targets (1: one draw from a complete target).
    edge_ptr : int64 (n + 1,)
        Node ``i``'s exchanges are ``edge_x[edge_ptr[i]:edge_ptr[i + 1]]`` (the tile drawn)
        and ``edge_to`` (the node after the best discard is chosen among them).
    win_ptr : int64 (n + 1,)
        Node ``i``'s wins: draw ``win_x[j]`` completes a target, worth ``win_fans[j]``
        counted fans (-1: not a legal win; the caller fills them in, -2 before).
    """

    counts: np.ndarray
    drawn: np.ndarray
    miss: np.ndarray
    edge_ptr: np.ndarray
    edge_x: np.ndarray
    edge_to: np.ndarray
    win_ptr: np.ndarray
    win_x: np.ndarray
    win_fans: np.ndarray


@njit(cache=True)
def _grow(a, n):
    """``a`` with room for at least ``n`` items (doubling)."""
    if n <= a.shape[0]:
        return a
    size = max(a.shape[0] * 2, 1)
    while size < n:
        size *= 2
    out = np.zeros((size,) + a.shape[1:], a.dtype)
    out[:a.shape[0]] = a
    return out


@njit(cache=True)
def _need_of_target(h, targets, p, wild):
    """Tiles ``h`` misses from target ``p``: its wild tiles (kind ``wild``) fill any gap."""
    m = 0
    for t in range(N_KINDS):
        d = targets[p, t] - (0 if t == wild else h[t])
        if d > 0:
            m += d
    return m - (h[wild] if wild >= 0 else 0)


@njit(cache=True)
def _needed_by_any(need_m, n, x):
    for j in range(n):
        if (need_m[j] >> x) & 1:
            return True
    return False


@njit(cache=True, nogil=True)
def exchange_graph(h0, pool0, targets, max_nodes, wild):
    """The :class:`Graph` from the 13 counts ``h0`` toward ``targets`` (int8 (T, 34)).

    Only targets at the least number of missing tiles take part (the others are never
    nearer after a useful exchange).  Tiles of the kind ``wild`` (-1: none) are jokers:
    each fills any one gap, and drawing one is useful toward every target.  Returns
    ``(graph, complete)``; ``complete`` is False when ``max_nodes`` was reached (the graph
    is then cut: an underestimate).
    """
    n_t = targets.shape[0]
    m0 = 1000
    for p in range(n_t):
        m = _need_of_target(h0, targets, p, wild)
        if m < m0:
            m0 = m
    cap = 1024
    counts = np.zeros((cap, N_KINDS), np.int8)
    drawn = np.zeros((cap, N_KINDS), np.int8)
    miss = np.zeros(cap, np.int64)
    act_ptr = np.zeros(cap + 1, np.int64)
    act = np.zeros(max(4 * cap, n_t + 1), np.int64)
    edge_ptr = np.zeros(cap + 1, np.int64)
    edge_x = np.zeros(4 * cap, np.int64)
    edge_to = np.zeros(4 * cap, np.int64)
    win_ptr = np.zeros(cap + 1, np.int64)
    win_x = np.zeros(cap, np.int64)
    win_f = np.zeros(cap, np.int64)
    index = Dict.empty(key_type=_GRAPH_KEY, value_type=types.int64)
    h = np.zeros(N_KINDS, np.int64)
    gone = np.zeros(N_KINDS, np.int64)
    c = np.zeros(N_KINDS, np.int64)
    pair_x = np.zeros(N_KINDS, np.int64)       # discard mask per drawn kind
    need_m = np.zeros(64, np.int64)
    over_m = np.zeros(64, np.int64)
    # the start node and its targets
    n = 1
    for t in range(N_KINDS):
        counts[0, t] = h0[t]
    miss[0] = m0
    k = 0
    for p in range(n_t):
        if _need_of_target(h0, targets, p, wild) == m0:
            act[k] = p
            k += 1
    act_ptr[1] = k
    a0, b0 = _node_key(h0)
    index[(a0, b0, np.int64(0), np.int64(0))] = 0
    n_edges = 0
    n_wins = 0
    complete = True
    i = 0
    while i < n:
        for t in range(N_KINDS):
            h[t] = counts[i, t]
            gone[t] = drawn[i, t]
        m = miss[i]
        edge_ptr[i] = n_edges
        win_ptr[i] = n_wins
        # per target of the node: the kinds it still needs (drawable) and the kinds held
        # beyond it, as bit masks; an exchange (draw x, discard d) is one tile nearer to
        # exactly the targets needing x with d to spare
        j0 = act_ptr[i]
        n_act = act_ptr[i + 1] - j0
        need_m = _grow(need_m, n_act)
        over_m = _grow(over_m, n_act)
        for t in range(N_KINDS):
            pair_x[t] = 0
        for jj in range(n_act):
            p = act[j0 + jj]
            nb = np.int64(0)
            ob = np.int64(0)
            for t in range(N_KINDS):
                ht = 0 if t == wild else h[t]           # wild tiles held are jokers
                if targets[p, t] > ht:
                    if t != wild and pool0[t] - gone[t] > 0:
                        nb |= np.int64(1) << t
                elif ht > targets[p, t]:
                    ob |= np.int64(1) << t
            if wild >= 0 and pool0[wild] - gone[wild] > 0:
                nb |= np.int64(1) << wild                # a wild tile drawn fills any gap
            need_m[jj] = nb
            over_m[jj] = ob
            for x in range(N_KINDS):
                if (nb >> x) & 1:
                    pair_x[x] |= ob
        if m == 1:
            # h + x is a target itself: a win if the evaluator finds it legal
            for x in range(N_KINDS):
                if pair_x[x] == 0 and not _needed_by_any(need_m, n_act, x):
                    continue
                win_x = _grow(win_x, n_wins + 1)
                win_f = _grow(win_f, n_wins + 1)
                win_x[n_wins] = x
                win_f[n_wins] = -2
                n_wins += 1
            i += 1
            continue
        for x in range(N_KINDS):
            ds = pair_x[x]
            if ds == 0:
                continue
            for d in range(N_KINDS):
                if not (ds >> d) & 1:
                    continue
                for t in range(N_KINDS):
                    c[t] = h[t]
                c[x] += 1
                c[d] -= 1
                ka, kb = _node_key(c)
                gone[x] += 1
                ga, gb = _node_key(gone)
                gone[x] -= 1
                key = (ka, kb, ga, gb)
                if key in index:
                    child = index[key]
                else:
                    if n >= max_nodes:
                        complete = False
                        continue
                    child = n
                    if n + 1 >= counts.shape[0]:
                        # every per-node array to the same new size
                        size = 2 * counts.shape[0]
                        counts = _grow(counts, size)
                        drawn = _grow(drawn, size)
                        miss = _grow(miss, size)
                        act_ptr = _grow(act_ptr, size + 1)
                        edge_ptr = _grow(edge_ptr, size + 1)
                        win_ptr = _grow(win_ptr, size + 1)
                    for t in range(N_KINDS):
                        counts[n, t] = c[t]
                        drawn[n, t] = gone[t]
                    drawn[n, x] += 1
                    miss[n] = m - 1
                    # the child's targets: the node's it is one tile nearer to
                    k = act_ptr[n]
                    for jj in range(n_act):
                        if (need_m[jj] >> x) & 1 and (over_m[jj] >> d) & 1:
                            act = _grow(act, k + 1)
                            act[k] = act[j0 + jj]
                            k += 1
                    act_ptr[n + 1] = k
                    index[key] = n
                    n += 1
                # (x, d) pairs give distinct children: one edge each
                edge_x = _grow(edge_x, n_edges + 1)
                edge_to = _grow(edge_to, n_edges + 1)
                edge_x[n_edges] = x
                edge_to[n_edges] = child
                n_edges += 1
        i += 1
    edge_ptr[n] = n_edges
    win_ptr[n] = n_wins
    g = Graph(counts[:n].copy(), drawn[:n].copy(), miss[:n].copy(), edge_ptr[:n + 1].copy(),
              edge_x[:n_edges].copy(), edge_to[:n_edges].copy(), win_ptr[:n + 1].copy(),
              win_x[:n_wins].copy(), win_f[:n_wins].copy())
    return g, complete


@njit(cache=True, nogil=True)
def graph_values(g, pool0, draws, n_pool0, forced):
    """``(V, F)`` of the start node (node 0) of ``g`` with ``draws`` draws left.

    ``V[r, i]``: the probability that node ``i`` wins within ``r`` draws, playing the best
    exchange of the graph after each draw (a draw with none, or none better than keeping
    the hand, is thrown back); ``F`` the expected counted fans of that win.  Draw ``r``
    (counted down) is taken from a wall of ``n_pool0 - (draws - r)`` tiles, of which
    ``pool0[x] - drawn[i, x]`` are of kind ``x``; what is not a useful kind keeps the hand.
    With ``forced`` a useful tile is always taken (tomohxx's mahjong-win-prob plays so);
    otherwise the hand is kept when that is worth more.
    """
    n = g.counts.shape[0]
    v_prev = np.zeros(n)
    f_prev = np.zeros(n)
    v = np.zeros(n)
    f = np.zeros(n)
    best_v = np.zeros(N_KINDS)
    best_f = np.zeros(N_KINDS)
    taken = np.zeros(N_KINDS, np.bool_)
    for r in range(1, draws + 1):
        wall = n_pool0 - (draws - r)
        if wall <= 0:
            break
        for i in range(n):
            if g.miss[i] > r:
                v[i] = 0.0
                f[i] = 0.0
                continue
            stay_v = v_prev[i]
            stay_f = f_prev[i]
            for x in range(N_KINDS):
                best_v[x] = stay_v
                best_f[x] = stay_f
                taken[x] = False
            for e in range(g.edge_ptr[i], g.edge_ptr[i + 1]):
                x = g.edge_x[e]
                to = g.edge_to[e]
                if forced and not taken[x]:
                    taken[x] = True
                    best_v[x] = v_prev[to]
                    best_f[x] = f_prev[to]
                elif v_prev[to] > best_v[x] + 1e-15 or (v_prev[to] > best_v[x] - 1e-15
                                                      and f_prev[to] > best_f[x]):
                    best_v[x] = v_prev[to]
                    best_f[x] = f_prev[to]
            for j in range(g.win_ptr[i], g.win_ptr[i + 1]):
                if g.win_fans[j] >= 0:
                    x = g.win_x[j]
                    best_v[x] = 1.0
                    best_f[x] = g.win_fans[j]
            # the useful kinds' live copies; every other tile drawn leaves the hand as it is
            useful = 0
            gain_v = 0.0
            gain_f = 0.0
            for x in range(N_KINDS):
                if taken[x] or best_v[x] != stay_v or best_f[x] != stay_f:
                    live = pool0[x] - g.drawn[i, x]
                    if live > 0:
                        useful += live
                        gain_v += live * (best_v[x] - stay_v)
                        gain_f += live * (best_f[x] - stay_f)
            # more useful copies than wall: a wall this short cannot hold them (only with
            # far more draws than a player has); read the draw as useful for sure
            den = wall if wall >= useful else useful
            v[i] = stay_v + gain_v / den
            f[i] = stay_f + gain_f / den
        for i in range(n):
            v_prev[i] = v[i]
            f_prev[i] = f[i]
    return v_prev[0], f_prev[0]
