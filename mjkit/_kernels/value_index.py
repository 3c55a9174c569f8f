"""Complete hands as products of group parts: their numbering and the index's building.

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

The queries (the nearest accepted patterns to a hand) are in :mod:`.index_query`,
outside the index's cache key.  Everything is iterative and every table is an
argument (numba's cache freezes globals).
"""

import numpy as np
from numba import njit, prange

from .complete import best_win_detail, closed_row, pattern_forms, win_scratch
from .layout import COUNTS
from .shapes import MAX_DIVISIONS, enumerate_divisions



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
def _parts_of(i, fam, parts):
    """Class of product pattern ``i``; ``parts`` gets its four parts (indices into the vecs)."""
    k = class_of(i, fam.class_off)
    r = i - fam.class_off[k]
    for g in range(3, -1, -1):
        lst = fam.classes[k, g]
        ptr = fam.hon_ptr if g == 3 else fam.suit_ptr
        n = ptr[lst + 1] - ptr[lst]
        parts[g] = ptr[lst] + r % n
        r //= n
    return k


@njit(cache=True, inline="always")
def put_parts(suit_vecs, hon_vecs, v0, v1, v2, v3, out):
    """The pattern of suit parts ``v0, v1, v2`` and honour part ``v3`` into ``out`` (the
    arrays, not the families' bundle: a query's innermost loop calls this)."""
    for t in range(9):
        out[t] = suit_vecs[v0, t]
        out[9 + t] = suit_vecs[v1, t]
        out[18 + t] = suit_vecs[v2, t]
    for t in range(7):
        out[27 + t] = hon_vecs[v3, t]


@njit(cache=True)
def _write_pattern(i, fam, parts, out):
    """:func:`pattern_at` with the caller's 4 ints of scratch ``parts`` (no allocation)."""
    n_prod = fam.class_off[fam.class_off.shape[0] - 1]
    if i >= n_prod:
        for t in range(34):
            out[t] = fam.small[i - n_prod, t]
        return
    _parts_of(i, fam, parts)
    put_parts(fam.suit_vecs, fam.hon_vecs, parts[0], parts[1], parts[2], parts[3], out)


@njit(cache=True)
def pattern_at(i, fam, out):
    """Write pattern number ``i`` (product families, then ``small`` rows) into ``out``."""
    _write_pattern(i, fam, np.empty(4, np.int64), out)


@njit(cache=True, parallel=True)
def fill_patterns(numbers, fam, out, n_chunks):
    """Patterns ``numbers[j]`` into ``out[j]`` (uint8, (len(numbers), 34))."""
    n = numbers.shape[0]
    for ch in prange(n_chunks):
        a = n * ch // n_chunks
        b = n * (ch + 1) // n_chunks
        c = np.zeros(34, np.int64)
        parts = np.empty(4, np.int64)
        for j in range(a, b):
            _write_pattern(numbers[j], fam, parts, c)
            for t in range(34):
                out[j, t] = c[t]


# ---------------------------------------------------------------- ranking


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


# ---------------------------------------------------------------- building
#
# The index is built from representatives.  Permuting the three suits, the
# winds South, West and North, or the three dragons maps a pattern to one with
# the same value (the situation is East seat and round), except where a fan
# or a tie singles a pattern out; such patterns are their own representatives
# (``_self_rep``), every other one is represented by the least of its images
# (suit parts in increasing order, the least honour image), and only the
# representatives are scored.  What keeps the values identical:
#
# * fans naming a suit or a dragon: 绿一色 (23468s 发), 推不倒 (1234589p 245689s
#   白), 满江红 (m 中) and 四方大发财 (four wind pungs, a pair of 发).  Every
#   pattern that could be one of them under some permutation (no winds, at
#   most one kind of dragon, and at most one suit or two suits whose ranks fit
#   推不倒's; or four wind pungs) is scored as it is;
# * ties between readings that differ in two or more suits, which the scorer
#   breaks by its reading order (characters, bamboo, dots): patterns with
#   two or more suits that split in more than one way are scored as they are
#   (readings differing in one suit keep their order under any permutation);
# * ties between winning tiles with different hand fans, broken by the lowest
#   tile: the scoring of a representative reports them (``TIED``) and its
#   images are then scored one by one.

SUIT_USED = 1          # the part holds tiles
SUIT_RP = 2            # its ranks are among 推不倒's dots 1234589
SUIT_RS = 4            # its ranks are among 推不倒's bamboo 245689
SUIT_RG = 64           # its ranks are among 绿一色's bamboo 23468
SUIT_SPLITS = 8        # it splits into sets, and a pair if its size is 2 mod 3
SUIT_MULTI = 16        # ... in more than one way
SUIT_PAIR = 32         # its size is 2 mod 3
HON_WIND = 1           # the honour part holds a wind
HON_DRAGONS = 2        # it holds two or three kinds of dragon
HON_FOUR_WINDS = 4     # it holds a pung of every wind
HON_SPLITS = 8         # it is pungs, and a pair if its size is 2 mod 3
HON_PAIR = 32          # its size is 2 mod 3
HON_DRAGON = 64        # it holds a dragon
N_HON_PERMS = 36
# Flags in column 0 of a row (counted fans are at most 255 there).
TIED = np.uint64(1 << 32)
NOT_COMPLETE = np.uint64(1 << 33)
NO_FORM = np.uint64(1 << 34)     # with NOT_COMPLETE: not complete in any form


@njit(cache=True)
def split_counts(suit_vecs, out):
    """Per suit part the number of its splits into sets (and a pair), by the scorer's own
    ``shapes.enumerate_divisions`` (the part completed by honour pungs and a pair)."""
    c = np.zeros(34, np.int64)
    dk = np.zeros(4 * MAX_DIVISIONS, np.int64)
    dt = np.zeros(4 * MAX_DIVISIONS, np.int64)
    dp = np.zeros(MAX_DIVISIONS, np.int64)
    scratch = np.zeros(15, np.int64)
    for v in range(suit_vecs.shape[0]):
        for t in range(34):
            c[t] = 0
        total = 0
        for t in range(9):
            c[t] = suit_vecs[v, t]
            total += c[t]
        if total % 3 == 1:
            out[v] = 0
            continue
        n_sets = total // 3
        for j in range(4 - n_sets):
            c[27 + j] = 3
        if total % 3 == 0:
            c[33] = 2
        out[v] = enumerate_divisions(c, 4, dk, dt, dp, scratch)


# What three suit parts contribute to ``_self_rep`` (independent of the honours).
_T_MULTI = 1        # two or more split in more than one way, and all three split
_T_PAIR = 2         # exactly one has a size of 2 mod 3
_T_PAIRS = 4        # two or more have
_T_PLAIN = 8        # a 推不倒 or 绿一色 candidate if the honours allow it
_T_ONE_SUIT = 16    # at most one suit used (满江红 with a dragon)


@njit(cache=True)
def _triple_state(v0, v1, v2, sym):
    multi = 0
    used = 0
    n_rp = 0                # used suits within 推不倒's dots, bamboo, both
    n_rs = 0
    n_both = 0
    green = True
    splits = True
    pairs = 0
    for v in (v0, v1, v2):
        f = sym.suit_flags[v]
        if f & SUIT_MULTI:
            multi += 1
        if (f & SUIT_SPLITS) == 0:
            splits = False
        if f & SUIT_PAIR:
            pairs += 1
        if f & SUIT_USED:
            used += 1
            if f & SUIT_RP:
                n_rp += 1
            if f & SUIT_RS:
                n_rs += 1
            if (f & SUIT_RP) and (f & SUIT_RS):
                n_both += 1
            if (f & SUIT_RG) == 0:
                green = False
    st = 0
    if multi >= 2 and splits:
        st |= _T_MULTI
    if pairs == 1:
        st |= _T_PAIR
    elif pairs > 1:
        st |= _T_PAIRS
    # 推不倒 in some image: one used suit as the dots, the other (if any) as the
    # bamboo; 绿一色: one suit of ranks 23468
    if used == 0 or (used == 1 and (n_rp + n_rs > 0 or green)) or (
            used == 2 and n_rp >= 1 and n_rs >= 1 and n_rp + n_rs - n_both >= 2):
        st |= _T_PLAIN
    if used <= 1:
        st |= _T_ONE_SUIT
    return st


@njit(cache=True)
def _self_rep_h(st, hf):
    """``_self_rep`` from the suit parts' ``_triple_state`` and the honour part's flags."""
    if hf & HON_FOUR_WINDS:
        return True
    if (st & _T_MULTI) and (hf & HON_SPLITS):
        pairs = (1 if st & _T_PAIR else (2 if st & _T_PAIRS else 0)) + (
            1 if hf & HON_PAIR else 0)
        if pairs == 1:
            return True
    if hf & (HON_WIND | HON_DRAGONS):
        return False
    # no wind, at most one kind of dragon
    return (st & _T_PLAIN) != 0 or ((st & _T_ONE_SUIT) != 0 and (hf & HON_DRAGON) != 0)


@njit(cache=True)
def _self_rep(v0, v1, v2, v3, sym):
    """True for a pattern the symmetries may not move (see the section's comment)."""
    return _self_rep_h(_triple_state(v0, v1, v2, sym), sym.hon_flags[v3])


@njit(cache=True)
def _number(fam, sym, v0, v1, v2, v3):
    """Pattern number of four parts (-1: no class has their lists)."""
    L0 = sym.suit_list[v0]
    L1 = sym.suit_list[v1]
    L2 = sym.suit_list[v2]
    L3 = sym.hon_list[v3]
    k = sym.cls_of[L0, L1, L2, L3]
    if k < 0:
        return -1
    n1 = fam.suit_ptr[L1 + 1] - fam.suit_ptr[L1]
    n2 = fam.suit_ptr[L2 + 1] - fam.suit_ptr[L2]
    n3 = fam.hon_ptr[L3 + 1] - fam.hon_ptr[L3]
    p3 = v3 - fam.hon_ptr[L3]
    return fam.class_off[k] + ((sym.suit_pos[v0] * n1 + sym.suit_pos[v1]) * n2
                               + sym.suit_pos[v2]) * n3 + p3


@njit(cache=True)
def _sorted_number(fam, sym, v0, v1, v2, v3):
    """:func:`_number` of the suit parts in increasing order and honour part ``v3``."""
    a, b, c = v0, v1, v2
    if a > b:
        a, b = b, a
    if b > c:
        b, c = c, b
    if a > b:
        a, b = b, a
    return _number(fam, sym, a, b, c, v3)


@njit(cache=True)
def _canonical(fam, sym, v0, v1, v2, v3):
    """Number of the representative of a product pattern given by its parts."""
    if _self_rep(v0, v1, v2, v3, sym):
        return _number(fam, sym, v0, v1, v2, v3)
    return _sorted_number(fam, sym, v0, v1, v2, sym.hon_canon[v3])


@njit(cache=True)
def representative_of(i, fam, sym):
    """Number of the representative of pattern number ``i`` (explicit rows: themselves)."""
    if i >= fam.class_off[fam.class_off.shape[0] - 1]:
        return i
    parts = np.empty(4, np.int64)
    _parts_of(i, fam, parts)
    return _canonical(fam, sym, parts[0], parts[1], parts[2], parts[3])


@njit(cache=True)
def _class_reps(fam, sym, k, out, j, ids):
    """The representatives of class ``k``: counted (``out`` empty), listed into ``out``
    from ``j``, or, with ``ids`` not empty, every other pattern given its
    representative's id.  Returns the count."""
    L3 = fam.classes[k, 3]
    s0 = fam.suit_ptr[fam.classes[k, 0]]
    s1 = fam.suit_ptr[fam.classes[k, 1]]
    s2 = fam.suit_ptr[fam.classes[k, 2]]
    s3 = fam.hon_ptr[L3]
    e0 = fam.suit_ptr[fam.classes[k, 0] + 1]
    e1 = fam.suit_ptr[fam.classes[k, 1] + 1]
    e2 = fam.suit_ptr[fam.classes[k, 2] + 1]
    e3 = fam.hon_ptr[L3 + 1]
    listing = out.shape[0] > 0
    expanding = ids.shape[0] > 0
    hon_flags = sym.hon_flags
    hon_canon = sym.hon_canon
    i = fam.class_off[k]
    m = 0
    for v0 in range(s0, e0):
        for v1 in range(s1, e1):
            for v2 in range(s2, e2):
                st = _triple_state(v0, v1, v2, sym)
                ordered = v0 <= v1 and v1 <= v2
                # the representative's number with the first honour part of the list;
                # add the position of an honour part for the others
                base = _sorted_number(fam, sym, v0, v1, v2, s3) - s3 if expanding else 0
                for v3 in range(s3, e3):
                    if _self_rep_h(st, hon_flags[v3]) or (ordered and hon_canon[v3] == v3):
                        if listing:
                            out[j + m] = i
                        m += 1
                    elif expanding:
                        ids[i] = ids[base + hon_canon[v3]]
                    i += 1
    return m


# The class loops below give chunk ``ch`` of ``n_chunks`` the classes ``ch, ch +
# n_chunks, ...``: the OpenMP and workqueue layers hand each thread a contiguous run
# of chunks, and neighbouring classes are alike in size, so every run holds about as
# many patterns (a run of whole classes would not).  Each class writes its own
# outputs only: the results do not depend on the number of chunks or threads.


@njit(cache=True, parallel=True)
def count_reps(fam, sym, per_class, n_chunks):
    """``per_class[k]``: the representatives among the patterns of class ``k``."""
    none = np.zeros(0, np.int64)
    no_ids = np.zeros(0, np.uint16)
    n_cls = fam.classes.shape[0]
    for ch in prange(n_chunks):
        for k in range(ch, n_cls, n_chunks):
            per_class[k] = _class_reps(fam, sym, k, none, 0, no_ids)


@njit(cache=True, parallel=True)
def list_reps(fam, sym, starts, out, n_chunks):
    """The representatives' pattern numbers, ascending; class ``k``'s from ``starts[k]``."""
    no_ids = np.zeros(0, np.uint16)
    n_cls = fam.classes.shape[0]
    for ch in prange(n_chunks):
        for k in range(ch, n_cls, n_chunks):
            _class_reps(fam, sym, k, out, starts[k], no_ids)


@njit(cache=True, parallel=True)
def expand_ids(fam, sym, ids, n_chunks):
    """Every product pattern that is not a representative takes its representative's id
    (``ids`` holds the representatives' already; no representative is written)."""
    none = np.zeros(0, np.int64)
    n_cls = fam.classes.shape[0]
    for ch in prange(n_chunks):
        for k in range(ch, n_cls, n_chunks):
            _class_reps(fam, sym, k, none, 0, ids)


@njit(cache=True)
def orbit(i, fam, sym, out):
    """The patterns product pattern ``i`` maps to (itself included, repeats possible) into
    ``out`` (at least 6 * N_HON_PERMS); returns how many were written."""
    parts = np.empty(4, np.int64)
    _parts_of(i, fam, parts)
    if _self_rep(parts[0], parts[1], parts[2], parts[3], sym):
        out[0] = i
        return 1
    n = 0
    for p in range(6):
        # the six orders of the three suit parts
        a = parts[0] if p < 2 else (parts[1] if p < 4 else parts[2])
        if p < 2:
            b = parts[1] if p == 0 else parts[2]
            c = parts[2] if p == 0 else parts[1]
        elif p < 4:
            b = parts[0] if p == 2 else parts[2]
            c = parts[2] if p == 2 else parts[0]
        else:
            b = parts[0] if p == 4 else parts[1]
            c = parts[1] if p == 4 else parts[0]
        for hp in range(N_HON_PERMS):
            out[n] = _number(fam, sym, a, b, c, sym.hon_images[parts[3], hp])
            n += 1
    return n


@njit(cache=True, parallel=True)
def index_rows(numbers, fam, rules, key_cols, rows, n_chunks):
    """Per pattern number its row of the index: counted fans (at most 255), hand-fan bits.

    Each pattern ``numbers[i]`` of ``fam`` is written out, given its forms
    (``complete.pattern_forms``) and scored closed, self-drawn, East seat
    and round, with its best winning tile (``complete.best_win_detail``).
    ``rows[i]`` (uint64) = (counted, bits 0-63, bits 64-127) with bit ``j``
    set when fan ``key_cols[j]`` is counted; column 0 also carries ``TIED``
    when another winning tile reaches as many counted fans with other hand
    fans, and is ``NOT_COMPLETE`` if the scorer finds no win (with
    ``NO_FORM`` if the pattern is complete in no form).

    Chunk ``ch`` of ``n_chunks`` (each with its own scratch space) takes the
    rows ``ch, ch + n_chunks, ...``: the OpenMP and workqueue layers hand each
    thread a contiguous run of chunks, and interleaved rows give every run an
    even share of cheap and dear patterns (contiguous rows would give one
    thread whole classes of dear ones).  Every row depends on its pattern
    alone, so the rows do not depend on the chunks.
    """
    n = numbers.shape[0]
    nf = rules.points.shape[0]
    for ch in prange(n_chunks):
        sc = win_scratch(nf)
        row = closed_row(0, 0)
        c = np.zeros(34, np.int64)
        work = np.zeros(34, np.int64)
        parts = np.empty(4, np.int64)
        for i in range(ch, n, n_chunks):
            _write_pattern(numbers[i], fam, parts, c)
            w0 = np.uint64(0)
            w1 = np.uint64(0)
            rows[i, 1] = w0
            rows[i, 2] = w1
            forms = pattern_forms(c, work)
            if forms == 0:
                rows[i, 0] = NOT_COMPLETE | NO_FORM
                continue
            for t in range(34):
                row[COUNTS + t] = c[t]
            best, _, tied = best_win_detail(row, forms, False, rules, sc, key_cols)
            if best < 0:
                rows[i, 0] = NOT_COMPLETE
                continue
            for j in range(key_cols.shape[0]):
                if sc.best_fan[key_cols[j]] > 0:
                    if j < 64:
                        w0 |= np.uint64(1) << np.uint64(j)
                    else:
                        w1 |= np.uint64(1) << np.uint64(j - 64)
            v = np.uint64(best if best < 255 else 255)
            rows[i, 0] = (v | TIED) if tied else v
            rows[i, 1] = w0
            rows[i, 2] = w1


@njit(cache=True)
def distinct_rows(rows, hashes, first, inv):
    """Number the distinct rows of ``rows`` (uint64 (n, 3)) in order of first appearance.

    ``hashes``: a hash of every row (``complete.row_hashes``); an open-addressing
    table of twice as many slots as rows finds each row's equal among the rows
    already seen, comparing the rows themselves.  ``first[j]`` gets the first row
    of distinct row ``j``, ``inv[i]`` the number of row ``i``.  Returns the number
    of distinct rows.  One pass, where sorting the rows costs several.
    """
    n = rows.shape[0]
    cap = 2
    while cap < 2 * n:
        cap *= 2
    mask = np.uint64(cap - 1)
    slots = np.full(cap, -1, np.int64)
    m = 0
    for i in range(n):
        s = hashes[i] & mask
        while True:
            j = slots[s]
            if j < 0:
                slots[s] = m
                first[m] = i
                inv[i] = m
                m += 1
                break
            f = first[j]
            if rows[f, 0] == rows[i, 0] and rows[f, 1] == rows[i, 1] and rows[f, 2] == rows[i, 2]:
                inv[i] = j
                break
            s = (s + np.uint64(1)) & mask
    return m
