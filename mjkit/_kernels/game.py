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
from .policy import (
    ASK_CHOW, ASK_DISCARD, ASK_KONG, ASK_PUNG, D_VALUE_OPEN, INF, POLICY_BREAK, POLICY_EFFICIENCY,
    POLICY_USER, POLICY_VALUE, PW_LEN, V_BAR, V_DISCARDER, V_FLOWERS, V_HAND, V_LEN, V_LEVEL,
    V_MELDS, V_N_MELDS, V_SEAT, V_SEEN, V_TILE, V_WALL_LEFT, V_WILD, V_ASK, choose_directions,
    connection, directed_discard, need_after,
)
from .rng import below, stream_seed
from .shanten import (
    MODE_OVERALL, MODE_USEFUL, N_FORMS, W_FORMS, W_USE, WS_LEN as SH_WS_LEN, analyse,
    init_workspace,
)

N_WALL = 144
N_KINDS = 34

# Parameters (an int64 array).
P_EXHAUST = 0        # tiles taken from the wall after which the hand is drawn out
P_LEVEL = 1          # the dealer's 连拉 level N
P_MINIMUM = 2        # counted fans a win needs (the 连拉 line counts for the dealer)
P_ROUND = 3          # round wind 0..3
P_SOLITAIRE = 4      # 1: only the dealer plays; the others draw and discard the tile drawn
P_DISCARD_WINS = 5   # 1: wins on a discard (and robbing a kong) allowed; 0: self-draw only
P_DEALER_POLICY = 6
P_OTHERS_POLICY = 7
P_DEAL_ONLY = 8      # 1: stop after the deal (the dealer's 天和 check only)
P_DEALER_BONUS = 9   # fans the dealer's 连拉 level brings (4N in dazhong32)
P_SLACK = 10         # small fans a value-aware player counts on besides its direction
P_COMMIT = 11        # need at which a value-aware player commits to one direction
P_BREAK_FROM = 12    # 破拉 acts against a dealer at this level or above
P_WILD_MODE = 13     # WILD_NONE, WILD_FIXED (kind P_WILD_KIND) or WILD_TURNED
P_WILD_KIND = 14
N_PARAMS = 15

WILD_NONE = 0
WILD_FIXED = 1
WILD_TURNED = 2      # the first tile from the back of the wall that is not a flower

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
O_WILD = 9           # the hand's wild kind, -1 none
O_ROBBED = 10        # 1: the win robbed a kong (抢杠和)
O_ERROR = 11         # a user policy's bad answer: ERR_* (the hand stops there)
O_SHORT = 12         # complete hands that fell short of their player's bar (a P胡 avoided)
N_OUT = 13

ERR_DISCARD = 1      # a user policy discarded a tile not in hand

UKEIRE_FROM = 2      # the efficiency discard counts useful tiles from one from ready (costly)
RESCAN = 3           # an uncommitted value-aware player looks at every direction every 3rd turn


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
def _need(c, n_melds, wild, nocap, stab, htab, sws):
    """Tiles still needed (0: complete 14-type hand; 1: ready 13-type hand).

    Wild tiles stand for any tile: the need of the rest less their number
    (whether they really complete the hand is the evaluator's word).
    ``nocap`` is all zeros: copies inside melds are not taken off the limit
    of four.  Completeness does not depend on it (the tiles are in the
    hand), and the table-driven fast path this keeps is about seven times
    quicker than the capped reading for a hand with melds; a policy may
    then rarely count on a fifth copy.
    """
    if wild < 0 or c[wild] == 0:
        return analyse(c, n_melds, nocap, 1, MODE_OVERALL, stab, htab, sws)
    j = c[wild]
    c[wild] = 0
    need = analyse(c, n_melds, nocap, 1, MODE_OVERALL, stab, htab, sws) - j
    c[wild] = j
    return need if need > 0 else 0


@njit(cache=True)
def _useful(c, n_melds, wild, nocap, seen, stab, htab, sws):
    """Unseen copies of the tiles that would lower the need of ``c`` (13-type hand)."""
    j = 0
    if wild >= 0:
        j = c[wild]
        c[wild] = 0
    need = analyse(c, n_melds, nocap, 1, MODE_USEFUL, stab, htab, sws)
    if wild >= 0:
        c[wild] = j
    mask = np.int64(0)
    for f in range(N_FORMS):
        if sws[W_FORMS + f] == need:
            mask |= sws[W_USE + f]
    total = 0
    for t in range(N_KINDS):
        if (mask >> t) & 1:
            left = 4 - c[t] - seen[t]
            if left > 0:
                total += left
    return total


@njit(cache=True)
def efficiency_discard(c, n_melds, wild, nocap, seen, stab, htab, sws):
    """The tile-efficiency discard and the need it leaves: lowest need after it, then (once
    the hand is within ``UKEIRE_FROM`` of ready) the most unseen tiles that would lower that
    need, then the least connected tile, honours and terminals before simples, then the
    lowest kind.  Wild tiles are kept."""
    best_need = 1 << 30
    needs = np.empty(N_KINDS, np.int64)
    for k in range(N_KINDS):
        if c[k] == 0 or k == wild:
            continue
        c[k] -= 1
        needs[k] = _need(c, n_melds, wild, nocap, stab, htab, sws)
        c[k] += 1
        if needs[k] < best_need:
            best_need = needs[k]
    best_k = -1
    best_key = (0, 0, 0, 0)
    for k in range(N_KINDS):
        if c[k] == 0 or k == wild or needs[k] != best_need:
            continue
        c[k] -= 1
        ukeire = 0
        if best_need <= UKEIRE_FROM:
            ukeire = _useful(c, n_melds, wild, nocap, seen, stab, htab, sws)
        key = (-ukeire, connection(c, k) + 1, 0 if k >= 27 or k % 9 == 0 or k % 9 == 8 else 1, k)
        c[k] += 1
        if best_k < 0 or key < best_key:
            best_k = k
            best_key = key
    if best_k < 0:
        best_k = wild
        best_need = 0
    return best_k, best_need


@njit(cache=True)
def _add_meld(p, kind, tile, mtype, mtile, nm):
    mtype[p, nm[p]] = kind
    mtile[p, nm[p]] = tile
    nm[p] += 1


@njit(cache=True)
def _want(p, par, flowers):
    """Fans a value-aware player's direction must bring: the bar, less the 连拉 line for the
    dealer and the allowance for small fans (flowers never count toward the bar)."""
    w = par[P_MINIMUM] - par[P_SLACK]
    if p == 0:
        w -= par[P_DEALER_BONUS]
    return w


@njit(cache=True)
def _mode(p, pol, par, flowers):
    """The policy player ``p`` plays now.  破拉 only acts against a dealer on a streak of at
    least ``P_BREAK_FROM`` (otherwise it plays the value-aware way); a value-aware player
    whose bar is already met by the 连拉 line plays for speed alone."""
    m = pol[p]
    if m == POLICY_BREAK and (p == 0 or par[P_LEVEL] < par[P_BREAK_FROM]):
        m = POLICY_VALUE
    if (m == POLICY_VALUE or m == POLICY_BREAK) and _want(p, par, flowers) <= 0:
        m = POLICY_EFFICIENCY
    return m


@njit(cache=True)
def _fill_view(view, ask, tile, p, discarder, c, nm, mtype, mtile, seen, flowers, wild, pos,
               par):
    view[V_ASK] = ask
    view[V_TILE] = tile
    view[V_SEAT] = p
    view[V_LEVEL] = par[P_LEVEL]
    view[V_BAR] = par[P_MINIMUM] - (par[P_DEALER_BONUS] if p == 0 else 0)
    view[V_WALL_LEFT] = pos[3] - pos[2]
    view[V_N_MELDS] = nm[p]
    view[V_WILD] = wild
    view[V_FLOWERS] = flowers[p]
    view[V_DISCARDER] = discarder
    for k in range(N_KINDS):
        view[V_HAND + k] = c[k]
        view[V_SEEN + k] = seen[k]
    for i in range(4):
        view[V_MELDS + 2 * i] = mtype[p, i] if i < nm[p] else 0
        view[V_MELDS + 2 * i + 1] = mtile[p, i] if i < nm[p] else 0


@njit(cache=True)
def _ask(hook_dealer, hook_others, p, view):
    if p == 0:
        return hook_dealer(view)
    return hook_others(view)


@njit(cache=True)
def _discard(p, conc, nm, mtype, mtile, wild, pol, par, flowers, seen, pos, nocap, stab, htab,
             sws, dinfo, dmask, dtk, dtn, pw, best, kept, pdir, view, hook_dealer, hook_others):
    """The tile player ``p`` discards from a 14-type hand (-1: a user policy's bad answer).

    A value-aware player's chosen direction and its need are kept in
    ``pdir[p]``, ``pdir[4 + p]`` for the claims and kongs until the next
    discard; every direction is looked at every ``RESCAN`` turns.  Once its need is at most ``P_COMMIT`` the player is committed
    (``pdir[8 + p]``, seed 000's 8上) and no longer looks at other directions:
    its own discards and claims never raise that need again.
    """
    c = conc[p]
    mode = _mode(p, pol, par, flowers)
    if mode == POLICY_USER:
        _fill_view(view, ASK_DISCARD, -1, p, -1, c, nm, mtype, mtile, seen, flowers, wild,
                   pos, par)
        k = _ask(hook_dealer, hook_others, p, view)
        if k < 0 or k >= N_KINDS or c[k] == 0:
            return -1
        return k
    if mode == POLICY_VALUE or mode == POLICY_BREAK:
        if pdir[8 + p] == 1:
            kept[0] = pdir[p]
            return directed_discard(c, nm[p], mtype[p], mtile[p], wild, kept, 1,
                                    mode == POLICY_BREAK, seen, p, dinfo, dmask, dtk, dtn,
                                    stab, htab, sws, pw)
        if pdir[p] >= 0 and pdir[16 + p] < RESCAN:
            # between full looks the two directions stay (a draw and a discard move any
            # direction's need by at most one); only the leader's need is refreshed
            pdir[16 + p] += 1
            d1 = pdir[p]
            d2 = pdir[12 + p]
            need1 = need_after(d1, c, nm[p], mtype[p], mtile[p], wild, dinfo, dmask, dtk, dtn,
                               stab, htab, sws, pw)
        else:
            d1 = choose_directions(c, nm[p], mtype[p], mtile[p], wild, _want(p, par, flowers),
                                   nm[p] == 0, dinfo, dmask, dtk, dtn, stab, htab, sws, pw,
                                   best)
            d2 = best[2]
            need1 = best[1]
            pdir[p] = d1
            pdir[12 + p] = d2
            pdir[16 + p] = 1
        pdir[4 + p] = need1
        if d1 >= 0 and need1 <= par[P_COMMIT]:
            pdir[8 + p] = 1
        if d1 >= 0:
            kept[0] = d1
            n_kept = 1
            if mode == POLICY_VALUE and d2 >= 0 and need1 > par[P_COMMIT]:
                kept[1] = d2                     # 6看: keep two directions until one fits
                n_kept = 2
            return directed_discard(c, nm[p], mtype[p], mtile[p], wild, kept, n_kept,
                                    mode == POLICY_BREAK, seen, p, dinfo, dmask, dtk, dtn,
                                    stab, htab, sws, pw)
    k, _ = efficiency_discard(c, nm[p], wild, nocap, seen, stab, htab, sws)
    return k


@njit(cache=True)
def _accept(q, mtype_new, tile, c_off, n_off, first, discarder, conc, nm, mtype, mtile, wild,
            pol, par, flowers, seen, pos, nocap, stab, htab, sws, dinfo, dmask, dtk, dtn, pw,
            pdir, view, hook_dealer, hook_others):
    """Whether player ``q`` makes the meld ``mtype_new`` of ``tile`` (a chow: from ``first``)
    with ``n_off`` copies of ``c_off`` from the hand (a chow: the two other tiles).

    A claim or kong must leave the hand no further from its goal: efficiency
    compares the overall need, the value-aware policies the need of the
    direction chosen at the player's last discard.  A value-aware player
    claims only once committed to a direction still worth the bar melded.
    """
    c = conc[q]
    mode = _mode(q, pol, par, flowers)
    if mode == POLICY_USER:
        ask = ASK_CHOW if mtype_new == M_CHOW else (
            ASK_PUNG if mtype_new == M_PUNG else ASK_KONG)
        _fill_view(view, ask, first if mtype_new == M_CHOW else tile, q, discarder, c, nm,
                   mtype, mtile, seen, flowers, wild, pos, par)
        return _ask(hook_dealer, hook_others, q, view) != 0
    kong = mtype_new == M_KONG or mtype_new == M_CKONG
    claim = discarder >= 0
    d = -1
    if mode != POLICY_EFFICIENCY:
        d = pdir[q]
        if d < 0:
            return False
        if claim:
            if mode == POLICY_VALUE and pdir[8 + q] == 0:
                return False                     # no claims before committing (8上)
            if dinfo[d, D_VALUE_OPEN] < _want(q, par, flowers):
                return False                     # melded, the direction falls short
    if d < 0:
        now = _need(c, nm[q], wild, nocap, stab, htab, sws)
    else:
        now = need_after(d, c, nm[q], mtype[q], mtile[q], wild, dinfo, dmask, dtk, dtn, stab,
                         htab, sws, pw)
    # the hand with the meld
    added = not (mtype_new == M_KONG and not claim and n_off == 1)
    if mtype_new == M_CHOW:
        for i in range(3):
            if first + i != tile:
                c[first + i] -= 1
    else:
        c[c_off] -= n_off                        # an added kong: the tile joins the pung
    if added:
        mtype[q, nm[q]] = mtype_new
        mtile[q, nm[q]] = first if mtype_new == M_CHOW else tile
    n_after = nm[q] + (1 if added else 0)
    if d < 0:
        after = _need(c, n_after, wild, nocap, stab, htab, sws)
    else:
        after = need_after(d, c, n_after, mtype[q], mtile[q], wild, dinfo, dmask, dtk, dtn,
                           stab, htab, sws, pw)
    if mtype_new == M_CHOW:
        for i in range(3):
            if first + i != tile:
                c[first + i] += 1
    else:
        c[c_off] += n_off
    if after >= INF:
        return False
    # a kong costs nothing if the need does not rise; a pung or chow must lower it
    return after <= now if kong else after < now


@njit(cache=True)
def _win_value(p, w, self_drawn, flags, conc, nm, mtype, mtile, flowers, fmask, wild, par,
               row, points, excl_ptr, excl_idx, order, rank, tie_order, covers, table, wtable,
               fan, raw, dec, ws):
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
    row[WILD] = wild
    row[LIANLA] = par[P_LEVEL] if p == 0 else 0
    total = score_hand_row(row, points, excl_ptr, excl_idx, order, rank, tie_order,
                           covers, table, wtable, fan, raw, dec, ws)
    if total < 0:
        return -1, -1
    return dec[DEC_COUNTED], total


@njit(cache=True)
def _wild_kind(par, wall):
    mode = par[P_WILD_MODE]
    if mode == WILD_FIXED:
        return par[P_WILD_KIND]
    if mode == WILD_TURNED:
        for i in range(N_WALL - 1, -1, -1):
            k = _kind(wall[i])
            if k < N_KINDS:
                return k
    return -1


@njit(cache=True)
def play_hand(seed, level, index, par, stab, htab, points, excl_ptr, excl_idx, order, rank,
              tie_order, covers, table, wtable, dinfo, dmask, dtk, dtn, hook_dealer,
              hook_others, wall, conc, nocap, mtype, mtile, row, fan, raw, dec, ws, sws, pw,
              view, out, out_fans):
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
    seen = np.zeros(N_KINDS, np.int64)
    best = np.zeros(4, np.int64)
    kept = np.zeros(2, np.int64)
    # per player: direction, its need, committed, second direction, turns since a full look
    pdir = np.full(20, -1, np.int64)
    pdir[8:12] = 0
    pdir[16:20] = 0
    pol = np.empty(4, np.int64)
    pol[0] = par[P_DEALER_POLICY]
    for p in range(1, 4):
        pol[p] = par[P_OTHERS_POLICY]
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
    wild = _wild_kind(par, wall)
    out[O_WILD] = wild
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
                    if _need(conc[cur], nm[cur], wild, nocap, stab, htab, sws) == 0:
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
                                                    mtile, flowers, fmask, wild, par, row,
                                                    points, excl_ptr, excl_idx, order, rank,
                                                    tie_order, covers, table, wtable, fan, raw,
                                                    dec, ws)
                        if counted >= par[P_MINIMUM]:
                            _record(out, out_fans, fan, cur, True, draws, own[cur], counted,
                                    total, pos[2], flowers[cur], nm[cur])
                            return
                        if total >= 0:
                            out[O_SHORT] += 1
                    if par[P_DEAL_ONLY] == 1:
                        break
                    k, i = _own_kong(cur, conc, nm, mtype, mtile, wild, pol, par, flowers,
                                     seen, pos, nocap, stab, htab, sws, dinfo, dmask, dtk, dtn,
                                     pw, pdir, view, hook_dealer, hook_others)
                    if k < 0:
                        break
                    if i < 0:                           # concealed kong
                        conc[cur, k] -= 4
                        _add_meld(cur, M_CKONG, k, mtype, mtile, nm)
                        seen[k] += 4
                    else:                               # added to a pung
                        conc[cur, k] -= 1
                        mtype[cur, i] = M_KONG
                        seen[k] += 1
                        if discard_wins and _win_on(cur, k, F_KONG, conc, nm, mtype, mtile,
                                                    flowers, fmask, wild, solitaire, par, row,
                                                    points, excl_ptr, excl_idx, order, rank,
                                                    tie_order, covers, table, wtable, fan,
                                                    raw, dec, ws, nocap, stab, htab, sws,
                                                    own, draws, pos, out, out_fans):
                            return                      # 抢杠和
                    first_round = False
                    w = _draw(cur, True, wall, pos, conc, flowers, fmask)
                    replacement = True
                    if w < 0:
                        exhausted = True
                        break
                if exhausted or par[P_DEAL_ONLY] == 1:
                    break
        if plays:
            d = _discard(cur, conc, nm, mtype, mtile, wild, pol, par, flowers, seen, pos, nocap,
                         stab, htab, sws, dinfo, dmask, dtk, dtn, pw, best, kept, pdir, view,
                         hook_dealer, hook_others)
            if d < 0:
                out[O_ERROR] = ERR_DISCARD
                out[O_WINNER] = -1
                out[O_DRAWS] = draws
                out[O_TAKEN] = pos[2]
                return
        else:
            d = w                                       # solitaire: the drawn tile goes out
        conc[cur, d] -= 1
        seen[d] += 1
        replacement = False
        claimed = False
        # a win on the discard (rule sets that allow it), first player in turn order
        if discard_wins and _win_on(cur, d, 0, conc, nm, mtype, mtile, flowers, fmask, wild,
                                    solitaire, par, row, points, excl_ptr, excl_idx, order,
                                    rank, tie_order, covers, table, wtable, fan, raw, dec, ws,
                                    nocap, stab, htab, sws, own, draws, pos, out, out_fans):
            return
        # 碰 / 杠 (any player) before 吃 (the next player only); a wild tile is never claimed
        if d != wild:
            for step in range(1, 4):
                q = (cur + step) % 4
                if (solitaire and q != 0) or nm[q] >= 4 or conc[q, d] < 2:
                    continue
                if conc[q, d] == 3 and pos[2] < pos[3] and _accept(
                        q, M_KONG, d, d, 3, -1, cur, conc, nm, mtype, mtile, wild, pol, par,
                        flowers, seen, pos, nocap, stab, htab, sws, dinfo, dmask, dtk, dtn, pw,
                        pdir, view, hook_dealer, hook_others):
                    conc[q, d] -= 3                      # exposed kong, then a replacement
                    _add_meld(q, M_KONG, d, mtype, mtile, nm)
                    seen[d] += 3
                    cur = q
                    first_round = False
                    w = _draw(cur, True, wall, pos, conc, flowers, fmask)
                    replacement = True
                    claimed = False
                    break
                if _accept(q, M_PUNG, d, d, 2, -1, cur, conc, nm, mtype, mtile, wild, pol, par,
                           flowers, seen, pos, nocap, stab, htab, sws, dinfo, dmask, dtk, dtn,
                           pw, pdir, view, hook_dealer, hook_others):
                    conc[q, d] -= 2                      # pung
                    _add_meld(q, M_PUNG, d, mtype, mtile, nm)
                    seen[d] += 2
                    cur = q
                    first_round = False
                    claimed = True
                    break
        if replacement or claimed:
            continue            # the claimer plays on (a kong's replacement, or a discard)
        nxt = (cur + 1) % 4
        if d < 27 and d != wild and nm[nxt] < 4 and not (solitaire and nxt != 0):
            # of the chows the player would accept, the one that helps most
            chosen = -1
            r = d % 9
            for first in range(d - 2, d + 1):
                if first < d - r or first + 2 > d - r + 8:
                    continue
                ok = True
                for i in range(3):
                    t = first + i
                    if t != d and (conc[nxt, t] == 0 or t == wild):
                        ok = False
                if ok and _accept(nxt, M_CHOW, d, d, 0, first, cur, conc, nm, mtype, mtile,
                                  wild, pol, par, flowers, seen, pos, nocap, stab, htab, sws,
                                  dinfo, dmask, dtk, dtn, pw, pdir, view, hook_dealer,
                                  hook_others):
                    chosen = first
                    break
            if chosen >= 0:                              # chow
                for i in range(3):
                    if chosen + i != d:
                        conc[nxt, chosen + i] -= 1
                        seen[chosen + i] += 1
                _add_meld(nxt, M_CHOW, chosen, mtype, mtile, nm)
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
def _own_kong(p, conc, nm, mtype, mtile, wild, pol, par, flowers, seen, pos, nocap, stab,
              htab, sws, dinfo, dmask, dtk, dtn, pw, pdir, view, hook_dealer, hook_others):
    """A kong player ``p`` declares on their own turn: (kind, meld index or -1), or (-1, -1).
    Concealed (four in hand) or added to a pung; never of the wild kind."""
    if nm[p] >= 4:
        return -1, -1
    c = conc[p]
    for k in range(N_KINDS):
        if k == wild:
            continue
        if c[k] == 4:
            if _accept(p, M_CKONG, k, k, 4, -1, -1, conc, nm, mtype, mtile, wild, pol, par,
                       flowers, seen, pos, nocap, stab, htab, sws, dinfo, dmask, dtk, dtn, pw,
                       pdir, view, hook_dealer, hook_others):
                return k, -1
        elif c[k] >= 1:
            for i in range(nm[p]):
                if mtype[p, i] == M_PUNG and mtile[p, i] == k:
                    if _accept(p, M_KONG, k, k, 1, -1, -1, conc, nm, mtype, mtile, wild, pol,
                               par, flowers, seen, pos, nocap, stab, htab, sws, dinfo, dmask,
                               dtk, dtn, pw, pdir, view, hook_dealer, hook_others):
                        return k, i
    return -1, -1


@njit(cache=True)
def _win_on(cur, k, flags, conc, nm, mtype, mtile, flowers, fmask, wild, solitaire, par, row,
            points, excl_ptr, excl_idx, order, rank, tie_order, covers, table, wtable, fan, raw,
            dec, ws, nocap, stab, htab, sws, own, draws, pos, out, out_fans):
    """A win on ``cur``'s tile ``k`` by the first other player in turn order who can
    declare one: a discard, or with ``F_KONG`` the tile added to a pung (抢杠和)."""
    for step in range(1, 4):
        q = (cur + step) % 4
        if solitaire and q != 0:
            continue
        conc[q, k] += 1
        if _need(conc[q], nm[q], wild, nocap, stab, htab, sws) == 0:
            counted, total = _win_value(q, k, False, flags, conc, nm, mtype, mtile, flowers,
                                        fmask, wild, par, row, points, excl_ptr, excl_idx,
                                        order, rank, tie_order, covers, table, wtable, fan,
                                        raw, dec, ws)
            if counted >= par[P_MINIMUM]:
                _record(out, out_fans, fan, q, False, draws, own[q], counted, total, pos[2],
                        flowers[q], nm[q])
                if flags & F_KONG:
                    out[O_ROBBED] = 1
                return True
            if total >= 0:
                out[O_SHORT] += 1
        conc[q, k] -= 1
    return False


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
               tie_order, covers, table, wtable, dinfo, dmask, dtk, dtn, hook_dealer,
               hook_others, out, out_fans):
    """Hands ``first .. first + len(out) - 1`` of ``level``, one after another.

    ``dinfo``, ``dmask``, ``dtk``, ``dtn`` are the directions of the
    value-aware policies (:mod:`.policy`); ``hook_dealer`` and
    ``hook_others`` are compiled callbacks (``int64(int64[::1])``) asked
    by ``POLICY_USER`` players, a do-nothing one otherwise.  Releases the
    GIL: the caller runs slices on several threads.  (A ``prange`` version
    compiles a third slower, for nothing: each hand's result depends only
    on (seed, level, hand number) anyway.)
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
    pw = np.zeros(PW_LEN, np.int64)
    view = np.zeros(V_LEN, np.int64)
    init_workspace(sws)
    for i in range(n):
        play_hand(seed, level, first + i, par, stab, htab, points, excl_ptr, excl_idx,
                  order, rank, tie_order, covers, table, wtable, dinfo, dmask, dtk, dtn,
                  hook_dealer, hook_others, wall, conc, nocap, mtype, mtile, row, fan, raw,
                  dec, ws, sws, pw, view, out[i], out_fans[i])
