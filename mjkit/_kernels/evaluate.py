"""Score one hand row: every reading, the rule set's 不计 lists, the best total.

Readings tried (就高不就低: the highest total wins):

* 组合龙 + one set + pair (closed, or with one meld);
* otherwise, closed: 七对 / 连七对, 十三幺, 全不靠 / 七星不靠;
* every split into four sets and a pair (also when seven pairs fit, since a
  regular reading can score more).

Equal totals (which change the fans listed, never the total) follow the
reference calculator: a regular reading is preferred to seven pairs; among
regular readings, visited in reading order (sets sorted by ``tie_order``, a
pung before a chow on the same tile), the first is kept unless a later one
shows 一色三同顺 or 三同刻.
"""

import numpy as np
from numba import njit, prange

from . import fan_ids as F
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

# Scratch space: one int64 array per thread, carved into views, so that
# scoring a hand allocates nothing (allocation dominated the run time and
# serialised threads).
MAX_FANS = 128
W_C = 0            # 34 concealed counts
W_ALLC = 34        # 34 counts with melds
W_STAND = 68       # 34 counts without the winning tile
W_REM = 102        # 34 counts left after a knitted straight
W_KIND = 136       # 4 set kinds
W_TILE = 140       # 4 set tiles
W_EXP = 144        # 4 exposed flags
W_FIX = 148        # 4 fixed (meld) flags
W_K1 = 152         # 3 x 4: the single set of a knitted reading
W_SCR = 164        # 32 general scratch
W_BASE = 196       # MAX_FANS: fans every reading of the hand shares
W_CAND = W_BASE + MAX_FANS
W_RAW = W_CAND + MAX_FANS
W_DK = W_RAW + MAX_FANS               # MAX_DIVISIONS * 4 kinds
W_DT = W_DK + 4 * MAX_DIVISIONS       # MAX_DIVISIONS * 4 tiles
W_DP = W_DT + 4 * MAX_DIVISIONS       # MAX_DIVISIONS pairs
W_DKEY = W_DP + MAX_DIVISIONS         # MAX_DIVISIONS reading-order keys
W_IDX = W_DKEY + MAX_DIVISIONS        # MAX_DIVISIONS visiting order
W_FAN = W_IDX + MAX_DIVISIONS         # MAX_FANS: a row's fans (batch scoring)
W_PRES = W_FAN + MAX_FANS             # MAX_FANS: fans present, in rule order
W_LM = W_PRES + MAX_FANS               # 50: the old client's reading (leftmost_wait)
W_WILD = W_LM + 50                     # the wild-tile search's own scratch
WS_LEN = W_WILD + WILD_WS_LEN

# 边张 / 嵌张 / 单钓将 by the codes leftmost_wait returns (0 = none).
_WAIT_FAN = (-1, F.EDGE_WAIT, F.CLOSED_WAIT, F.SINGLE_WAIT)


@njit(cache=True)
def apply_rules(cand, points, excl_ptr, excl_idx, order, rank, present):
    """Drop disabled fans, apply 不计 highest fan first; return the total.

    Only the fans present are visited: they are collected, put in rule order
    (``rank[f]`` is the position of fan f in ``order``) and each one still
    present removes the fans it excludes.  ``present`` is scratch space.
    """
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


@njit(cache=True)
def _sort_by_key(a, n, key):
    """Insertion-sort the first ``n`` entries of ``a`` by ``key[a[i]]`` (stable)."""
    for i in range(1, n):
        x = a[i]
        j = i - 1
        while j >= 0 and key[a[j]] > key[x]:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = x


@njit(cache=True)
def _is_nine_gates(standing):
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


@njit(cache=True)
def regular_reading(kind, tile, exposed, fixed, pair, n_exposed, self_drawn, win, seat, rnd,
                    n_waits, wait_fan, nine_gates, tie_order, points, covers, fan, scratch):
    """Fans of one split into four sets and a pair (tile-level fans excluded).

    Wait fans: with ``wait_fan == -2`` the 国标 rule (a sole wait, ``n_waits
    == 1``, read from where the winning tile sits in this split); otherwise
    ``wait_fan`` is the fan the old client's reading gives (-1 for none).
    """
    # A pung completed by a discard is exposed, unless the winning tile can be
    # read as part of a concealed chow instead.
    win_pung_exposed = False
    if not self_drawn:
        win_pung_exposed = True
        for i in range(4):
            if fixed[i] == 0 and kind[i] == CHOW and tile[i] <= win <= tile[i] + 2:
                win_pung_exposed = False
    mk = 0
    ck = 0
    cp = 0
    n_chows = 0
    n_pungs = 0
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
    _sort_by_key(ctiles, n_chows, tie_order)
    _sort_by_key(ptiles, n_pungs, tie_order)
    if n_chows == 4:
        if not terminal_chows_fans(kind, tile, pair, fan):
            chow_fans(ctiles, 4, points, fan, scratch[8:32])
    elif n_chows >= 2:
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
        if wait_fan == -2:
            if n_waits == 1:
                wait_position_fans(kind, tile, fixed, pair, win, fan)
        elif wait_fan >= 0:
            fan[wait_fan] = 1
    terminal_honor_pungs(kind, tile, 4, fan, seat, rnd, covers, nine_gates)


@njit(cache=True)
def _division_key(dk, dt, d, n, tie_order, scratch):
    """Reading-order key of split ``d``: its sorted set keys, 7 bits each."""
    for i in range(n):
        scratch[i] = tie_order[dt[4 * d + i]] * 2 + (1 if dk[4 * d + i] == CHOW else 0)
    _sort_by_order_plain(scratch, n)
    key = 0
    for i in range(n):
        key = key * 128 + scratch[i]
    return key


@njit(cache=True)
def _sort_by_order_plain(a, n):
    for i in range(1, n):
        x = a[i]
        j = i - 1
        while j >= 0 and a[j] > x:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = x


@njit(cache=True)
def _keep(fan, cand, nf):
    for f in range(nf):
        fan[f] = cand[f]


@njit(cache=True)
def _ruled(cand, cand_raw, want_raw, points, excl_ptr, excl_idx, order, rank, present):
    """apply_rules, keeping a copy of the detected fans first if wanted."""
    if want_raw:
        for f in range(points.shape[0]):
            cand_raw[f] = cand[f]
    return apply_rules(cand, points, excl_ptr, excl_idx, order, rank, present)


@njit(cache=True)
def score_row(row, points, excl_ptr, excl_idx, order, rank, tie_order, covers, table, fan, raw, dec, ws):
    """Score one row; fill ``fan`` (counted fans) and ``dec`` (the reading).

    If ``raw`` is as long as ``fan`` it receives the fans the chosen reading
    has before 不计 (for explanations); pass an empty array to skip that.
    ``ws`` is a scratch array of at least ``WS_LEN`` int64.  Returns the
    total (flowers included), or -1 if the hand is not complete.
    """
    nf = points.shape[0]
    want_raw = raw.shape[0] >= nf
    if want_raw:
        for f in range(nf):
            raw[f] = 0
    for i in range(dec.shape[0]):
        dec[i] = 0
    dec[DEC_FORM] = FORM_NONE
    dec[DEC_KNIT] = -1
    for i in range(4):
        dec[DEC_WILD + i] = -1

    c = ws[W_C:W_C + 34]
    allc = ws[W_ALLC:W_ALLC + 34]
    n_distinct_suited = 0
    for t in range(34):
        x = row[COUNTS + t]
        c[t] = x
        allc[t] = x
        if t < 27 and x > 0:
            n_distinct_suited += 1
    win = row[WIN]
    flags = row[FLAGS]
    seat = row[SEAT]
    rnd = row[ROUND]
    flowers = row[FLOWERS]
    wild = row[WILD]
    all_flowers = flowers == 8 or row[FLOWER_MASK] == 255
    n_wild_kongs = 0

    kind = ws[W_KIND:W_KIND + 4]
    tile = ws[W_TILE:W_TILE + 4]
    exposed = ws[W_EXP:W_EXP + 4]
    fixed = ws[W_FIX:W_FIX + 4]
    for i in range(4):
        kind[i] = 0
        tile[i] = 0
        exposed[i] = 0
        fixed[i] = 0
    n_fixed = 0
    n_exposed = 0
    n_kongs = 0
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
    n_sets = 4 - n_fixed

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
    base = ws[W_BASE:W_BASE + nf]
    cand = ws[W_CAND:W_CAND + nf]
    cand_raw = ws[W_RAW:W_RAW + nf]
    present = ws[W_PRES:W_PRES + nf]
    for f in range(nf):
        base[f] = 0
    win_fans(self_drawn, last_copy, kong, last_wall, base)
    concealment_fans(n_exposed, self_drawn, base)
    tile_fans(allc, n_kongs, base)
    situation_fans(flags, base)
    if n_wild_kongs > 0:
        base[F.WILD_KONG] = 1
    if all_flowers:
        base[F.EIGHT_FLOWERS] = 1

    scratch = ws[W_SCR:W_SCR + 32]
    dk = ws[W_DK:W_DK + 4 * MAX_DIVISIONS]
    dt = ws[W_DT:W_DT + 4 * MAX_DIVISIONS]
    dp = ws[W_DP:W_DP + MAX_DIVISIONS]
    best = -1
    best_form = FORM_NONE

    # ---- 组合龙 with one set and a pair
    if n_fixed <= 1 and n_distinct_suited >= 9:
        k = find_knitted(c)
        if k >= 0:
            rem = ws[W_REM:W_REM + 34]
            for t in range(34):
                rem[t] = c[t]
            for i in range(9):
                rem[knitted_tile(k, i)] -= 1
            nd = enumerate_divisions(rem, 1 - n_fixed, dk, dt, dp, scratch)
            if nd == 1:
                for f in range(nf):
                    cand[f] = base[f]
                k1 = ws[W_K1:W_K1 + 4]
                t1 = ws[W_K1 + 4:W_K1 + 8]
                x1 = ws[W_K1 + 8:W_K1 + 12]
                for i in range(4):
                    k1[i] = 0
                    t1[i] = 0
                    x1[i] = 0
                k1[0] = kind[0] if n_fixed == 1 else dk[0]
                t1[0] = tile[0] if n_fixed == 1 else dt[0]
                x1[0] = n_fixed
                e4 = exposed[0] if n_fixed == 1 else 0
                pair = dp[0]
                cand[F.KNITTED_STRAIGHT] = 1
                pair_fans(pair, cand)
                if k1[0] == CHOW:
                    if pair < 27:
                        cand[F.ALL_CHOWS] = 1
                elif k1[0] == KONG:
                    kong_fans(e4, 1 - e4, 0, points, cand)
                # Waits are read on the set and pair alone: closed, a sole
                # wait there earns its fan; with a meld, the pair is the only
                # place left, so a winning tile held twice before is 单钓将.
                if n_fixed == 0:
                    if rem[win] > 0:
                        rem[win] -= 1
                        if count_waits(rem, False, win, table) == 1:
                            wait_position_fans(k1, t1, x1, pair, win, cand)
                        rem[win] += 1
                elif c[win] > 1:
                    cand[F.SINGLE_WAIT] = 1
                terminal_honor_pungs(k1, t1, 1, cand, seat, rnd, covers, False)
                best = _ruled(cand, cand_raw, want_raw, points, excl_ptr, excl_idx, order, rank, present)
                best_form = FORM_KNITTED_STRAIGHT
                _keep(fan, cand, nf)
                if want_raw:
                    _keep(raw, cand_raw, nf)
                dec[DEC_FORM] = FORM_KNITTED_STRAIGHT
                dec[DEC_PAIR] = pair
                dec[DEC_KNIT] = k
                dec[DEC_SETS] = k1[0]
                dec[DEC_SETS + 1] = t1[0]
                dec[DEC_SETS + 2] = e4

    # ---- closed special forms
    if best_form == FORM_NONE and n_fixed == 0:
        form = FORM_NONE
        for f in range(nf):
            cand[f] = base[f]
        sp = seven_pairs_kind(c)
        if sp == 2:
            cand[F.SEVEN_SHIFTED_PAIRS] = 1
            form = FORM_SEVEN_PAIRS
        elif sp == 1:
            cand[F.SEVEN_PAIRS] = 1
            form = FORM_SEVEN_PAIRS
        elif is_thirteen_orphans(c):
            cand[F.THIRTEEN_ORPHANS] = 1
            form = FORM_THIRTEEN_ORPHANS
            for t in range(34):
                if c[t] == 2:
                    pair_fans(t, cand)
        else:
            hk = honors_knitted_kind(c)
            if hk == 2:
                cand[F.GREATER_HONORS_AND_KNITTED_TILES] = 1
                form = FORM_HONORS_KNITTED
            elif hk == 1:
                cand[F.LESSER_HONORS_AND_KNITTED_TILES] = 1
                n_suited = 0
                for t in range(27):
                    n_suited += c[t]
                if n_suited == 9:
                    cand[F.KNITTED_STRAIGHT] = 1
                form = FORM_HONORS_KNITTED
        if form != FORM_NONE:
            best = _ruled(cand, cand_raw, want_raw, points, excl_ptr, excl_idx, order, rank, present)
            best_form = form
            _keep(fan, cand, nf)
            if want_raw:
                _keep(raw, cand_raw, nf)
            dec[DEC_FORM] = form

    # ---- regular splits (also when seven pairs fit)
    if best_form == FORM_NONE or (best_form == FORM_SEVEN_PAIRS and fan[F.SEVEN_SHIFTED_PAIRS] == 0):
        nd = enumerate_divisions(c, n_sets, dk, dt, dp, scratch)
        if nd > 0:
            standing = ws[W_STAND:W_STAND + 34]
            for t in range(34):
                standing[t] = c[t]
            standing[win] -= 1
            # The wait is not unique when some split shows a two-sided wait
            # (the winning tile at the open end of a chow) or a double-pair
            # wait (the winning tile in a concealed pung): no need to search.
            n_waits = -1
            for d in range(nd):
                for j in range(n_sets):
                    t = dt[4 * d + j]
                    if dk[4 * d + j] == CHOW:
                        r = t % 9
                        if (win == t and r <= 5) or (win == t + 2 and r >= 1):
                            n_waits = 2
                    elif t == win:
                        n_waits = 2
            wait_fan = -2
            if flags & F_LEFTMOST:
                wait_fan = _WAIT_FAN[leftmost_wait(c, n_sets, win, ws[W_LM:W_LM + 50])]
                n_waits = 0
            elif n_waits < 0:
                n_waits = count_waits(standing, n_fixed == 0, win, table)
            nine = n_fixed == 0 and _is_nine_gates(standing)
            # Visit the splits in reading order so ties resolve the same way
            # whatever order they were found in.
            idx = ws[W_IDX:W_IDX + MAX_DIVISIONS]
            for d in range(nd):
                idx[d] = d
            if nd > 1:
                dkey = ws[W_DKEY:W_DKEY + MAX_DIVISIONS]
                for d in range(nd):
                    dkey[d] = _division_key(dk, dt, d, n_sets, tie_order, scratch)
                _sort_by_key(idx, nd, dkey)
            seven = best_form == FORM_SEVEN_PAIRS
            for q in range(nd):
                d = idx[q]
                for j in range(n_sets):
                    kind[n_fixed + j] = dk[4 * d + j]
                    tile[n_fixed + j] = dt[4 * d + j]
                    exposed[n_fixed + j] = 0
                    fixed[n_fixed + j] = 0
                for f in range(nf):
                    cand[f] = base[f]
                regular_reading(kind, tile, exposed, fixed, dp[d], n_exposed, self_drawn, win,
                                seat, rnd, n_waits, wait_fan, nine, tie_order, points, covers,
                                cand, scratch)
                total = _ruled(cand, cand_raw, want_raw, points, excl_ptr, excl_idx, order, rank, present)
                if total == 0 and points[F.CHICKEN_HAND] > 0:
                    cand[F.CHICKEN_HAND] = 1
                    cand_raw[F.CHICKEN_HAND] = 1
                    total = points[F.CHICKEN_HAND]
                # Ties: a regular reading beats seven pairs (and then the last
                # tying split is kept); otherwise the first is kept unless a
                # later one shows 一色三同顺 or 三同刻.
                better = total > best
                if not better and total == best:
                    better = seven or cand[F.PURE_TRIPLE_CHOW] == 1 or cand[F.TRIPLE_PUNG] > 0
                if better:
                    best = total
                    best_form = FORM_REGULAR
                    _keep(fan, cand, nf)
                    if want_raw:
                        _keep(raw, cand_raw, nf)
                    dec[DEC_FORM] = FORM_REGULAR
                    dec[DEC_PAIR] = dp[d]
                    dec[DEC_KNIT] = -1
                    for j in range(4):
                        dec[DEC_SETS + 3 * j] = kind[j]
                        dec[DEC_SETS + 3 * j + 1] = tile[j]
                        dec[DEC_SETS + 3 * j + 2] = exposed[j]

    if best < 0:
        for f in range(nf):
            fan[f] = 0
        # 八花聚顶 wins by itself, whatever the tiles (seed 001).
        if not (all_flowers and points[F.EIGHT_FLOWERS] > 0):
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
    mask = row[FLOWER_MASK]
    if flowers > 0:
        best += _bonus(F.FLOWER_TILES, flowers, fan, raw, want_raw, points, excl_ptr, excl_idx)
        if mask != 0:
            own = ((mask >> seat) & 1) + ((mask >> (seat + 4)) & 1)
            best += _bonus(F.SEAT_FLOWER, own, fan, raw, want_raw, points, excl_ptr, excl_idx)
            best += _bonus(F.FOUR_SEASONS, 1 if mask & 15 == 15 else 0, fan, raw, want_raw,
                           points, excl_ptr, excl_idx)
            best += _bonus(F.FOUR_GENTLEMEN, 1 if mask & 240 == 240 else 0, fan, raw, want_raw,
                           points, excl_ptr, excl_idx)
    if wild >= 0 and (flags & F_WILD_SUBST) == 0:
        best += _bonus(F.NO_WILD, 1, fan, raw, want_raw, points, excl_ptr, excl_idx)
    return best


@njit(cache=True)
def _bonus(b, count, fan, raw, want_raw, points, excl_ptr, excl_idx):
    """Add ``count`` of a fan scored after the minimum (flowers, 无财神)
    unless the rule set leaves it out or a counted fan excludes it; return
    its value."""
    if count <= 0 or points[b] <= 0:
        return 0
    for f in range(points.shape[0]):
        if fan[f] > 0:
            for j in range(excl_ptr[f], excl_ptr[f + 1]):
                if excl_idx[j] == b:
                    return 0
    fan[b] = count
    if want_raw:
        raw[b] = count
    return count * points[b]


@njit(cache=True)
def score_hand_row(row, points, excl_ptr, excl_idx, order, rank, tie_order, covers, table,
                   wtable, fan, raw, dec, ws):
    """Score one row, wild tiles included: the entry point of every caller.

    Without a wild tile in the concealed hand this is :func:`score_row`.
    With one, every multiset of kinds the wild copies can stand for that
    completes the hand (``wild.wild_completions``, a pruned search) is
    scored, the winning tile trying each kind it could be if it is wild
    itself, and the best kept: most fans toward the bar, then the highest
    total, the first found on ties.  ``dec`` records what the wild tiles
    stood for.
    """
    w = row[WILD]
    if w < 0 or row[COUNTS + w] == 0:
        return score_row(row, points, excl_ptr, excl_idx, order, rank, tie_order, covers, table,
                         fan, raw, dec, ws)
    n_wild = row[COUNTS + w]
    c = np.zeros(34, np.int64)
    fixed = np.zeros(34, np.int64)
    for t in range(34):
        c[t] = row[COUNTS + t]
    c[w] = 0
    n_fixed = 0
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
    wws = ws[W_WILD:W_WILD + WILD_WS_LEN]
    out = np.empty((cap, 4), np.int64)
    m = wild_completions_ws(c, fixed, n_wild, n_fixed, wtable, out, wws)
    while m < 0:
        cap *= 4
        out = np.empty((cap, 4), np.int64)
        m = wild_completions_ws(c, fixed, n_wild, n_fixed, wtable, out, wws)

    nf = points.shape[0]
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
            total = score_row(row2, points, excl_ptr, excl_idx, order, rank, tie_order, covers,
                              table, fan_t, raw_t, dec_t, ws)
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
    return score_row(row2, points, excl_ptr, excl_idx, order, rank, tie_order, covers, table,
                     fan, raw, dec, ws)


@njit(cache=True, parallel=True)
def score_rows(rows, points, excl_ptr, excl_idx, order, rank, tie_order, covers, table, wtable,
               used, totals, counted, fans, n_chunks):
    """Score many rows in parallel; ``totals[i]`` is -1 for an incomplete hand.

    ``fans[i, j]`` receives the count of fan ``used[j]`` and ``counted[i]``
    the fans toward the bar.  Rows are split into ``n_chunks`` contiguous
    chunks, each with its own scratch space; results do not depend on the
    chunking or the number of threads.
    """
    n = rows.shape[0]
    nf = points.shape[0]
    ncol = used.shape[0]
    for ch in prange(n_chunks):
        lo = n * ch // n_chunks
        hi = n * (ch + 1) // n_chunks
        ws = np.zeros(WS_LEN, np.int64)
        dec = np.zeros(DEC_LEN, np.int64)
        no_raw = np.zeros(0, np.int64)
        fan = ws[W_FAN:W_FAN + nf]
        for i in range(lo, hi):
            totals[i] = score_hand_row(rows[i], points, excl_ptr, excl_idx, order, rank,
                                       tie_order, covers, table, wtable, fan, no_raw, dec, ws)
            counted[i] = dec[DEC_COUNTED] if totals[i] >= 0 else -1
            for j in range(ncol):
                fans[i, j] = fan[used[j]]
