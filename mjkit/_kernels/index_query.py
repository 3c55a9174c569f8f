"""Queries of the value index: the accepted complete patterns nearest to a hand.

The patterns are numbered as in :mod:`.value_index` (products of one part per group,
then explicit rows).  :func:`nearest` finds the patterns sharing the most tiles with a
hand (``overlap = sum(min(hand, pattern))``) among those a per-id table accepts, by
branch and bound: classes are visited by their best possible overlap, the parts of each
group by their own overlap, and a loop stops as soon as even the best remaining parts
cannot beat what is already found.  Three things keep a query in the tens of
microseconds:

* the overlaps of all 27,108 suit parts are computed column by column on ``uint8``
  copies of the parts (:class:`QueryLayout`), which the compiler vectorises;
* a list's parts are sorted by overlap only when a visited class needs them;
* :class:`ValueBounds` holds, per class and prefix of parts (the first one, two or
  three), the highest value of any pattern below it, so a whole subtree worth less than
  the bar is skipped without reading its patterns' ids.

The kernels here only read the index: this module is not part of the index's cache key
(``value_index._QUERY_ONLY``).  Everything is iterative and every table is an argument.
"""

from typing import NamedTuple

import numpy as np
from numba import njit

from .complete import REGULAR, KNITTED_STRAIGHT, best_win_score, pattern_forms, win_scratch
from .layout import COUNTS
from .value_index import put_parts, rank_regular

MAX_OVERLAP = 14
ACCEPT_NO = 0
ACCEPT_YES = 1
ACCEPT_VERIFY = 2       # score the pattern in the query's situation first
# With ``wind_mode`` (another seat or round wind, self-drawn): a pattern
# without a wind pung scores as in the index, so YES / VERIFY decide it
# alone (accept / reject) and only patterns with a wind pung are scored.
NO_BOUND = 0            # ``IndexQuery.prune``: no subtree is skipped


class IndexQuery(NamedTuple):
    """One nearest-pattern query (:func:`nearest`).

    Attributes
    ----------
    h, unseen : int64 (34,)
        The hand's concealed counts; copies of each kind that can still be drawn.
    check_unseen : bool
        Skip a pattern needing more copies of a kind than ``unseen``.
    ids : uint16 or uint32
        Per pattern number its row id; empty: every pattern is verified.
    accept : int8
        Per id ``ACCEPT_NO`` / ``ACCEPT_YES`` / ``ACCEPT_VERIFY``.
    wind_mode : bool
        Decide patterns without a wind pung by the code alone.
    row : int32 (ROW_LEN,)
        The situation (melds, flags, winds, 连拉) a pattern is verified in.
    all_tiles : bool
        Verify with every choice of winning tile (no shortcut).
    min_counted : int
        The bar a verified pattern must reach.
    prune : int
        Skip a subtree whose :class:`ValueBounds` value is below this (``NO_BOUND``:
        none); every id whose code is not ``ACCEPT_NO`` must have a value of at least
        ``prune`` (``value_bound_of``).
    """

    h: np.ndarray
    unseen: np.ndarray
    check_unseen: bool
    ids: np.ndarray
    accept: np.ndarray
    wind_mode: bool
    row: np.ndarray
    all_tiles: bool
    min_counted: int
    prune: int


class MeldRanking(NamedTuple):
    """Meld mode of :func:`nearest`: the closed counterpart of a concealed part.

    ``pos_s`` empty: no meld mode.  See ``value_index.rank_regular``.

    Attributes
    ----------
    meld_counts : int64 (34,)
        Tiles of the melds.
    pos_s, pos_h : int32
        Part positions by base-5 key (suits 5**9, honours 5**7).
    cls_of : int64 (10, 10, 10, 10)
        Class of each quadruple of regular lists.
    full_off : int64
        ``class_off`` of the full families.
    suit_ptr, hon_ptr : int64
        List boundaries of the full families.
    """

    meld_counts: np.ndarray
    pos_s: np.ndarray
    pos_h: np.ndarray
    cls_of: np.ndarray
    full_off: np.ndarray
    suit_ptr: np.ndarray
    hon_ptr: np.ndarray


class QueryLayout(NamedTuple):
    """The families' parts stored by column for :func:`nearest`'s vectorised overlaps, and
    bounds on blocks of the explicit rows.

    Attributes
    ----------
    suit_cols, hon_cols, small_cols : uint8 (9, S), (7, H), (34, X)
        ``suit_vecs.T``, ``hon_vecs.T``, ``small.T`` (contiguous).
    block_ptr : int64 (B + 1,)
        The explicit rows in blocks of consecutive rows (built alike: one knitted
        sequence, one form).
    block_core, block_rest : uint8 (B, 34)
        Per block the copies every row holds, and the most any row holds beyond them.
    block_rest_n : int64 (B,)
        The most tiles a row holds beyond the core.  A row's overlap with a hand ``h``
        is at most ``sum(min(h, core)) + min(rest_n, sum(min(h - core, rest)))``.
    """

    suit_cols: np.ndarray
    hon_cols: np.ndarray
    small_cols: np.ndarray
    block_ptr: np.ndarray
    block_core: np.ndarray
    block_rest: np.ndarray
    block_rest_n: np.ndarray


class ValueBounds(NamedTuple):
    """Per class the highest value below each prefix of parts (:func:`value_bounds`).

    A value is ``min(counted + 1, 255)`` of a pattern's id (0: no pattern).  For class
    ``k`` with lists of ``n0, n1, n2`` parts in the suits, and parts at positions ``a, b,
    c`` of them: ``v1[off1[k] + a]`` is the highest value of the class's patterns with
    first part ``a``, ``v2[off2[k] + a * n1 + b]`` with the first two, ``v3[off3[k] + (a
    * n1 + b) * n2 + c]`` with the first three.  Empty ``off1``: no bounds (families
    without an index, as those of hands with melds).
    """

    off1: np.ndarray
    off2: np.ndarray
    off3: np.ndarray
    v1: np.ndarray
    v2: np.ndarray
    v3: np.ndarray


class QueryScratch(NamedTuple):
    """Work space of one :func:`nearest` call at a time (``query_scratch``)."""

    ov_s: np.ndarray        # uint8 (3, S): overlap of every suit part, per suit
    ov_h: np.ndarray        # uint8 (H,)
    ov_x: np.ndarray        # uint8 (X,): of the explicit rows
    perm_s: np.ndarray      # int32 (3, S): per list, positions by overlap
    perm_h: np.ndarray      # int32 (H,)
    mx_s: np.ndarray        # int64 (3, Ls): best overlap per list (-1: empty list)
    mx_h: np.ndarray        # int64 (Lh,)
    from_s: np.ndarray      # int64 (3, Ls): perm_s holds the list's parts of overlap >= this
    n_s: np.ndarray         # int64 (3, Ls): ... and there are this many
    from_h: np.ndarray      # int64 (Lh,)
    n_h: np.ndarray         # int64 (Lh,)
    bound: np.ndarray       # int64 (C,)
    count: np.ndarray       # int64 (MAX_OVERLAP + 2,)
    pat: np.ndarray         # int64 (34,)
    full: np.ndarray        # int64 (34,)
    seen: np.ndarray        # int64 (SEEN_SLOTS,): the examples of even counts, by hash
    used: np.ndarray        # int64 (1,): slots of ``seen`` taken


def query_scratch(fam):
    """A :class:`QueryScratch` for the families ``fam`` (one per thread)."""
    n_s = fam.suit_vecs.shape[0]
    n_h = fam.hon_vecs.shape[0]
    ls = fam.suit_ptr.shape[0] - 1
    lh = fam.hon_ptr.shape[0] - 1
    return QueryScratch(np.zeros((3, n_s), np.uint8), np.zeros(n_h, np.uint8),
                        np.zeros(fam.small.shape[0], np.uint8), np.zeros((3, n_s), np.int32),
                        np.zeros(n_h, np.int32), np.zeros((3, ls), np.int64),
                        np.zeros(lh, np.int64), np.zeros((3, ls), np.int64),
                        np.zeros((3, ls), np.int64), np.zeros(lh, np.int64),
                        np.zeros(lh, np.int64), np.zeros(fam.classes.shape[0], np.int64),
                        np.zeros(MAX_OVERLAP + 2, np.int64), np.zeros(34, np.int64),
                        np.zeros(34, np.int64), np.full(SEEN_SLOTS, -1, np.int64),
                        np.zeros(1, np.int64))


ROW_BLOCK = 128          # explicit rows per block of QueryLayout


def query_layout(fam):
    """The :class:`QueryLayout` of the families ``fam``."""
    small = np.asarray(fam.small, np.uint8)
    n = len(small)
    ptr = np.append(np.arange(0, n, ROW_BLOCK), n).astype(np.int64) if n else np.zeros(1,
                                                                                  np.int64)
    nb = len(ptr) - 1
    core = np.zeros((nb, 34), np.uint8)
    rest = np.zeros((nb, 34), np.uint8)
    rest_n = np.zeros(nb, np.int64)
    for b in range(nb):
        rows = small[ptr[b]:ptr[b + 1]].astype(np.int64)
        core[b] = rows.min(axis=0)
        extra = rows - core[b]
        rest[b] = extra.max(axis=0)
        rest_n[b] = extra.sum(axis=1).max()
    return QueryLayout(np.ascontiguousarray(fam.suit_vecs.T, np.uint8),
                       np.ascontiguousarray(fam.hon_vecs.T, np.uint8),
                       np.ascontiguousarray(small.T), ptr, core, rest, rest_n)


def no_melds(fam):
    """A :class:`MeldRanking` that turns meld mode off (closed hands of ``fam``)."""
    none = np.zeros(34, np.int64)
    return MeldRanking(none, np.zeros(0, np.int32), np.zeros(0, np.int32),
                       np.zeros((1, 1, 1, 1), np.int64), np.zeros(1, np.int64), fam.suit_ptr,
                       fam.hon_ptr)


def no_bounds():
    """An empty :class:`ValueBounds` (nothing is skipped)."""
    z = np.zeros(0, np.int64)
    u = np.zeros(0, np.uint8)
    return ValueBounds(z, z, z, u, u, u)


def value_bound_of(counted):
    """The :class:`ValueBounds` value of a pattern of ``counted`` fans."""
    return min(int(counted) + 1, 255)


def bound_offsets(fam):
    """``(off1, off2, off3)`` of :class:`ValueBounds` and the table sizes."""
    sp = np.diff(fam.suit_ptr)
    c = fam.classes
    n0, n1, n2 = sp[c[:, 0]], sp[c[:, 1]], sp[c[:, 2]]
    out = []
    for size in (n0, n0 * n1, n0 * n1 * n2):
        off = np.zeros(len(c) + 1, np.int64)
        np.cumsum(size, out=off[1:])
        out.append(off)
    return out


@njit(cache=True)
def value_bounds(fam, ids, counted, vb):
    """Fill ``vb.v1 / v2 / v3`` (zeroed, sizes from :func:`bound_offsets`) from the index."""
    suit_ptr = fam.suit_ptr
    hon_ptr = fam.hon_ptr
    for k in range(fam.classes.shape[0]):
        L0 = fam.classes[k, 0]
        L1 = fam.classes[k, 1]
        L2 = fam.classes[k, 2]
        L3 = fam.classes[k, 3]
        n0 = suit_ptr[L0 + 1] - suit_ptr[L0]
        n1 = suit_ptr[L1 + 1] - suit_ptr[L1]
        n2 = suit_ptr[L2 + 1] - suit_ptr[L2]
        n3 = hon_ptr[L3 + 1] - hon_ptr[L3]
        i = fam.class_off[k]
        for a in range(n0):
            m1 = 0
            for b in range(n1):
                m2 = 0
                for c in range(n2):
                    m3 = 0
                    for d in range(n3):
                        v = counted[ids[i + d]] + 1
                        if v > m3:
                            m3 = v
                    i += n3
                    if m3 > 255:
                        m3 = 255
                    vb.v3[vb.off3[k] + (a * n1 + b) * n2 + c] = m3
                    if m3 > m2:
                        m2 = m3
                vb.v2[vb.off2[k] + a * n1 + b] = m2
                if m2 > m1:
                    m1 = m2
            vb.v1[vb.off1[k] + a] = m1


# ---------------------------------------------------------------- overlaps


@njit(cache=True)
def _column_overlaps(hand, first, cols, out):
    """``out[v] = sum_t min(hand[first + t], cols[t, v])`` (a loop the compiler vectorises)."""
    n = cols.shape[1]
    x = np.uint8(min(hand[first], 255))
    c = cols[0]
    for v in range(n):
        y = c[v]
        out[v] = y if y < x else x
    for t in range(1, cols.shape[0]):
        x = np.uint8(min(hand[first + t], 255))
        c = cols[t]
        for v in range(n):
            y = c[v]
            out[v] += y if y < x else x


@njit(cache=True)
def _segment_max(ov, ptr, mx):
    """``mx[L]``: the best overlap in list ``L`` (``ov[ptr[L]:ptr[L+1]]``), -1 if empty."""
    for L in range(ptr.shape[0] - 1):
        a = ptr[L]
        b = ptr[L + 1]
        if b == a:
            mx[L] = -1
            continue
        s = ov[a:b]
        m = np.int32(0)
        for v in range(s.shape[0]):
            y = np.int32(s[v])
            m = y if y > m else m
        mx[L] = m


@njit(cache=True)
def _sort_segment(ov, g, ptr, L, perm, count, floor):
    """``perm[g, ptr[L]:]``: the positions in list ``L`` (``ov[g, ptr[L]:ptr[L+1]]``) whose
    overlap is at least ``floor``, highest overlap first, ties by position (a counting
    sort: overlaps are 0..14).  Returns how many there are.  (Rows of 2-d arrays, not
    views of them: a view costs two reference counts, and this runs per pattern class.)"""
    a = ptr[L]
    b = ptr[L + 1]
    lo = max(floor, 0)
    if lo > MAX_OVERLAP:
        return 0
    for o in range(MAX_OVERLAP + 2):
        count[o] = 0
    for v in range(a, b):
        o = np.int64(ov[g, v])
        if o >= lo:
            count[MAX_OVERLAP - o + 1] += 1
    for o in range(1, MAX_OVERLAP + 2):
        count[o] += count[o - 1]
    n = count[MAX_OVERLAP - lo + 1]
    for v in range(a, b):
        o = np.int64(ov[g, v])
        if o >= lo:
            j = MAX_OVERLAP - o
            perm[g, a + count[j]] = v - a
            count[j] += 1
    return n


@njit(cache=True)
def _overlaps(h, fam, ov_s, ov_h):
    """Overlap of the hand with every part: ``ov_s[g, v]`` (suit g), ``ov_h[v]`` (any
    integer arrays; the plain loop :func:`nearest_per_row` uses)."""
    suit_vecs = fam.suit_vecs
    hon_vecs = fam.hon_vecs
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


@njit(cache=True, inline="always")
def _need_ok(h, pat, unseen):
    for t in range(34):
        need = pat[t] - h[t]
        if need > 0 and need > unseen[t]:
            return False
    return True


# ---------------------------------------------------------------- nearest pattern


@njit(cache=True)
def _meld_code(pat, q, melds, full):
    """Hands with melds: reject a concealed part whose closed counterpart (the part plus the
    meld tiles, scored as a closed hand in the index) is already below the bar."""
    for t in range(34):
        full[t] = pat[t] + melds.meld_counts[t]
    num = rank_regular(full, melds.pos_s, melds.pos_h, melds.cls_of, melds.full_off,
                       melds.suit_ptr, melds.hon_ptr)
    if num < 0:
        return ACCEPT_VERIFY
    return ACCEPT_NO if q.accept[q.ids[num]] == ACCEPT_NO else ACCEPT_VERIFY


@njit(cache=True, nogil=True)
def nearest(fam, lay, q, melds, rules, vb, examples, ws):
    """Most tiles a hand shares with an accepted complete pattern, and examples.

    Parameters
    ----------
    fam : PatternFamilies
        The pattern families (:mod:`.value_index`).  They may be other families than
        the index was built with (hands with melds), as long as ``q.ids`` is then empty
        or ``melds`` is given.
    lay : QueryLayout
        ``fam``'s parts by column.
    q : IndexQuery
        The hand, the unseen copies, the index's ids and the per-id codes
        (``ACCEPT_NO``, ``ACCEPT_YES`` or ``ACCEPT_VERIFY``: score the pattern in the
        situation of ``q.row`` and accept it if its counted fans reach
        ``q.min_counted``); ``q.wind_mode``: see ``ACCEPT_VERIFY``.  Empty ``q.ids``:
        every pattern is verified.
    melds : MeldRanking
        Meld mode (``melds.pos_s`` not empty; ``fam`` are then the concealed parts and
        ``q.ids`` / ``q.accept`` those of the full index): a part is scored only if its
        closed counterpart passes ``accept`` (:func:`_meld_code`).
    rules : RuleArrays or None
        The scorer's rules for ``ACCEPT_VERIFY``.  ``None`` compiles a query that never
        links the scorer; a pattern to verify is then rejected (callers pass no such
        codes).
    vb : ValueBounds
        Skips subtrees below ``q.prune`` (empty: none skipped).
    examples : int64 (k, 34)
        Filled with up to ``k`` accepted patterns at the best overlap.
    ws : QueryScratch

    Returns
    -------
    (best, n_examples, verified)
        The best overlap (-1 if nothing is accepted), the number of examples written and
        the number of patterns scored.
    """
    suit_ptr = fam.suit_ptr
    hon_ptr = fam.hon_ptr
    classes = fam.classes
    ov_s = ws.ov_s
    ov_h = ws.ov_h
    perm_s = ws.perm_s
    perm_h = ws.perm_h
    mx_s = ws.mx_s
    mx_h = ws.mx_h
    # the per-class loop reads whole 2-d arrays, never views of their rows
    from_s = ws.from_s
    n_s = ws.n_s
    from_h = ws.from_h.reshape((1, ws.from_h.shape[0]))
    n_h = ws.n_h.reshape((1, ws.n_h.shape[0]))
    ov_h2 = ov_h.reshape((1, ov_h.shape[0]))
    perm_h2 = perm_h.reshape((1, perm_h.shape[0]))
    for g in range(3):
        _column_overlaps(q.h, 9 * g, lay.suit_cols, ov_s[g])
        _segment_max(ov_s[g], suit_ptr, mx_s[g])
        for L in range(suit_ptr.shape[0] - 1):
            from_s[g, L] = MAX_OVERLAP + 1      # nothing sorted yet
    _column_overlaps(q.h, 27, lay.hon_cols, ov_h)
    _segment_max(ov_h, hon_ptr, mx_h)
    for L in range(hon_ptr.shape[0] - 1):
        from_h[0, L] = MAX_OVERLAP + 1
    count = ws.count

    n_cls = classes.shape[0]
    bound = ws.bound
    for k in range(n_cls):
        b = mx_h[classes[k, 3]]
        for g in range(3):
            m = mx_s[g, classes[k, g]]
            b = -1000 if (m < 0 or b < 0) else b + m
        bound[k] = b
    cls_order = np.argsort(-bound)

    max_ex = examples.shape[0]
    meld_mode = melds.pos_s.shape[0] > 0
    verify_all = q.ids.shape[0] == 0
    pruning = q.prune > NO_BOUND and vb.off1.shape[0] > 0 and not meld_mode and not verify_all
    pat = ws.pat
    full = ws.full
    # the innermost loops read these arrays, not the bundles (passing a bundle to a
    # function costs a reference count per array)
    h = q.h
    unseen = q.unseen
    ids = q.ids
    accept = q.accept
    check_unseen = q.check_unseen
    suit_vecs = fam.suit_vecs
    hon_vecs = fam.hon_vecs
    slow = meld_mode or verify_all
    careful = slow or q.wind_mode
    seen = ws.seen
    used = ws.used
    seen[:] = -1
    used[0] = 0
    prune = q.prune
    v1 = vb.v1
    v2 = vb.v2
    v3 = vb.v3
    sc = win_scratch(rules.points.shape[0]) if rules is not None else None
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
        m1 = mx_s[1, L1]
        m2 = mx_s[2, L2]
        m3 = mx_h[L3]
        # A part of group g with an overlap below ``best - slack + 1 - (bound - m_g)``
        # (``need + m_g``) cannot reach ``best + 1 - slack`` even
        # with the best parts of the other groups: only the parts above are sorted and
        # visited (the loops below would break before any other).  ``best`` only grows
        # and ``slack`` only shrinks, so the floors stay valid for the whole class.
        need = best - slack + 1 - bound[k]
        # How many of each list's parts to visit: those of overlap ``need + m_g`` or
        # more, sorted into ``perm`` (kept for the rest of the query; sorted again only
        # for a lower floor).
        for g in range(3):
            L = classes[k, g]
            floor = need + mx_s[g, L]
            if floor < from_s[g, L]:
                n_s[g, L] = _sort_segment(ov_s, g, suit_ptr, L, perm_s, count, floor)
                from_s[g, L] = max(floor, 0)
        floor = need + m3
        if floor < from_h[0, L3]:
            n_h[0, L3] = _sort_segment(ov_h2, 0, hon_ptr, L3, perm_h2, count, floor)
            from_h[0, L3] = max(floor, 0)
        p0 = n_s[0, L0]
        p1 = n_s[1, L1]
        p2 = n_s[2, L2]
        p3 = n_h[0, L3]
        off = fam.class_off[k]
        o1 = vb.off1[k] if pruning else 0
        o2 = vb.off2[k] if pruning else 0
        o3 = vb.off3[k] if pruning else 0
        for ia in range(p0):
            a = perm_s[0, suit_ptr[L0] + ia]
            oa = np.int64(ov_s[0, suit_ptr[L0] + a])
            slack = 0 if n_ex >= max_ex else 1
            if oa + m1 + m2 + m3 + slack <= best:
                break
            if pruning and v1[o1 + a] < prune:
                continue
            for ib in range(p1):
                b = perm_s[1, suit_ptr[L1] + ib]
                ob = oa + np.int64(ov_s[1, suit_ptr[L1] + b])
                slack = 0 if n_ex >= max_ex else 1
                if ob + m2 + m3 + slack <= best:
                    break
                if pruning and v2[o2 + a * n1 + b] < prune:
                    continue
                for ic in range(p2):
                    c = perm_s[2, suit_ptr[L2] + ic]
                    oc = ob + np.int64(ov_s[2, suit_ptr[L2] + c])
                    slack = 0 if n_ex >= max_ex else 1
                    if oc + m3 + slack <= best:
                        break
                    if pruning and v3[o3 + (a * n1 + b) * n2 + c] < prune:
                        continue
                    base = off + ((a * n1 + b) * n2 + c) * n3
                    for id_ in range(p3):
                        d = perm_h[hon_ptr[L3] + id_]
                        od = oc + np.int64(ov_h[hon_ptr[L3] + d])
                        slack = 0 if n_ex >= max_ex else 1
                        if od + slack <= best:
                            break
                        if slow:
                            acc = ACCEPT_VERIFY
                        else:
                            acc = accept[ids[base + d]]
                        if acc == ACCEPT_NO:
                            continue
                        put_parts(suit_vecs, hon_vecs, suit_ptr[L0] + a, suit_ptr[L1] + b,
                                   suit_ptr[L2] + c, hon_ptr[L3] + d, pat)
                        # _candidate and _record spelled out: this loop runs per
                        # candidate, and an inlined call costs a reference count per
                        # array it binds
                        if check_unseen:
                            missing = False
                            for t in range(34):
                                x = pat[t] - h[t]
                                if x > 0 and x > unseen[t]:
                                    missing = True
                                    break
                            if missing:
                                continue
                        if careful or acc == ACCEPT_VERIFY:
                            ok, scored = _accepts(acc, pat, meld_mode, q, melds, rules, full,
                                                  sc)
                            verified += scored
                            if not ok:
                                continue
                        if od > best:
                            best = od
                            n_ex = 0
                        elif n_ex >= max_ex:
                            continue
                        even = True
                        for t in range(34):
                            if pat[t] & 1:
                                even = False
                                break
                        if even and _already(pat, n_ex, examples, seen, used):
                            continue
                        for t in range(34):
                            examples[n_ex, t] = pat[t]
                        n_ex += 1
    # the explicit rows (十三幺, 全不靠, 组合龙)
    small = fam.small
    n_prod = fam.class_off[fam.class_off.shape[0] - 1]
    ov_x = ws.ov_x
    for blk in range(lay.block_ptr.shape[0] - 1):
        slack = 0 if n_ex >= max_ex else 1
        if _block_bound(h, lay, blk) + slack <= best:
            continue
        r0 = lay.block_ptr[blk]
        r1 = lay.block_ptr[blk + 1]
        _column_overlaps(h, 0, lay.small_cols[:, r0:r1], ov_x[r0:r1])
        for x in range(r0, r1):
            o = np.int64(ov_x[x])
            slack = 0 if n_ex >= max_ex else 1
            if o + slack <= best:
                continue
            acc = ACCEPT_VERIFY if slow else accept[ids[n_prod + x]]
            if acc == ACCEPT_NO:
                continue
            for t in range(34):
                pat[t] = small[x, t]
            # (组合龙 with a meld is not in the index: scored, not bounded)
            cand = _candidate(acc, pat, h, unseen, check_unseen, careful)
            ok = cand == CAND_TAKEN
            if cand == CAND_ASK:
                ok, scored = _accepts(acc, pat, False, q, melds, rules, full, sc)
                verified += scored
            if ok:
                best, n_ex = _record(o, best, n_ex, pat, examples, seen, used)
    return best, n_ex, verified


CAND_OUT = 0        # _candidate: rejected (too few unseen copies)
CAND_TAKEN = 1      # taken as it is
CAND_ASK = 2        # :func:`_accepts` decides


@njit(cache=True, inline="always")
def _candidate(acc, pat, h, unseen, check_unseen, careful):
    """What becomes of candidate ``pat`` with code ``acc`` (not ``ACCEPT_NO``): its copies
    checked against ``unseen``, then, where the mode (``careful``: melds, everything to
    verify, or wind mode) or the code asks, :func:`_accepts` decides (``CAND_ASK``).  The
    bundles :func:`_accepts` reads are not passed here: binding a bundle in an inlined
    call costs a reference count per array, and this runs per candidate."""
    if check_unseen and not _need_ok(h, pat, unseen):
        return CAND_OUT
    if careful or acc == ACCEPT_VERIFY:
        return CAND_ASK
    return CAND_TAKEN


@njit(cache=True)
def _block_bound(h, lay, blk):
    """The most tiles ``h`` can share with a row of explicit block ``blk`` (QueryLayout)."""
    o = 0
    r = 0
    for t in range(34):
        c = lay.block_core[blk, t]
        x = h[t]
        if x <= c:
            o += x
        else:
            o += c
            y = lay.block_rest[blk, t]
            r += x - c if x - c < y else y
    n = lay.block_rest_n[blk]
    return o + (r if r < n else n)


@njit(cache=True)
def _wind_code(acc, pat):
    """In wind mode: a pattern without a wind pung keeps its index value."""
    for t in range(27, 31):
        if pat[t] >= 3:
            return ACCEPT_VERIFY
    return ACCEPT_YES if acc == ACCEPT_YES else ACCEPT_NO


@njit(cache=True)
def _accepts(acc, pat, meld_mode, q, melds, rules, full, sc):
    """Whether candidate ``pat`` (first code ``acc``, its copies checked against
    ``q.unseen`` already) is taken; ``(ok, 1 if it was scored)``.

    ``full``: 34 ints of scratch; ``sc``: the scorer's (``complete.win_scratch``).
    """
    if meld_mode:
        acc = _meld_code(pat, q, melds, full)
    if q.wind_mode and acc != ACCEPT_NO:
        acc = _wind_code(acc, pat)
    if acc == ACCEPT_NO:
        return False, 0
    if acc == ACCEPT_VERIFY:
        if rules is None:
            return False, 0
        return _verify(pat, q, rules, full, sc), 1
    return True, 0


SEEN_SLOTS = 8192       # QueryScratch.seen: open addressing for up to 4096 examples


@njit(cache=True, inline="always")
def _pattern_hash(pat):
    x = np.uint64(0)
    for t in range(34):
        x = x * np.uint64(5) + np.uint64(pat[t])
    x ^= x >> np.uint64(31)
    x *= np.uint64(0x9E3779B97F4A7C15)
    x ^= x >> np.uint64(29)
    return x


@njit(cache=True, inline="always")
def _same_row(examples, e, pat):
    for t in range(34):
        if examples[e, t] != pat[t]:
            return False
    return True


@njit(cache=True)
def _enter(pat, row, n_ex, examples, seen, used):
    """Find ``pat`` among ``examples[:n_ex]`` by ``seen``; if absent, enter it as ``row``.
    Returns True if found."""
    mask = np.uint64(seen.shape[0] - 1)
    s = _pattern_hash(pat) & mask
    while True:
        e = seen[s]
        if e < 0:
            seen[s] = row
            used[0] += 1
            return False
        if e < n_ex and _same_row(examples, e, pat):
            return True
        s = (s + np.uint64(1)) & mask


@njit(cache=True)
def _already(pat, n_ex, examples, seen, used):
    """True if ``pat`` is among ``examples[:n_ex]``; if not, it is entered as row ``n_ex``
    of them (``seen``: slots of example rows, -1 free; ``used[0]``: slots taken).  A slot
    whose row is now another pattern (the examples restart when the best overlap rises) is
    passed over; when half the slots are taken the table is rebuilt from the examples of
    even counts held now."""
    if seen.shape[0] < 2 * examples.shape[0]:
        for e in range(n_ex):           # more examples than slots: a plain scan
            if _same_row(examples, e, pat):
                return True
        return False
    if 2 * used[0] >= seen.shape[0]:
        seen[:] = -1
        used[0] = 0
        for e in range(n_ex):
            if _even(examples[e]):
                _enter(examples[e], e, e, examples, seen, used)
    return _enter(pat, n_ex, n_ex, examples, seen, used)


@njit(cache=True, inline="always")
def _even(pat):
    for t in range(34):
        if pat[t] & 1:
            return False
    return True


@njit(cache=True, inline="always")
def _record(o, best, n_ex, pat, examples, seen, used):
    """Keep ``pat`` (overlap ``o``) among the examples; returns (best, n_ex)."""
    if o > best:
        best = o
        n_ex = 0
    elif n_ex >= examples.shape[0]:
        return best, n_ex
    # A pattern is listed twice only when it is both seven pairs and regular, so only a
    # pattern of even counts can already be among the examples.
    if _even(pat) and _already(pat, n_ex, examples, seen, used):
        return best, n_ex
    for t in range(34):
        examples[n_ex, t] = pat[t]
    return best, n_ex + 1


@njit(cache=True)
def _verify(pat, q, rules, work, sc):
    """True if the concealed pattern, with ``q.row``'s melds and situation, reaches the bar."""
    row = q.row
    for t in range(34):
        row[COUNTS + t] = pat[t]
    forms = pattern_forms(pat, work)
    if forms == 0:
        # with melds the concealed part is not a whole hand: the scorer decides
        forms = REGULAR | KNITTED_STRAIGHT
    best, _ = best_win_score(row, forms, q.all_tiles, rules, sc)
    return best >= q.min_counted


# ---------------------------------------------------------------- nearest per row


@njit(cache=True)
def nearest_per_row(h, unseen, fam, ids, best, where):
    """For every row id of the index, the most tiles the hand shares with one of its patterns.

    ``best[r]`` (init -1) gets the best overlap among the patterns whose id is
    ``r`` and that need no more copies of a kind than ``unseen``;
    ``where[r]`` the first such pattern number.  One pass over every
    pattern (no pruning: every row wants its own answer); any set of fan
    combinations is then answered from these rows alone.
    """
    suit_ptr = fam.suit_ptr
    hon_ptr = fam.hon_ptr
    ov_s = np.empty((3, fam.suit_vecs.shape[0]), np.int64)
    ov_h = np.empty(fam.hon_vecs.shape[0], np.int64)
    _overlaps(h, fam, ov_s, ov_h)
    pat = np.zeros(34, np.int64)
    for k in range(fam.classes.shape[0]):
        L0 = fam.classes[k, 0]
        L1 = fam.classes[k, 1]
        L2 = fam.classes[k, 2]
        L3 = fam.classes[k, 3]
        s0 = suit_ptr[L0]
        s1 = suit_ptr[L1]
        s2 = suit_ptr[L2]
        s3 = hon_ptr[L3]
        n0 = suit_ptr[L0 + 1] - s0
        n1 = suit_ptr[L1 + 1] - s1
        n2 = suit_ptr[L2 + 1] - s2
        n3 = hon_ptr[L3 + 1] - s3
        off = fam.class_off[k]
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
                        put_parts(fam.suit_vecs, fam.hon_vecs, s0 + a, s1 + b, s2 + c, s3 + d,
                                   pat)
                        if _need_ok(h, pat, unseen):
                            best[r] = od
                            where[r] = base + d
    small = fam.small
    n_prod = fam.class_off[fam.class_off.shape[0] - 1]
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
