"""The hand simulator: one mahjong hand from the shuffle to a win or an exhaustive draw.

Tiles are kinds 0..33 (four copies each) and the eight flowers 34..41 (one
each): 144 in the wall.  Seat 0 is the dealer (East) and starts with 14
tiles; a flower is set aside and replaced from the end of the wall; the hand
is drawn out (荒牌) once ``P_EXHAUST`` tiles have been taken from the wall
(seed 003: the 120th).  Every win is scored by the evaluator
(``evaluate.score_hand_row``) with the winner's seat wind, flowers and, for
the dealer, the 连拉 level, and is declared only when its counted fans reach
the rule set's minimum: no P胡.

After each discard: a win on it where the rule set allows it (first player
in turn order), else 碰 or 明杠 by any player, else 吃 by the next player; a
player declares concealed and added kongs on their own turn and draws the
replacement from the back.  Players decide with a policy (``POLICY_*``);
in solitaire mode (``P_SOLITAIRE``) the others only draw and discard the
tile drawn.  Each hand takes its
random numbers from its own stream (:mod:`.rng`), so a hand's outcome
depends only on (seed, level, hand number).
"""

import numpy as np
from numba import njit

from .evaluate import WS_LEN, score_hand_row
from .layout import (
    COUNTS, DEC_COUNTED, DEC_LEN, F_EARTHLY_HAND, F_HEAVENLY_HAND, F_KONG, F_LAST_WALL,
    F_SELF_DRAWN, FLAGS, FLOWER_MASK, FLOWERS, LIANLA, M_CHOW, M_CKONG, M_KONG, M_PUNG, MELDS,
    ROUND, ROW_LEN, SEAT, WILD, WIN,
)
from .rng import below, stream_seed
from .shanten import MODE_OVERALL, WS_LEN as SH_WS_LEN, analyse, init_workspace

N_WALL = 144
N_KINDS = 34

# Parameters (an int64 array).
P_EXHAUST = 0        # tiles taken from the wall after which the hand is drawn out
P_LEVEL = 1          # the dealer's 连拉 level N
P_MINIMUM = 2        # counted fans a win needs (the 连拉 line counts for the dealer)
P_ROUND = 3          # round wind 0..3
P_SOLITAIRE = 4      # 1: only the dealer plays; the others draw and discard the tile drawn
P_DISCARD_WINS = 5   # 1: wins on a discard allowed (gb, dazhong); 0: self-draw only
P_DEALER_POLICY = 6
P_OTHERS_POLICY = 7
P_DEAL_ONLY = 8      # 1: stop after the deal (the dealer's 天和 check only)
N_PARAMS = 9

POLICY_EFFICIENCY = 0  # value-blind tile efficiency: lowest shanten, then least connected

# Outcome columns (an int32 array per hand).
O_WINNER = 0         # seat 0..3, -1 drawn out
O_SELF_DRAWN = 1
O_DRAWS = 2          # turns' draws by all players after the deal, up to the win
#                      (kong replacements and flower replacements not counted)
O_OWN_DRAWS = 3      # the winner's own turns' draws
O_COUNTED = 4        # counted fans of the win (连拉 included)
O_TOTAL = 5          # every fan of the win
O_TAKEN = 6          # tiles taken from the wall in all (flowers and replacements included)
O_FLOWERS = 7        # the winner's flowers
O_MELDS = 8          # the winner's melds (claimed sets and kongs)
N_OUT = 9


@njit(cache=True)
def _kind(tile_id):
    return tile_id // 4 if tile_id < 136 else 34 + (tile_id - 136)


@njit(cache=True)
def _draw(p, from_back, wall, pos, conc, flowers, fmask):
    """Player ``p`` takes a tile (flowers set aside and replaced from the back).

    ``pos`` = [front, back, taken, limit]; returns the kind drawn, or -1 when
    the wall is used up (``taken`` reached ``limit``).
    """
    back = from_back
    while True:
        if pos[2] >= pos[3] or pos[0] > pos[1]:
            return -1
        if back:
            t = wall[pos[1]]
            pos[1] -= 1
        else:
            t = wall[pos[0]]
            pos[0] += 1
        pos[2] += 1
        k = _kind(t)
        if k >= N_KINDS:
            flowers[p] += 1
            fmask[p] |= 1 << (k - N_KINDS)
            back = True
            continue
        conc[p, k] += 1
        return k


@njit(cache=True)
def _need(c, n_melds, nocap, stab, htab, sws):
    """Tiles still needed (0: complete 14-type hand; 1: ready 13-type hand).

    ``nocap`` is all zeros: copies inside melds are not taken off the limit
    of four.  Completeness does not depend on it (the tiles are in the
    hand), and the table-driven fast path this keeps is about seven times
    quicker than the capped reading for a hand with melds; a policy may
    then rarely count on a fifth copy.
    """
    return analyse(c, n_melds, nocap, 1, MODE_OVERALL, stab, htab, sws)


@njit(cache=True)
def _connection(c, k):
    """Tiles of the hand that work with one copy of ``k`` (itself excluded)."""
    if k >= 27:
        return c[k] - 1
    r = k % 9
    s = 0
    for d in range(-2, 3):
        if 0 <= r + d <= 8:
            s += c[k + d]
    return s - 1


@njit(cache=True)
def efficiency_discard(c, n_melds, nocap, stab, htab, sws):
    """The tile-efficiency discard and the need it leaves: lowest need after it, then the
    least connected tile, honours and terminals before simples, then the lowest kind."""
    best_k = -1
    best_need = 1 << 30
    best_conn = 1 << 30
    best_mid = 2
    for k in range(N_KINDS):
        if c[k] == 0:
            continue
        c[k] -= 1
        need = _need(c, n_melds, nocap, stab, htab, sws)
        c[k] += 1
        conn = _connection(c, k)
        mid = 0 if k >= 27 or k % 9 == 0 or k % 9 == 8 else 1
        if (need < best_need or (need == best_need and (
                conn < best_conn or (conn == best_conn and mid < best_mid)))):
            best_k = k
            best_need = need
            best_conn = conn
            best_mid = mid
    return best_k, best_need


@njit(cache=True)
def _add_meld(p, kind, tile, mtype, mtile, nm):
    mtype[p, nm[p]] = kind
    mtile[p, nm[p]] = tile
    nm[p] += 1


@njit(cache=True)
def _own_kong(c, p, nm, mtype, mtile, nocap, stab, htab, sws):
    """A kong the efficiency policy declares on its own turn: (kind, meld index or -1), or
    (-1, -1).  Concealed (four in hand) or added to a pung, when it costs no tiles of need."""
    if nm[p] >= 4:
        return -1, -1
    now = -1
    for k in range(N_KINDS):
        if c[k] == 4:
            if now < 0:
                now = _need(c, nm[p], nocap, stab, htab, sws)
            c[k] -= 4
            after = _need(c, nm[p] + 1, nocap, stab, htab, sws)
            c[k] += 4
            if after <= now:
                return k, -1
        elif c[k] >= 1:
            for i in range(nm[p]):
                if mtype[p, i] == M_PUNG and mtile[p, i] == k:
                    if now < 0:
                        now = _need(c, nm[p], nocap, stab, htab, sws)
                    c[k] -= 1
                    after = _need(c, nm[p], nocap, stab, htab, sws)
                    c[k] += 1
                    if after <= now:
                        return k, i
    return -1, -1


@njit(cache=True)
def _claim_gain(c, n_melds, nocap, d, first, stab, htab, sws):
    """Need after claiming ``d`` into a pung (``first`` = -1) or the chow starting at
    ``first``, before the discard that follows (a 14-type hand: its need is that of the
    best discard)."""
    if first < 0:
        c[d] -= 2
    else:
        for i in range(3):
            if first + i != d:
                c[first + i] -= 1
    need = _need(c, n_melds + 1, nocap, stab, htab, sws)
    if first < 0:
        c[d] += 2
    else:
        for i in range(3):
            if first + i != d:
                c[first + i] += 1
    return need


@njit(cache=True)
def _win_value(p, w, self_drawn, flags, conc, nm, mtype, mtile, flowers, fmask, par, row,
               points, excl_ptr, excl_idx, order, rank, tie_order, covers, table, wtable, fan,
               raw, dec, ws):
    """(counted, total) of player ``p`` winning on ``w`` (already in ``conc``); -1 not a win."""
    for i in range(ROW_LEN):
        row[i] = 0
    for t in range(N_KINDS):
        row[COUNTS + t] = conc[p, t]
    for i in range(nm[p]):
        row[MELDS + 2 * i] = mtype[p, i]
        row[MELDS + 2 * i + 1] = mtile[p, i]
    row[WIN] = w
    row[FLAGS] = flags | (F_SELF_DRAWN if self_drawn else 0)
    row[SEAT] = p
    row[ROUND] = par[P_ROUND]
    row[FLOWERS] = flowers[p]
    row[FLOWER_MASK] = fmask[p]
    row[WILD] = -1
    row[LIANLA] = par[P_LEVEL] if p == 0 else 0
    total = score_hand_row(row, points, excl_ptr, excl_idx, order, rank, tie_order,
                           covers, table, wtable, fan, raw, dec, ws)
    if total < 0:
        return -1, -1
    return dec[DEC_COUNTED], total


@njit(cache=True)
def play_hand(seed, level, index, par, stab, htab, points, excl_ptr, excl_idx, order, rank,
              tie_order, covers, table, wtable, wall, conc, nocap, mtype, mtile, row, fan, raw,
              dec, ws, sws, out, out_fans):
    """Play hand ``index`` of ``level``; write its outcome into ``out`` and ``out_fans``."""
    state = np.empty(1, np.uint64)
    state[0] = stream_seed(seed, level, index)
    for i in range(N_WALL):
        wall[i] = i
    for i in range(N_WALL - 1, 0, -1):        # Fisher-Yates
        j = below(state, i + 1)
        t = wall[i]
        wall[i] = wall[j]
        wall[j] = t
    for p in range(4):
        for t in range(N_KINDS):
            conc[p, t] = 0
    nm = np.zeros(4, np.int64)
    flowers = np.zeros(4, np.int64)
    fmask = np.zeros(4, np.int64)
    own = np.zeros(4, np.int64)
    pos = np.empty(4, np.int64)
    pos[0] = 0
    pos[1] = N_WALL - 1
    pos[2] = 0
    pos[3] = par[P_EXHAUST]
    for i in range(N_OUT):
        out[i] = 0
    for f in range(out_fans.shape[0]):
        out_fans[f] = 0
    out[O_WINNER] = -1
    # the deal: 13 each, in turn, and the dealer's 14th
    for r in range(13):
        for p in range(4):
            _draw(p, False, wall, pos, conc, flowers, fmask)
    w = _draw(0, False, wall, pos, conc, flowers, fmask)
    draws = 0
    cur = 0
    first_round = True        # no claim or kong yet, and the dealer has not drawn again
    replacement = False       # the tile in hand came from a kong
    claimed = False           # the player claimed a discard: discard only
    solitaire = par[P_SOLITAIRE] == 1
    discard_wins = par[P_DISCARD_WINS] == 1
    while True:
        plays = cur == 0 or not solitaire
        if not claimed:
            if w < 0:
                break                                   # 荒牌
            if plays:
                # kongs and a self-drawn win
                exhausted = False
                while True:
                    if _need(conc[cur], nm[cur], nocap, stab, htab, sws) == 0:
                        flags = 0
                        if pos[2] >= pos[3]:
                            flags |= F_LAST_WALL
                        if replacement:
                            flags |= F_KONG
                        if first_round and cur == 0 and own[0] == 0:
                            flags |= F_HEAVENLY_HAND     # the dealer, on the deal
                        elif first_round and cur != 0 and own[cur] == 1:
                            flags |= F_EARTHLY_HAND      # a non-dealer, on the first draw
                        counted, total = _win_value(cur, w, True, flags, conc, nm, mtype,
                                                    mtile, flowers, fmask, par, row, points,
                                                    excl_ptr, excl_idx, order, rank,
                                                    tie_order, covers, table, wtable, fan, raw,
                                                    dec, ws)
                        if counted >= par[P_MINIMUM]:
                            _record(out, out_fans, fan, cur, True, draws, own[cur], counted,
                                    total, pos[2], flowers[cur], nm[cur])
                            return
                    if par[P_DEAL_ONLY] == 1:
                        break
                    k, i = _own_kong(conc[cur], cur, nm, mtype, mtile, nocap, stab, htab, sws)
                    if k < 0:
                        break
                    if i < 0:                           # concealed kong
                        conc[cur, k] -= 4
                        _add_meld(cur, M_CKONG, k, mtype, mtile, nm)
                    else:                               # added to a pung
                        conc[cur, k] -= 1
                        mtype[cur, i] = M_KONG
                    first_round = False
                    w = _draw(cur, True, wall, pos, conc, flowers, fmask)
                    replacement = True
                    if w < 0:
                        exhausted = True
                        break
                if exhausted or par[P_DEAL_ONLY] == 1:
                    break
        if plays:
            d, _ = efficiency_discard(conc[cur], nm[cur], nocap, stab, htab, sws)
        else:
            d = w                                       # solitaire: the drawn tile goes out
        conc[cur, d] -= 1
        replacement = False
        claimed = False
        # a win on the discard (rule sets that allow it), first player in turn order
        if discard_wins:
            for step in range(1, 4):
                q = (cur + step) % 4
                if solitaire and q != 0:
                    continue
                conc[q, d] += 1
                if _need(conc[q], nm[q], nocap, stab, htab, sws) == 0:
                    counted, total = _win_value(q, d, False, 0, conc, nm, mtype, mtile,
                                                flowers, fmask, par, row, points, excl_ptr,
                                                excl_idx, order, rank, tie_order, covers,
                                                table, wtable, fan, raw, dec, ws)
                    if counted >= par[P_MINIMUM]:
                        _record(out, out_fans, fan, q, False, draws, own[q], counted, total,
                                pos[2], flowers[q], nm[q])
                        return
                conc[q, d] -= 1
        # 碰 / 杠 (any player) before 吃 (the next player only)
        for step in range(1, 4):
            q = (cur + step) % 4
            if (solitaire and q != 0) or nm[q] >= 4 or conc[q, d] < 2:
                continue
            now = _need(conc[q], nm[q], nocap, stab, htab, sws)
            if conc[q, d] == 3:
                conc[q, d] -= 3
                after = _need(conc[q], nm[q] + 1, nocap, stab, htab, sws)
                conc[q, d] += 3
                if after <= now and pos[2] < pos[3]:     # exposed kong, then a replacement
                    conc[q, d] -= 3
                    _add_meld(q, M_KONG, d, mtype, mtile, nm)
                    cur = q
                    first_round = False
                    w = _draw(cur, True, wall, pos, conc, flowers, fmask)
                    replacement = True
                    claimed = False
                    break
            need = _claim_gain(conc[q], nm[q], nocap, d, -1, stab, htab, sws)
            if need < now:                               # pung
                conc[q, d] -= 2
                _add_meld(q, M_PUNG, d, mtype, mtile, nm)
                cur = q
                first_round = False
                claimed = True
                break
        if replacement or claimed:
            continue            # the claimer plays on (a kong's replacement, or a discard)
        nxt = (cur + 1) % 4
        if d < 27 and nm[nxt] < 4 and not (solitaire and nxt != 0):
            now = _need(conc[nxt], nm[nxt], nocap, stab, htab, sws)
            best_first = -1
            best_need = now
            r = d % 9
            for first in range(d - 2, d + 1):
                if first < d - r or first + 2 > d - r + 8:
                    continue
                ok = True
                for i in range(3):
                    if first + i != d and conc[nxt, first + i] == 0:
                        ok = False
                if not ok:
                    continue
                need = _claim_gain(conc[nxt], nm[nxt], nocap, d, first, stab, htab, sws)
                if need < best_need:
                    best_need = need
                    best_first = first
            if best_first >= 0:                          # chow
                for i in range(3):
                    if best_first + i != d:
                        conc[nxt, best_first + i] -= 1
                _add_meld(nxt, M_CHOW, best_first, mtype, mtile, nm)
                cur = nxt
                first_round = False
                claimed = True
                continue
        cur = nxt
        if cur == 0:
            first_round = False
        own[cur] += 1
        draws += 1
        w = _draw(cur, False, wall, pos, conc, flowers, fmask)
        if w < 0:
            own[cur] -= 1
            draws -= 1
    out[O_DRAWS] = draws
    out[O_TAKEN] = pos[2]


@njit(cache=True)
def _record(out, out_fans, fan, p, self_drawn, draws, own, counted, total, taken, flowers,
            melds):
    out[O_WINNER] = p
    out[O_SELF_DRAWN] = 1 if self_drawn else 0
    out[O_DRAWS] = draws
    out[O_OWN_DRAWS] = own
    out[O_COUNTED] = counted
    out[O_TOTAL] = total
    out[O_TAKEN] = taken
    out[O_FLOWERS] = flowers
    out[O_MELDS] = melds
    for f in range(out_fans.shape[0]):
        out_fans[f] = fan[f]


@njit(cache=True, nogil=True)
def play_hands(seed, level, first, par, stab, htab, points, excl_ptr, excl_idx, order, rank,
               tie_order, covers, table, wtable, out, out_fans):
    """Hands ``first .. first + len(out) - 1`` of ``level``, one after another.

    Releases the GIL: the caller runs slices on several threads.  (A
    ``prange`` version compiles a third slower, for nothing: each hand's
    result depends only on (seed, level, hand number) anyway.)
    """
    n = out.shape[0]
    nf = points.shape[0]
    wall = np.empty(N_WALL, np.int64)
    conc = np.zeros((4, N_KINDS), np.int64)
    nocap = np.zeros(N_KINDS, np.int64)
    mtype = np.zeros((4, 4), np.int64)
    mtile = np.zeros((4, 4), np.int64)
    row = np.zeros(ROW_LEN, np.int32)
    fan = np.zeros(nf, np.int64)
    raw = np.zeros(0, np.int64)
    dec = np.zeros(DEC_LEN, np.int64)
    ws = np.zeros(WS_LEN, np.int64)
    sws = np.zeros(SH_WS_LEN, np.int64)
    init_workspace(sws)
    for i in range(n):
        play_hand(seed, level, first + i, par, stab, htab, points, excl_ptr, excl_idx,
                  order, rank, tie_order, covers, table, wtable, wall, conc, nocap, mtype,
                  mtile, row, fan, raw, dec, ws, sws, out[i], out_fans[i])
