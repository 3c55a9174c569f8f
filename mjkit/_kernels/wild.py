"""Every way the wild tiles (财神) can complete a hand.

In the 大众 rules each wild copy held in the concealed hand may stand for any
tile kind.  ``wild_completions`` lists, once each, the multisets of kinds the
wild copies can take so that the concealed part becomes complete in some
form; the scorer substitutes each one and keeps the best score.

The search is a depth-first walk over the assigned kinds in non-decreasing
order, kept on an explicit stack (numba's on-disk cache cannot hold a
recursive call graph, numba issue 6061).  Every partial assignment is pruned
by the test "can these tiles still be completed with ``r`` more tiles in
some form", exact up to the 4-copy limit of declared melds, so nearly every
node visited leads to a completion.  A form out of reach for a partial hand
stays out of reach for every extension, so each node hands the forms still
alive to its children.

Regular form: a table gives, for each one-group pattern (a suit, or the
honours), which (sets, pair) counts it can still grow into.  Per node,
``_accept_masks`` folds three groups to find which options of the fourth
finish the hand; a candidate tile then costs one table lookup.  The special
forms keep a few counters per node (odd counts, missing orphans, knitted
sequences still possible) and test a candidate in a few operations.

The 4-copy limit (hand plus declared melds) is applied when a kind is
assigned; the tables ignore the declared melds, so they may keep a branch
alive that the limit later closes, never the reverse.  All scratch lives in
one int64 workspace (``wild_completions_ws`` takes it from the caller).
"""
import numpy as np
from numba import njit

from .shapes import N_SUIT_KEYS, knitted_tile

# ---------------------------------------------------------------------------
# The (sets, pair) option table.
#
# Entry for a group pattern (a suit: key = sum(count[r] * 5**r) over ranks,
# as ``shapes.suit_key``; the honours: the same over the 7 honour kinds,
# stored after the suits): bit ``s`` set when the pattern is a sub-multiset
# of a pattern of that group (counts <= 4) splitting into exactly ``s`` sets
# and no pair, bit ``5 + s`` when into ``s`` sets and one pair, s = 0..4.
# ---------------------------------------------------------------------------

N_HONOR_KEYS = 5 ** 7
HONOR_OFFSET = N_SUIT_KEYS
WILD_TABLE_LEN = N_SUIT_KEYS + N_HONOR_KEYS

_POW5 = (1, 5, 25, 125, 625, 3125, 15625, 78125, 390625)

# Form bits passed down the search.
FB_REGULAR = 1
FB_SEVEN_PAIRS = 2
FB_ORPHANS = 4
FB_HONORS_KNITTED = 8
FB_KNIT0 = 16          # bits 4..9: knitted straight on sequence k = 0..5
FB_KNIT_ALL = 63 << 4

MAX_WILD = 4


@njit(cache=True)
def _close_downward(table, off, n_digits):
    """OR into each pattern the bits of every pattern one tile larger.

    Keys grow with every added tile, so a descending sweep sees each larger
    pattern already closed.
    """
    n = 5 ** n_digits
    digits = np.zeros(9, np.int64)
    for key in range(n - 1, -1, -1):
        k = key
        for r in range(n_digits):
            digits[r] = k % 5
            k //= 5
        acc = table[off + key]
        w = 1
        for r in range(n_digits):
            if digits[r] < 4:
                acc |= table[off + key + w]
            w *= 5
        table[off + key] = acc


@njit(cache=True)
def build_wild_table(suit_flags):
    """Build the (sets, pair) option table from ``shapes.build_suit_table``.

    Parameters
    ----------
    suit_flags : uint8[5**9]
        The one-suit split flags of ``shapes.build_suit_table`` (bit 0: sets
        only, bit 1: sets and a pair).

    Returns
    -------
    uint16[WILD_TABLE_LEN]
        Suit patterns at ``0 .. 5**9 - 1``, honour patterns from
        ``HONOR_OFFSET`` (see the module comment for the bits).
    """
    table = np.zeros(WILD_TABLE_LEN, np.uint16)
    # Complete suit patterns with at most 4 sets.
    for key in range(N_SUIT_KEYS):
        k = key
        n = 0
        for r in range(9):
            n += k % 5
            k //= 5
        s = n // 3
        if s > 4:
            continue
        f = suit_flags[key]
        if n % 3 == 0 and f & 1:
            table[key] = 1 << s
        elif n % 3 == 2 and f & 2:
            table[key] = 1 << (5 + s)
    # Complete honour patterns: each kind is absent, a pung or the one pair.
    for key in range(N_HONOR_KEYS):
        k = key
        pungs = 0
        pairs = 0
        ok = True
        for r in range(7):
            x = k % 5
            k //= 5
            if x == 3:
                pungs += 1
            elif x == 2:
                pairs += 1
            elif x != 0:
                ok = False
        if ok and pairs <= 1 and pungs <= 4:
            table[HONOR_OFFSET + key] = 1 << (pungs + 5 * pairs)
    _close_downward(table, 0, 9)
    _close_downward(table, HONOR_OFFSET, 7)
    return table


# ---------------------------------------------------------------------------
# Reachability tests
# ---------------------------------------------------------------------------

@njit(cache=True)
def _add_group(nn, pp, m):
    """Fold one group's options into the (no pair, pair) set-count masks."""
    a = m & 31
    b = m >> 5
    new_n = 0
    new_p = 0
    for s in range(5):
        if (a >> s) & 1:
            new_n |= nn << s
            new_p |= pp << s
        if (b >> s) & 1:
            new_p |= nn << s
    return new_n & 31, new_p & 31


@njit(cache=True)
def _sets_and_pair(m0, m1, m2, m3, n_sets):
    """True if the four groups' options add up to ``n_sets`` sets and one pair."""
    if m0 == 0 or m1 == 0 or m2 == 0 or m3 == 0:
        return False
    nn, pp = _add_group(1, 0, m0)
    nn, pp = _add_group(nn, pp, m1)
    nn, pp = _add_group(nn, pp, m2)
    nn, pp = _add_group(nn, pp, m3)
    return (pp >> n_sets) & 1 != 0


# ---------------------------------------------------------------------------
# Workspace: one int64 array per call (or per thread, see
# ``wild_completions_ws``), so the search allocates nothing and passes no
# array views between functions.
# ---------------------------------------------------------------------------

W_H = 0            # 34 counts of the current node
W_KEYS = 34        # 4 group keys of the current node (3 suits, honours)
W_SEQS = 38        # 34: bit k set when kind t is in knitted sequence k
W_LEVELS = 72      # then one block per level (depth 0..MAX_WILD):
L_NXT = 0          # next kind to try
L_SEL = 1          # kind chosen at this level (while deeper levels run)
L_ALIVE = 2        # forms alive at this node
L_ACC = 3          # 4 regular-form accept masks (``_accept_masks``)
L_ODD = 7          # kinds with an odd count (seven pairs)
L_MISSING = 8      # orphan kinds absent (thirteen orphans)
L_EXTRA = 9        # orphan copies beyond the first
L_KNIT_MASK = 10   # sequences holding every suited tile (honours-knitted)
L_KKEYS = 11       # 6 x 4 group keys of what knitted sequence k leaves
L_KACC = 35        # 6 x 4 accept masks of those
LEVEL_LEN = 59
WILD_WS_LEN = W_LEVELS + (MAX_WILD + 1) * LEVEL_LEN


@njit(cache=True)
def _accept_masks(ws, keys_at, table, n_sets, acc_at):
    """Per group, the options that complete the hand given the other groups.

    Reads the 4 group keys at ``ws[keys_at:]``; ``ws[acc_at + g]`` gets bit
    ``s`` when group ``g`` taking ``s`` sets and no pair leaves the other
    three able to supply ``n_sets - s`` sets and the pair, bit ``5 + s``
    when taking ``s`` sets and the pair.  A tile added to group ``g`` then
    keeps the form alive iff ``table[new key] & acc[g]``: one lookup per
    candidate instead of a fold over all four groups.
    """
    m0 = table[ws[keys_at]]
    m1 = table[ws[keys_at + 1]]
    m2 = table[ws[keys_at + 2]]
    m3 = table[HONOR_OFFSET + ws[keys_at + 3]]
    for g in range(4):
        nn = 1
        pp = 0
        if g != 0:
            nn, pp = _add_group(nn, pp, m0)
        if g != 1:
            nn, pp = _add_group(nn, pp, m1)
        if g != 2:
            nn, pp = _add_group(nn, pp, m2)
        if g != 3:
            nn, pp = _add_group(nn, pp, m3)
        a = 0
        for s in range(n_sets + 1):
            if (pp >> (n_sets - s)) & 1:
                a |= 1 << s
            if (nn >> (n_sets - s)) & 1:
                a |= 1 << (5 + s)
        ws[acc_at + g] = a


@njit(cache=True)
def _is_orphan(t):
    return t >= 27 or t % 9 == 0 or t % 9 == 8


@njit(cache=True)
def _shift_key(ws, t, d):
    """Add ``d`` copies of kind ``t`` to the group keys of the current node."""
    if t < 27:
        g = t // 9
        ws[W_KEYS + g] += d * _POW5[t - 9 * g]
    else:
        ws[W_KEYS + 3] += d * _POW5[t - 27]


@njit(cache=True)
def _knit_rest_keys(ws, k, at):
    """Group keys at ``ws[at:]`` of the node minus one of each present tile of
    sequence ``k``; returns how many tiles of the sequence are missing."""
    for g in range(4):
        ws[at + g] = ws[W_KEYS + g]
    missing = 0
    for i in range(9):
        t = knitted_tile(k, i)
        if ws[W_H + t] == 0:
            missing += 1
        else:
            g = t // 9
            ws[at + g] -= _POW5[t - 9 * g]
    return missing


@njit(cache=True)
def _alive(ws, r, forms, n_fixed, table):
    """The forms of ``forms`` the node can still reach with ``r`` more tiles.

    The node always holds ``14 - 3 * n_fixed - r`` tiles, so each test is a
    sub-multiset test of a complete pattern of that form; with ``r == 0``
    it is an exact completeness test.  Used at the root; below it the
    candidate tests of ``wild_completions_ws`` give the same answers
    incrementally.
    """
    out = 0
    if forms & FB_REGULAR:
        if _sets_and_pair(table[ws[W_KEYS]], table[ws[W_KEYS + 1]], table[ws[W_KEYS + 2]],
                          table[HONOR_OFFSET + ws[W_KEYS + 3]], 4 - n_fixed):
            out |= FB_REGULAR
    if forms & FB_KNIT_ALL:
        # The rest (sets and a pair) is then exactly r - missing tiles short.
        at = W_LEVELS + L_KKEYS
        for k in range(6):
            if forms & (FB_KNIT0 << k):
                missing = _knit_rest_keys(ws, k, at)
                if missing <= r and _sets_and_pair(
                        table[ws[at]], table[ws[at + 1]], table[ws[at + 2]],
                        table[HONOR_OFFSET + ws[at + 3]], 1 - n_fixed):
                    out |= FB_KNIT0 << k
    if forms & FB_SEVEN_PAIRS:
        # Every odd count needs one tile; spare tiles go in pairs on empty
        # kinds.  A quad is two pairs, as in ``shapes.seven_pairs_kind``.
        odd = 0
        for t in range(34):
            odd += ws[W_H + t] & 1
        if odd <= r:
            out |= FB_SEVEN_PAIRS
    if forms & FB_ORPHANS:
        ok = True
        missing = 0
        extra = 0
        for t in range(34):
            x = ws[W_H + t]
            if _is_orphan(t):
                if x == 0:
                    missing += 1
                else:
                    extra += x - 1
            elif x != 0:
                ok = False
                break
        if ok and extra <= 1 and missing <= r:
            out |= FB_ORPHANS
    if forms & FB_HONORS_KNITTED:
        # Distinct tiles, the suited ones inside one knitted sequence; the
        # 16 kinds of a sequence plus honours always leave room for r more.
        ok = True
        n_suited = 0
        for t in range(34):
            if ws[W_H + t] > 1:
                ok = False
                break
            if t < 27:
                n_suited += ws[W_H + t]
        if ok:
            ok = False
            for k in range(6):
                inside = 0
                for i in range(9):
                    inside += ws[W_H + knitted_tile(k, i)]
                if inside == n_suited:
                    ok = True
                    break
        if ok:
            out |= FB_HONORS_KNITTED
    return out


@njit(cache=True)
def _node_state(ws, lv, forms, n_fixed, table):
    """What the candidate tests of a node need, for the forms alive there.

    Computed once per node so that testing each of its up to 34 candidate
    kinds costs one table lookup or a few integer operations per form.
    """
    if forms & FB_REGULAR:
        _accept_masks(ws, np.int64(W_KEYS), table, 4 - n_fixed, lv + L_ACC)
    if forms == FB_REGULAR:
        return
    if forms & FB_SEVEN_PAIRS:
        odd = 0
        for t in range(34):
            odd += ws[W_H + t] & 1
        ws[lv + L_ODD] = odd
    if forms & FB_ORPHANS:
        missing = 0
        extra = 0
        for t in range(34):
            if _is_orphan(t):
                x = ws[W_H + t]
                if x == 0:
                    missing += 1
                else:
                    extra += x - 1
        ws[lv + L_MISSING] = missing
        ws[lv + L_EXTRA] = extra
    if forms & FB_HONORS_KNITTED:
        m = 63
        for t in range(27):
            if ws[W_H + t] > 0:
                m &= ws[W_SEQS + t]
        ws[lv + L_KNIT_MASK] = m
    if forms & FB_KNIT_ALL:
        for k in range(6):
            if forms & (FB_KNIT0 << k):
                at = lv + L_KKEYS + 4 * k
                _knit_rest_keys(ws, k, at)
                _accept_masks(ws, at, table, 1 - n_fixed, lv + L_KACC + 4 * k)


@njit(cache=True)
def _special_step(ws, lv, node, t, x, r, table):
    """Special forms of ``node`` still alive after adding one ``t`` (held ``x``)."""
    f = 0
    if node & FB_SEVEN_PAIRS:
        if ws[lv + L_ODD] + (1 if x & 1 == 0 else -1) <= r:
            f |= FB_SEVEN_PAIRS
    if node & FB_ORPHANS and _is_orphan(t):
        # Every orphan kind present once, one of them twice.
        if ws[lv + L_MISSING] - (1 if x == 0 else 0) <= r and \
                ws[lv + L_EXTRA] + (1 if x > 0 else 0) <= 1:
            f |= FB_ORPHANS
    if node & FB_HONORS_KNITTED and x == 0:
        if t >= 27 or ws[lv + L_KNIT_MASK] & ws[W_SEQS + t]:
            f |= FB_HONORS_KNITTED
    if node & FB_KNIT_ALL:
        if t < 27:
            g = t // 9
            w = _POW5[t - 9 * g]
            off = 0
        else:
            g = 3
            w = _POW5[t - 27]
            off = HONOR_OFFSET
        for k in range(6):
            b = FB_KNIT0 << k
            if node & b:
                if x == 0 and (ws[W_SEQS + t] >> k) & 1:
                    # Fills a gap of the sequence: the rest is unchanged.
                    f |= b
                elif table[off + ws[lv + L_KKEYS + 4 * k + g] + w] & ws[lv + L_KACC + 4 * k + g]:
                    f |= b
    return f


# ---------------------------------------------------------------------------
# The search
# ---------------------------------------------------------------------------

@njit(cache=True)
def wild_completions(c, fixed, n_wild, n_fixed, table, out):
    """Every multiset of kinds the wild tiles can take to complete the hand.

    Parameters
    ----------
    c : int64[34]
        Concealed counts of the non-wild tiles (wild copies removed).
    fixed : int64[34]
        Copies of each kind already in declared melds (for the 4-copy limit).
    n_wild : int
        Wild tiles to assign, 0..4; ``c.sum() + n_wild`` must equal
        ``14 - 3 * n_fixed``.
    n_fixed : int
        Declared melds, 0..4.
    table : uint16[WILD_TABLE_LEN]
        ``tables.wild_table()``.
    out : int64[cap, 4]
        Receives one completion per row, the assigned kinds in
        non-decreasing order, unused columns -1.  Rows come in
        lexicographic order.

    Returns
    -------
    int
        Number of completions written, or -1 if there are more than ``cap``
        (rows written so far are valid but incomplete).

    Notes
    -----
    A completion makes ``c`` plus the assigned kinds complete in the regular
    form (``4 - n_fixed`` sets and a pair), or with no meld as seven pairs
    (a quad counts as two pairs), thirteen orphans or honours-and-knitted,
    or with at most one meld as a knitted straight plus ``1 - n_fixed`` sets
    and a pair.  No kind may exceed 4 copies counting ``fixed``.  With
    ``n_wild == 0`` the result is 1 (one all -1 row) if ``c`` is complete.
    Allocates a small workspace; ``wild_completions_ws`` takes one instead.
    """
    ws = np.empty(WILD_WS_LEN, np.int64)
    return wild_completions_ws(c, fixed, n_wild, n_fixed, table, out, ws)


@njit(cache=True)
def wild_completions_ws(c, fixed, n_wild, n_fixed, table, out, ws):
    """``wild_completions`` with a caller-owned workspace.

    ``ws``: int64[WILD_WS_LEN], contents ignored and overwritten; reuse one
    per thread to keep a scoring loop free of allocation.
    """
    cap = out.shape[0]
    width = out.shape[1]
    if n_wild < 0 or n_wild > MAX_WILD or n_fixed < 0 or n_fixed > 4:
        raise ValueError("n_wild must be 0..4 and n_fixed 0..4")
    if width < n_wild:
        raise ValueError("out has fewer columns than wild tiles")
    if ws.shape[0] < WILD_WS_LEN:
        raise ValueError("workspace shorter than WILD_WS_LEN")
    total = 0
    for t in range(34):
        total += c[t]
    if total + n_wild != 14 - 3 * n_fixed:
        raise ValueError("c.sum() + n_wild must equal 14 - 3 * n_fixed")

    for g in range(4):
        ws[W_KEYS + g] = 0
    for t in range(34):
        x = c[t]
        if x < 0 or x + fixed[t] > 4:
            return 0
        ws[W_H + t] = x
        if x > 0:
            _shift_key(ws, t, x)

    forms = FB_REGULAR
    if n_fixed == 0:
        forms |= FB_SEVEN_PAIRS | FB_ORPHANS | FB_HONORS_KNITTED
    if n_fixed <= 1:
        forms |= FB_KNIT_ALL
    forms = _alive(ws, n_wild, forms, n_fixed, table)
    if forms == 0:
        return 0
    if n_wild == 0:
        if cap < 1:
            return -1
        for j in range(width):
            out[0, j] = -1
        return 1
    if forms & (FB_HONORS_KNITTED | FB_KNIT_ALL):
        for t in range(34):
            ws[W_SEQS + t] = 0
        for k in range(6):
            for i in range(9):
                ws[W_SEQS + knitted_tile(k, i)] |= 1 << k

    n = 0
    d = 0
    lv = np.int64(W_LEVELS)  # typed: a literal would compile _node_state twice
    ws[lv + L_NXT] = 0
    ws[lv + L_ALIVE] = forms
    _node_state(ws, lv, forms, n_fixed, table)
    while d >= 0:
        # Scan the candidates of this node from where it left off: emit the
        # leaves, stop at the first inner node to descend into.
        t = ws[lv + L_NXT]
        node = ws[lv + L_ALIVE]
        r = n_wild - d - 1
        down = -1
        down_f = 0
        # Accept masks and keys in locals for the scan (a mask of 0 when the
        # regular form is dead here: no regular candidate passes).
        a0 = 0
        a1 = 0
        a2 = 0
        a3 = 0
        if node & FB_REGULAR:
            a0 = ws[lv + L_ACC]
            a1 = ws[lv + L_ACC + 1]
            a2 = ws[lv + L_ACC + 2]
            a3 = ws[lv + L_ACC + 3]
        k0 = ws[W_KEYS]
        k1 = ws[W_KEYS + 1]
        k2 = ws[W_KEYS + 2]
        k3 = ws[W_KEYS + 3] + HONOR_OFFSET
        while t < 34:
            # group of t, its accept mask and its key with one more t
            if t < 9:
                g = 0
                a = a0
                key = k0 + _POW5[t]
            elif t < 18:
                g = 1
                a = a1
                key = k1 + _POW5[t - 9]
            elif t < 27:
                g = 2
                a = a2
                key = k2 + _POW5[t - 18]
            else:
                g = 3
                a = a3
                key = k3 + _POW5[t - 27]
            if a == 0 and node == FB_REGULAR:
                # No tile of this group can help: skip to the next group.
                t = 9 * g + 9 if g < 3 else 34
                continue
            x = ws[W_H + t]
            if x + fixed[t] < 4:
                f = 0
                if a != 0 and table[key] & a:
                    f = FB_REGULAR
                if node != FB_REGULAR:
                    f |= _special_step(ws, lv, node, t, x, r, table)
                if f != 0:
                    if r > 0:
                        down = t
                        down_f = f
                        break
                    if n >= cap:
                        return -1
                    for j in range(d):
                        out[n, j] = ws[W_LEVELS + j * LEVEL_LEN + L_SEL]
                    out[n, d] = t
                    for j in range(d + 1, width):
                        out[n, j] = -1
                    n += 1
            t += 1
        if down < 0:
            # Node exhausted: take back the kind chosen one level up.
            d -= 1
            lv -= LEVEL_LEN
            if d >= 0:
                u = ws[lv + L_SEL]
                ws[W_H + u] -= 1
                _shift_key(ws, u, -1)
            continue
        # Descend; kinds below ``down`` are not tried again (non-decreasing
        # order), and this node resumes after it.
        ws[lv + L_NXT] = down + 1
        ws[lv + L_SEL] = down
        ws[W_H + down] += 1
        _shift_key(ws, down, 1)
        d += 1
        lv += LEVEL_LEN
        ws[lv + L_NXT] = down
        ws[lv + L_ALIVE] = down_f
        _node_state(ws, lv, down_f, n_fixed, table)
    return n
