"""Players' decisions in the simulator: what to discard, what to claim, when to kong.

A *direction* is what a value-aware player aims at: a set of allowed kinds
(a mask: one suit for 清一色, simples for 断幺 ...), a shape (regular, seven
pairs or all pungs) and optionally a template of tiles the hand must hold
(the nine tiles of 清龙, the three chows of 一色三步高 ...).  The table of
directions and what each is worth is built in Python from the rule set's
fan table (:mod:`mjkit.sim.directions`); here each direction's *need* is
computed: the tiles still to draw to complete it, in the units of
:func:`.shanten.analyse` (0: a complete 14-tile hand, 1: a ready 13-tile
hand).  Melded sets are read as if they were in the hand, so a need is a
slight underestimate for a melded hand: good enough to steer a policy,
never used to declare a win (the evaluator decides that).

Policies:

* ``POLICY_EFFICIENCY``: value-blind; lowest overall need.
* ``POLICY_VALUE``: directions worth the player's bar (less an allowance
  for the small fans every hand picks up); early on the best two are kept
  (seed 000: 6看), and the player commits to one once it needs at most
  ``P_COMMIT`` tiles (8上: eight of thirteen tiles fit).  Claims only
  once committed, and only when the melded hand is still worth the bar.
* ``POLICY_BREAK``: 破拉 (seed 000 §一.5, §四.3, §五.3): against a dealer
  on a streak, go for the quickest legal hand, claim freely, and of equal
  discards keep back those the dealer could claim.
* ``POLICY_STRONG``: the fast mode of the win-probability engine
  (:mod:`.fast_play`) at the player's own bar; see :mod:`.game`.
* ``POLICY_STRONG_BREAK``: strong, and 破拉 against a dealer on a streak: once its
  own chances are small it throws the tiles least likely to feed the dealer a claim.
* ``POLICY_USER``: a compiled callback (a numba ``cfunc``) decides.
"""

import numpy as np
from numba import njit

from .game_state import PolicyScratch
from .shanten import (
    MODE_USEFUL, N_FORMS, W_FORMS, W_KEYS, W_USE, WS_LEN, analyse, init_workspace, need_keys,
    wild_need,
)

POLICY_EFFICIENCY = 0
POLICY_VALUE = 1
POLICY_BREAK = 2
POLICY_USER = 3
POLICY_STRONG = 4
POLICY_STRONG_BREAK = 5
POLICY_OUTSIDE = 6     # decided outside the kernel: the game stops and asks (mjkit.table)

# Direction shapes.
SHAPE_REGULAR = 0
SHAPE_PAIRS = 1
SHAPE_PUNGS = 2

# Columns of the direction info table (``Directions.info``, one row per direction).
D_MASK = 0           # row of the mask table
D_SHAPE = 1
D_N_TMPL = 2         # entries of the template (kinds / copies), 0..9
D_TMPL_SETS = 3      # sets the template makes (0 without one)
D_VALUE_CLOSED = 4   # fans the direction brings in a closed hand
D_VALUE_OPEN = 5     # ... and with melds
D_INFO = 6
N_TMPL = 9

INF = 99

MAX_MASKS = 64
MAX_DIRECTIONS = 512
N_LB = 30            # lower bounds at or above this share the last bucket
N_KINDS = 34

UKEIRE_FROM = 2      # the efficiency discard counts useful tiles from one from ready (costly)
RESCAN = 3           # an uncommitted value-aware player looks at every direction every 3rd turn

# The user callback's view (int64 array), offsets.
V_ASK = 0            # what is asked: ASK_*
V_TILE = 1           # the tile asked about (a claim: the discard; a chow: its first tile)
V_SEAT = 2           # the player's seat (0 = dealer)
V_LEVEL = 3          # the dealer's 连拉 level
V_BAR = 4            # fans the player's hand itself needs (the 连拉 line taken off)
V_WALL_LEFT = 5      # tiles still to be taken before the hand is drawn out
V_N_MELDS = 6
V_WILD = 7           # the wild kind, -1 none
V_FLOWERS = 8
V_DISCARDER = 9      # a claim: the seat that discarded
V_HAND = 10          # 34: the player's concealed counts
V_SEEN = 44          # 34: tiles everybody has seen (discards, melds), own hand excluded
V_MELDS = 78         # 4 x (type, tile)
V_LEN = 86
ASK_DISCARD = 0      # return the kind to discard (held, not the wild kind unless only wilds)
ASK_PUNG = 1         # return 1 to pung the discard
ASK_CHOW = 2         # return 1 to chow the discard (V_TILE: the chow's first tile)
ASK_KONG = 3         # return 1 to declare the kong of V_TILE (concealed, added or on a discard)
ASK_EXCHANGE = 4     # 起手换牌: return a kind to exchange (asked up to 3 times), else -1


@njit(cache=True)
def policy_scratch():
    """Fresh work arrays for the policy kernels (:class:`~.game_state.PolicyScratch`)."""
    sws = np.zeros(WS_LEN, np.int64)
    init_workspace(sws)
    return PolicyScratch(sws, np.zeros(34, np.int64), np.zeros(34, np.int64),
                         np.zeros(MAX_MASKS, np.int64), np.zeros(MAX_DIRECTIONS, np.int64),
                         np.zeros(MAX_DIRECTIONS, np.int64), np.zeros(N_LB + 2, np.int64))


@njit(cache=True)
def regular_need(cnt, n_sets, tabs, sws):
    """Need of ``n_sets`` sets and a pair from the counts ``cnt`` (table lookups only)."""
    for g in range(3):
        key = 0
        for r in range(8, -1, -1):
            key = key * 5 + cnt[9 * g + r]
        sws[W_KEYS + g] = key
    key = 0
    for r in range(6, -1, -1):
        key = key * 5 + cnt[27 + r]
    sws[W_KEYS + 3] = key
    return need_keys(sws, W_KEYS, n_sets, tabs.stab, tabs.htab)


@njit(cache=True)
def read_in(c, nm, mtype, mtile, wild, v):
    """``v`` = the concealed counts plus the melds' tiles (a kong as a pung), wild tiles
    left out; returns the wild tiles held and whether a meld is a chow (bit 1) / a pung
    or kong (bit 2)."""
    for k in range(34):
        v[k] = c[k]
    jokers = 0
    if wild >= 0:
        jokers = c[wild]
        v[wild] = 0
    kinds = 0
    for i in range(nm):
        t = mtile[i]
        if mtype[i] == 1:                  # chow
            v[t] += 1
            v[t + 1] += 1
            v[t + 2] += 1
            kinds |= 1
        else:
            v[t] += 3
            kinds |= 2
    for k in range(34):
        if v[k] > 4:
            v[k] = 4
    return jokers, kinds


@njit(cache=True)
def _pairs_need(v, mask):
    pairs = 0
    singles = 0
    for k in range(34):
        if mask[k]:
            pairs += v[k] >> 1
            singles += v[k] & 1
    short = 7 - min(pairs, 7)
    one = min(short, singles)
    return one + 2 * (short - one)


@njit(cache=True)
def _pungs_need(v, mask):
    t3 = 0
    t2 = 0
    t1 = 0
    for k in range(34):
        if mask[k]:
            x = v[k]
            if x >= 3:
                t3 += 1
            elif x == 2:
                t2 += 1
            elif x == 1:
                t1 += 1
    p = min(t3, 4)
    extra = t3 - p                       # a fifth triple can give the pair
    best = INF
    # the pair: from a pair, a spare triple, a single, or nothing
    for src in range(4):
        a2 = t2
        a1 = t1
        if src == 0:
            if a2 == 0 and extra == 0:
                continue
            cost = 0
            if extra == 0:
                a2 -= 1
        elif src == 1:
            if a1 == 0:
                continue
            cost = 1
            a1 -= 1
        elif src == 2:
            cost = 2
        else:
            continue
        left = 4 - p
        use2 = min(left, a2)
        cost += use2
        left -= use2
        use1 = min(left, a1)
        cost += 2 * use1
        left -= use1
        cost += 3 * left
        if cost < best:
            best = cost
    return best


@njit(cache=True, _nrt=False)
def direction_need(d, v, jokers, kinds, nm, dirs, tabs, ps):
    """Need of direction ``d`` for the read-in hand ``v`` (see :func:`read_in`)."""
    info = dirs.info
    mask = dirs.masks[info[d, D_MASK]]
    shape = info[d, D_SHAPE]
    if shape == SHAPE_PAIRS:
        if nm > 0:
            return INF
        need = _pairs_need(v, mask)
    elif shape == SHAPE_PUNGS:
        if kinds & 1:
            return INF
        need = _pungs_need(v, mask)
    else:
        r = ps.r
        n = info[d, D_N_TMPL]
        for k in range(34):
            r[k] = v[k] if mask[k] else 0
        miss = 0
        for i in range(n):
            k = dirs.tmpl_kinds[d, i]
            have = r[k]
            want = dirs.tmpl_copies[d, i]
            if have >= want:
                r[k] = have - want
            else:
                miss += want - have
                r[k] = 0
        need = miss + regular_need(r, 4 - info[d, D_TMPL_SETS], tabs, ps.sws)
    need -= jokers
    return need if need > 0 else 0


@njit(cache=True)
def _lower_bound(d, v, ps, dirs):
    """A cheap lower bound on a direction's need: the tiles outside its mask or missing
    from its template (each draw can mend one of either)."""
    out = ps.outside[dirs.info[d, D_MASK]]
    miss = 0
    for i in range(dirs.info[d, D_N_TMPL]):
        short = dirs.tmpl_copies[d, i] - v[dirs.tmpl_kinds[d, i]]
        if short > 0:
            miss += short
    return out if out > miss else miss


@njit(cache=True)
def choose_directions(c, nm, mtype, mtile, wild, want, closed, dirs, tabs, ps):
    """The two best directions worth ``want`` fans: ``(d1, need1, d2, need2)`` (-1 and
    ``INF`` for none).  Ranked by need, then by value.

    Directions are visited in order of a cheap lower bound on their need
    (a counting sort), and the visit stops once the bound passes the
    second-best need found: most directions are never evaluated.
    """
    v = ps.v
    bound = ps.bound
    order = ps.order
    bucket = ps.bucket
    info = dirs.info
    jokers, kinds = read_in(c, nm, mtype, mtile, wild, v)
    n_masks = dirs.masks.shape[0]
    for m in range(n_masks):
        out = 0
        for k in range(34):
            if not dirs.masks[m, k]:
                out += v[k]
        ps.outside[m] = out
    for b in range(N_LB + 1):
        bucket[b] = 0
    vcol = D_VALUE_CLOSED if closed else D_VALUE_OPEN
    n_dir = info.shape[0]
    for d in range(n_dir):
        if info[d, vcol] < want:
            bound[d] = -1
            continue
        lb = _lower_bound(d, v, ps, dirs) - jokers
        if lb < 0:
            lb = 0
        if lb > N_LB - 1:
            lb = N_LB - 1
        bound[d] = lb
        bucket[lb + 1] += 1
    for b in range(N_LB):
        bucket[b + 1] += bucket[b]
    for d in range(n_dir):
        lb = bound[d]
        if lb >= 0:
            order[bucket[lb]] = d
            bucket[lb] += 1
    n_ok = bucket[N_LB - 1]
    d1 = -1
    need1 = INF
    d2 = -1
    need2 = INF
    for i in range(n_ok):
        d = order[i]
        if bound[d] > need2:
            break                        # no later direction can enter the top two
        val = info[d, vcol]
        need = direction_need(d, v, jokers, kinds, nm, dirs, tabs, ps)
        if need >= INF:
            continue
        if d1 < 0 or need < need1 or (need == need1 and val > info[d1, vcol]):
            d2 = d1
            need2 = need1
            d1 = d
            need1 = need
        elif d2 < 0 or need < need2 or (need == need2 and val > info[d2, vcol]):
            d2 = d
            need2 = need
    return d1, need1, d2, need2


@njit(cache=True)
def need_after(d, c, nm, mtype, mtile, wild, dirs, tabs, ps):
    """Need of direction ``d`` for the hand ``c`` (melds read in)."""
    jokers, kinds = read_in(c, nm, mtype, mtile, wild, ps.v)
    return direction_need(d, ps.v, jokers, kinds, nm, dirs, tabs, ps)


@njit(cache=True)
def helps(d, k, dirs):
    """Whether kind ``k`` can count toward direction ``d`` (inside its mask or template)."""
    if dirs.masks[dirs.info[d, D_MASK], k]:
        return True
    for i in range(dirs.info[d, D_N_TMPL]):
        if dirs.tmpl_kinds[d, i] == k:
            return True
    return False


@njit(cache=True)
def connection(c, k):
    """Tiles of the hand that work with one copy of ``k`` (itself excluded)."""
    if k >= 27:
        return c[k] - 1
    r = k % 9
    s = 0
    for dd in range(-2, 3):
        if 0 <= r + dd <= 8:
            s += c[k + dd]
    return s - 1


@njit(cache=True)
def danger(k, c, seen, discarder):
    """How much a discard of ``k`` could feed the dealer a claim (破拉 keeps these back):
    a pung unless three other copies are accounted for, a chow if the dealer plays next."""
    x = 0
    if seen[k] + c[k] < 3:
        x += 1
    if discarder == 3 and k < 27:
        x += 1
    return x


@njit(cache=True)
def directed_discard(c, nm, mtype, mtile, wild, kept, defend, seen, seat, dirs, tabs, ps):
    """The discard that keeps the kept directions quickest.

    ``kept`` is ``(d1, d2)``, ``d2`` -1 when only one direction is kept.
    Key, smallest first: the summed need of the kept directions after the
    discard; for 破拉 (``defend``) how much the tile could feed the dealer;
    whether the tile counts toward a kept direction; its connection to the
    hand; honours and terminals before simples; the lowest kind.  The hand
    is read in once; each candidate only moves one count.
    """
    v = ps.v
    jokers, kinds = read_in(c, nm, mtype, mtile, wild, v)
    n_kept = 1 if kept[1] < 0 else 2
    base0 = -1
    base1 = -1
    best_k = -1
    best_key = (INF * 4, 9, 9, 99, 9, 99)
    for k in range(34):
        if c[k] == 0 or k == wild:
            continue
        total = 0
        inside = 0
        for j in range(n_kept):
            d = kept[j]
            if helps(d, k, dirs):
                inside = 1
                v[k] -= 1
                total += direction_need(d, v, jokers, kinds, nm, dirs, tabs, ps)
                v[k] += 1
            else:
                # a tile outside the direction leaves its need unchanged
                if j == 0:
                    if base0 < 0:
                        base0 = direction_need(d, v, jokers, kinds, nm, dirs, tabs, ps)
                    total += base0
                else:
                    if base1 < 0:
                        base1 = direction_need(d, v, jokers, kinds, nm, dirs, tabs, ps)
                    total += base1
        dz = danger(k, c, seen, seat) if defend else 0
        mid = 0 if k >= 27 or k % 9 == 0 or k % 9 == 8 else 1
        key = (total, dz, inside, connection(c, k), mid, k)
        if key < best_key:
            best_key = key
            best_k = k
    if best_k < 0:                       # nothing but wild tiles
        best_k = wild
    return best_k


@njit(cache=True, inline="always")
def useful_live(c, n_melds, wild, nocap, seen, tabs, sws):
    """Unseen copies of the tiles that would lower the need of ``c`` (13-type hand)."""
    j = 0
    if wild >= 0:
        j = c[wild]
        c[wild] = 0
    need = analyse(c, n_melds, nocap, np.int64(1), np.int64(MODE_USEFUL), tabs.stab, tabs.htab,
                   sws)
    if wild >= 0:
        c[wild] = j
    mask = np.int64(0)
    for f in range(N_FORMS):
        if sws[W_FORMS + f] == need:
            mask |= sws[W_USE + f]
    total = 0
    for k in range(N_KINDS):
        if (mask >> k) & 1:
            left = 4 - c[k] - seen[k]
            if left > 0:
                total += left
    return total


@njit(cache=True, inline="always")
def efficiency_discard(c, n_melds, wild, nocap, seen, tabs, sws):
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
        needs[k] = wild_need(c, n_melds, wild, nocap, tabs, sws)
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
            ukeire = useful_live(c, n_melds, wild, nocap, seen, tabs, sws)
        key = (-ukeire, connection(c, k) + 1, 0 if k >= 27 or k % 9 == 0 or k % 9 == 8 else 1, k)
        c[k] += 1
        if best_k < 0 or key < best_key:
            best_k = k
            best_key = key
    if best_k < 0:
        best_k = wild
        best_need = 0
    return best_k, best_need


@njit(cache=True, inline="always")
def value_discard(c, nm, mtype, mtile, wild, s, aim, seen, seat, dirs, tabs, ps):
    """The value-aware discard (``POLICY_VALUE``, or 破拉 with ``aim.defend``), -1 when no
    direction is worth ``aim.want`` fans.

    ``s`` is the player's seat record (:data:`~.game_state.SEAT_DTYPE`): the directions
    chosen are kept in it (``aim``, ``aim2``) from one discard to the next, and every
    direction is looked at every ``RESCAN`` turns.  Once the leading need is at most
    ``aim.commit`` the player is committed (``committed``, seed 000's 8上) and no longer looks
    at other directions.  Before that a value-aware player keeps the best two (6看); 破拉
    keeps one.
    """
    want, commit, defend = aim.want, aim.commit, aim.defend
    first = -1
    second = -1
    if s.committed == 1:
        first = s.aim
    else:
        if s.aim >= 0 and s.since_look < RESCAN:
            # between full looks the two directions stay (a draw and a discard move any
            # direction's need by at most one); only the leader's need is refreshed
            s.since_look += 1
            d1 = s.aim
            d2 = s.aim2
            need1 = need_after(d1, c, nm, mtype, mtile, wild, dirs, tabs, ps)
        else:
            d1, need1, d2, _ = choose_directions(c, nm, mtype, mtile, wild, want, nm == 0,
                                                 dirs, tabs, ps)
            s.aim = d1
            s.aim2 = d2
            s.since_look = 1
        s.aim_need = need1
        if d1 >= 0 and need1 <= commit:
            s.committed = 1
        if d1 >= 0:
            first = d1
            if not defend and d2 >= 0 and need1 > commit:
                second = d2              # 6看: keep two directions until one fits
    if first < 0:
        return -1
    return directed_discard(c, nm, mtype, mtile, wild, (first, second), defend, seen, seat,
                            dirs, tabs, ps)
