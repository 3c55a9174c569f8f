"""Complete 14-tile patterns: enumeration, forms, weights and exact scoring.

A *pattern* is a vector of 34 tile counts (each at most 4).  The kernels
here list every complete pattern of each form, tell which forms a pattern
is complete in, count the physical tile combinations it stands for and
score it with the evaluator (``evaluate.score_hand_row``) for every choice
of winning tile.  :mod:`mjkit.exact` drives them.

Everything is iterative (explicit index arrays, no recursion: numba's
on-disk cache cannot hold a recursive call graph safely, numba issue 6061)
and every table is an argument (cached kernels freeze globals).

The regular form is built from *groups*: the three suits and the honours
are independent, so a complete hand is one complete pattern per group
(``k`` sets, and the pair in exactly one group) with ``k`` summing to 4.
Each group's patterns are generated from its sets (multisets of pungs and
chows plus an optional pair, duplicates removed through a seen-array keyed
by the base-5 counts), never recognised, so the generator and the
recognisers of :mod:`.shapes` are independent of each other and the tests
compare them.
"""

import numpy as np
from numba import njit, prange

from .bundles import WinScratch
from .evaluate import WS_LEN, is_nine_gates, score_hand_row
from .layout import (
    COUNTS, DEC_COUNTED, DEC_LEN, F_SELF_DRAWN, FLAGS, ROUND, ROW_LEN, SEAT, WILD, WIN,
)
from .shapes import (
    count_waits, find_knitted, honors_knitted_kind, is_regular_complete, is_thirteen_orphans,
    knitted_tile, seven_pairs_kind,
)

# Form bits of a pattern (a pattern may be complete in several forms).
REGULAR = 1            # four sets and a pair
SEVEN_PAIRS = 2        # as shapes.seven_pairs_kind: four of a kind is two pairs
THIRTEEN_ORPHANS = 4
HONORS_KNITTED = 8     # 全不靠 / 七星不靠
KNITTED_STRAIGHT = 16  # 组合龙 + one set + a pair
N_FORMS = 5

# Fan counts are packed 4 bits each, 15 to a word (60 bits keeps the words
# non-negative int64), into a signature that identifies the fan multiset.
SIG_FANS_PER_WORD = 15
SIG_MAX_COUNT = 15


def sig_words(n_fans):
    """Number of int64 words of a fan signature for ``n_fans`` catalogue fans."""
    return (n_fans + SIG_FANS_PER_WORD - 1) // SIG_FANS_PER_WORD


# ---------------------------------------------------------------- groups


@njit(cache=True)
def next_multiset(idx, n, top):
    """Step ``idx[:n]`` to the next non-decreasing sequence of values ``0..top``.

    The odometer that walks multisets (of set types, of pair kinds) each
    once.  Returns False, leaving ``idx`` as it was, after the last one.
    """
    j = n - 1
    while j >= 0 and idx[j] == top:
        j -= 1
    if j < 0:
        return False
    idx[j] += 1
    for k in range(j + 1, n):
        idx[k] = idx[j]
    return True


@njit(cache=True)
def group_patterns(set_counts, n_sets, with_pair):
    """Every distinct count vector of one group made of ``n_sets`` sets (and a pair).

    Parameters
    ----------
    set_counts : int64 array (n_types, n_kinds)
        The count vector of each set the group allows (pungs, and chows in a
        suit).
    n_sets : int
        Sets in the group (0..4).
    with_pair : bool
        Add one pair (of any kind of the group).

    Returns
    -------
    uint8 array (m, n_kinds)
        The vectors with every count at most 4, each once, in increasing
        order of their base-5 key ``sum(c[r] * 5**r)``.

    Notes
    -----
    Multisets of set types are walked as non-decreasing index sequences by
    an odometer; several multisets can give the same counts (three equal
    chows are three pungs), hence the seen-array.
    """
    n_types = set_counts.shape[0]
    n_kinds = set_counts.shape[1]
    n_keys = 5 ** n_kinds
    seen = np.zeros(n_keys, np.uint8)
    idx = np.zeros(max(n_sets, 1), np.int64)
    c = np.zeros(n_kinds, np.int64)
    done = False
    while not done:
        for r in range(n_kinds):
            c[r] = 0
        for j in range(n_sets):
            for r in range(n_kinds):
                c[r] += set_counts[idx[j], r]
        for p in range(n_kinds if with_pair else 1):
            if with_pair:
                c[p] += 2
            ok = True
            key = 0
            for r in range(n_kinds - 1, -1, -1):
                if c[r] > 4:
                    ok = False
                    break
                key = key * 5 + c[r]
            if ok:
                seen[key] = 1
            if with_pair:
                c[p] -= 2
        done = not next_multiset(idx, n_sets, n_types - 1)
    m = 0
    for key in range(n_keys):
        m += seen[key]
    out = np.zeros((m, n_kinds), np.uint8)
    i = 0
    for key in range(n_keys):
        if seen[key]:
            k = key
            for r in range(n_kinds):
                out[i, r] = k % 5
                k //= 5
            i += 1
    return out


def suit_sets():
    """Count vectors of the 16 sets of one suit: 9 pungs, then 7 chows."""
    s = np.zeros((16, 9), np.int64)
    for r in range(9):
        s[r, r] = 3
    for r in range(7):
        s[9 + r, r:r + 3] = 1
    return s


def honor_sets():
    """Count vectors of the 7 honour pungs."""
    return 3 * np.eye(7, dtype=np.int64)


def group_lists(set_counts, max_sets=4):
    """All group patterns by class ``2 * n_sets + with_pair``, flattened.

    Returns ``(vecs, ptr)``: class ``q`` is ``vecs[ptr[q]:ptr[q + 1]]``.
    """
    parts = [group_patterns(set_counts, k, bool(p)) for k in range(max_sets + 1) for p in (0, 1)]
    ptr = np.zeros(len(parts) + 1, np.int64)
    ptr[1:] = np.cumsum([len(x) for x in parts])
    return np.ascontiguousarray(np.concatenate(parts)), ptr


# ---------------------------------------------------------------- regular form


@njit(cache=True)
def regular_patterns(suit_vecs, suit_ptr, hon_vecs, hon_ptr, n_sets, out):
    """Every complete regular pattern with ``n_sets`` sets and a pair.

    The groups m, p, s (``suit_vecs``) and honours (``hon_vecs``) take
    ``km + kp + ks + kh = n_sets`` sets, and the pair goes to exactly one of
    them; each combination of one pattern per group is one hand, and no hand
    arises twice (a group's tile count fixes its class).  With ``out`` of
    zero rows only the number is returned; otherwise ``out`` (uint8,
    (n, 34)) is filled in a fixed order and the number returned.
    """
    fill = out.shape[0] > 0
    n = 0
    for km in range(n_sets + 1):
        for kp in range(n_sets + 1 - km):
            for ks in range(n_sets + 1 - km - kp):
                kh = n_sets - km - kp - ks
                for g in range(4):
                    qm = 2 * km + (1 if g == 0 else 0)
                    qp = 2 * kp + (1 if g == 1 else 0)
                    qs = 2 * ks + (1 if g == 2 else 0)
                    qh = 2 * kh + (1 if g == 3 else 0)
                    nm = suit_ptr[qm + 1] - suit_ptr[qm]
                    np_ = suit_ptr[qp + 1] - suit_ptr[qp]
                    ns = suit_ptr[qs + 1] - suit_ptr[qs]
                    nh = hon_ptr[qh + 1] - hon_ptr[qh]
                    if not fill:
                        n += nm * np_ * ns * nh
                        continue
                    for a in range(nm):
                        va = suit_ptr[qm] + a
                        for b in range(np_):
                            vb = suit_ptr[qp] + b
                            for d in range(ns):
                                vd = suit_ptr[qs] + d
                                for h in range(nh):
                                    vh = hon_ptr[qh] + h
                                    for r in range(9):
                                        out[n, r] = suit_vecs[va, r]
                                        out[n, 9 + r] = suit_vecs[vb, r]
                                        out[n, 18 + r] = suit_vecs[vd, r]
                                    for r in range(7):
                                        out[n, 27 + r] = hon_vecs[vh, r]
                                    n += 1
    return n


# ---------------------------------------------------------------- seven pairs


@njit(cache=True)
def seven_pairs_patterns(n_pairs, out):
    """Every pattern of ``n_pairs`` pairs over the 34 kinds, a kind at most twice.

    Four of a kind is two pairs (as ``shapes.seven_pairs_kind`` reads it).
    The pairs are walked as non-decreasing kind sequences; those with a kind
    three times are skipped.  With ``out`` of zero rows only the number is
    returned; otherwise ``out`` (uint8, (n, 34)) is filled and the number
    returned.
    """
    fill = out.shape[0] > 0
    idx = np.zeros(n_pairs, np.int64)
    n = 0
    done = False
    while not done:
        ok = True
        for j in range(2, n_pairs):
            if idx[j] == idx[j - 2]:
                ok = False
                break
        if ok:
            if fill:
                for j in range(n_pairs):
                    out[n, idx[j]] += 2
            n += 1
        done = not next_multiset(idx, n_pairs, np.int64(33))
    return n


# ---------------------------------------------------------------- forms and weights



@njit(cache=True)
def pattern_forms(c, work):
    """Form bits of one pattern (34 int64 counts) by the recognisers of :mod:`.shapes`.

    ``work``: 34 ints of scratch space (the tiles left after a knitted
    straight).
    """
    m = 0
    if is_regular_complete(c):
        m |= REGULAR
    if seven_pairs_kind(c) > 0:
        m |= SEVEN_PAIRS
    if is_thirteen_orphans(c):
        m |= THIRTEEN_ORPHANS
    if honors_knitted_kind(c) > 0:
        m |= HONORS_KNITTED
    k = find_knitted(c)
    if k >= 0:
        for t in range(34):
            work[t] = c[t]
        for i in range(9):
            work[knitted_tile(k, i)] -= 1
        if is_regular_complete(work):
            m |= KNITTED_STRAIGHT
    return m


@njit(cache=True, parallel=True)
def forms_and_weights(pats, binom, forms, combos, n_chunks):
    """Form bits and physical weight of every pattern, in parallel.

    ``forms[i]``: :func:`pattern_forms` of row ``i`` of ``pats`` (uint8,
    (n, 34)); ``combos[i]``: the number of 14-tile subsets of the 136 tiles
    with these counts, the product of ``binom[c]`` (``binom`` = C(4, 0..4)).
    """
    n = pats.shape[0]
    for ch in prange(n_chunks):
        lo = n * ch // n_chunks
        hi = n * (ch + 1) // n_chunks
        c = np.zeros(34, np.int64)
        work = np.zeros(34, np.int64)
        for i in range(lo, hi):
            w = 1
            for t in range(34):
                c[t] = pats[i, t]
                w *= binom[pats[i, t]]
            combos[i] = w
            forms[i] = pattern_forms(c, work)


# ---------------------------------------------------------------- scoring


@njit(cache=True, parallel=True)
def score_patterns(pats, forms, rules, seat, rnd, all_tiles, counted, best_win, sig, n_chunks):
    """Score every pattern closed and self-drawn with its best winning tile.

    Each distinct kind held is, in index order, the winning tile of the
    evaluator's entry point (``evaluate.score_hand_row``; no melds, no
    flowers, no wild tile, seat wind ``seat``, round wind ``rnd``); the most
    fans toward the bar win, the lowest tile on ties.  The result is exactly
    that of scoring every choice, but most calls are skipped, because in
    this situation (closed, self-drawn, nothing about the last copy, a kong
    or the last tile) the scorer reads the winning tile in only two places:

    * wait fans (边张, 嵌张, 单钓将), counted only on a sole wait, and
      九莲宝灯, which needs the nine-gates shape before the winning tile;
    * the 组合龙 reading (its own wait on the set and pair).

    So the special forms (seven pairs, thirteen orphans, honours and
    knitted) give the same fans whatever the winning tile: one call, with the
    lowest tile.  A regular pattern gives one and the same result for every
    tile whose removal leaves more than one wait (``shapes.count_waits``, the
    scorer's own test) and no nine-gates shape: that result is computed once,
    at the first such tile, and only the sole-wait and nine-gates tiles are
    scored one by one (all told, 44% of the calls that trying every tile of
    a regular pattern would make).  A pattern complete as 组合龙
    + set + pair tries every tile.  ``all_tiles=True`` scores every tile of
    every pattern (the plain definition, for checking the shortcut).

    Writes ``counted[i]`` (fans toward the bar; -1 if the scorer did not
    find the hand complete, -2 if a fan count does not fit its 4 bits),
    ``best_win[i]`` and ``sig[i]``, the counted fans packed 4 bits each, 15
    to a word (see ``SIG_FANS_PER_WORD``).  Rows are cut into ``n_chunks``
    contiguous chunks with their own scratch space, so the results do not
    depend on the number of threads.
    """
    n = pats.shape[0]
    nf = rules.points.shape[0]
    nw = sig.shape[1]
    for ch in prange(n_chunks):
        lo = n * ch // n_chunks
        hi = n * (ch + 1) // n_chunks
        sc = win_scratch(nf)
        row = closed_row(seat, rnd)
        for i in range(lo, hi):
            for t in range(34):
                row[COUNTS + t] = pats[i, t]
            best, bw = best_win_score(row, forms[i], all_tiles, rules, sc)
            overflow = False
            for j in range(nw):
                sig[i, j] = 0
            if best >= 0:
                for f in range(nf):
                    x = sc.best_fan[f]
                    if x > 0:
                        if x > SIG_MAX_COUNT:
                            overflow = True
                            x = SIG_MAX_COUNT
                        sig[i, f // SIG_FANS_PER_WORD] |= x << (4 * (f % SIG_FANS_PER_WORD))
            counted[i] = -2 if overflow else best
            best_win[i] = bw


@njit(cache=True)
def win_scratch(n_fans):
    """A fresh :class:`~mjkit._kernels.bundles.WinScratch` for ``n_fans`` catalogue fans."""
    return WinScratch(np.zeros(n_fans, np.int64), np.zeros(n_fans, np.int64),
                      np.zeros(0, np.int64), np.zeros(DEC_LEN, np.int64),
                      np.zeros(WS_LEN, np.int64), np.zeros(34, np.int64))


@njit(cache=True)
def closed_row(seat, rnd):
    """A hand row for a closed self-drawn hand (no flowers, no wild tile); counts to fill."""
    row = np.zeros(ROW_LEN, np.int32)
    row[FLAGS] = F_SELF_DRAWN
    row[SEAT] = seat
    row[ROUND] = rnd
    row[WILD] = -1
    return row


@njit(cache=True)
def best_win_score(row, form_bits, all_tiles, rules, sc):
    """Most fans toward the bar of a complete hand over its choices of winning tile.

    ``row`` holds the hand (concealed counts, melds and situation; ``WIN`` is
    overwritten).  Each distinct concealed kind is tried in index order and
    the most counted fans win, the lowest tile on ties; ``sc.best_fan`` gets
    the fan counts of that choice (``sc``: :func:`win_scratch`).  With
    ``all_tiles`` False the calls known to repeat an earlier result are
    skipped (see :func:`score_patterns`; valid for a closed self-drawn hand
    only, so the caller passes True otherwise).  Returns ``(counted,
    win_tile)``, ``(-1, -1)`` if no choice is a win.
    """
    # sc.raw is empty: no tie check
    best, bw, _ = best_win_detail(row, form_bits, all_tiles, rules, sc, sc.raw)
    return best, bw


@njit(cache=True)
def best_win_detail(row, form_bits, all_tiles, rules, sc, key_cols):
    """:func:`best_win_score`, and whether the best is tied in another way.

    Returns ``(counted, win_tile, tied)``: ``tied`` is True when another
    winning tile reaches the same counted fans with a different set of the
    fans ``key_cols`` (which of them is kept then depends on the order the
    tiles are tried in; the value index scores such patterns one by one).
    An empty ``key_cols`` skips the check.
    """
    nf = rules.points.shape[0]
    fan = sc.fan
    best_fan = sc.best_fan
    dec = sc.dec
    standing = sc.standing
    every = all_tiles or (form_bits & KNITTED_STRAIGHT) != 0
    regular = (form_bits & REGULAR) != 0
    for t in range(34):
        standing[t] = row[COUNTS + t]
    best = -1
    bw = -1
    tied = False
    shared_done = False
    for w in range(34):
        if row[COUNTS + w] == 0:
            continue
        if regular and not every:
            standing[w] -= 1
            own = (count_waits(standing, True, w, rules.table) == 1
                   or is_nine_gates(standing))
            standing[w] += 1
            if not own:
                # the same fans as the first tile of this kind, whose
                # result has been considered already (ties keep it)
                if shared_done:
                    continue
                shared_done = True
        row[WIN] = w
        total = score_hand_row(row, rules, fan, sc.raw, dec, sc.ws)
        if total >= 0 and dec[DEC_COUNTED] > best:
            best = dec[DEC_COUNTED]
            bw = w
            tied = False
            for f in range(nf):
                best_fan[f] = fan[f]
        elif total >= 0 and dec[DEC_COUNTED] == best and not tied:
            for j in range(key_cols.shape[0]):
                f = key_cols[j]
                if (fan[f] > 0) != (best_fan[f] > 0):
                    tied = True
                    break
        if not (regular or every):
            break
    return best, bw, tied


# ---------------------------------------------------------------- grouping


@njit(cache=True)
def row_hashes(keys, out):
    """A 64-bit hash of every row of ``keys`` (int64, (n, k)) into ``out`` (uint64).

    splitmix64's finaliser over the words: rows that differ get different
    hashes but for a 2**-64 chance, which :func:`group_starts` detects.
    """
    for i in range(keys.shape[0]):
        h = np.uint64(0x9E3779B97F4A7C15)
        for j in range(keys.shape[1]):
            h ^= np.uint64(keys[i, j])
            h ^= h >> np.uint64(30)
            h *= np.uint64(0xBF58476D1CE4E5B9)
            h ^= h >> np.uint64(27)
            h *= np.uint64(0x94D049BB133111EB)
            h ^= h >> np.uint64(31)
        out[i] = h


@njit(cache=True)
def group_starts(keys, hashes, order, starts):
    """Where each group of equal rows begins in ``order`` (rows sorted by hash).

    Fills ``starts`` and returns the number of groups, or -1 if two
    different rows share a hash (the caller then sorts the rows themselves),
    so grouping is exact either way.
    """
    n = order.shape[0]
    k = keys.shape[1]
    m = 0
    first = 0
    for q in range(n):
        i = order[q]
        if q == 0 or hashes[i] != hashes[order[q - 1]]:
            starts[m] = q
            m += 1
            first = i
        else:
            for j in range(k):
                if keys[i, j] != keys[first, j]:
                    return -1
    return m
