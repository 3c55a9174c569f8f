"""Score one hand row: every reading, the rule set's 不计 lists, the best total.

Readings tried (就高不就低: the highest total wins):

* 组合龙 + one set + pair (closed, or with one meld): :func:`knitted_reading`;
* otherwise, closed: 七对 / 连七对, 十三幺, 全不靠 / 七星不靠: :func:`special_reading`;
* every split into four sets and a pair (also when seven pairs fit, since a
  regular reading can score more): :func:`regular_readings`.

Each reading writes its fans and its decomposition record into the scratch
(``EvalScratch.cand`` / ``cand_dec``) and ends in the one shared step,
:func:`keep_best`.  :func:`score_row` runs them in that order and
:func:`finish` adds what comes after the best reading (连拉, flowers, 无财神).

Equal totals (which change the fans listed, never the total) follow the
reference calculator: a regular reading is preferred to seven pairs; among
regular readings, visited in reading order (sets sorted by ``tie_order``, a
pung before a chow on the same tile), the first is kept unless a later one
shows 一色三同顺 or 三同刻.

Entry points: :func:`score_hand_row` scores any row (wild tiles, either wait
rule) and is what the game, completion and value-index kernels call;
:func:`score_plain_row` / :func:`score_rows_plain` score rows without a wild
tile in hand, with the wait fan of the old client's reading given by the
caller (:func:`leftmost_wait_fan`), so that neither the wild-tile search nor
the leftmost reading is compiled for a call that does not need them.

Constants passed to other kernels are typed (``np.int64(0)``,
``np.bool_(False)``): a literal argument makes numba compile one more
specialization of the callee per constant.
"""

import numpy as np
from numba import njit, prange

from . import fan_ids as F
from .bundles import EvalScratch, HandFacts, ScoreOut
from .fans import (
    chow_fans, concealment_fans, kong_fans, pack_trait_fans, pair_fans, pung_fans,
    situation_fans, terminal_chows_fans, terminal_honor_pungs, tile_fans, wait_position_fans,
    win_fans,
)
from .layout import (
    CHOW, COUNTS, DEC_COUNTED, DEC_FORM, DEC_KNIT, DEC_LEN, DEC_PAIR, DEC_SETS, DEC_WILD,
    DEC_WILD_WIN,
    F_KONG, F_LAST_COPY, F_LAST_WALL, F_LEFTMOST, F_SELF_DRAWN, F_WILD_SUBST, FLAGS,
    FLOWER_MASK, FLOWERS, FORM_EIGHT_FLOWERS, FORM_HONORS_KNITTED, FORM_KNITTED_STRAIGHT,
    FORM_NONE, FORM_REGULAR, FORM_SEVEN_PAIRS, FORM_THIRTEEN_ORPHANS, KONG, LIANLA, M_CHOW,
    M_CKONG, M_KONG, M_PUNG, MELDS, PUNG, ROUND, SEAT, WILD, WIN,
)
from .shapes import (
    MAX_DIVISIONS, count_waits, enumerate_divisions, find_knitted, honors_knitted_kind,
    is_thirteen_orphans, knitted_tile, leftmost_wait, seven_pairs_kind,
)
from .wild import WILD_WS_LEN, wild_completions_ws

MAX_FANS = 128

# The fields of EvalScratch and their sizes, in order: the one place the
# workspace layout is written down (eval_scratch carves it).
_SCRATCH_SIZES = (
    ("c", 34), ("allc", 34), ("standing", 34), ("rem", 34),
    ("kind", 4), ("tile", 4), ("exposed", 4), ("fixed", 4), ("knit_set", 12), ("work", 32),
    ("base", MAX_FANS), ("cand", MAX_FANS), ("cand_raw", MAX_FANS), ("present", MAX_FANS),
    ("cand_dec", DEC_LEN),
    ("split_kind", 4 * MAX_DIVISIONS), ("split_tile", 4 * MAX_DIVISIONS),
    ("split_pair", MAX_DIVISIONS), ("split_key", MAX_DIVISIONS), ("split_order", MAX_DIVISIONS),
    ("leftmost", 84), ("wild", WILD_WS_LEN), ("fan", MAX_FANS),
)
assert tuple(n for n, _ in _SCRATCH_SIZES) == EvalScratch._fields
_BOUNDS = tuple(sum(size for _, size in _SCRATCH_SIZES[:i]) for i in range(len(_SCRATCH_SIZES) + 1))
#: Length of the int64 workspace every entry point takes (``ws``).
WS_LEN = _BOUNDS[-1]

# The record a reading writes: form, pair, knitted sequence, 4 x (kind, tile, exposed).
_REC_LEN = DEC_SETS + 12

# 边张 / 嵌张 / 单钓将 by the codes leftmost_wait returns (0 = none).
_WAIT_FAN = (-1, F.EDGE_WAIT, F.CLOSED_WAIT, F.SINGLE_WAIT)
# 七对 / 连七对 and 全不靠 / 七星不靠 by the kinds seven_pairs_kind and
# honors_knitted_kind return (0 = none).
_SEVEN_PAIRS_FAN = (-1, F.SEVEN_PAIRS, F.SEVEN_SHIFTED_PAIRS)
_HONORS_KNITTED_FAN = (-1, F.LESSER_HONORS_AND_KNITTED_TILES, F.GREATER_HONORS_AND_KNITTED_TILES)
#: ``wait_fan`` meaning the 国标 rule: wait fans on a sole wait only.
WAIT_UNIQUE = -2


@njit(cache=True, inline="always")
def eval_scratch(ws):
    """The named views (:class:`~mjkit._kernels.bundles.EvalScratch`) of a ``WS_LEN`` workspace."""
    b = _BOUNDS
    return EvalScratch(
        ws[b[0]:b[1]], ws[b[1]:b[2]], ws[b[2]:b[3]], ws[b[3]:b[4]], ws[b[4]:b[5]],
        ws[b[5]:b[6]], ws[b[6]:b[7]], ws[b[7]:b[8]], ws[b[8]:b[9]], ws[b[9]:b[10]],
        ws[b[10]:b[11]], ws[b[11]:b[12]], ws[b[12]:b[13]], ws[b[13]:b[14]], ws[b[14]:b[15]],
        ws[b[15]:b[16]], ws[b[16]:b[17]], ws[b[17]:b[18]], ws[b[18]:b[19]], ws[b[19]:b[20]],
        ws[b[20]:b[21]], ws[b[21]:b[22]], ws[b[22]:b[23]])


@njit(cache=True)
def apply_rules(cand, rules, present):
    """Drop disabled fans, apply 不计 highest fan first; return the total.

    Only the fans present are visited: they are collected, put in rule order
    (``rules.rank[f]`` is the position of fan f in ``rules.order``) and each
    one still present removes the fans it excludes.  ``present`` is scratch.
    """
    points, excl_ptr, excl_idx, rank = rules.points, rules.excl_ptr, rules.excl_idx, rules.rank
    n = points.shape[0]
    m = 0
    for f in range(n):
        if cand[f] > 0:
            if points[f] <= 0:
                cand[f] = 0
                continue
            # insertion by rule order (a reading has a dozen fans at most)
            j = m
            while j > 0 and rank[present[j - 1]] > rank[f]:
                present[j] = present[j - 1]
                j -= 1
            present[j] = f
            m += 1
    total = 0
    for k in range(m):
        f = present[k]
        if cand[f] > 0:
            for j in range(excl_ptr[f], excl_ptr[f + 1]):
                cand[excl_idx[j]] = 0
    for k in range(m):
        f = present[k]
        total += cand[f] * points[f]
    return total


@njit(cache=True, inline="always")
def sort_by_key(a, n, key):
    """Insertion-sort the first ``n`` entries of ``a`` by ``key[a[i]]`` (stable)."""
    for i in range(1, n):
        x = a[i]
        j = i - 1
        while j >= 0 and key[a[j]] > key[x]:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = x


@njit(cache=True, inline="always")
def _sort_plain(a, n):
    for i in range(1, n):
        x = a[i]
        j = i - 1
        while j >= 0 and a[j] > x:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = x


@njit(cache=True, inline="always")
def is_nine_gates(standing):
    for base in (0, 9, 18):
        ok = standing[base] == 3 and standing[base + 8] == 3
        if ok:
            for r in range(1, 8):
                if standing[base + r] != 1:
                    ok = False
                    break
        if ok:
            return True
    return False


# ---------------------------------------------------------------- the row


@njit(cache=True)
def read_row(row, s):
    """Read a row into the scratch: counts, melds (``s.kind`` ...) and the fans
    every reading shares (``s.base``); return its :class:`HandFacts`."""
    c = s.c
    allc = s.allc
    n_distinct_suited = np.int64(0)
    for t in range(34):
        x = row[COUNTS + t]
        c[t] = x
        allc[t] = x
        if t < 27 and x > 0:
            n_distinct_suited += 1
    win = np.int64(row[WIN])
    flags = np.int64(row[FLAGS])
    wild = row[WILD]
    all_flowers = row[FLOWERS] == 8 or row[FLOWER_MASK] == 255
    kind, tile, exposed, fixed = s.kind, s.tile, s.exposed, s.fixed
    for i in range(4):
        kind[i] = 0
        tile[i] = 0
        exposed[i] = 0
        fixed[i] = 0
    n_fixed = np.int64(0)
    n_exposed = np.int64(0)
    n_kongs = np.int64(0)
    n_wild_kongs = 0
    for i in range(4):
        mt = row[MELDS + 2 * i]
        t = row[MELDS + 2 * i + 1]
        if mt == 0:
            continue
        fixed[n_fixed] = 1
        tile[n_fixed] = t
        if mt == M_CHOW:
            kind[n_fixed] = CHOW
            exposed[n_fixed] = 1
            allc[t] += 1
            allc[t + 1] += 1
            allc[t + 2] += 1
        elif mt == M_PUNG:
            kind[n_fixed] = PUNG
            exposed[n_fixed] = 1
            allc[t] += 3
        else:
            kind[n_fixed] = KONG
            exposed[n_fixed] = 1 if mt == M_KONG else 0
            allc[t] += 4
            n_kongs += 1
            if mt == M_CKONG and t == wild:
                n_wild_kongs += 1
        if exposed[n_fixed]:
            n_exposed += 1
        n_fixed += 1

    self_drawn = (flags & F_SELF_DRAWN) != 0
    last_copy = (flags & F_LAST_COPY) != 0
    kong = (flags & F_KONG) != 0
    last_wall = (flags & F_LAST_WALL) != 0
    # Situations the tiles decide: three copies of the winning tile in melds
    # make it the last copy; one in the concealed hand rules it out.
    in_melds = allc[win] - c[win]
    if c[win] > 1:
        last_copy = False
    if in_melds == 3:
        last_copy = True
    if kong:
        if self_drawn:
            if n_kongs == 0:
                kong = False
        elif in_melds > 0 or c[win] > 1:
            kong = False

    # Fans every reading shares: how it was won and what tiles it holds.
    base = s.base
    for f in range(base.shape[0]):
        base[f] = 0
    win_fans(self_drawn, last_copy, kong, last_wall, base)
    concealment_fans(n_exposed, self_drawn, base)
    tile_fans(allc, n_kongs, base)
    situation_fans(flags, base)
    if n_wild_kongs > 0:
        base[F.WILD_KONG] = 1
    if all_flowers:
        base[F.EIGHT_FLOWERS] = 1
    return HandFacts(win, np.int64(row[SEAT]), np.int64(row[ROUND]), flags, n_fixed, n_exposed,
                     self_drawn, n_distinct_suited, all_flowers)


# ------------------------------------------------------- the one keep step


@njit(cache=True, inline="always")
def rule_candidate(s, rules, want_raw):
    """Apply the rule set to the reading in ``s.cand``; keep its fans before 不计
    in ``s.cand_raw`` first if wanted.  Returns its total."""
    if want_raw:
        for f in range(rules.points.shape[0]):
            s.cand_raw[f] = s.cand[f]
    return apply_rules(s.cand, rules, s.present)


@njit(cache=True, inline="always")
def keep_best(best, total, tie_wins, s, out, nf):
    """The step every reading ends with: keep it if it beats ``best``.

    A higher total wins; an equal one only if ``tie_wins`` (the tie rules
    of the reading).  Kept: the fans (``s.cand``, and ``s.cand_raw`` when
    ``out.raw`` is wanted) and the decomposition record (``s.cand_dec``).
    Returns the best total so far.
    """
    if total > best or (total == best and tie_wins):
        fan = out.fan
        for f in range(nf):
            fan[f] = s.cand[f]
        raw = out.raw
        if raw.shape[0] >= nf:
            for f in range(nf):
                raw[f] = s.cand_raw[f]
        dec = out.dec
        for i in range(_REC_LEN):
            dec[i] = s.cand_dec[i]
        return total
    return best


@njit(cache=True, inline="always")
def _start_candidate(s, form, nf):
    """The candidate starts from the shared fans and an empty record of ``form``."""
    for f in range(nf):
        s.cand[f] = s.base[f]
    rec = s.cand_dec
    for i in range(_REC_LEN):
        rec[i] = 0
    rec[DEC_FORM] = form
    rec[DEC_KNIT] = -1


# -------------------------------------------------------------- readings


@njit(cache=True)
def knitted_reading(h, s, rules, out, best):
    """组合龙 with one set (a meld or concealed) and a pair: score it and keep it."""
    c = s.c
    k = find_knitted(c)
    if k < 0:
        return best
    n_fixed = h.n_fixed
    win = h.win
    rem = s.rem
    for t in range(34):
        rem[t] = c[t]
    for i in range(9):
        rem[knitted_tile(k, i)] -= 1
    dk, dt, dp = s.split_kind, s.split_tile, s.split_pair
    nd = enumerate_divisions(rem, 1 - n_fixed, dk, dt, dp, s.work)
    if nd != 1:
        return best
    nf = rules.points.shape[0]
    _start_candidate(s, np.int64(FORM_KNITTED_STRAIGHT), nf)
    cand = s.cand
    k1 = s.knit_set[0:4]
    t1 = s.knit_set[4:8]
    x1 = s.knit_set[8:12]
    for i in range(4):
        k1[i] = 0
        t1[i] = 0
        x1[i] = 0
    k1[0] = s.kind[0] if n_fixed == 1 else dk[0]
    t1[0] = s.tile[0] if n_fixed == 1 else dt[0]
    x1[0] = n_fixed
    e4 = s.exposed[0] if n_fixed == 1 else 0
    pair = dp[0]
    cand[F.KNITTED_STRAIGHT] = 1
    pair_fans(pair, cand)
    if k1[0] == CHOW:
        if pair < 27:
            cand[F.ALL_CHOWS] = 1
    elif k1[0] == KONG:
        kong_fans(e4, 1 - e4, np.int64(0), rules.points, cand)
    # Waits are read on the set and pair alone: closed, a sole wait there
    # earns its fan; with a meld, the pair is the only place left, so a
    # winning tile held twice before is 单钓将.
    if n_fixed == 0:
        if rem[win] > 0:
            rem[win] -= 1
            if count_waits(rem, np.bool_(False), win, rules.table) == 1:
                wait_position_fans(k1, t1, x1, pair, win, cand)
            rem[win] += 1
    elif c[win] > 1:
        cand[F.SINGLE_WAIT] = 1
    terminal_honor_pungs(k1, t1, np.int64(1), cand, h.seat, h.rnd, rules.covers,
                         np.bool_(False))
    total = rule_candidate(s, rules, out.raw.shape[0] >= nf)
    rec = s.cand_dec
    rec[DEC_PAIR] = pair
    rec[DEC_KNIT] = k
    rec[DEC_SETS] = k1[0]
    rec[DEC_SETS + 1] = t1[0]
    rec[DEC_SETS + 2] = e4
    return keep_best(best, total, np.bool_(False), s, out, nf)


@njit(cache=True)
def special_reading(h, s, rules, out, best):
    """Closed special forms: 七对 / 连七对, 十三幺, 全不靠 / 七星不靠."""
    c = s.c
    form = FORM_NONE
    shape_fan = -1
    sp = seven_pairs_kind(c)
    if sp > 0:
        shape_fan = _SEVEN_PAIRS_FAN[sp]
        form = FORM_SEVEN_PAIRS
    elif is_thirteen_orphans(c):
        shape_fan = F.THIRTEEN_ORPHANS
        form = FORM_THIRTEEN_ORPHANS
    else:
        hk = honors_knitted_kind(c)
        if hk > 0:
            shape_fan = _HONORS_KNITTED_FAN[hk]
            form = FORM_HONORS_KNITTED
    if form == FORM_NONE:
        return best
    # the candidate is only set up for a form that fits (most hands have none)
    nf = rules.points.shape[0]
    _start_candidate(s, np.int64(form), nf)
    cand = s.cand
    cand[shape_fan] = 1
    if form == FORM_THIRTEEN_ORPHANS:
        for t in range(34):
            if c[t] == 2:
                pair_fans(t, cand)
    elif shape_fan == F.LESSER_HONORS_AND_KNITTED_TILES:
        n_suited = 0
        for t in range(27):
            n_suited += c[t]
        if n_suited == 9:
            cand[F.KNITTED_STRAIGHT] = 1
    total = rule_candidate(s, rules, out.raw.shape[0] >= nf)
    return keep_best(best, total, np.bool_(False), s, out, nf)


@njit(cache=True)
def regular_reading(h, s, rules, pair, n_waits, wait_fan, nine_gates):
    """Fans of one split into four sets and a pair (``s.kind`` ..., melds first)
    added to ``s.cand`` (tile-level fans excluded).

    Wait fans: with ``wait_fan == WAIT_UNIQUE`` the 国标 rule (a sole wait,
    ``n_waits == 1``, read from where the winning tile sits in this split);
    otherwise ``wait_fan`` is the fan the old client's reading gives (-1 for
    none).
    """
    kind, tile, exposed, fixed = s.kind, s.tile, s.exposed, s.fixed
    points = rules.points
    fan = s.cand
    scratch = s.work
    win = h.win
    # A pung completed by a discard is exposed, unless the winning tile can be
    # read as part of a concealed chow instead.
    win_pung_exposed = False
    if not h.self_drawn:
        win_pung_exposed = True
        for i in range(4):
            if fixed[i] == 0 and kind[i] == CHOW and tile[i] <= win <= tile[i] + 2:
                win_pung_exposed = False
    mk = np.int64(0)
    ck = np.int64(0)
    cp = np.int64(0)
    n_chows = np.int64(0)
    n_pungs = np.int64(0)
    ctiles = scratch[0:4]
    ptiles = scratch[4:8]
    for i in range(4):
        if kind[i] == CHOW:
            ctiles[n_chows] = tile[i]
            n_chows += 1
            continue
        ptiles[n_pungs] = tile[i]
        n_pungs += 1
        if kind[i] == KONG:
            if exposed[i]:
                mk += 1
            else:
                ck += 1
        elif exposed[i] == 0 and not (win_pung_exposed and fixed[i] == 0 and tile[i] == win):
            cp += 1
    kong_fans(mk, ck, cp, points, fan)
    if n_pungs == 4:
        fan[F.ALL_PUNGS] = 1
    sort_by_key(ctiles, n_chows, rules.tie_order)
    sort_by_key(ptiles, n_pungs, rules.tie_order)
    # one call site: chow_fans is inlined
    if n_chows >= 2 and not (n_chows == 4 and terminal_chows_fans(kind, tile, pair, fan)):
        chow_fans(ctiles, n_chows, points, fan, scratch[8:32])
    if n_pungs >= 2:
        pung_fans(ptiles, n_pungs, points, fan)
        if fan[F.BIG_FOUR_WINDS] > 0 and pair == 32:
            fan[F.FOUR_WINDS_GREAT_FORTUNE] = 1
    if nine_gates:
        fan[F.NINE_GATES] = 1
    # The pair turns 双箭刻 into 小三元 and 三风刻 into 小四喜.
    if n_chows == 4:
        if pair < 27:
            fan[F.ALL_CHOWS] = 1
    elif fan[F.TWO_DRAGON_PUNGS] > 0:
        if pair >= 31:
            fan[F.LITTLE_THREE_DRAGONS] = 1
            fan[F.TWO_DRAGON_PUNGS] = 0
    elif fan[F.BIG_THREE_WINDS] > 0:
        if 27 <= pair <= 30:
            fan[F.LITTLE_FOUR_WINDS] = 1
            fan[F.BIG_THREE_WINDS] = 0
    pack_trait_fans(kind, tile, pair, fan)
    pair_fans(pair, fan)
    if fan[F.MELDED_HAND] == 0 and fan[F.FOUR_KONGS] == 0:
        if wait_fan == WAIT_UNIQUE:
            if n_waits == 1:
                wait_position_fans(kind, tile, fixed, pair, win, fan)
        elif wait_fan >= 0:
            fan[wait_fan] = 1
    terminal_honor_pungs(kind, tile, np.int64(4), fan, h.seat, h.rnd, rules.covers, nine_gates)


@njit(cache=True, inline="always")
def _division_key(dk, dt, d, n, tie_order, scratch):
    """Reading-order key of split ``d``: its sorted set keys, 7 bits each."""
    for i in range(n):
        scratch[i] = tie_order[dt[4 * d + i]] * 2 + (1 if dk[4 * d + i] == CHOW else 0)
    _sort_plain(scratch, n)
    key = 0
    for i in range(n):
        key = key * 128 + scratch[i]
    return key


@njit(cache=True)
def split_waits(h, s, nd, n_sets, table):
    """How many tiles the hand waited on (capped at 2), for the 国标 wait rule.

    The wait is not unique when some split shows a two-sided wait (the
    winning tile at the open end of a chow) or a double-pair wait (the
    winning tile in a concealed pung): then no search is needed.
    """
    win = h.win
    dk, dt = s.split_kind, s.split_tile
    for d in range(nd):
        for j in range(n_sets):
            t = dt[4 * d + j]
            if dk[4 * d + j] == CHOW:
                r = t % 9
                if (win == t and r <= 5) or (win == t + 2 and r >= 1):
                    return 2
            elif t == win:
                return 2
    return count_waits(s.standing, h.n_fixed == 0, win, table)


@njit(cache=True, inline="always")
def order_splits(s, nd, n_sets, tie_order):
    """``s.split_order``: the ``nd`` splits in reading order, so that ties resolve
    the same way whatever order the splits were found in."""
    idx = s.split_order
    for d in range(nd):
        idx[d] = d
    if nd > 1:
        dkey = s.split_key
        for d in range(nd):
            dkey[d] = _division_key(s.split_kind, s.split_tile, d, n_sets, tie_order, s.work)
        sort_by_key(idx, nd, dkey)


@njit(cache=True, inline="always")
def load_split(s, d, n_fixed, nf):
    """Make split ``d`` the reading being scored: its sets after the melds
    (concealed), the candidate fans the shared ones."""
    n_sets = 4 - n_fixed
    for j in range(n_sets):
        s.kind[n_fixed + j] = s.split_kind[4 * d + j]
        s.tile[n_fixed + j] = s.split_tile[4 * d + j]
        s.exposed[n_fixed + j] = 0
        s.fixed[n_fixed + j] = 0
    for f in range(nf):
        s.cand[f] = s.base[f]


@njit(cache=True)
def regular_readings(h, s, rules, out, best, wait_fan):
    """Every split into sets and a pair, in reading order, each kept if it wins."""
    n_fixed = h.n_fixed
    n_sets = 4 - n_fixed
    c = s.c
    dk, dt, dp = s.split_kind, s.split_tile, s.split_pair
    nd = enumerate_divisions(c, n_sets, dk, dt, dp, s.work)
    if nd == 0:
        return best
    standing = s.standing
    for t in range(34):
        standing[t] = c[t]
    standing[h.win] -= 1
    n_waits = np.int64(0)
    if wait_fan == WAIT_UNIQUE:
        n_waits = split_waits(h, s, nd, n_sets, rules.table)
    nine = n_fixed == 0 and is_nine_gates(standing)
    order_splits(s, nd, n_sets, rules.tie_order)
    seven = out.dec[DEC_FORM] == FORM_SEVEN_PAIRS
    nf = rules.points.shape[0]
    for q in range(nd):
        d = s.split_order[q]
        load_split(s, d, n_fixed, nf)
        regular_reading(h, s, rules, dp[d], n_waits, wait_fan, nine)
        best = keep_split(s, rules, out, best, dp[d], seven)
    return best


@njit(cache=True)
def keep_split(s, rules, out, best, pair, seven):
    """Rule the split just read (``s.cand``: 不计, 鸡胡 if nothing else
    scores), record it and keep it if it wins (``keep_best``)."""
    points = rules.points
    nf = points.shape[0]
    cand = s.cand
    total = rule_candidate(s, rules, out.raw.shape[0] >= nf)
    if total == 0 and points[F.CHICKEN_HAND] > 0:
        cand[F.CHICKEN_HAND] = 1
        s.cand_raw[F.CHICKEN_HAND] = 1
        total = points[F.CHICKEN_HAND]
    rec = s.cand_dec
    rec[DEC_FORM] = FORM_REGULAR
    rec[DEC_PAIR] = pair
    rec[DEC_KNIT] = -1
    for j in range(4):
        rec[DEC_SETS + 3 * j] = s.kind[j]
        rec[DEC_SETS + 3 * j + 1] = s.tile[j]
        rec[DEC_SETS + 3 * j + 2] = s.exposed[j]
    # Ties: a regular reading beats seven pairs (and then the last tying split
    # is kept); otherwise the first is kept unless a later one shows 一色三同顺
    # or 三同刻.
    tie = seven or cand[F.PURE_TRIPLE_CHOW] == 1 or cand[F.TRIPLE_PUNG] > 0
    return keep_best(best, total, tie, s, out, nf)


# ------------------------------------------------------------ after the best


@njit(cache=True)
def _bonus(b, count, out, want_raw, rules):
    """Add ``count`` of a fan scored after the minimum (flowers, 无财神)
    unless the rule set leaves it out or a counted fan excludes it; return
    its value."""
    points, excl_ptr, excl_idx = rules.points, rules.excl_ptr, rules.excl_idx
    if count <= 0 or points[b] <= 0:
        return 0
    fan = out.fan
    for f in range(points.shape[0]):
        if fan[f] > 0:
            for j in range(excl_ptr[f], excl_ptr[f + 1]):
                if excl_idx[j] == b:
                    return 0
    fan[b] = count
    if want_raw:
        out.raw[b] = count
    return count * points[b]


@njit(cache=True)
def finish(row, h, rules, best, out):
    """The row's total from its best reading (-1: none): 八花聚顶 when nothing
    else wins, 连拉, then flowers and 无财神 (after the count toward the bar)."""
    points = rules.points
    nf = points.shape[0]
    fan, raw, dec = out.fan, out.raw, out.dec
    want_raw = raw.shape[0] >= nf
    if best < 0:
        for f in range(nf):
            fan[f] = 0
        # 八花聚顶 wins by itself, whatever the tiles (seed 001).
        if not (h.all_flowers and points[F.EIGHT_FLOWERS] > 0):
            return -1
        fan[F.EIGHT_FLOWERS] = 1
        if want_raw:
            raw[F.EIGHT_FLOWERS] = 1
        best = points[F.EIGHT_FLOWERS]
        dec[DEC_FORM] = FORM_EIGHT_FLOWERS
    # 连拉 counts toward the bar; flowers and 无财神 come after it.
    streak = row[LIANLA]
    if streak > 0 and points[F.LIANLA] > 0:
        fan[F.LIANLA] = streak
        if want_raw:
            raw[F.LIANLA] = streak
        best += streak * points[F.LIANLA]
    dec[DEC_COUNTED] = best
    mask = np.int64(row[FLOWER_MASK])
    flowers = np.int64(row[FLOWERS])
    if flowers > 0:
        best += _bonus(F.FLOWER_TILES, flowers, out, want_raw, rules)
        if mask != 0:
            seat = h.seat
            own = ((mask >> seat) & 1) + ((mask >> (seat + 4)) & 1)
            best += _bonus(F.SEAT_FLOWER, own, out, want_raw, rules)
            best += _bonus(F.FOUR_SEASONS, np.int64(1 if mask & 15 == 15 else 0), out,
                           want_raw, rules)
            best += _bonus(F.FOUR_GENTLEMEN, np.int64(1 if mask & 240 == 240 else 0), out,
                           want_raw, rules)
    if row[WILD] >= 0 and (h.flags & F_WILD_SUBST) == 0:
        best += _bonus(F.NO_WILD, np.int64(1), out, want_raw, rules)
    return best


# ------------------------------------------------------------ scoring a row


@njit(cache=True, inline="always")
def score_row(row, rules, out, s, wait_fan):
    """Score one row with no wild tile standing in; fill ``out`` (a :class:`ScoreOut`).

    ``out.raw``, if as long as ``out.fan``, receives the fans the chosen
    reading has before 不计 (for explanations); an empty array skips that.
    ``s`` is the :class:`EvalScratch` of the caller's thread, ``wait_fan``
    :data:`WAIT_UNIQUE` or the old client's wait fan (:func:`leftmost_wait_fan`).
    Returns the total (flowers included), or -1 if the hand is not complete.
    """
    nf = rules.points.shape[0]
    raw, dec = out.raw, out.dec
    if raw.shape[0] >= nf:
        for f in range(nf):
            raw[f] = 0
    for i in range(dec.shape[0]):
        dec[i] = 0
    dec[DEC_FORM] = FORM_NONE
    dec[DEC_KNIT] = -1
    for i in range(4):
        dec[DEC_WILD + i] = -1
    h = read_row(row, s)
    best = np.int64(-1)
    if h.n_fixed <= 1 and h.n_distinct_suited >= 9:
        best = knitted_reading(h, s, rules, out, best)
    if best < 0 and h.n_fixed == 0:
        best = special_reading(h, s, rules, out, best)
    if best < 0 or (dec[DEC_FORM] == FORM_SEVEN_PAIRS and out.fan[F.SEVEN_SHIFTED_PAIRS] == 0):
        best = regular_readings(h, s, rules, out, best, wait_fan)
    return finish(row, h, rules, best, out)


@njit(cache=True)
def leftmost_wait_fan(row, work):
    """The wait fan the old client's reading gives a row (-1: none; ``wait_rule="leftmost"``).

    ``work``: at least 84 int64 (scratch).  Read from the concealed counts
    and the number of sets left to find (``shapes.leftmost_wait``).
    """
    n_fixed = 0
    for i in range(4):
        if row[MELDS + 2 * i] != 0:
            n_fixed += 1
    c = work[50:84]
    for t in range(34):
        c[t] = row[COUNTS + t]
    return _WAIT_FAN[leftmost_wait(c, 4 - n_fixed, np.int64(row[WIN]), work[0:50])]


@njit(cache=True)
def score_plain_row(row, rules, fan, raw, dec, ws, wait_fan):
    """:func:`score_hand_row` for a row without a wild tile in hand, the wait
    fan given (:data:`WAIT_UNIQUE` or :func:`leftmost_wait_fan`): compiles
    neither the wild-tile search nor the leftmost reading."""
    return score_row(row, rules, ScoreOut(fan, raw, dec), eval_scratch(ws), wait_fan)


@njit(cache=True, inline="always")
def _wait_fan_of(row, s):
    if row[FLAGS] & F_LEFTMOST:
        return leftmost_wait_fan(row, s.leftmost)
    return WAIT_UNIQUE


@njit(cache=True)
def score_hand_row(row, rules, fan, raw, dec, ws):
    """Score one row, wild tiles included: the entry point of every caller.

    Without a wild tile in the concealed hand this is :func:`score_row`.
    With one, every multiset of kinds the wild copies can stand for that
    completes the hand (``wild.wild_completions``, a pruned search) is
    scored, the winning tile trying each kind it could be if it is wild
    itself, and the best kept: most fans toward the bar, then the highest
    total, the first found on ties.  ``dec`` records what the wild tiles
    stood for.  ``ws``: int64[WS_LEN] scratch.
    """
    s = eval_scratch(ws)
    w = row[WILD]
    if w < 0 or row[COUNTS + w] == 0:
        return score_plain_row(row, rules, fan, raw, dec, ws, _wait_fan_of(row, s))
    n_wild = row[COUNTS + w]
    c = np.zeros(34, np.int64)
    fixed = np.zeros(34, np.int64)
    for t in range(34):
        c[t] = row[COUNTS + t]
    c[w] = 0
    n_fixed = np.int64(0)
    for i in range(4):
        mt = row[MELDS + 2 * i]
        t = row[MELDS + 2 * i + 1]
        if mt == 0:
            continue
        n_fixed += 1
        if mt == M_CHOW:
            fixed[t] += 1
            fixed[t + 1] += 1
            fixed[t + 2] += 1
        elif mt == M_PUNG:
            fixed[t] += 3
        else:
            fixed[t] += 4
    # 2048 rows hold every case seen (at most 1035, for 3344556677m and four
    # wild tiles); a larger array is tried if ever needed.
    cap = 2048
    out = np.empty((cap, 4), np.int64)
    m = wild_completions_ws(c, fixed, n_wild, n_fixed, rules.wtable, out, s.wild)
    while m < 0:
        cap *= 4
        out = np.empty((cap, 4), np.int64)
        m = wild_completions_ws(c, fixed, n_wild, n_fixed, rules.wtable, out, s.wild)

    nf = rules.points.shape[0]
    row2 = np.empty(row.shape[0], row.dtype)
    for j in range(row.shape[0]):
        row2[j] = row[j]
    fan_t = np.zeros(nf, np.int64)
    raw_t = np.zeros(raw.shape[0], np.int64)
    dec_t = np.zeros(dec.shape[0], np.int64)
    win_is_wild = row[WIN] == w
    best = -1
    best_counted = -1
    found = False
    for k in range(m):
        subst = False
        for t in range(34):
            row2[COUNTS + t] = c[t]
        for j in range(n_wild):
            a = out[k, j]
            row2[COUNTS + a] += 1
            if a != w:
                subst = True
        row2[FLAGS] = (row[FLAGS] | F_WILD_SUBST) if subst else (row[FLAGS] & ~F_WILD_SUBST)
        for j in range(n_wild if win_is_wild else 1):
            if win_is_wild:
                if j > 0 and out[k, j] == out[k, j - 1]:
                    continue  # the same kind again: the same hand
                row2[WIN] = out[k, j]
            total = score_plain_row(row2, rules, fan_t, raw_t, dec_t, ws, _wait_fan_of(row2, s))
            if total < 0:
                continue
            counted = dec_t[DEC_COUNTED]
            if not found or counted > best_counted or (counted == best_counted and total > best):
                found = True
                best = total
                best_counted = counted
                for f in range(nf):
                    fan[f] = fan_t[f]
                for f in range(raw.shape[0]):
                    raw[f] = raw_t[f]
                for f in range(dec.shape[0]):
                    dec[f] = dec_t[f]
                for i in range(4):
                    dec[DEC_WILD + i] = out[k, i] if i < n_wild else -1
                dec[DEC_WILD_WIN] = 1 if win_is_wild else 0
                if win_is_wild:
                    # list the winning tile's kind last
                    a = row2[WIN]
                    pos = 0
                    for i in range(n_wild):
                        if dec[DEC_WILD + i] == a:
                            pos = i
                    for i in range(pos, n_wild - 1):
                        dec[DEC_WILD + i] = dec[DEC_WILD + i + 1]
                    dec[DEC_WILD + n_wild - 1] = a
    if found:
        return best
    # No completion: still a win if 八花聚顶 (the tiles do not matter).
    row2[FLAGS] = row[FLAGS] | F_WILD_SUBST
    for t in range(34):
        row2[COUNTS + t] = row[COUNTS + t]
    row2[WIN] = row[WIN]
    return score_plain_row(row2, rules, fan, raw, dec, ws, _wait_fan_of(row2, s))


# ------------------------------------------------------------ many rows


@njit(cache=True, inline="always")
def _write_result(i, total, out, used, totals, counted, fans):
    totals[i] = total
    counted[i] = out.dec[DEC_COUNTED] if total >= 0 else -1
    fan = out.fan
    for j in range(used.shape[0]):
        fans[i, j] = fan[used[j]]


@njit(cache=True, parallel=True)
def score_rows(rows, rules, used, totals, counted, fans, n_chunks):
    """Score many rows in parallel; ``totals[i]`` is -1 for an incomplete hand.

    ``fans[i, j]`` receives the count of fan ``used[j]`` and ``counted[i]``
    the fans toward the bar.  Rows are split into ``n_chunks`` contiguous
    chunks, each with its own scratch space; results do not depend on the
    chunking or the number of threads.  Any row (wild tiles, either wait
    rule): see :func:`score_rows_plain` for rows without a wild tile in hand.
    """
    n = rows.shape[0]
    nf = rules.points.shape[0]
    for ch in prange(n_chunks):
        lo = n * ch // n_chunks
        hi = n * (ch + 1) // n_chunks
        ws = np.zeros(WS_LEN, np.int64)
        out = ScoreOut(eval_scratch(ws).fan[:nf], np.zeros(0, np.int64),
                       np.zeros(DEC_LEN, np.int64))
        for i in range(lo, hi):
            total = score_hand_row(rows[i], rules, out.fan, out.raw, out.dec, ws)
            _write_result(i, total, out, used, totals, counted, fans)


@njit(cache=True, parallel=True)
def score_rows_plain(rows, rules, wait_fans, used, totals, counted, fans, n_chunks):
    """:func:`score_rows` for rows without a wild tile in hand; ``wait_fans[i]``
    is row i's ``wait_fan`` (:data:`WAIT_UNIQUE`, or :func:`leftmost_wait_fans`)."""
    n = rows.shape[0]
    nf = rules.points.shape[0]
    for ch in prange(n_chunks):
        lo = n * ch // n_chunks
        hi = n * (ch + 1) // n_chunks
        # the scratch views are carved once per chunk, not once per row
        s = eval_scratch(np.zeros(WS_LEN, np.int64))
        out = ScoreOut(s.fan[:nf], np.zeros(0, np.int64), np.zeros(DEC_LEN, np.int64))
        for i in range(lo, hi):
            total = score_row(rows[i], rules, out, s, wait_fans[i])
            _write_result(i, total, out, used, totals, counted, fans)


@njit(cache=True)
def leftmost_wait_fans(rows, wait_fans):
    """``wait_fans[i]``: :func:`leftmost_wait_fan` of row i if it asks for the old
    client's wait rule (``F_LEFTMOST``), else :data:`WAIT_UNIQUE`."""
    work = np.zeros(84, np.int64)
    for i in range(rows.shape[0]):
        if rows[i, FLAGS] & F_LEFTMOST:
            wait_fans[i] = leftmost_wait_fan(rows[i], work)
        else:
            wait_fans[i] = WAIT_UNIQUE
