"""Hand shapes: completeness, waits, decompositions, special forms.

Everything here works on 34-count arrays and never recurses: numba's on-disk
cache cannot hold a recursive call graph safely (numba issue 6061), so the
decomposition search keeps an explicit stack.
"""

import numpy as np
from numba import njit

from .layout import CHOW, PUNG

MAX_DIVISIONS = 64


@njit(cache=True, inline="always")
def _suited_sets_only(c, base):
    """True if the 9 counts at ``base`` split into pungs and chows only.

    At the lowest rank with count x the chows starting there can be taken as
    x mod 3 (three equal chows are interchangeable with three pungs), so a
    single greedy pass decides it.
    """
    a0 = 0
    a1 = 0
    for r in range(9):
        x = c[base + r] - a0
        if x < 0:
            return False
        x = x % 3
        # chows started at r-2 and r-1 consume tiles here; carry forward.
        a0 = a1 + x
        a1 = x
        if r >= 7 and x > 0:
            return False
    return a0 == 0 and a1 == 0


@njit(cache=True, inline="always")
def _suited_ok(c, base, with_pair):
    if not with_pair:
        return _suited_sets_only(c, base)
    for r in range(9):
        t = base + r
        if c[t] >= 2:
            c[t] -= 2
            ok = _suited_sets_only(c, base)
            c[t] += 2
            if ok:
                return True
    return False


# Pattern table for one suit: key = sum(count[r] * 5**r) over the 9 ranks
# (counts 0..4); entry bit 0 = splits into sets only, bit 1 = into sets and
# one pair.  1,953,125 bytes, built once per process and passed to kernels.
N_SUIT_KEYS = 5 ** 9


@njit(cache=True)
def build_suit_table():
    table = np.zeros(N_SUIT_KEYS, np.uint8)
    c = np.zeros(9, np.int64)
    for key in range(N_SUIT_KEYS):
        k = key
        total = 0
        for r in range(9):
            c[r] = k % 5
            k //= 5
            total += c[r]
        m = total % 3
        flags = 0
        if m == 0 and _suited_sets_only(c, 0):
            flags |= 1
        elif m == 2 and _suited_ok(c, 0, True):
            flags |= 2
        table[key] = flags
    return table


@njit(cache=True, inline="always")
def suit_key(c, base):
    key = 0
    for r in range(8, -1, -1):
        key = key * 5 + c[base + r]
    return key


@njit(cache=True, inline="always")
def _honors_ok(c, with_pair):
    pairs = 0
    for t in range(27, 34):
        x = c[t] % 3
        if x == 2:
            pairs += 1
        elif x == 1:
            return False
    return pairs == (1 if with_pair else 0)


@njit(cache=True, inline="always")
def _group_total(c, g):
    s = 0
    if g < 3:
        for t in range(9 * g, 9 * g + 9):
            s += c[t]
    else:
        for t in range(27, 34):
            s += c[t]
    return s


@njit(cache=True, inline="always")
def _group_ok(c, g, with_pair):
    if g < 3:
        return _suited_ok(c, 9 * g, with_pair)
    return _honors_ok(c, with_pair)


@njit(cache=True)
def is_regular_complete(c):
    """True if the counts form sets plus exactly one pair (counts may exceed 4)."""
    pair_group = -1
    for g in range(4):
        m = _group_total(c, g) % 3
        if m == 1:
            return False
        if m == 2:
            if pair_group >= 0:
                return False
            pair_group = g
    if pair_group < 0:
        return False
    for g in range(4):
        if not _group_ok(c, g, g == pair_group):
            return False
    return True


@njit(cache=True)
def _suit_flags(c, g, key, table):
    """Bit 0: group splits into sets; bit 1: into sets and a pair."""
    if g == 3:
        m = 0
        pairs = 0
        for t in range(27, 34):
            x = c[t] % 3
            if x == 1:
                return 0
            if x == 2:
                pairs += 1
        if pairs == 0:
            return 1
        return 2 if pairs == 1 else 0
    if key >= 0:
        return table[key]
    # a count of 5 (a wait on a fifth copy) is outside the table
    m = _group_total(c, g) % 3
    if m == 0:
        return 1 if _group_ok(c, g, np.bool_(False)) else 0
    if m == 2:
        return 2 if _group_ok(c, g, np.bool_(True)) else 0
    return 0


@njit(cache=True)
def count_waits(standing, closed, first_tile, table):
    """Number of distinct tiles (capped at 2) that complete ``standing``.

    The regular form always counts; with ``closed`` (no meld at all) the
    seven-pairs wait counts too.  Waits are structural: a tile whose four
    copies are all in the hand still counts, as in the reference calculator.
    ``first_tile`` is tried first so the usual unique-wait case stops early.
    Only the group (suit or honours) of a candidate tile is re-examined,
    through the pattern ``table``.
    """
    n = 0
    seen = -1
    # Seven-pairs wait: six pairs (a quad is two) and one odd tile.
    if closed:
        total = 0
        pairs = 0
        odd = -1
        for t in range(34):
            total += standing[t]
            pairs += standing[t] // 2
            if standing[t] % 2 == 1:
                odd = t
        if total == 13 and pairs == 6:
            n = 1
            seen = odd
    # typed offsets: literals would compile suit_key once per constant
    k0 = suit_key(standing, np.int64(0))
    k1 = suit_key(standing, np.int64(9))
    k2 = suit_key(standing, np.int64(18))
    n_pair_ok = 0
    n_bad = 0
    bad_group = -1
    st = 0  # bit g: group g splits into sets; bit g+4: into sets and a pair
    for g in range(4):
        key = k0 if g == 0 else (k1 if g == 1 else (k2 if g == 2 else -1))
        fl = _suit_flags(standing, g, key, table)
        if fl & 1:
            st |= 1 << g
        elif fl & 2:
            st |= 1 << (g + 4)
            n_pair_ok += 1
        else:
            n_bad += 1
            bad_group = g
    if n_bad > 1:
        return n
    # With one group that does not split, only its tiles can complete the hand.
    lo = 0
    hi = 34
    if n_bad == 1:
        lo = 27 if bad_group == 3 else 9 * bad_group
        hi = 34 if bad_group == 3 else lo + 9
    for k in range(lo - 1, hi):
        t = first_tile if k == lo - 1 else k
        if k >= lo and t == first_tile:
            continue
        if t < lo or t >= hi:
            continue
        if t == seen:
            continue
        g = 3 if t >= 27 else t // 9
        # The other groups must be clean: all sets, at most one with the pair.
        bad_other = n_bad - (0 if (st >> g) & 1 or (st >> (g + 4)) & 1 else 1)
        if bad_other > 0:
            continue
        pair_other = n_pair_ok - (1 if (st >> (g + 4)) & 1 else 0)
        if pair_other > 1:
            continue
        # Only tiles next to something in hand can complete it.
        if standing[t] == 0:
            if t >= 27:
                continue
            r = t % 9
            near = False
            for d in (-2, -1, 1, 2):
                rr = r + d
                if 0 <= rr < 9 and standing[t + d] > 0:
                    near = True
            if not near:
                continue
        key = -1
        if g < 3 and standing[t] < 4:
            key = (k0 if g == 0 else (k1 if g == 1 else k2)) + (
                1, 5, 25, 125, 625, 3125, 15625, 78125, 390625)[t % 9]
        standing[t] += 1
        fl = _suit_flags(standing, g, key, table)
        standing[t] -= 1
        ok = (fl & 1) != 0 if pair_other == 1 else (fl & 2) != 0
        if ok:
            n += 1
            if n >= 2:
                return 2
    return n


@njit(cache=True, inline="always")
def _put_back(c, kind, t):
    """Return the tiles of a pung or chow at ``t`` to the counts."""
    if kind == PUNG:
        c[t] += 3
    else:
        c[t] += 1
        c[t + 1] += 1
        c[t + 2] += 1


@njit(cache=True)
def enumerate_divisions(c, n_sets, out_kind, out_tile, out_pair, scratch):
    """Every split of ``c`` into ``n_sets`` sets and one pair.

    Fills ``out_kind[4 * i + j]``/``out_tile[4 * i + j]`` (kind CHOW or PUNG,
    lowest tile) for division ``i`` and returns how many there are (at most
    ``len(out_pair)``).  Each division appears once: the pair is chosen
    first, then sets are peeled from the lowest remaining tile, which must
    start a pung or a chow.  ``c`` is restored.  ``scratch``: 15 ints.
    Groups are checked first (greedily) so only viable pairs are searched.
    """
    nd = 0
    cap = out_pair.shape[0]
    stk_t = scratch[0:5]
    stk_s = scratch[5:10]
    kinds = scratch[10:15]
    # The pair sits in the one group whose size is 2 mod 3; every other group
    # must split into sets on its own.
    pg = -1
    for g in range(4):
        m = _group_total(c, g) % 3
        if m == 1:
            return 0
        if m == 2:
            if pg >= 0:
                return 0
            pg = g
    if pg < 0:
        return 0
    for g in range(3):
        if g != pg and not _suited_sets_only(c, 9 * g):
            return 0
    if pg != 3 and not _honors_ok(c, np.bool_(False)):
        return 0
    lo_p = 27 if pg == 3 else 9 * pg
    hi_p = 34 if pg == 3 else 9 * pg + 9
    for p in range(lo_p, hi_p):
        if c[p] < 2:
            continue
        c[p] -= 2
        if pg < 3:
            if not _suited_sets_only(c, 9 * pg):
                c[p] += 2
                continue
        elif not _honors_ok(c, np.bool_(False)):
            c[p] += 2
            continue
        if n_sets == 0:
            ok = True
            for t in range(34):
                if c[t] != 0:
                    ok = False
            if ok and nd < cap:
                out_pair[nd] = p
                nd += 1
            c[p] += 2
            continue
        d = 0
        lo = 0
        while lo < 34 and c[lo] == 0:
            lo += 1
        if lo == 34:
            c[p] += 2
            continue
        stk_t[0] = lo
        stk_s[0] = 0
        while d >= 0:
            if d == n_sets:
                if nd < cap:
                    for j in range(n_sets):
                        out_kind[4 * nd + j] = kinds[j]
                        out_tile[4 * nd + j] = stk_t[j]
                    out_pair[nd] = p
                    nd += 1
                d -= 1
                _put_back(c, kinds[d], stk_t[d])
                continue
            t = stk_t[d]
            st = stk_s[d]
            placed = False
            if st == 0:
                stk_s[d] = 1
                # Sets are taken in (tile, pung before chow) order, so a pung
                # may not follow a chow on the same tile: that split is found
                # with the pung first.
                if c[t] >= 3 and not (d > 0 and stk_t[d - 1] == t and kinds[d - 1] == CHOW):
                    c[t] -= 3
                    kinds[d] = PUNG
                    placed = True
            elif st == 1:
                stk_s[d] = 2
                if t < 27 and t % 9 <= 6 and c[t] > 0 and c[t + 1] > 0 and c[t + 2] > 0:
                    c[t] -= 1
                    c[t + 1] -= 1
                    c[t + 2] -= 1
                    kinds[d] = CHOW
                    placed = True
            else:
                # Exhausted: undo the set that led here and go up.
                d -= 1
                if d >= 0:
                    _put_back(c, kinds[d], stk_t[d])
                continue
            if placed:
                d += 1
                if d < n_sets:
                    # every tile below the one just used is exhausted
                    lo = stk_t[d - 1]
                    while lo < 34 and c[lo] == 0:
                        lo += 1
                    if lo == 34:
                        # Cannot happen with consistent counts; undo and retry.
                        d -= 1
                        _put_back(c, kinds[d], stk_t[d])
                        continue
                    stk_t[d] = lo
                    stk_s[d] = 0
        c[p] += 2
    return nd


@njit(cache=True, inline="always")
def knitted_tile(k, i):
    """Tile ``i`` (0..8) of knitted sequence ``k`` (0..5).

    Sequence k gives 147, 258, 369 to the suits of the k-th permutation of
    (m, p, s); tile i is offset i // 3 of rank-group i % 3.
    """
    # permutations of (0, 1, 2): which suit takes 147, 258, 369
    if k == 0:
        a, b, d = 0, 1, 2
    elif k == 1:
        a, b, d = 0, 2, 1
    elif k == 2:
        a, b, d = 1, 0, 2
    elif k == 3:
        a, b, d = 1, 2, 0
    elif k == 4:
        a, b, d = 2, 0, 1
    else:
        a, b, d = 2, 1, 0
    g = i // 3
    j = i % 3
    suit = a if g == 0 else (b if g == 1 else d)
    return 9 * suit + g + 3 * j


@njit(cache=True)
def find_knitted(c):
    """Index of a knitted sequence fully present in ``c``, or -1."""
    for k in range(6):
        ok = True
        for i in range(9):
            if c[knitted_tile(k, i)] == 0:
                ok = False
                break
        if ok:
            return k
    return -1


@njit(cache=True)
def is_thirteen_orphans(c):
    total = 0
    for t in range(34):
        total += c[t]
    if total != 14:
        return False
    for t in range(34):
        orphan = t >= 27 or t % 9 == 0 or t % 9 == 8
        if orphan:
            if c[t] == 0:
                return False
        elif c[t] != 0:
            return False
    return True


@njit(cache=True)
def honors_knitted_kind(c):
    """0 if not 全不靠/七星不靠; 1 全不靠 (lesser); 2 七星不靠 (greater).

    Fourteen distinct tiles: every suited one from one knitted sequence,
    7 to 9 of them, the rest honours.
    """
    total = 0
    n_suited = 0
    for t in range(34):
        if c[t] > 1:
            return 0
        total += c[t]
        if t < 27:
            n_suited += c[t]
    if total != 14 or n_suited < 7 or n_suited > 9:
        return 0
    for k in range(6):
        inside = 0
        for i in range(9):
            inside += c[knitted_tile(k, i)]
        if inside == n_suited:
            return 2 if n_suited == 7 else 1
    return 0


@njit(cache=True)
def seven_pairs_kind(c):
    """0 not seven pairs; 1 seven pairs; 2 seven shifted pairs (连七对)."""
    total = 0
    for t in range(34):
        if c[t] % 2 == 1:
            return 0
        total += c[t]
    if total != 14:
        return 0
    for base in (0, 9, 18):
        for start in range(3):
            run = True
            for r in range(start, start + 7):
                if c[base + r] != 2:
                    run = False
                    break
            if run:
                return 2
    return 1


@njit(cache=True)
def leftmost_reading(c, n_sets, kinds, tiles, work):
    """The old client's reading of a complete concealed part (seed 000 §六.2).

    The client reads the sorted tiles from the left: at the lowest tile left
    it takes the pair if none is taken yet, else a pung, else a chow, and
    backs up only when that leads nowhere.  Writes the groups in the order
    they were taken (``kinds``: 0 pair, ``PUNG``, ``CHOW``; ``tiles``: their
    lowest tile) and returns their number (``n_sets + 1``), or -1 if the
    tiles do not split.  ``work`` holds at least 40 ints.  An explicit stack:
    no recursion (see the module docstring).
    """
    cc = work[0:34]
    for t in range(34):
        cc[t] = c[t]
    tried = work[34:40]      # per depth: the next choice to try (0 pair, 1 pung, 2 chow)
    need = n_sets + 1
    depth = 0
    has_pair = False
    tried[0] = 0
    while depth < need:
        t = 0
        while t < 34 and cc[t] == 0:
            t += 1
        placed = False
        if t < 34:
            ch = tried[depth]
            while ch <= 2 and not placed:
                if ch == 0:
                    if not has_pair and cc[t] >= 2:
                        cc[t] -= 2
                        has_pair = True
                        kinds[depth] = 0
                        placed = True
                elif ch == 1:
                    if cc[t] >= 3:
                        cc[t] -= 3
                        kinds[depth] = PUNG
                        placed = True
                elif t < 27 and t % 9 <= 6 and cc[t + 1] > 0 and cc[t + 2] > 0:
                    cc[t] -= 1
                    cc[t + 1] -= 1
                    cc[t + 2] -= 1
                    kinds[depth] = CHOW
                    placed = True
                if not placed:
                    ch += 1
            if placed:
                tiles[depth] = t
                tried[depth] = ch
                depth += 1
                if depth < need:
                    tried[depth] = 0
                continue
        # nothing fits here: undo the previous group and try its next choice
        depth -= 1
        if depth < 0:
            return -1
        t = tiles[depth]
        k = kinds[depth]
        if k == 0:
            cc[t] += 2
            has_pair = False
        else:
            _put_back(cc, k, t)
        tried[depth] += 1
    for t in range(34):
        if cc[t] != 0:
            return -1
    return need


@njit(cache=True)
def leftmost_wait(c, n_sets, win, work):
    """Where the old client puts the winning tile: 0 none, 1 边张, 2 嵌张, 3 单钓.

    The drawn tile sorts after its equal copies, so it belongs to the last
    group of the client's reading (:func:`leftmost_reading`) holding its
    kind: 2344 drawing 4 is 234 + 44, a 单钓; 2234 drawing 2 is 22 + 234, no
    单钓; 12345 drawing 3 reads 123 + 345, no 边张.  ``work``: 50 ints.
    """
    kinds = work[40:45]
    tiles = work[45:50]
    n = leftmost_reading(c, n_sets, kinds, tiles, work)
    if n < 0:
        return 0
    g = -1
    for i in range(n):
        t = tiles[i]
        if kinds[i] == CHOW:
            if t <= win <= t + 2:
                g = i
        elif t == win:
            g = i
    if g < 0:
        return 0
    if kinds[g] == 0:
        return 3
    if kinds[g] != CHOW:
        return 0
    pos = win - tiles[g]
    if pos == 1:
        return 2
    r = tiles[g] % 9
    if (pos == 2 and r == 0) or (pos == 0 and r == 6):
        return 1
    return 0
