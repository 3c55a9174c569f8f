"""Complete hands as products of group parts, and the nearest one worth enough.

Every complete closed 14-tile pattern of the regular and seven-pairs forms
is one *part* per group (m, p, s, honours) taken from fixed lists: a
regular hand is ``k`` sets (and the pair) per group with the ``k`` summing
to 4, a seven-pairs hand is ``j`` pairs per group (a quad is two) with the
``j`` summing to 7.  A *class* fixes the list of each group; its patterns
are the product of the four lists, numbered ``off + ((a*n1 + b)*n2 + c)*n3
+ d``.  The few patterns of the other forms (十三幺, 全不靠, 组合龙) follow
as explicit rows.  :mod:`mjkit.value_index` stores per pattern number the
id of its (value, fans) row, so a query never materialises the 28 million
patterns.

The query kernels find the patterns sharing the most tiles with a hand
(``overlap = sum(min(hand, pattern))``) among those a per-id table accepts,
branch and bound: per group the parts are sorted by overlap, classes are
visited by their best possible overlap, and a loop stops as soon as even
the best remaining parts cannot beat what is already found.  Everything is
iterative and every table is an argument (numba's cache freezes globals).
"""

import numpy as np
from numba import njit, prange

from .complete import KNITTED_STRAIGHT, REGULAR, best_win_score, pattern_forms
from .evaluate import WS_LEN
from .layout import COUNTS, DEC_LEN

MAX_OVERLAP = 14
ACCEPT_NO = 0
ACCEPT_YES = 1
ACCEPT_VERIFY = 2       # score the pattern in the query's situation first
# With ``wind_mode`` (another seat or round wind, self-drawn): a pattern
# without a wind pung scores as in the index, so YES / VERIFY decide it
# alone (accept / reject) and only patterns with a wind pung are scored.


# ---------------------------------------------------------------- patterns


@njit(cache=True)
def class_of(i, class_off):
    """The class holding product pattern ``i`` (``class_off`` ascending, len C + 1)."""
    lo = 0
    hi = class_off.shape[0] - 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if class_off[mid] <= i:
            lo = mid
        else:
            hi = mid
    return lo


@njit(cache=True)
def pattern_at(i, classes, class_off, suit_vecs, suit_ptr, hon_vecs, hon_ptr, small, out):
    """Write pattern number ``i`` (product families, then ``small`` rows) into ``out``."""
    n_prod = class_off[class_off.shape[0] - 1]
    if i >= n_prod:
        for t in range(34):
            out[t] = small[i - n_prod, t]
        return
    k = class_of(i, class_off)
    r = i - class_off[k]
    pos = np.empty(4, np.int64)
    for g in range(3, -1, -1):
        lst = classes[k, g]
        if g == 3:
            n = hon_ptr[lst + 1] - hon_ptr[lst]
        else:
            n = suit_ptr[lst + 1] - suit_ptr[lst]
        pos[g] = r % n
        r //= n
    for g in range(3):
        v = suit_ptr[classes[k, g]] + pos[g]
        for t in range(9):
            out[9 * g + t] = suit_vecs[v, t]
    v = hon_ptr[classes[k, 3]] + pos[3]
    for t in range(7):
        out[27 + t] = hon_vecs[v, t]


@njit(cache=True, parallel=True)
def fill_patterns(lo, hi, classes, class_off, suit_vecs, suit_ptr, hon_vecs, hon_ptr, small,
                  out, n_chunks):
    """Patterns ``lo .. hi - 1`` into ``out`` (uint8, (hi - lo, 34))."""
    n = hi - lo
    for ch in prange(n_chunks):
        a = n * ch // n_chunks
        b = n * (ch + 1) // n_chunks
        c = np.zeros(34, np.int64)
        for j in range(a, b):
            pattern_at(lo + j, classes, class_off, suit_vecs, suit_ptr, hon_vecs, hon_ptr,
                       small, c)
            for t in range(34):
                out[j, t] = c[t]


# ---------------------------------------------------------------- overlaps


@njit(cache=True)
def _overlaps(h, suit_vecs, hon_vecs, ov_s, ov_h):
    """Overlap of the hand with every part: ``ov_s[g, v]`` (suit g), ``ov_h[v]``."""
    for g in range(3):
        for v in range(suit_vecs.shape[0]):
            o = 0
            for t in range(9):
                x = h[9 * g + t]
                y = suit_vecs[v, t]
                o += x if x < y else y
            ov_s[g, v] = o
    for v in range(hon_vecs.shape[0]):
        o = 0
        for t in range(7):
            x = h[27 + t]
            y = hon_vecs[v, t]
            o += x if x < y else y
        ov_h[v] = o


@njit(cache=True)
def _row_overlap(h, rows, x):
    o = 0
    for t in range(34):
        y = rows[x, t]
        o += h[t] if h[t] < y else y
    return o


@njit(cache=True)
def _sort_segments(ov, ptr, perm, mx, count):
    """Per list ``L`` (``ov[ptr[L]:ptr[L+1]]``): positions by overlap, highest first.

    Counting sort (overlaps are 0..14); ``mx[L]`` is the list's best overlap
    (-1 for an empty list).  ``count``: MAX_OVERLAP + 2 ints of scratch.
    """
    for L in range(ptr.shape[0] - 1):
        a = ptr[L]
        b = ptr[L + 1]
        for o in range(MAX_OVERLAP + 2):
            count[o] = 0
        best = -1
        for v in range(a, b):
            o = ov[v]
            count[MAX_OVERLAP - o + 1] += 1
            if o > best:
                best = o
        mx[L] = best
        for o in range(1, MAX_OVERLAP + 2):
            count[o] += count[o - 1]
        for v in range(a, b):
            j = MAX_OVERLAP - ov[v]
            perm[a + count[j]] = v - a
            count[j] += 1


@njit(cache=True)
def _need_ok(h, pat, unseen):
    for t in range(34):
        need = pat[t] - h[t]
        if need > 0 and need > unseen[t]:
            return False
    return True


@njit(cache=True)
def _ways(h, pat, unseen, binom):
    """Ways to draw the missing tiles from the unseen copies: prod C(unseen, need)."""
    w = 1.0
    for t in range(34):
        need = pat[t] - h[t]
        if need > 0:
            w *= binom[unseen[t], need]
    return w


# ---------------------------------------------------------------- nearest pattern


@njit(cache=True)
def rank_regular(p, pos_s, pos_h, cls_of, full_off, suit_ptr, hon_ptr):
    """Number of a complete regular 14-tile pattern ``p`` in the full families, or -1.

    ``pos_s`` / ``pos_h``: position of a part in its list, by the part's
    base-5 key (-1: no such part); ``cls_of[L0, L1, L2, L3]``: the class of
    those regular lists (-1 none).
    """
    lst = np.empty(4, np.int64)
    pos = np.empty(4, np.int64)
    for g in range(4):
        n_kinds = 7 if g == 3 else 9
        key = 0
        total = 0
        mul = 1
        for t in range(n_kinds):
            x = p[9 * g + t]
            key += x * mul
            mul *= 5
            total += x
        pair = 1 if total % 3 == 2 else 0
        if total % 3 == 1:
            return -1
        lst[g] = 2 * ((total - 2 * pair) // 3) + pair
        pos[g] = pos_h[key] if g == 3 else pos_s[key]
        if pos[g] < 0:
            return -1
    k = cls_of[lst[0], lst[1], lst[2], lst[3]]
    if k < 0:
        return -1
    n1 = suit_ptr[lst[1] + 1] - suit_ptr[lst[1]]
    n2 = suit_ptr[lst[2] + 1] - suit_ptr[lst[2]]
    n3 = hon_ptr[lst[3] + 1] - hon_ptr[lst[3]]
    return full_off[k] + ((pos[0] * n1 + pos[1]) * n2 + pos[2]) * n3 + pos[3]


@njit(cache=True)
def _meld_code(pat, meld_counts, full, accept, ids, pos_s, pos_h, cls_of, full_off, suit_ptr,
               hon_ptr):
    """Hands with melds: reject a concealed part whose closed counterpart (the part plus the
    meld tiles, scored as a closed hand in the index) is already below the bar."""
    for t in range(34):
        full[t] = pat[t] + meld_counts[t]
    num = rank_regular(full, pos_s, pos_h, cls_of, full_off, suit_ptr, hon_ptr)
    if num < 0:
        return ACCEPT_VERIFY
    return ACCEPT_NO if accept[ids[num]] == ACCEPT_NO else ACCEPT_VERIFY


@njit(cache=True)
def nearest(h, unseen, check_unseen, classes, class_off, suit_vecs, suit_ptr, hon_vecs, hon_ptr,
            small, ids, accept, wind_mode, meld_counts, pos_s, pos_h, cls_of, full_off, row,
            all_tiles, min_counted, points, excl_ptr, excl_idx, order, rank, tie_order, covers,
            table, wtable, examples):
    """Most tiles a hand shares with an accepted complete pattern, and examples.

    Parameters
    ----------
    h : int64 (34,)
        The hand's concealed counts.
    unseen : int64 (34,)
        Copies of each kind that can still be drawn; with ``check_unseen`` a
        pattern needing more copies of a kind than that is skipped.
    classes, class_off, suit_vecs, suit_ptr, hon_vecs, hon_ptr, small
        The pattern families (module docstring).  ``classes`` may be a
        different set of classes than the index was built with (hands with
        melds), as long as ``ids`` is then empty.
    ids : uint array
        Per pattern number its row id; empty: every pattern is verified.
    accept : int8 array
        Per id: ``ACCEPT_NO``, ``ACCEPT_YES`` or ``ACCEPT_VERIFY`` (score the
        pattern in the situation of ``row`` and accept it if its counted fans
        reach ``min_counted``).
    wind_mode : bool
        See ``ACCEPT_VERIFY``: decide patterns without a wind pung by the
        code alone (YES accept, VERIFY reject).
    meld_counts, pos_s, pos_h, cls_of, full_off
        Meld mode (``pos_s`` not empty; ``classes`` are then those of the
        concealed parts and ``ids`` / ``accept`` those of the full index): a
        part is scored only if its closed counterpart passes ``accept``
        (:func:`_meld_code`); see :func:`rank_regular`.
    row : int32 (ROW_LEN,)
        The situation (melds, flags, winds, 连拉) for verification.
    examples : int64 (k, 34)
        Filled with up to ``k`` accepted patterns at the best overlap.

    Returns
    -------
    (best, n_examples, verified)
        The best overlap (-1 if nothing is accepted), the number of examples
        written and the number of patterns scored.
    """
    n_lists_s = suit_ptr.shape[0] - 1
    n_lists_h = hon_ptr.shape[0] - 1
    ov_s = np.empty((3, suit_vecs.shape[0]), np.int64)
    ov_h = np.empty(hon_vecs.shape[0], np.int64)
    _overlaps(h, suit_vecs, hon_vecs, ov_s, ov_h)
    perm_s = np.empty((3, suit_vecs.shape[0]), np.int64)
    perm_h = np.empty(hon_vecs.shape[0], np.int64)
    mx_s = np.empty((3, n_lists_s), np.int64)
    mx_h = np.empty(n_lists_h, np.int64)
    count = np.empty(MAX_OVERLAP + 2, np.int64)
    for g in range(3):
        _sort_segments(ov_s[g], suit_ptr, perm_s[g], mx_s[g], count)
    _sort_segments(ov_h, hon_ptr, perm_h, mx_h, count)

    n_cls = classes.shape[0]
    bound = np.empty(n_cls, np.int64)
    for k in range(n_cls):
        b = mx_h[classes[k, 3]]
        for g in range(3):
            m = mx_s[g, classes[k, g]]
            b = -1000 if (m < 0 or b < 0) else b + m
        bound[k] = b
    cls_order = np.argsort(-bound)

    max_ex = examples.shape[0]
    meld_mode = pos_s.shape[0] > 0
    verify_all = ids.shape[0] == 0
    pat = np.zeros(34, np.int64)
    full = np.zeros(34, np.int64)
    work = np.zeros(34, np.int64)
    fan = np.zeros(points.shape[0], np.int64)
    best_fan = np.zeros(points.shape[0], np.int64)
    raw = np.zeros(0, np.int64)
    ws = np.zeros(WS_LEN, np.int64)
    dec = np.zeros(DEC_LEN, np.int64)
    standing = np.zeros(34, np.int64)
    best = -1
    n_ex = 0
    verified = 0
    for kk in range(n_cls):
        k = cls_order[kk]
        # while examples are still wanted, ties with the best are worth visiting
        slack = 0 if n_ex >= max_ex else 1
        if bound[k] < 0 or bound[k] + slack <= best:
            break
        L0 = classes[k, 0]
        L1 = classes[k, 1]
        L2 = classes[k, 2]
        L3 = classes[k, 3]
        n1 = suit_ptr[L1 + 1] - suit_ptr[L1]
        n2 = suit_ptr[L2 + 1] - suit_ptr[L2]
        n3 = hon_ptr[L3 + 1] - hon_ptr[L3]
        n0 = suit_ptr[L0 + 1] - suit_ptr[L0]
        m1 = mx_s[1, L1]
        m2 = mx_s[2, L2]
        m3 = mx_h[L3]
        off = class_off[k]
        for ia in range(n0):
            a = perm_s[0, suit_ptr[L0] + ia]
            oa = ov_s[0, suit_ptr[L0] + a]
            slack = 0 if n_ex >= max_ex else 1
            if oa + m1 + m2 + m3 + slack <= best:
                break
            for ib in range(n1):
                b = perm_s[1, suit_ptr[L1] + ib]
                ob = oa + ov_s[1, suit_ptr[L1] + b]
                slack = 0 if n_ex >= max_ex else 1
                if ob + m2 + m3 + slack <= best:
                    break
                for ic in range(n2):
                    c = perm_s[2, suit_ptr[L2] + ic]
                    oc = ob + ov_s[2, suit_ptr[L2] + c]
                    slack = 0 if n_ex >= max_ex else 1
                    if oc + m3 + slack <= best:
                        break
                    base = off + ((a * n1 + b) * n2 + c) * n3
                    for id_ in range(n3):
                        d = perm_h[hon_ptr[L3] + id_]
                        od = oc + ov_h[hon_ptr[L3] + d]
                        slack = 0 if n_ex >= max_ex else 1
                        if od + slack <= best:
                            break
                        if meld_mode or verify_all:
                            acc = ACCEPT_VERIFY
                        else:
                            acc = accept[ids[base + d]]
                        if acc == ACCEPT_NO:
                            continue
                        va = suit_ptr[L0] + a
                        vb = suit_ptr[L1] + b
                        vc = suit_ptr[L2] + c
                        vd = hon_ptr[L3] + d
                        for t in range(9):
                            pat[t] = suit_vecs[va, t]
                            pat[9 + t] = suit_vecs[vb, t]
                            pat[18 + t] = suit_vecs[vc, t]
                        for t in range(7):
                            pat[27 + t] = hon_vecs[vd, t]
                        ok, scored = _accepts(
                            acc, pat, h, unseen, check_unseen, meld_mode, wind_mode,
                            meld_counts, full, accept, ids, pos_s, pos_h, cls_of, full_off,
                            suit_ptr, hon_ptr, row, all_tiles, min_counted, work, points,
                            excl_ptr, excl_idx, order, rank, tie_order, covers, table, wtable,
                            fan, raw, dec, ws, standing, best_fan)
                        verified += scored
                        if ok:
                            best, n_ex = _record(od, best, n_ex, pat, examples)
    # the explicit rows (十三幺, 全不靠, 组合龙)
    n_prod = class_off[class_off.shape[0] - 1]
    for x in range(small.shape[0]):
        o = _row_overlap(h, small, x)
        slack = 0 if n_ex >= max_ex else 1
        if o + slack <= best:
            continue
        acc = ACCEPT_VERIFY if (verify_all or meld_mode) else accept[ids[n_prod + x]]
        if acc == ACCEPT_NO:
            continue
        for t in range(34):
            pat[t] = small[x, t]
        # (组合龙 with a meld is not in the index: scored, not bounded)
        ok, scored = _accepts(acc, pat, h, unseen, check_unseen, False, wind_mode, meld_counts,
                              full, accept, ids, pos_s, pos_h, cls_of, full_off, suit_ptr,
                              hon_ptr, row, all_tiles, min_counted, work, points, excl_ptr,
                              excl_idx, order, rank, tie_order, covers, table, wtable, fan, raw,
                              dec, ws, standing, best_fan)
        verified += scored
        if ok:
            best, n_ex = _record(o, best, n_ex, pat, examples)
    return best, n_ex, verified


@njit(cache=True)
def _wind_code(acc, pat):
    """In wind mode: a pattern without a wind pung keeps its index value."""
    for t in range(27, 31):
        if pat[t] >= 3:
            return ACCEPT_VERIFY
    return ACCEPT_YES if acc == ACCEPT_YES else ACCEPT_NO


@njit(cache=True)
def _accepts(acc, pat, h, unseen, check_unseen, meld_mode, wind_mode, meld_counts, full, accept,
             ids, pos_s, pos_h, cls_of, full_off, suit_ptr, hon_ptr, row, all_tiles,
             min_counted, work, points, excl_ptr, excl_idx, order, rank, tie_order, covers,
             table, wtable, fan, raw, dec, ws, standing, best_fan):
    """Whether candidate ``pat`` (first code ``acc``) is taken; ``(ok, 1 if it was scored)``."""
    if check_unseen and not _need_ok(h, pat, unseen):
        return False, 0
    if meld_mode:
        acc = _meld_code(pat, meld_counts, full, accept, ids, pos_s, pos_h, cls_of, full_off,
                         suit_ptr, hon_ptr)
    if wind_mode and acc != ACCEPT_NO:
        acc = _wind_code(acc, pat)
    if acc == ACCEPT_NO:
        return False, 0
    if acc == ACCEPT_VERIFY:
        ok = _verify(pat, row, all_tiles, min_counted, work, points, excl_ptr, excl_idx, order,
                     rank, tie_order, covers, table, wtable, fan, raw, dec, ws, standing,
                     best_fan)
        return ok, 1
    return True, 0


@njit(cache=True)
def _record(o, best, n_ex, pat, examples):
    """Keep ``pat`` (overlap ``o``) among the examples; returns (best, n_ex)."""
    if o > best:
        best = o
        n_ex = 0
    elif n_ex >= examples.shape[0]:
        return best, n_ex
    for e in range(n_ex):      # the seven-pairs / regular overlap lists a few twice
        same = True
        for t in range(34):
            if examples[e, t] != pat[t]:
                same = False
                break
        if same:
            return best, n_ex
    for t in range(34):
        examples[n_ex, t] = pat[t]
    return best, n_ex + 1


@njit(cache=True)
def _verify(pat, row, all_tiles, min_counted, work, points, excl_ptr, excl_idx, order, rank,
            tie_order, covers, table, wtable, fan, raw, dec, ws, standing, best_fan):
    """True if the concealed pattern, with ``row``'s melds and situation, reaches the bar."""
    for t in range(34):
        row[COUNTS + t] = pat[t]
    forms = pattern_forms(pat, work)
    if forms == 0:
        # with melds the concealed part is not a whole hand: the scorer decides
        forms = REGULAR | KNITTED_STRAIGHT
    best, _ = best_win_score(row, forms, all_tiles, points, excl_ptr, excl_idx, order, rank,
                             tie_order, covers, table, wtable, fan, raw, dec, ws, standing,
                             best_fan)
    return best >= min_counted


# ---------------------------------------------------------------- nearest per row


@njit(cache=True)
def nearest_per_row(h, unseen, classes, class_off, suit_vecs, suit_ptr, hon_vecs, hon_ptr,
                    small, ids, best, where):
    """For every row id of the index, the most tiles the hand shares with one of its patterns.

    ``best[r]`` (init -1) gets the best overlap among the patterns whose id is
    ``r`` and that need no more copies of a kind than ``unseen``;
    ``where[r]`` the first such pattern number.  One pass over every
    pattern (no pruning: every row wants its own answer); any set of fan
    combinations is then answered from these rows alone.
    """
    ov_s = np.empty((3, suit_vecs.shape[0]), np.int64)
    ov_h = np.empty(hon_vecs.shape[0], np.int64)
    _overlaps(h, suit_vecs, hon_vecs, ov_s, ov_h)
    pat = np.zeros(34, np.int64)
    for k in range(classes.shape[0]):
        L0 = classes[k, 0]
        L1 = classes[k, 1]
        L2 = classes[k, 2]
        L3 = classes[k, 3]
        s0 = suit_ptr[L0]
        s1 = suit_ptr[L1]
        s2 = suit_ptr[L2]
        s3 = hon_ptr[L3]
        n0 = suit_ptr[L0 + 1] - s0
        n1 = suit_ptr[L1 + 1] - s1
        n2 = suit_ptr[L2 + 1] - s2
        n3 = hon_ptr[L3 + 1] - s3
        off = class_off[k]
        for a in range(n0):
            oa = ov_s[0, s0 + a]
            for b in range(n1):
                ob = oa + ov_s[1, s1 + b]
                for c in range(n2):
                    oc = ob + ov_s[2, s2 + c]
                    base = off + ((a * n1 + b) * n2 + c) * n3
                    for d in range(n3):
                        od = oc + ov_h[s3 + d]
                        r = ids[base + d]
                        if od <= best[r]:
                            continue
                        for t in range(9):
                            pat[t] = suit_vecs[s0 + a, t]
                            pat[9 + t] = suit_vecs[s1 + b, t]
                            pat[18 + t] = suit_vecs[s2 + c, t]
                        for t in range(7):
                            pat[27 + t] = hon_vecs[s3 + d, t]
                        if _need_ok(h, pat, unseen):
                            best[r] = od
                            where[r] = base + d
    n_prod = class_off[class_off.shape[0] - 1]
    for x in range(small.shape[0]):
        o = _row_overlap(h, small, x)
        r = ids[n_prod + x]
        if o <= best[r]:
            continue
        for t in range(34):
            pat[t] = small[x, t]
        if _need_ok(h, pat, unseen):
            best[r] = o
            where[r] = n_prod + x


# ---------------------------------------------------------------- building


@njit(cache=True, parallel=True)
def value_rows(counted, sig, key_cols, fans_per_word, rows, hashes, n_chunks):
    """Per pattern its row (counted capped at 255, two words of hand-fan bits) and a hash.

    Bit ``j`` of the fan words is set when fan ``key_cols[j]`` is counted in
    the packed signature ``sig`` (4 bits per fan, ``fans_per_word`` a word).
    """
    n = counted.shape[0]
    for ch in prange(n_chunks):
        lo = n * ch // n_chunks
        hi = n * (ch + 1) // n_chunks
        for i in range(lo, hi):
            v = counted[i]
            w0 = np.uint64(0)
            w1 = np.uint64(0)
            for j in range(key_cols.shape[0]):
                f = key_cols[j]
                x = (sig[i, f // fans_per_word] >> (4 * (f % fans_per_word))) & 15
                if x > 0:
                    if j < 64:
                        w0 |= np.uint64(1) << np.uint64(j)
                    else:
                        w1 |= np.uint64(1) << np.uint64(j - 64)
            rows[i, 0] = np.uint64(v if v < 255 else 255)
            rows[i, 1] = w0
            rows[i, 2] = w1
            h = np.uint64(0x9E3779B97F4A7C15) * (rows[i, 0] + np.uint64(1))
            h ^= w0 + np.uint64(0x632BE59BD9B4E019) + (h << np.uint64(6)) + (h >> np.uint64(2))
            h ^= w1 + np.uint64(0x85EBCA77C2B2AE63) + (h << np.uint64(6)) + (h >> np.uint64(2))
            hashes[i] = h


@njit(cache=True)
def same_rows(rows, inv, first):
    """True if every row equals the first row of its hash group (no hash collision)."""
    for i in range(rows.shape[0]):
        f = first[inv[i]]
        for j in range(rows.shape[1]):
            if rows[i, j] != rows[f, j]:
                return False
    return True
