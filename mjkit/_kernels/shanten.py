"""Shanten (向听): how many tiles a hand is from ready, in every form.

Definition.  For a hand whose concealed part ``c`` (34 counts) sits next to
``k`` declared melds, ``need`` is the least number of tiles that must be
*added* to ``c`` so that some sub-multiset of ``c`` plus the added tiles is
a complete concealed part (``4 - k`` sets and a pair, or a special form);
the added tiles of each kind may not push that kind past the copies left
(4 minus the copies in the hand's own melds).  Every added tile costs one
draw (and one discard), so

    shanten = need - 1

for a 13-tile hand (0 = ready, 听牌) and for a 14-tile hand, where it is
the value after the best discard and -1 when the hand is already complete.
A tile is *useful* (有效牌) for a 13-tile hand when adding it lowers
``need``.

Why not PyMahjongGB's rule.  The usual block count (sets, partial sets,
pairs) reads a quad ``1111p`` as a pung plus a single that "waits" on a
fifth ``1p``, or a partial ``13m`` as waiting on a ``2m`` whose four copies
are in the hand.  Counting only copies that exist keeps "ready" and "has a
winning tile" the same thing.  The kernels still compute the block-count
value (``copy_limit=0``: every kind unlimited) so the tests can show that
the two agree wherever the copy limit does not bite.

Method (regular form).  Per group (a suit or the honours) a table gives,
for each pattern of counts and each (sets s = 0..4, pair p = 0..1), the
least number of tiles to add so that a sub-multiset of pattern + added
splits into exactly ``s`` sets and ``p`` pairs (``build_dist_table``).  The
four groups are then combined by a min-plus product over (s, p).  A group
whose kinds are limited below 4 copies (melded copies, or the block-count
mode) is solved instead by a small exact dynamic programme over its ranks
(``_dist_dp``), so melded hands stay exact without a table per limit.

Special forms (closed hands only; 组合龙 also with one meld) have closed
formulas for ``need``: 七对 ``7 - pairs`` (a quad is two pairs), 十三幺
``14 - orphan kinds``, one less with a paired orphan, 全不靠 ``14 - distinct
usable kinds`` for the best knitted sequence, 组合龙 ``missing sequence
tiles + regular need of the rest`` for the best sequence.

Nothing here recurses (numba's disk cache cannot hold a recursive call
graph, numba issue 6061) and every table is an argument, never a global.
"""

import numpy as np
from numba import njit, prange

from .shapes import knitted_tile

#: (sets, pair) options per group: index ``2 * s + p``, s = 0..4, p = 0..1.
N_SP = 10
#: Larger than any real distance (a hand needs at most 14 tiles).
INF = 60
#: Shanten reported for a form the hand cannot take (melds rule it out).
NO_FORM = 99
#: Form order in the kernels' per-form outputs.
REGULAR, SEVEN_PAIRS, THIRTEEN_ORPHANS, HONORS_KNITTED, KNITTED_STRAIGHT = 0, 1, 2, 3, 4
N_FORMS = 5
#: Copies a kind may reach in the block-count mode (``copy_limit=0``): more
#: than any target can use (four pungs and the pair of one kind).
NO_LIMIT = 14

#: Version of the tables' meaning and layout; cached copies on disk carry it
#: in their file names, so bump it whenever ``build_dist_table`` changes.
TABLE_VERSION = 1

N_SUIT_KEYS = 5 ** 9
N_HONOR_KEYS = 5 ** 7
_POW5 = (1, 5, 25, 125, 625, 3125, 15625, 78125, 390625)

#: What ``shanten_rows`` computes: the overall value only (forms may be
#: skipped once they cannot win), every form, or every form and its
#: useful tiles.
MODE_OVERALL, MODE_FORMS, MODE_USEFUL = 0, 1, 2

# ---------------------------------------------------------------------------
# Tables
# ---------------------------------------------------------------------------


@njit(cache=True)
def _mark_complete(zero, n_digits, chows):
    """Set bit ``2 * s + p`` of ``zero[key]`` for every complete pattern.

    A complete pattern is up to four sets (pungs, and chows when ``chows``)
    and at most one pair, with at most 4 copies of a kind.  Sets are drawn
    as non-decreasing kind indices so each multiset is visited once (a few
    thousand in all).
    """
    n_sets_kinds = n_digits + (n_digits - 2 if chows else 0)
    none = n_sets_kinds
    cnt = np.zeros(n_digits, np.int64)
    for a in range(none + 1):
        for b in range(a, none + 1):
            for d in range(b, none + 1):
                for e in range(d, none + 1):
                    for pr in range(n_digits + 1):
                        for r in range(n_digits):
                            cnt[r] = 0
                        s = 0
                        for x in (a, b, d, e):
                            if x < n_digits:
                                cnt[x] += 3
                                s += 1
                            elif x < none:
                                r0 = x - n_digits
                                cnt[r0] += 1
                                cnt[r0 + 1] += 1
                                cnt[r0 + 2] += 1
                                s += 1
                        p = 0
                        if pr < n_digits:
                            cnt[pr] += 2
                            p = 1
                        ok = True
                        key = 0
                        for r in range(n_digits - 1, -1, -1):
                            if cnt[r] > 4:
                                ok = False
                            key = key * 5 + cnt[r]
                        if ok:
                            zero[key] |= 1 << (2 * s + p)


@njit(cache=True)
def build_dist_table(n_digits, chows):
    """Distance table of one group: suits (9 ranks, chows) or honours (7, none).

    Parameters
    ----------
    n_digits : int
        Kinds in the group (9 for a suit, 7 for the honours).
    chows : bool
        Whether chows exist (suits only).

    Returns
    -------
    uint8[5 ** n_digits, N_SP]
        ``table[key, 2 * s + p]``: least number of tiles to add to the
        pattern ``key`` (base-5 digits = counts 0..4, lowest rank first, as
        ``shapes.suit_key``) so that some sub-multiset of pattern + added,
        with at most 4 copies of a kind, splits into exactly ``s`` sets and
        ``p`` pairs.

    Notes
    -----
    Two sweeps over the lattice of patterns.  Upward (keys ascending): a
    pattern reaches (s, p) at cost 0 if it or a pattern one tile smaller
    does.  Downward (keys descending): otherwise the cost is one more than
    the cheapest pattern one tile larger, because some added tile of an
    optimal completion can be added first, and adding any tile saves at
    most one.
    """
    n = 5 ** n_digits
    zero = np.zeros(n, np.uint16)
    _mark_complete(zero, n_digits, chows)
    digits = np.zeros(n_digits, np.int64)
    # Upward closure: "contains a complete pattern with (s, p)".
    for key in range(1, n):
        r = 0
        while digits[r] == 4:  # odometer: key - 1 -> key
            digits[r] = 0
            r += 1
        digits[r] += 1
        z = zero[key]
        w = 1
        for r in range(n_digits):
            if digits[r] > 0:
                z |= zero[key - w]
            w *= 5
        zero[key] = z
    table = np.empty((n, N_SP), np.uint8)
    best = np.empty(N_SP, np.int64)
    for r in range(n_digits):
        digits[r] = 4
    for key in range(n - 1, -1, -1):
        if key < n - 1:
            r = 0
            while digits[r] == 0:  # odometer: key + 1 -> key
                digits[r] = 4
                r += 1
            digits[r] -= 1
        for j in range(N_SP):
            best[j] = INF
        w = 1
        for r in range(n_digits):
            if digits[r] < 4:
                for j in range(N_SP):
                    v = table[key + w, j]
                    if v < best[j]:
                        best[j] = v
            w *= 5
        z = zero[key]
        for j in range(N_SP):
            table[key, j] = 0 if (z >> j) & 1 else best[j] + 1
    return table


# ---------------------------------------------------------------------------
# Workspace (int64, one per thread).  Everything a hand needs lives here and
# is addressed by offset: no array views are made per hand, and small
# helpers are inlined, which keeps the per-hand cost to arithmetic.
# ---------------------------------------------------------------------------

W_CNT = 0          # 34: concealed counts of the hand
W_CAP = 34         # 34: copies each kind may reach in the concealed part
W_CAP_STATE = 68   # what W_CAP holds: 0 this hand's limits, 1 all 4, 2 unlimited
W_SEQ = 69         # 54: tile i of knitted sequence k at W_SEQ + 9 * k + i
W_SEQ_CLS = 123    # 18: per sequence k, its 3 (suit, rank class) cells 3 * suit + class
W_KEYS = 141       # 4: group keys of the hand (3 suits, honours)
W_KKEYS = 145      # 4: group keys of what a knitted sequence leaves
W_CLS = 149        # 10: kinds present per (suit, rank class 147/258/369), then honours
W_KMISS = 159      # 6: missing tiles of each knitted sequence
W_D = 165          # 4 x 10: (s, p) distances of the 4 groups
W_DC = 205         # 10: distances of one group with a candidate tile added
W_L2 = 215         # 10: groups 0 and 1 combined
W_L3 = 225         # 10: groups 0..2 combined
W_R1 = 235         # 10: groups 2 and 3 combined
W_O = 245          # 4 x 10: for each group, the other three combined
W_P = 285          # 9: one group's counts (dynamic programme input)
W_PC = 294         # 9: and its per-kind copy limits
W_DP = 303         # 2 x 250: dynamic programme states
W_PK = 803         # 34: the counts left after a knitted sequence
W_KCAP = 837       # 34: their copy limits
W_FORMS = 871      # 5: need per form
W_USE = 876        # 5: useful-tile masks per form
W_PAIRS = 881      # pairs in the hand (a quad counts two)
W_OKINDS = 882     # orphan kinds present
W_OPAIR = 883      # 1 if some orphan is held twice or more
WS_LEN = 884

_DP_STATES = 250   # (sets 0..4, pair 0..1, chows open for 2 ranks 0..4, for 1 rank 0..4)
_ORPHANS = (0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33)


@njit(cache=True)
def init_workspace(ws):
    """Write the constant part of a workspace (the knitted sequences)."""
    for k in range(6):
        for i in range(9):
            ws[W_SEQ + 9 * k + i] = knitted_tile(k, i)
        for c in range(3):
            # tile 3c of sequence k is rank class c of the suit that takes it
            ws[W_SEQ_CLS + 3 * k + c] = 3 * (knitted_tile(k, 3 * c) // 9) + c
    ws[W_CAP_STATE] = 0


@njit(cache=True, inline="always")
def _keys(ws, cnt_at, at):
    """Group keys of the counts at ``ws[cnt_at:]`` into ``ws[at:at + 4]``."""
    for g in range(3):
        key = 0
        for r in range(8, -1, -1):
            key = key * 5 + ws[cnt_at + 9 * g + r]
        ws[at + g] = key
    key = 0
    for r in range(6, -1, -1):
        key = key * 5 + ws[cnt_at + 27 + r]
    ws[at + 3] = key


# ---------------------------------------------------------------------------
# One group's (s, p) distances
# ---------------------------------------------------------------------------


@njit(cache=True, _nrt=False)
def _dist_dp(ws, n, chows, out):
    """Exact (s, p) distances of the group at ``ws[W_P:]`` with limits ``ws[W_PC:]``.

    A dynamic programme over the ranks, lowest first.  State: sets so far
    (chows counted when they start), pair so far, chows started one rank
    ago (they still need this rank and the next), chows started two ranks
    ago (they need this rank).  At each rank choose the pungs, the pair and
    the new chows there; the target count of the rank is then fixed, must
    stay within the rank's limit, and costs the copies it lacks.  Writes
    ``ws[out + 2 * s + p]``.
    """
    cur = W_DP
    nxt = W_DP + _DP_STATES
    for i in range(_DP_STATES):
        ws[cur + i] = INF
    ws[cur] = 0
    for r in range(n):
        for i in range(_DP_STATES):
            ws[nxt + i] = INF
        have = ws[W_P + r]
        cap = ws[W_PC + r]
        can_start = chows and r <= n - 3
        for s in range(5):
            for p in range(2):
                for c1 in range(s + 1):
                    for c2 in range(s + 1 - c1):
                        v = ws[cur + ((2 * s + p) * 5 + c1) * 5 + c2]
                        if v >= INF:
                            continue
                        for u in range(5 - s):
                            if c1 + c2 + 3 * u > cap:
                                break
                            for q in range(2 - p):
                                t0 = c1 + c2 + 3 * u + 2 * q
                                if t0 > cap:
                                    break
                                top = 4 - s - u if can_start else 0
                                for nn in range(top + 1):
                                    t = t0 + nn
                                    if t > cap:
                                        break
                                    cost = v + (t - have if t > have else 0)
                                    at = nxt + ((2 * (s + u + nn) + p + q) * 5 + nn) * 5 + c1
                                    if cost < ws[at]:
                                        ws[at] = cost
        cur, nxt = nxt, cur
    for s in range(5):
        for p in range(2):
            ws[out + 2 * s + p] = ws[cur + (2 * s + p) * 25]


@njit(cache=True, _nrt=False)
def _load(ws, cnt_at, cap_at, g, fast, key, stab, htab, out):
    """(s, p) distances of group ``g`` of the counts at ``ws[cnt_at:]``.

    ``fast``: the table answers (``key`` is the group's key); otherwise the
    dynamic programme runs with the limits at ``ws[cap_at:]``.  Writes
    ``ws[out:out + 10]``.
    """
    if fast:
        if g == 3:
            for j in range(N_SP):
                ws[out + j] = htab[key, j]
        else:
            for j in range(N_SP):
                ws[out + j] = stab[key, j]
        return
    base = 27 if g == 3 else 9 * g
    n = 7 if g == 3 else 9
    for r in range(n):
        ws[W_P + r] = ws[cnt_at + base + r]
        ws[W_PC + r] = ws[cap_at + base + r]
    _dist_dp(ws, n, g < 3, out)


@njit(cache=True, inline="always")
def _combine(ws, a, b, out):
    """Min-plus product of two (s, p) vectors: ``out[s, p] = min a[s1, p1] + b[s - s1, p - p1]``."""
    for s in range(5):
        for p in range(2):
            best = INF
            for s1 in range(s + 1):
                for p1 in range(p + 1):
                    v = ws[a + 2 * s1 + p1] + ws[b + 2 * (s - s1) + p - p1]
                    if v < best:
                        best = v
            ws[out + 2 * s + p] = best


@njit(cache=True, inline="always")
def _finish(ws, a, b, n_sets):
    """``min a[s, p] + b[n_sets - s, 1 - p]``: the cost of ``n_sets`` sets and the pair."""
    best = INF
    for s in range(n_sets + 1):
        for p in range(2):
            v = ws[a + 2 * s + p] + ws[b + 2 * (n_sets - s) + 1 - p]
            if v < best:
                best = v
    return best


@njit(cache=True, inline="always")
def _finish_row(tab, key, ws, b, n_sets):
    """:func:`_finish` with the first vector read straight from a table row."""
    best = INF
    for s in range(n_sets + 1):
        for p in range(2):
            v = np.int64(tab[key, 2 * s + p]) + ws[b + 2 * (n_sets - s) + 1 - p]
            if v < best:
                best = v
    return best


@njit(cache=True, inline="always")
def need_keys(ws, at, n_sets, stab, htab):
    """Regular need from the four group keys at ``ws[at:]``, all by table.

    The hot path of the overall value: suits 0 and 1 are combined, suit 2
    and the honours are combined, and the two halves meet at ``n_sets``
    sets and the pair, all read straight from the table rows.
    """
    k0 = ws[at]
    k1 = ws[at + 1]
    k2 = ws[at + 2]
    k3 = ws[at + 3]
    for s in range(n_sets + 1):
        a0 = INF
        a1 = INF
        b0 = INF
        b1 = INF
        for s1 in range(s + 1):
            i = 2 * s1
            j = 2 * (s - s1)
            v = np.int64(stab[k0, i]) + np.int64(stab[k1, j])
            if v < a0:
                a0 = v
            v = np.int64(stab[k0, i + 1]) + np.int64(stab[k1, j])
            if v < a1:
                a1 = v
            v = np.int64(stab[k0, i]) + np.int64(stab[k1, j + 1])
            if v < a1:
                a1 = v
            v = np.int64(stab[k2, i]) + np.int64(htab[k3, j])
            if v < b0:
                b0 = v
            v = np.int64(stab[k2, i + 1]) + np.int64(htab[k3, j])
            if v < b1:
                b1 = v
            v = np.int64(stab[k2, i]) + np.int64(htab[k3, j + 1])
            if v < b1:
                b1 = v
        ws[W_L2 + 2 * s] = a0
        ws[W_L2 + 2 * s + 1] = a1
        ws[W_R1 + 2 * s] = b0
        ws[W_R1 + 2 * s + 1] = b1
    best = INF
    for s in range(n_sets + 1):
        j = 2 * (n_sets - s)
        v = ws[W_L2 + 2 * s] + ws[W_R1 + j + 1]
        if v < best:
            best = v
        v = ws[W_L2 + 2 * s + 1] + ws[W_R1 + j]
        if v < best:
            best = v
    return best


@njit(cache=True, _nrt=False)
def _regular(ws, cnt_at, cap_at, keys_at, fast_mask, n_sets, want_useful, stab, htab):
    """Need of ``n_sets`` sets and a pair from the counts at ``ws[cnt_at:]``.

    Returns ``(need, mask)``: with ``want_useful`` the mask has bit t set
    when adding tile t lowers the need (else it is 0).  ``fast_mask`` bit g:
    group g is read from the tables (its key at ``ws[keys_at + g]``); the
    other groups run the dynamic programme with the limits at
    ``ws[cap_at:]``, which also bound the candidate tiles.
    """
    if fast_mask == 15 and not want_useful:
        return need_keys(ws, keys_at, n_sets, stab, htab), np.int64(0)
    for g in range(4):
        _load(ws, cnt_at, cap_at, g, (fast_mask >> g) & 1, ws[keys_at + g], stab, htab,
              W_D + 10 * g)
    _combine(ws, W_D, W_D + 10, W_L2)
    _combine(ws, W_L2, W_D + 20, W_L3)
    need = _finish(ws, W_L3, W_D + 30, n_sets)
    if not want_useful:
        return need, np.int64(0)
    # For each group, the other three combined; a candidate tile then
    # changes one group and costs one table row (or one programme) and a
    # finish.  Every kind is tried: with the copy limit even a tile far
    # from the rest can help (a quad leaves no pair, and any new tile can
    # start one).
    _combine(ws, W_D + 20, W_D + 30, W_R1)
    _combine(ws, W_D + 10, W_R1, W_O)            # others of group 0
    _combine(ws, W_D, W_R1, W_O + 10)            # others of group 1
    _combine(ws, W_L2, W_D + 30, W_O + 20)       # others of group 2
    for j in range(N_SP):
        ws[W_O + 30 + j] = ws[W_L3 + j]          # others of group 3
    mask = np.int64(0)
    for t in range(34):
        if ws[cnt_at + t] + 1 > ws[cap_at + t]:
            continue
        g = 3 if t >= 27 else t // 9
        r = t - (27 if g == 3 else 9 * g)
        if (fast_mask >> g) & 1:
            key = ws[keys_at + g] + _POW5[r]
            if g == 3:
                v = _finish_row(htab, key, ws, W_O + 30, n_sets)
            else:
                v = _finish_row(stab, key, ws, W_O + 10 * g, n_sets)
        else:
            ws[cnt_at + t] += 1
            _load(ws, cnt_at, cap_at, g, np.int64(0), np.int64(0), stab, htab, np.int64(W_DC))
            ws[cnt_at + t] -= 1
            v = _finish(ws, W_DC, W_O + 10 * g, n_sets)
        if v < need:
            mask |= np.int64(1) << t
    return need, mask


# ---------------------------------------------------------------------------
# Special forms (need and useful mask)
# ---------------------------------------------------------------------------


@njit(cache=True, inline="always")
def _seven_pairs(ws, want_useful):
    pairs = ws[W_PAIRS]
    # Enough odd kinds are always left to pair (13 or 14 tiles), and a quad
    # counts as two pairs, as in the 七对 of the Chinese Official rules.
    odd = np.int64(0)
    if want_useful:
        for t in range(34):
            if ws[W_CNT + t] & 1:
                odd |= np.int64(1) << t
    return 7 - min(pairs, 7), odd


@njit(cache=True, inline="always")
def _thirteen_orphans(ws, want_useful):
    pair = ws[W_OPAIR]
    mask = np.int64(0)
    if want_useful:
        # Without a pair every orphan helps (a held one makes the pair).
        for t in _ORPHANS:
            if not pair or ws[W_CNT + t] == 0:
                mask |= np.int64(1) << t
    return 14 - ws[W_OKINDS] - pair, mask


@njit(cache=True, inline="always")
def _scan(counts, i, ws):
    """Read hand ``i`` of ``counts`` into the workspace in one pass.

    Copies the counts to ``ws[W_CNT:]`` and computes what the forms share:
    the group keys, the kinds present per (suit, rank class 147/258/369)
    and among the honours, the pairs, the orphan kinds and whether an
    orphan is paired.  Returns the number of tiles, or -1 if a count is
    outside 0..4.  Written without data-dependent branches: on random
    hands they would be mispredicted about a third of the time.
    """
    total = 0
    pairs = 0
    bad = 0
    for g in range(4):
        base = 27 if g == 3 else 9 * g
        n = 7 if g == 3 else 9
        key = 0
        for r in range(n - 1, -1, -1):
            x = counts[i, base + r]
            bad |= np.int64(x < 0) | np.int64(x > 4)
            ws[W_CNT + base + r] = x
            key = key * 5 + x
            total += x
            pairs += x >> 1
        ws[W_KEYS + g] = key
    for g in range(3):
        for c in range(3):
            b = W_CNT + 9 * g + c
            ws[W_CLS + 3 * g + c] = (np.int64(ws[b] > 0) + np.int64(ws[b + 3] > 0)
                                     + np.int64(ws[b + 6] > 0))
    honors = 0
    for t in range(27, 34):
        honors += np.int64(ws[W_CNT + t] > 0)
    ws[W_CLS + 9] = honors
    okinds = 0
    opair = 0
    for t in _ORPHANS:
        x = ws[W_CNT + t]
        okinds += np.int64(x > 0)
        opair |= np.int64(x > 1)
    ws[W_PAIRS] = pairs
    ws[W_OKINDS] = okinds
    ws[W_OPAIR] = opair
    return -1 if bad else total


@njit(cache=True, inline="always")
def _seq_present(ws, k):
    """Tiles of knitted sequence ``k`` present (needs :func:`_scan`)."""
    at = W_SEQ_CLS + 3 * k
    return ws[W_CLS + ws[at]] + ws[W_CLS + ws[at + 1]] + ws[W_CLS + ws[at + 2]]


@njit(cache=True, inline="always")
def _honors_knitted(ws, want_useful):
    """全不靠 / 七星不靠: 14 distinct tiles from one knitted sequence and the honours."""
    best = 0
    for k in range(6):
        best = max(best, _seq_present(ws, k))
    have = best + ws[W_CLS + 9]
    mask = np.int64(0)
    if want_useful:
        for t in range(27, 34):
            if ws[W_CNT + t] == 0:
                mask |= np.int64(1) << t
        for k in range(6):
            if _seq_present(ws, k) == best:
                for i in range(9):
                    t = ws[W_SEQ + 9 * k + i]
                    if ws[W_CNT + t] == 0:
                        mask |= np.int64(1) << t
    return 14 - min(have, 14), mask


@njit(cache=True, inline="always")
def _fewest_missing(ws):
    """The knitted sequence left to try with the fewest missing tiles (the
    first on ties) and that number, from ``ws[W_KMISS:]``."""
    k = 0
    for kk in range(1, 6):
        if ws[W_KMISS + kk] < ws[W_KMISS + k]:
            k = kk
    return k, ws[W_KMISS + k]


@njit(cache=True, inline="always")
def _knitted_rest_keys(ws, k):
    """Group keys at ``ws[W_KKEYS:]`` of the hand less one copy of each present
    tile of knitted sequence ``k``."""
    for g in range(4):
        ws[W_KKEYS + g] = ws[W_KEYS + g]
    for i in range(9):
        t = ws[W_SEQ + 9 * k + i]
        if ws[W_CNT + t] > 0:
            ws[W_KKEYS + t // 9] -= _POW5[t % 9]


@njit(cache=True, _nrt=False)
def _knitted_straight(ws, n_melds, fast_mask, bound, want_useful, stab, htab):
    """组合龙: a knitted sequence (9 tiles) plus ``1 - n_melds`` sets and a pair.

    For sequence k: the missing sequence tiles plus the regular need of what
    is left once one copy of each present sequence tile is set aside, with
    the copy limits of those kinds lowered by one.  Sequences are tried from
    the fewest missing tiles, and stop once the missing tiles alone reach
    ``bound`` or the best so far (they can only add to it).  Needs
    :func:`_scan`.
    """
    for k in range(6):
        ws[W_KMISS + k] = 9 - _seq_present(ws, k)
    best = INF
    mask = np.int64(0)
    n_sets = 1 - n_melds
    for _ in range(6):
        k, missing = _fewest_missing(ws)
        if missing >= bound or missing > best or (missing == best and not want_useful):
            break
        ws[W_KMISS + k] = INF
        miss_mask = np.int64(0)
        feasible = True
        for i in range(9):
            t = ws[W_SEQ + 9 * k + i]
            if ws[W_CNT + t] == 0:
                miss_mask |= np.int64(1) << t
                if ws[W_CAP + t] < 1:
                    feasible = False  # every copy is melded
        if not feasible:
            continue
        # With no melded copies in a group the table stays exact although a
        # sequence kind may reach only 3 more copies: the rest is at most a
        # set and a pair, which never needs 4 copies of a kind.
        if fast_mask == 15 and not want_useful:
            _knitted_rest_keys(ws, k)
            rest = need_keys(ws, W_KKEYS, n_sets, stab, htab)
            rmask = np.int64(0)
        else:
            for t in range(34):
                ws[W_PK + t] = ws[W_CNT + t]
                ws[W_KCAP + t] = ws[W_CAP + t]
            for i in range(9):
                t = ws[W_SEQ + 9 * k + i]
                if ws[W_CNT + t] > 0:
                    ws[W_PK + t] -= 1
                ws[W_KCAP + t] -= 1
            _keys(ws, W_PK, W_KKEYS)
            rest, rmask = _regular(ws, np.int64(W_PK), np.int64(W_KCAP), np.int64(W_KKEYS),
                                   fast_mask, n_sets, want_useful, stab, htab)
            # A present sequence kind added goes to the rest, where its count
            # and limit are both one lower: the rest's candidate test is the
            # hand's.  A missing one fills the sequence.
            rmask |= miss_mask
        need = missing + rest
        if need < best:
            best = need
            mask = rmask
        elif need == best:
            mask |= rmask
    return best, mask


# ---------------------------------------------------------------------------
# One hand
# ---------------------------------------------------------------------------


@njit(cache=True, _nrt=False)
def _analyse_ws(ws, n_melds, limit, mode, stab, htab):
    """:func:`analyse` on a hand read by :func:`_scan`, limits at ``ws[W_CAP:]``.

    The limits must be set by the caller (:func:`_set_limits`).
    """
    want_useful = mode == MODE_USEFUL
    meld_mask = 0
    if limit and n_melds > 0:
        for t in range(34):
            if ws[W_CAP + t] < 4:
                meld_mask |= 1 << (3 if t >= 27 else t // 9)
    fast_mask = (15 & ~meld_mask) if limit else 0
    for f in range(N_FORMS):
        ws[W_FORMS + f] = INF
        ws[W_USE + f] = 0
    # typed offsets: a literal argument would compile _regular once more
    need, mask = _regular(ws, np.int64(W_CNT), np.int64(W_CAP), np.int64(W_KEYS), fast_mask,
                          4 - n_melds, want_useful, stab, htab)
    ws[W_FORMS + REGULAR] = need
    ws[W_USE + REGULAR] = mask
    best = need
    if n_melds == 0:
        need, mask = _seven_pairs(ws, want_useful)
        ws[W_FORMS + SEVEN_PAIRS] = need
        ws[W_USE + SEVEN_PAIRS] = mask
        best = min(best, need)
        need, mask = _thirteen_orphans(ws, want_useful)
        ws[W_FORMS + THIRTEEN_ORPHANS] = need
        ws[W_USE + THIRTEEN_ORPHANS] = mask
        best = min(best, need)
        need, mask = _honors_knitted(ws, want_useful)
        ws[W_FORMS + HONORS_KNITTED] = need
        ws[W_USE + HONORS_KNITTED] = mask
        best = min(best, need)
    if n_melds <= 1:
        bound = best if mode == MODE_OVERALL else INF
        need, mask = _knitted_straight(ws, n_melds, fast_mask, bound, want_useful, stab, htab)
        ws[W_FORMS + KNITTED_STRAIGHT] = need
        ws[W_USE + KNITTED_STRAIGHT] = mask
        best = min(best, need)
    return best


@njit(cache=True, inline="always")
def _knitted_fast(ws, n_sets, bound, stab, htab):
    """:func:`_knitted_straight` without melded copies or useful tiles.

    The same search, all by table: the rest's keys are the hand's minus one
    copy of each present sequence tile.
    """
    for k in range(6):
        ws[W_KMISS + k] = 9 - _seq_present(ws, k)
    best = INF
    for _ in range(6):
        k, missing = _fewest_missing(ws)
        if missing >= bound or missing >= best:
            break
        ws[W_KMISS + k] = INF
        _knitted_rest_keys(ws, k)
        best = min(best, missing + need_keys(ws, W_KKEYS, n_sets, stab, htab))
    return best


@njit(cache=True, inline="always")
def _analyse_fast(ws, n_melds, mode, stab, htab):
    """:func:`_analyse_ws` for the usual batch: no melded copies, the copy
    limit on, no useful tiles.  Inlined into the row loop, so the hot path
    makes no function calls (each call passing arrays costs reference
    counting)."""
    best = need_keys(ws, W_KEYS, 4 - n_melds, stab, htab)
    ws[W_FORMS + REGULAR] = best
    ws[W_FORMS + SEVEN_PAIRS] = INF
    ws[W_FORMS + THIRTEEN_ORPHANS] = INF
    ws[W_FORMS + HONORS_KNITTED] = INF
    ws[W_FORMS + KNITTED_STRAIGHT] = INF
    if n_melds == 0:
        need = 7 - min(ws[W_PAIRS], 7)
        ws[W_FORMS + SEVEN_PAIRS] = need
        best = min(best, need)
        need = 14 - ws[W_OKINDS] - ws[W_OPAIR]
        ws[W_FORMS + THIRTEEN_ORPHANS] = need
        best = min(best, need)
        have = 0
        for k in range(6):
            have = max(have, _seq_present(ws, k))
        need = 14 - min(have + ws[W_CLS + 9], 14)
        ws[W_FORMS + HONORS_KNITTED] = need
        best = min(best, need)
    if n_melds <= 1:
        need = _knitted_fast(ws, 1 - n_melds, best if mode == MODE_OVERALL else INF,
                             stab, htab)
        ws[W_FORMS + KNITTED_STRAIGHT] = need
        best = min(best, need)
    return best


@njit(cache=True, inline="always")
def _set_limits(ws, n_melds, melded, i, limit):
    """Copy limits of hand ``i`` (row ``i`` of ``melded``) into ``ws[W_CAP:]``."""
    if limit and n_melds > 0:
        for t in range(34):
            ws[W_CAP + t] = 4 - melded[i, t]
        ws[W_CAP_STATE] = 0
    else:
        state = 1 if limit else 2
        if ws[W_CAP_STATE] != state:  # most batches repeat the same limits
            for t in range(34):
                ws[W_CAP + t] = 4 if limit else NO_LIMIT
            ws[W_CAP_STATE] = state


@njit(cache=True, _nrt=False)
def analyse(cnt, n_melds, melded, limit, mode, stab, htab, ws):
    """Need of every form for one hand; returns the overall need.

    Parameters
    ----------
    cnt : int64[34]
        Concealed counts: ``13 - 3 * n_melds`` or ``14 - 3 * n_melds`` tiles.
    n_melds : int
        Declared melds (concealed kongs included), 0..4.
    melded : int64[34]
        Copies of each kind inside those melds (a kong counts 4).
    limit : int
        1: a kind may not exceed the copies left by the melds (the exact
        value); 0: no limit at all, the block-count reading of PyMahjongGB.
    mode : int
        ``MODE_OVERALL``, ``MODE_FORMS`` or ``MODE_USEFUL``.
    stab, htab : uint8[:, 10]
        Suit and honour tables of :func:`build_dist_table`.
    ws : int64[WS_LEN]
        Workspace prepared by :func:`init_workspace`.

    Returns
    -------
    int
        Least need over the forms.  ``ws[W_FORMS + f]`` holds each form's
        need (``INF``: impossible, or skipped in ``MODE_OVERALL``), and with
        ``MODE_USEFUL`` ``ws[W_USE + f]`` its useful tiles as a bit mask.
    """
    _scan(cnt.reshape((1, 34)), 0, ws)
    _set_limits(ws, n_melds, melded.reshape((1, 34)), 0, limit)
    return _analyse_ws(ws, n_melds, limit, mode, stab, htab)


@njit(cache=True, inline="always")
def wild_need(c, n_melds, wild, melded, tabs, ws):
    """Tiles still needed by ``c`` (0: a complete 14-type hand; 1: a ready 13-type hand).

    Wild tiles (kind ``wild``, -1 none) stand for any tile: the need of the other tiles
    less their number, a lower bound of the real need (whether they complete a hand is
    the evaluator's word).  ``melded``: copies inside the melds, the limits of
    :func:`analyse`; all zeros takes no copies off the limit of four, which keeps the
    table-driven fast path (about seven times quicker with melds; completeness does not
    depend on it).  ``tabs``: a ``bundles.ShantenTables``.
    """
    limit = np.int64(1)
    mode = np.int64(MODE_OVERALL)
    if wild < 0 or c[wild] == 0:
        return analyse(c, n_melds, melded, limit, mode, tabs.stab, tabs.htab, ws)
    j = c[wild]
    c[wild] = 0
    need = analyse(c, n_melds, melded, limit, mode, tabs.stab, tabs.htab, ws) - j
    c[wild] = j
    return need if need > 0 else 0


#: ``out_shanten`` of a row that is not a hand (see :func:`shanten_rows`).
INVALID = -9


@njit(cache=True, inline="always")
def _melded_tiles(counts, melded, i):
    """Tiles in hand ``i``'s melds, or -1 if a count is below 0 or a kind
    passes 4 copies with the melds."""
    total = 0
    for t in range(34):
        m = melded[i, t]
        if m < 0 or counts[i, t] + m > 4:
            return -1
        total += m
    return total


@njit(cache=True)
def _rows(lo, hi, counts, n_melds, melded, limit, mode, tabs, ws,
          out_shanten, out_forms, out_useful):
    # ``melded`` with one row (of zeros) stands for every hand
    stab, htab = tabs.stab, tabs.htab
    has_melded = melded.shape[0] == counts.shape[0]
    for i in range(lo, hi):
        # every row is checked as it is read: counts 0..4, 13 - 3k or
        # 14 - 3k tiles, 0..4 melds, at most 4 copies with the melds
        k = n_melds[i]
        total = _scan(counts, i, ws)
        in_melds = _melded_tiles(counts, melded, i) if has_melded else 0
        if (k < 0 or k > 4 or (total != 13 - 3 * k and total != 14 - 3 * k)
                or in_melds < 0):
            out_shanten[i] = INVALID
            continue
        if limit and mode != MODE_USEFUL and in_melds == 0:
            best = _analyse_fast(ws, k, mode, stab, htab)
        else:
            _set_limits(ws, k, melded, i if has_melded else 0, limit)
            best = _analyse_ws(ws, k, limit, mode, stab, htab)
        out_shanten[i] = best - 1
        if mode != MODE_OVERALL:
            for f in range(N_FORMS):
                need = ws[W_FORMS + f]
                out_forms[i, f] = NO_FORM if need >= INF else need - 1
                if mode == MODE_USEFUL:
                    out_useful[i, f] = ws[W_USE + f]


#: Hands per parallel work item: large enough to hide the scheduling cost.
CHUNK = 2048


@njit(cache=True, parallel=True)
def shanten_rows(counts, n_melds, melded, limit, mode, tabs,
                 out_shanten, out_forms, out_useful):
    """Shanten of many hands in parallel (results do not depend on threads).

    Parameters
    ----------
    counts : int64[n, 34]
        Concealed counts of each hand (13 - 3k or 14 - 3k tiles).
    n_melds : int64[n]
        Declared melds per hand.
    melded : int64[n, 34] or int64[1, 34]
        Copies of each kind in those melds; one row (of zeros) stands for
        every hand.
    limit, mode
        As :func:`analyse`.
    tabs : bundles.ShantenTables
        The per-group distance tables (``stab``, ``htab`` of :func:`analyse`).
    out_shanten : int64[n]
        Overall shanten (-1 complete, 0 ready, ...), or ``INVALID`` for a
        row that is no hand (a count outside 0..4, more than 4 copies with
        the melds, or a tile count other than 13 - 3k / 14 - 3k).
    out_forms : int64[n, 5]
        Per form (``NO_FORM`` when impossible); untouched in ``MODE_OVERALL``.
    out_useful : int64[n, 5]
        Useful-tile bit masks per form; written only in ``MODE_USEFUL``
        (meaningful for 13 - 3k tiles).
    """
    n = counts.shape[0]
    n_chunks = (n + CHUNK - 1) // CHUNK
    for ch in prange(n_chunks):
        ws = np.zeros(WS_LEN, np.int64)
        init_workspace(ws)
        lo = ch * CHUNK
        hi = min(n, lo + CHUNK)
        _rows(lo, hi, counts, n_melds, melded, limit, mode, tabs, ws,
              out_shanten, out_forms, out_useful)


@njit(cache=True)
def shanten_rows_serial(counts, n_melds, melded, limit, mode, tabs,
                        out_shanten, out_forms, out_useful):
    """:func:`shanten_rows` on the calling thread (no parallel start-up cost)."""
    ws = np.zeros(WS_LEN, np.int64)
    init_workspace(ws)
    _rows(0, counts.shape[0], counts, n_melds, melded, limit, mode, tabs, ws,
          out_shanten, out_forms, out_useful)


@njit(cache=True)
def group_dist_dp(counts, caps, chows, out):
    """The dynamic programme on its own (tests compare it with the tables).

    ``counts`` and ``caps``: one group's 9 (or 7) counts and limits;
    ``out``: int64[10].
    """
    ws = np.zeros(WS_LEN, np.int64)
    n = counts.shape[0]
    for r in range(n):
        ws[W_P + r] = counts[r]
        ws[W_PC + r] = caps[r]
    _dist_dp(ws, n, chows, np.int64(W_D))
    for j in range(N_SP):
        out[j] = ws[W_D + j]
