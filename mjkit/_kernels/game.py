"""The hand simulator: one mahjong hand from the shuffle to a win or an exhaustive draw.

Tiles are kinds 0..33 (four copies each) and the eight flowers 34..41 (one
each): 144 in the wall.  Seat 0 is the dealer (East) and starts with 14
tiles; a flower is set aside and replaced from the end of the wall; the hand
is drawn out (荒牌) once ``GameParams.exhaust`` tiles have been taken from the wall
(seed 003: the 120th).  Every win is scored by the evaluator
(``evaluate.score_hand_row``) with the winner's seat wind, flowers and, for
the dealer, the 连拉 level, and is declared only when its counted fans reach
the rule set's minimum: no P胡.

After each discard: a win on it where the rule set allows it (first player
in turn order), else 碰 or 明杠 by any player, else 吃 by the next player; a
player declares concealed and added kongs on their own turn and draws the
replacement from the back.  With ``GameParams.exchange`` (起手换牌, seed
001 A.c) each player, after the deal, swaps up to three tiles of its choice
for tiles at random places of the wall.  Players decide with a policy (``POLICY_*``);
in solitaire mode (``GameParams.solitaire``) the others only draw and
discard the tile drawn.  Each hand takes its random numbers from its own
stream (:mod:`.rng`), so a hand's outcome depends only on (seed, level,
hand number).

The kernels take named bundles: the shape tables (``ShantenTables``) and
the rule set (``RuleArrays``) of :mod:`.bundles`; of :mod:`.game_state`
the settings (``GameParams``), the value-aware directions
(``Directions``), the user policies (``PolicyHooks``), the strong
players' fast-mode tables (``StrongPlay``), the hand in play
(``Table``, whose per-seat and per-hand state are records ``SEAT_DTYPE``
and ``HAND_DTYPE``), the scratch (``Work``) and one ``OUTCOME_DTYPE``
record per hand.
"""

import numpy as np
from numba import njit

from .game_state import (
    A_CHOW, A_DISCARD, A_EXCHANGE, A_KONG, A_NONE, A_PASS, A_PUNG, A_WIN, EV_AKONG, EV_CHOW,
    EV_CKONG, EV_DEALT, EV_DISCARD, EV_DRAW, EV_DRAWN_OUT, EV_ERROR, EV_EXCHANGE, EV_FALSE_WIN,
    EV_FLOWER, EV_KONG, EV_PUNG, EV_WILD, EV_WIN, HAND_DTYPE, LEGAL_MAX, NK_CLAIM, NK_DRAWS,
    NK_LIVE, NK_MELD, NK_MELDS, NK_PLAYER, NK_TILES, NK_WILD, NOW_ASKED, NOW_KEY_LEN, NOW_LAST,
    PH_CLAIMS, PH_DISCARD, PH_END, PH_EXCHANGE, PH_KONG_DRAW, PH_OWN, PH_ROB, PH_TURN,
    Q_CLAIM, Q_DISCARD, Q_EXCHANGE, Q_NONE, Q_ROB, Q_TURN, SEAT_DTYPE, ScoreScratch, Table,
    ValueAim, Work,
)
from .evaluate import WS_LEN, score_hand_row
from .layout import (
    COUNTS, DEC_COUNTED, DEC_LEN, F_EARTHLY_HAND, F_HEAVENLY_HAND, F_KONG, F_LAST_WALL,
    F_SELF_DRAWN, FLAGS, FLOWER_MASK, FLOWERS, LIANLA, M_CHOW, M_CKONG, M_KONG, M_PUNG, MELDS,
    ROUND, ROW_LEN, SEAT, WILD, WIN,
)
from .fast_play import fast_decide, fast_pick, fast_targets
from .strong_melds import melded_rate
from .policy import (
    ASK_CHOW, ASK_DISCARD, ASK_EXCHANGE, ASK_KONG, ASK_PUNG, D_VALUE_OPEN, INF, POLICY_BREAK,
    POLICY_EFFICIENCY, POLICY_OUTSIDE, POLICY_STRONG, POLICY_STRONG_BREAK, POLICY_USER, POLICY_VALUE, V_BAR,
    V_DISCARDER, V_FLOWERS, V_HAND, V_LEN, V_LEVEL, V_MELDS, V_N_MELDS, V_SEAT, V_SEEN, V_TILE,
    V_WALL_LEFT, V_WILD, V_ASK, connection, danger, efficiency_discard, need_after,
    policy_scratch, value_discard,
)
from .rng import below, stream_seed
from .shanten import wild_need

N_WALL = 144
N_KINDS = 34

WILD_NONE = 0
WILD_FIXED = 1
WILD_TURNED = 2      # the first tile from the back of the wall that is not a flower

ERR_DISCARD = 1      # a user policy discarded a tile not in hand

# A strong+break player (破拉) plays safe once its own chances (the fast mode's score of
# its best discard, a summed win chance) are below this.
BREAK_CHANCE = 0.05


# What the first call compiles.  Constants passed to a kernel are given as np.int64(...) /
# np.bool_(...): numba compiles a callee once more for every literal value a call site hands
# it.  A function inlined (``inline="always"``) is expanded where it is called before numba
# prunes the branches a None argument rules out, so code only a table needs (the options of
# a seat played from outside: ``_legal_turn``, ``_gather``, ``_legal_claim``) is compiled on
# its own and the simulator (``outside=None``) never compiles it.  Those option kernels do
# not call the evaluator: numba optimises the evaluator again inside every separately
# compiled function whose call graph holds it, so the wins they offer are read in
# ``advance`` (``_outside_wins``, the turn's own check) and passed in.  ``advance`` is
# compiled on its own too, once per set of players for the simulator (``outside=None``) and
# once for a table of those players.  Measured on 2 cores on an empty cache, side by side
# (benchmarks/bench_table.py --cold-only; numba's compile events): the first table of
# efficiency players takes 107-121 s, of which ``advance`` 94 s (the evaluator 44 s and the
# shanten analysis 11 s inside it), the first ``play_hands`` of the same players 105 s, and
# 5e946ee's (before the table) 93-101 s.  ``_accept`` (five call sites) and the strong
# player's ratings (``_strong_discard``, ``_strong_accept``: their melded targets are scored
# by the evaluator) are compiled on their own.


@njit(cache=True)
def _kind(tile_id):
    return tile_id // 4 if tile_id < 136 else 34 + (tile_id - 136)


@njit(cache=True, inline="always")
def _draw(p, from_back, t):
    """Player ``p`` takes a tile (flowers set aside and replaced from the back).

    Returns the kind drawn, or -1 when the wall is used up (``taken``
    reached ``limit``).
    """
    h = t.hand[0]
    s = t.seats[p]
    back = from_back
    while True:
        if h.taken >= h.limit or h.front > h.back:
            return -1
        if back:
            tile = t.wall[h.back]
            h.back -= 1
        else:
            tile = t.wall[h.front]
            h.front += 1
        h.taken += 1
        k = _kind(tile)
        if k >= N_KINDS:
            s.flowers += 1
            s.flower_mask |= 1 << (k - N_KINDS)
            _emit(t, EV_FLOWER, p, k, 0)
            back = True
            continue
        t.conc[p, k] += 1
        _emit(t, EV_DRAW, p, k, 1 if back else 0)
        return k


@njit(cache=True, inline="always")
def _emit(t, e, seat, a, b):
    """Write the event ``[e, seat, a, b]`` when the hand's events are kept (``t.ev``)."""
    h = t.hand[0]
    n = h.n_ev
    if n < t.ev.shape[0]:
        row = t.ev[n]
        row[0] = e
        row[1] = seat
        row[2] = a
        row[3] = b
    h.n_ev = n + 1


@njit(cache=True, inline="always")
def _chow_fits(c, k, first, wild):
    """Whether the hand ``c`` can make a chow from ``first`` with the suit tile ``k``: the
    run stays in ``k``'s suit and its two other tiles are held (never the wild kind)."""
    r = k % 9
    if first < k - r or first + 2 > k - r + 8:
        return False
    for i in range(3):
        x = first + i
        if x != k and (c[x] == 0 or x == wild):
            return False
    return True


@njit(cache=True, inline="always")
def _add_meld(p, kind, tile, t):
    s = t.seats[p]
    t.mtype[p, s.n_melds] = kind
    t.mtile[p, s.n_melds] = tile
    s.n_melds += 1


@njit(cache=True, inline="always")
def _want(p, par):
    """Fans a value-aware player's direction must bring: the bar, less the 连拉 line for the
    dealer and the allowance for small fans (flowers never count toward the bar)."""
    w = par.minimum - par.slack
    if p == 0:
        w -= par.dealer_bonus
    return w


@njit(cache=True, inline="always")
def _mode(p, t, par, fast):
    """The policy player ``p`` plays now.  破拉 only acts against a dealer on a streak of at
    least ``break_from`` (otherwise it plays the value-aware way); a value-aware player
    whose bar is already met by the 连拉 line plays for speed alone, and so does a strong
    player at a void bar (every complete hand reaches it: ``FastTables.void``)."""
    m = t.seats[p].policy
    if m == POLICY_BREAK and (p == 0 or par.level < par.break_from):
        m = POLICY_VALUE
    if m == POLICY_STRONG_BREAK and (p == 0 or par.level < par.break_from):
        m = POLICY_STRONG
    if (m == POLICY_VALUE or m == POLICY_BREAK) and _want(p, par) <= 0:
        m = POLICY_EFFICIENCY
    if fast is not None:
        if _strong(m) and _tables(p, fast).void:
            m = POLICY_EFFICIENCY
    return m


@njit(cache=True, inline="always")
def _strong(mode):
    """Whether ``mode`` is a strong player's (``strong`` or ``strong_break``)."""
    return mode == POLICY_STRONG or mode == POLICY_STRONG_BREAK


@njit(cache=True, inline="always")
def _tables(p, fast):
    """The fast mode's tables at player ``p``'s own bar."""
    return fast.dealer if p == 0 else fast.others


@njit(cache=True, inline="always")
def _live(p, t, live):
    """Copies of each kind player ``p`` has not seen (in the wall or other hands)."""
    for k in range(N_KINDS):
        x = 4 - t.conc[p, k] - t.seen[k]
        live[k] = x if x > 0 else 0


@njit(cache=True, inline="always")
def _draws_left(p, t, par):
    """Own draws a player has left: a quarter of the tiles still to be taken, and for the
    dealer at most the draws ``par.dealer_draws`` leaves it."""
    h = t.hand[0]
    n = np.int64((h.limit - h.taken) // 4)
    if p == 0 and par.dealer_draws > 0:
        n = min(n, np.int64(par.dealer_draws - t.seats[0].own_draws))
    return n


@njit(cache=True)
def _strong_discard(p, t, par, fast, breaking, sc):
    """The strong player's discard: the fast mode's (``fast_play.fast_decide``) at its own
    bar, with the draws it has left; with melds, rated against the targets that keep them
    (:func:`.strong_melds.melded_rate`), and -1 when none does (the caller then plays the
    tile-efficiency discard).

    ``breaking`` (破拉 on): when the player's own chances (the fast mode's ``score`` of
    its best discard, a summed win chance) are below ``BREAK_CHANCE`` it throws, of the
    tiles that could feed the dealer least (``policy.danger``), the one the fast mode
    rates best.
    """
    c = t.conc[p]
    nm = t.seats[p].n_melds
    wild = t.hand[0].wild
    _live(p, t, fast.live)
    fs = fast.fs
    ft = _tables(p, fast)
    draws = _draws_left(p, t, par)
    if nm == 0:
        d = fast_decide(c, fast.live, draws, wild, ft, fs)
    else:
        if melded_rate(c, nm, t.mtype[p], t.mtile[p], wild, draws, True, ft, fast, sc) == 0:
            return -1
        d = fast_pick(fs.out, c)
    if breaking and fs.out.score[d] < BREAK_CHANCE:
        held = fast.held                 # first each tile's danger (-1: not a candidate)
        low = 99
        for k in range(N_KINDS):
            held[k] = danger(k, c, t.seen, p) if c[k] > 0 and k != wild else -1
            if held[k] >= 0:
                low = min(low, held[k])
        for k in range(N_KINDS):         # then the copies of the safest tiles
            held[k] = c[k] if held[k] == low else 0
        if low < 99:
            d = fast_pick(fs.out, held)
    return d


@njit(cache=True, inline="always")
def _meld_on(q, meld, tile, first, claim, t):
    """Put the meld into player ``q``'s hand for a look ahead: its copies leave ``conc``
    and, unless it is a kong added to a pung, it is written as the next meld.  Returns
    (copies taken of ``tile``, 0 for a chow; the number of melds with it).
    :func:`_meld_off` gives the copies back."""
    c = t.conc[q]
    nm = t.seats[q].n_melds
    if meld == M_CHOW:
        for i in range(3):
            if first + i != tile:
                c[first + i] -= 1
        n_off = 0
    else:
        n_off = 2 if meld == M_PUNG else (4 if meld == M_CKONG else (3 if claim else 1))
        c[tile] -= n_off                         # an added kong: the tile joins the pung
    if claim or meld != M_KONG:
        t.mtype[q, nm] = meld
        t.mtile[q, nm] = first if meld == M_CHOW else tile
        return n_off, nm + 1
    return n_off, nm


@njit(cache=True, inline="always")
def _meld_off(q, meld, tile, first, n_off, t):
    """Undo :func:`_meld_on`'s tiles (the meld slot past ``n_melds`` is left as scratch)."""
    c = t.conc[q]
    if meld == M_CHOW:
        for i in range(3):
            if first + i != tile:
                c[first + i] += 1
    else:
        c[tile] += n_off


@njit(cache=True, inline="always")
def _strong_chance(c, nm, mtype, mtile, wild, draws, discard, ft, fast, sc):
    """The fast mode's score of the hand (``discard`` False: 13 tiles less 3 per meld) or
    of its best discard; 0 when no target keeps the melds."""
    if melded_rate(c, nm, mtype, mtile, wild, draws, discard, ft, fast, sc) == 0:
        return 0.0
    out = fast.fs.out
    return out.score[fast_pick(out, c)] if discard else out.score[0]


@njit(cache=True, _nrt=True)
def _strong_accept(q, meld, tile, first, claim, t, par, fast, sc):
    """Whether a strong player makes the meld: only when the fast mode rates the hand with
    it (its targets kept only where every meld stands, scored with the melds exposed:
    :mod:`.strong_melds`) above the hand without it.  Without it: the 13 tiles as they
    are after another's discard, the best discard of the 14 on its own turn; with a
    pung or chow, its best discard; with a kong, the hand and one draw more (the
    replacement)."""
    c = t.conc[q]
    s = t.seats[q]
    nm = s.n_melds
    mtype = t.mtype[q]
    mtile = t.mtile[q]
    wild = t.hand[0].wild
    ft = _tables(q, fast)
    _live(q, t, fast.live)
    draws = _draws_left(q, t, par)
    kong = meld == M_KONG or meld == M_CKONG
    n_off, n_after = _meld_on(q, meld, tile, first, claim, t)    # undone below
    upgraded = np.int64(-1)              # an added kong: the pung it joins
    if n_after == nm:
        for i in range(nm):
            if mtype[i] == M_PUNG and mtile[i] == tile:
                upgraded = i
        mtype[upgraded] = M_KONG
    extra = np.int64(1) if kong else np.int64(0)
    then = _strong_chance(c, n_after, mtype, mtile, wild, draws + extra, not kong, ft, fast,
                          sc)
    _meld_off(q, meld, tile, first, n_off, t)
    if upgraded >= 0:
        mtype[upgraded] = M_PUNG
    if then == 0.0:                      # no target keeps the meld: nothing to compare
        return False
    return then > _now_chance(q, c, nm, mtype, mtile, wild, draws, claim, ft, fast, sc)


@njit(cache=True)
def _now_chance(q, c, nm, mtype, mtile, wild, draws, claim, ft, fast, sc):
    """:func:`_strong_chance` of player ``q``'s hand without the meld it weighs (the 13
    tiles after a claim's discard, the best discard of its own turn), live copies in
    ``fast.live``.  A player asked about several melds of one discard (a pung and up to
    three chows) or turn (kongs) is rated once: ``fast.now_key`` keeps every input of the
    last rating, and equal inputs give its value back (the rating is a function of them
    alone, so the answer is the same either way)."""
    key = fast.now_key
    live = fast.live
    asked = NOW_ASKED
    key[asked, NK_PLAYER] = q
    key[asked, NK_MELDS] = nm
    key[asked, NK_DRAWS] = draws
    key[asked, NK_CLAIM] = 1 if claim else 0
    key[asked, NK_WILD] = wild
    for k in range(N_KINDS):
        key[asked, NK_TILES + k] = c[k]
        key[asked, NK_LIVE + k] = live[k]
    for i in range(mtype.shape[0]):
        key[asked, NK_MELD + 2 * i] = mtype[i] if i < nm else -1
        key[asked, NK_MELD + 2 * i + 1] = mtile[i] if i < nm else -1
    same = True
    for f in range(NOW_KEY_LEN):
        if key[NOW_LAST, f] != key[asked, f]:
            same = False
            break
    if same:
        return fast.now_val[0]
    v = _strong_chance(c, nm, mtype, mtile, wild, draws, not claim, ft, fast, sc)
    for f in range(NOW_KEY_LEN):
        key[NOW_LAST, f] = key[asked, f]
    fast.now_val[0] = v
    return v


@njit(cache=True)
def _fill_view(view, ask, tile, p, discarder, t, par):
    """What a user policy sees (the public ``V_*`` layout of :mod:`mjkit.sim.policy`)."""
    h = t.hand[0]
    s = t.seats[p]
    nm = s.n_melds
    view[V_ASK] = ask
    view[V_TILE] = tile
    view[V_SEAT] = p
    view[V_LEVEL] = par.level
    view[V_BAR] = par.minimum - (par.dealer_bonus if p == 0 else 0)
    view[V_WALL_LEFT] = h.limit - h.taken
    view[V_N_MELDS] = nm
    view[V_WILD] = h.wild
    view[V_FLOWERS] = s.flowers
    view[V_DISCARDER] = discarder
    for k in range(N_KINDS):
        view[V_HAND + k] = t.conc[p, k]
        view[V_SEEN + k] = t.seen[k]
    for i in range(4):
        view[V_MELDS + 2 * i] = t.mtype[p, i] if i < nm else 0
        view[V_MELDS + 2 * i + 1] = t.mtile[p, i] if i < nm else 0


@njit(cache=True)
def _ask(hooks, p, view):
    if p == 0:
        return hooks.dealer(view)
    return hooks.others(view)


@njit(cache=True, inline="always")
def _discard(p, t, par, tabs, dirs, hooks, fast, wk):
    """The tile player ``p`` discards from a 14-type hand (-1: a user policy's bad answer).

    ``dirs`` (the value-aware policies' directions), ``hooks`` (the user
    policies) and ``fast`` (the strong players' tables) are ``None`` when no
    player uses them: that code is then not compiled.  A value-aware
    player's chosen direction is kept in its seat (``aim``, ``aim2``) for
    the claims and kongs until the next discard;
    every direction is looked at every ``RESCAN`` turns.  Once its need is
    at most ``commit`` the player is committed (``committed``, seed 000's
    8上) and no longer looks at other directions: its own discards and
    claims never raise that need again.
    """
    c = t.conc[p]
    s = t.seats[p]
    nm = s.n_melds
    wild = t.hand[0].wild
    ps = wk.pol
    mode = _mode(p, t, par, fast)
    if fast is not None:
        if _strong(mode):
            k = _strong_discard(p, t, par, fast, mode == POLICY_STRONG_BREAK, wk.score)
            if k >= 0:
                return k
    if hooks is not None:
        if mode == POLICY_USER:
            none = np.int64(-1)
            _fill_view(wk.user_view, np.int64(ASK_DISCARD), none, p, none, t, par)
            k = _ask(hooks, p, wk.user_view)
            if k < 0 or k >= N_KINDS or c[k] == 0:
                return -1
            return k
    if dirs is not None:
        if mode == POLICY_VALUE or mode == POLICY_BREAK:
            aim = ValueAim(_want(p, par), par.commit, mode == POLICY_BREAK)
            k = value_discard(c, nm, t.mtype[p], t.mtile[p], wild, s, aim, t.seen, p, dirs,
                              tabs, ps)
            if k >= 0:
                return k
    k, _ = efficiency_discard(c, nm, wild, t.nocap, t.seen, tabs, ps.sws)
    return k


@njit(cache=True, inline="always")
def _claim_need(q, d, c, n_melds, t, tabs, dirs, ps):
    """The need a claim is judged by: of direction ``d`` (a value-aware player), else the
    overall need."""
    wild = t.hand[0].wild
    if dirs is not None:
        if d >= 0:
            return need_after(d, c, n_melds, t.mtype[q], t.mtile[q], wild, dirs, tabs, ps)
    return wild_need(c, n_melds, wild, t.nocap, tabs, ps.sws)


@njit(cache=True, _nrt=False)
def _accept(q, meld, tile, first, discarder, t, par, tabs, dirs, hooks, fast, wk):
    """Whether player ``q`` makes the meld ``meld`` (``M_*``) of ``tile``: a claim of
    ``discarder``'s discard, or with ``discarder`` -1 a kong on the player's own turn
    (concealed, or added to a pung); a chow runs from ``first``.

    A claim or kong must leave the hand no further from its goal: efficiency
    compares the overall need, the value-aware policies the need of the
    direction chosen at the player's last discard.  A value-aware player
    claims only once committed to a direction still worth the bar melded.  A
    strong player off a void bar melds when the fast mode, its targets kept
    only where the meld stands and scored with it exposed, rates the hand
    higher with the meld (:func:`_strong_accept`).
    """
    c = t.conc[q]
    s = t.seats[q]
    claim = discarder >= 0
    mode = _mode(q, t, par, fast)
    if fast is not None:
        if _strong(mode):
            return _strong_accept(q, meld, tile, first, claim, t, par, fast, wk.score)
    if hooks is not None:
        if mode == POLICY_USER:
            ask = ASK_CHOW if meld == M_CHOW else (ASK_PUNG if meld == M_PUNG else ASK_KONG)
            shown = first if meld == M_CHOW else tile
            _fill_view(wk.user_view, ask, shown, q, discarder, t, par)
            return _ask(hooks, q, wk.user_view) != 0
    kong = meld == M_KONG or meld == M_CKONG
    d = np.int64(-1)
    if dirs is not None:
        if mode == POLICY_VALUE or mode == POLICY_BREAK:
            d = s.aim
            if d < 0:
                return False
            if claim:
                if mode == POLICY_VALUE and s.committed == 0:
                    return False                 # no claims before committing (8上)
                if dirs.info[d, D_VALUE_OPEN] < _want(q, par):
                    return False                 # melded, the direction falls short
    now = _claim_need(q, d, c, s.n_melds, t, tabs, dirs, wk.pol)
    n_off, n_after = _meld_on(q, meld, tile, first, claim, t)
    after = _claim_need(q, d, c, n_after, t, tabs, dirs, wk.pol)
    _meld_off(q, meld, tile, first, n_off, t)
    if after >= INF:
        return False
    # a kong costs nothing if the need does not rise; a pung or chow must lower it
    return after <= now if kong else after < now


@njit(cache=True, inline="always")
def _win_value(p, w, flags, t, par, rules, sc):
    """(counted, total) of player ``p`` winning on ``w`` (already in ``conc``) with the
    situation ``flags``; -1 not a win."""
    row = sc.row
    s = t.seats[p]
    for i in range(ROW_LEN):
        row[i] = 0
    for k in range(N_KINDS):
        row[COUNTS + k] = t.conc[p, k]
    for i in range(s.n_melds):
        row[MELDS + 2 * i] = t.mtype[p, i]
        row[MELDS + 2 * i + 1] = t.mtile[p, i]
    row[WIN] = w
    row[FLAGS] = flags | par.wait_flags
    row[SEAT] = p
    row[ROUND] = par.round_wind
    row[FLOWERS] = s.flowers
    row[FLOWER_MASK] = s.flower_mask
    row[WILD] = t.hand[0].wild
    row[LIANLA] = par.level if p == 0 else 0
    total = score_hand_row(row, rules, sc.fan, sc.raw, sc.dec, sc.ws)
    if total < 0:
        return -1, -1
    return sc.dec[DEC_COUNTED], total


@njit(cache=True)
def _wild_kind(par, wall):
    if par.wild_mode == WILD_FIXED:
        return par.wild_kind
    if par.wild_mode == WILD_TURNED:
        for i in range(N_WALL - 1, -1, -1):
            k = _kind(wall[i])
            if k < N_KINDS:
                return k
    return -1


@njit(cache=True)
def _new_hand(seed, wall_level, index, par, t, out, out_fans):
    """Shuffle the wall of hand ``index`` of (``seed``, ``wall_level``) and clear the table,
    the events and the outcome."""
    rng = t.rng
    rng[0] = stream_seed(seed, wall_level, index)
    wall = t.wall
    for i in range(N_WALL):
        wall[i] = i
    for i in range(N_WALL - 1, 0, -1):        # Fisher-Yates
        j = below(rng, i + 1)
        x = wall[i]
        wall[i] = wall[j]
        wall[j] = x
    t.conc[:, :] = 0
    t.mtype[:, :] = 0
    t.mtile[:, :] = 0
    t.seen[:] = 0
    for p in range(4):
        s = t.seats[p]
        s.n_melds = 0
        s.flowers = 0
        s.flower_mask = 0
        s.own_draws = 0
        s.policy = par.dealer_policy if p == 0 else par.others_policy
        if t.seat_policy[p] >= 0:
            s.policy = t.seat_policy[p]
        s.aim = -1
        s.aim_need = -1
        s.committed = 0
        s.aim2 = -1
        s.since_look = 0
    h = t.hand[0]
    h.front = 0
    h.back = N_WALL - 1
    h.taken = 0
    h.limit = par.exhaust
    h.draws = 0
    h.wild = _wild_kind(par, wall)
    h.n_ev = 0
    h.ask = Q_NONE
    h.n_legal = 0
    t.act[:, :] = 0
    if h.wild >= 0:
        _emit(t, EV_WILD, -1, h.wild, 0)
    o = out
    o.winner = -1
    o.self_drawn = 0
    o.draws = 0
    o.own_draws = 0
    o.counted = 0
    o.total = 0
    o.taken = 0
    o.flowers = 0
    o.melds = 0
    o.wild = h.wild
    o.robbed = 0
    o.error = 0
    o.short = 0
    o.false_win = 0
    o.from_seat = -1
    o.win_tile = -1
    o.flags = 0
    for f in range(out_fans.shape[0]):
        out_fans[f] = 0


@njit(cache=True)
def _edge_ring(k):
    """0 for an honour, else 1 + the rank's distance from the nearer end of its suit."""
    if k >= 27:
        return 0
    r = k % 9
    return 1 + min(r, 8 - r)


@njit(cache=True)
def _lone_picks(c, wild, picks, n):
    """Add to the ``n`` picks the lone tiles of ``c`` not yet picked (a single copy with no
    tile within two ranks of it; a single honour), honours first, then from the ends of a
    suit inward; returns how many picks there are (at most three)."""
    for ring in range(6):
        for k in range(N_KINDS):
            if n >= 3:
                return n
            if k != wild and c[k] == 1 and connection(c, k) == 0 and _edge_ring(k) == ring:
                taken = False
                for i in range(n):
                    if picks[i] == k:
                        taken = True
                if not taken:
                    picks[n] = k
                    n += 1
    return n


@njit(cache=True, inline="always")
def _missing(target, plain):
    m = 0
    for k in range(N_KINDS):
        x = target[k] - plain[k]
        if x > 0:
            m += x
    return m


@njit(cache=True)
def _strong_picks(p, t, fast, picks):
    """The strong player's exchange: copies that no nearest target of the fast mode uses
    (giving one up cannot take the hand further from those targets; the tile that comes
    may bring it nearer), lone tiles first, then from the ends of a suit inward; then
    other lone tiles (measured, that wins more than spares alone).  Returns how many
    picks (at most three)."""
    c = t.conc[p]
    wild = t.hand[0].wild
    fs = fast.fs
    _live(p, t, fast.live)
    n = fast_targets(c, fast.live, wild, _tables(p, fast), fs)
    if n == 0:
        return _lone_picks(c, wild, picks, np.int64(0))
    plain = fs.plain
    use = fast.use
    best = np.int64(1 << 30)
    for i in range(n):
        m = _missing(fs.targets[i], plain)
        if m < best:
            best = m
    use[:] = 0
    for i in range(n):
        if _missing(fs.targets[i], plain) == best:
            for k in range(N_KINDS):
                if fs.targets[i, k] > use[k]:
                    use[k] = fs.targets[i, k]
    got = np.int64(0)
    for ring in range(-1, 6):           # -1: lone spares, then by the edge order
        for k in range(N_KINDS):
            if got >= 3:
                return got
            if k == wild or c[k] <= use[k]:
                continue
            lone = c[k] == 1 and connection(c, k) == 0
            if (ring < 0 and lone) or (ring >= 0 and not lone and _edge_ring(k) == ring):
                spare = c[k] - use[k]
                while spare > 0 and got < 3:
                    picks[got] = k
                    got += 1
                    spare -= 1
    return _lone_picks(c, wild, picks, got)


@njit(cache=True, inline="always")
def _exchange(p, t, par, fast, hooks, wk):
    """起手换牌 (seed 001 A.c: 发完牌且四个玩家补完花后 ... 每家都可换三张牌，随机同牌墙内三张牌
    进行替换): player ``p`` picks up to three tiles, and each is swapped for the tile at a
    random place of the wall still to be drawn (a flower that comes is set aside and
    replaced from the back).  Strong players pick by the fast mode's targets
    (:func:`_strong_picks`), user policies are asked (``ASK_EXCHANGE``), the others give
    up their lone tiles.  The wild kind was turned before and stays."""
    return _swap(p, _exchange_picks(p, t, par, fast, hooks, wk), wk.swap, t)


@njit(cache=True, inline="always")
def _exchange_picks(p, t, par, fast, hooks, wk):
    """The tiles player ``p`` gives up at 起手换牌 (:func:`_exchange`), in ``wk.swap``;
    returns how many."""
    c = t.conc[p]
    h = t.hand[0]
    picks = wk.swap
    mode = _mode(p, t, par, fast)
    n = np.int64(-1)
    if hooks is not None:
        if mode == POLICY_USER:
            n = 0
            none = np.int64(-1)
            for _ in range(3):
                _fill_view(wk.user_view, np.int64(ASK_EXCHANGE), none, p, none, t, par)
                k = _ask(hooks, p, wk.user_view)
                if k < 0 or k >= N_KINDS or c[k] == 0 or k == h.wild:
                    break
                c[k] -= 1                   # the next question sees the hand without it
                picks[n] = k
                n += 1
            for i in range(n):
                c[picks[i]] += 1
    if fast is not None:
        if _strong(mode):
            n = _strong_picks(p, t, fast, picks)
    if n < 0:
        n = _lone_picks(c, h.wild, picks, np.int64(0))
    return n


@njit(cache=True)
def _swap(p, n, picks, t):
    """Player ``p`` swaps the ``n`` tiles ``picks`` each for the tile at a random place of
    the wall still to be drawn (a flower that comes is set aside and replaced from the
    back).  Returns the last kind that came into the hand (-1: none)."""
    c = t.conc[p]
    h = t.hand[0]
    s = t.seats[p]
    got = np.int64(-1)
    for i in range(n):
        x = picks[i]
        j = h.front + below(t.rng, h.back - h.front + 1)
        tile = t.wall[j]
        t.wall[j] = 4 * x                   # only the kind of a tile id is ever read
        c[x] -= 1
        k = _kind(tile)
        _emit(t, EV_EXCHANGE, p, x, k)
        if k >= N_KINDS:
            s.flowers += 1
            s.flower_mask |= 1 << (k - N_KINDS)
            _emit(t, EV_FLOWER, p, k, 0)
            k = _draw(p, np.bool_(True), t)
            if k >= 0:
                got = k
        else:
            c[k] += 1
            got = k
    return got


@njit(cache=True, inline="always")
def play_hand(seed, index, par, tabs, rules, dirs, hooks, fast, t, wk, out, out_fans):
    """Play hand ``index`` of (``seed``, ``par.level``); write its outcome into ``out`` (an
    ``OUTCOME_DTYPE`` record) and ``out_fans``.  Every seat plays a built-in or user
    policy, so :func:`advance` runs the hand to its end without stopping."""
    start_hand(seed, par.level, index, par, t, out, out_fans)
    advance(par, tabs, rules, dirs, hooks, fast, None, t, wk, out, out_fans)


@njit(cache=True)
def start_hand(seed, wall_level, index, par, t, out, out_fans):
    """Shuffle the wall of hand ``index`` of (``seed``, ``wall_level``), deal (13 tiles
    each and the dealer's 14th, flowers set aside and replaced) and stand the hand at
    起手换牌 or the dealer's first turn; :func:`advance` plays on."""
    _new_hand(seed, wall_level, index, par, t, out, out_fans)
    h = t.hand[0]
    front = np.bool_(False)
    for r in range(13):
        for p in range(4):
            _draw(p, front, t)
    h.w = _draw(0, front, t)
    _emit(t, EV_DEALT, -1, 0, 0)
    h.cur = 0
    h.first_round = 1
    h.replacement = 0
    h.claimed = 0
    h.d = -1
    h.ex_seat = 0
    h.asked = 0
    h.phase = PH_EXCHANGE if par.exchange else PH_TURN


@njit(cache=True)
def advance(par, tabs, rules, dirs, hooks, fast, outside, t, wk, out, out_fans):
    """Play on from where the hand stands (``t.hand``) until a seat played from outside
    (``POLICY_OUTSIDE``) must decide, or the hand is over (``hand.phase == PH_END``, the
    outcome in ``out`` and ``out_fans``).

    A seat asked has ``hand.ask`` (``Q_*``) and ``hand.ask_seat`` set and its options in
    ``t.legal`` (``hand.n_legal`` rows ``[A_*, a, b, c]``; 起手换牌's are not listed: up to
    three tiles held, not the wild kind); its answer goes into ``t.act[seat]`` and the next
    call plays on from it.  The caller checks an answer against the options: this kernel
    trusts it.  Built-in players decide here, as the simulator's always have.

    The order of play: after the deal (and 起手换牌) the dealer's turn.  On its own turn a
    player may declare a self-drawn win, then concealed and added kongs (a replacement from
    the back after each; a tile added to a pung may be robbed), then discards.  After a
    discard: a win on it where the rule set allows it (the first player in turn order), else
    碰 or 明杠 by any player, else 吃 by the next player; else the next player draws.  The
    hand is drawn out (荒牌) once ``hand.limit`` tiles are taken.  A seat played from outside
    is asked once per discard (or kong it could rob) with every option at once, before any is
    resolved; its answer then takes its place in that order.

    Built-in players declare a win only when it reaches the bar; a seat played from outside
    may declare any complete hand, and one below the bar is a P胡 (``out.false_win``).

    ``outside`` is None when no seat is played from outside (the simulator): the code that
    asks is then not compiled (and the kernel is the simulator's of before); a table passes
    ``t.legal``.
    """
    h = t.hand[0]
    seats = t.seats
    conc = t.conc
    seen = t.seen
    front = np.bool_(False)
    back = np.bool_(True)
    wild = h.wild
    sws = wk.pol.sws
    solitaire = par.solitaire
    discard_wins = par.discard_wins
    cur = h.cur
    w = h.w
    d = h.d
    first_round = h.first_round != 0
    replacement = h.replacement != 0
    claimed = h.claimed != 0
    h.ask = Q_NONE
    h.n_legal = 0
    while True:
        ph = h.phase
        if ph == PH_END:
            break
        if ph == PH_EXCHANGE:
            p = h.ex_seat
            if p >= 4:
                h.phase = PH_TURN
                continue
            if p == 0 or not solitaire:
                got = np.int64(-2)                  # -2: not played from outside
                # (``outside is not None`` tests stand alone, so that numba prunes them)
                if outside is not None:
                    if seats[p].policy == POLICY_OUTSIDE:
                        a = t.act[p]
                        if a[0] != A_EXCHANGE:
                            h.ask = Q_EXCHANGE
                            h.ask_seat = p
                            break
                        n = np.int64(0)
                        for i in range(3):
                            if a[1 + i] >= 0:
                                wk.swap[n] = a[1 + i]
                                n += 1
                        a[0] = A_NONE
                        got = _swap(p, n, wk.swap, t)
                if got == -2:
                    got = _exchange(p, t, par, fast, hooks, wk)
                if p == 0 and w >= 0 and conc[0, w] == 0:
                    w = got             # the dealer's 14th tile went: the last that came in
            h.ex_seat = p + 1
            continue
        if ph == PH_TURN:
            if not claimed:
                if w < 0:
                    _end_drawn(t, out)                   # 荒牌
                    break
                if cur == 0 or not solitaire:
                    h.phase = PH_OWN
                    continue
            h.phase = PH_DISCARD
            continue
        if ph == PH_OWN:
            s = seats[cur]
            flags = _self_flags(cur, first_round, replacement, t)
            k = np.int64(-1)
            i = np.int64(-1)
            answered = False
            if outside is not None:
                if s.policy == POLICY_OUTSIDE:
                    a = t.act[cur]
                    if a[0] == A_NONE:
                        win = False
                        if _complete(cur, t, tabs, wk):
                            counted, total = _win_value(cur, w, flags, t, par, rules, wk.score)
                            win = total >= 0
                        _legal_turn(cur, win, t, par)
                        h.ask = Q_TURN
                        h.ask_seat = cur
                        break
                    if a[0] == A_DISCARD:
                        h.phase = PH_DISCARD            # the answer is read there
                        continue
                    if a[0] == A_WIN:
                        a[0] = A_NONE
                        _declare(cur, w, flags, np.int64(-1), t, par, rules, wk, out,
                                 out_fans)
                        break
                    k = a[1]                            # a kong
                    a[0] = A_NONE
                    if conc[cur, k] < 4:
                        for j in range(s.n_melds):
                            if t.mtype[cur, j] == M_PUNG and t.mtile[cur, j] == k:
                                i = j
                    answered = True
            if not answered:
                if wild_need(conc[cur], s.n_melds, wild, t.nocap, tabs, sws) == 0:
                    counted, total = _win_value(cur, w, flags, t, par, rules, wk.score)
                    if counted >= par.minimum:
                        _record(out, out_fans, t, cur, flags, counted, total, wk.score.fan, w,
                                np.int64(-1), np.bool_(False))
                        break
                    if total >= 0:
                        out.short += 1
                if par.deal_only:
                    _end_drawn(t, out)
                    break
                k, i = _own_kong(cur, t, par, tabs, dirs, hooks, fast, wk)
                if k < 0:
                    h.phase = PH_DISCARD
                    continue
            if i < 0:                                   # concealed kong
                conc[cur, k] -= 4
                _add_meld(cur, M_CKONG, k, t)
                seen[k] += 4
                _emit(t, EV_CKONG, cur, k, 0)
            else:                                       # added to a pung
                conc[cur, k] -= 1
                t.mtype[cur, i] = M_KONG
                seen[k] += 1
                _emit(t, EV_AKONG, cur, k, 0)
                if discard_wins:
                    d = k
                    h.asked = 0
                    h.phase = PH_ROB
                    continue
            h.phase = PH_KONG_DRAW
            continue
        if ph == PH_ROB:
            if outside is not None:
                if _gather(cur, d, np.bool_(True), _outside_wins(cur, d, True, t, par, rules,
                                                                 tabs, wk),
                           t, par):
                    break
            if _win_on(cur, d, np.int64(F_KONG), t, par, rules, tabs, outside, wk, out,
                       out_fans):
                break                                   # 抢杠和
            _clear_answers(t)
            h.phase = PH_KONG_DRAW
            continue
        if ph == PH_KONG_DRAW:
            first_round = False
            w = _draw(cur, back, t)
            replacement = True
            if w < 0:
                _end_drawn(t, out)
                break
            h.phase = PH_OWN
            continue
        if ph == PH_DISCARD:
            if cur == 0 or not solitaire:
                answered = False
                if outside is not None:
                    if seats[cur].policy == POLICY_OUTSIDE:
                        a = t.act[cur]
                        if a[0] != A_DISCARD:
                            _legal_discards(cur, t)
                            h.ask = Q_DISCARD
                            h.ask_seat = cur
                            break
                        d = a[1]
                        a[0] = A_NONE
                        answered = True
                if not answered:
                    d = _discard(cur, t, par, tabs, dirs, hooks, fast, wk)
                    if d < 0:
                        out.error = ERR_DISCARD
                        out.winner = -1
                        out.draws = h.draws
                        out.taken = h.taken
                        _emit(t, EV_ERROR, cur, 0, 0)
                        h.phase = PH_END
                        break
            else:
                d = w                                   # solitaire: the drawn tile goes out
            conc[cur, d] -= 1
            seen[d] += 1
            _emit(t, EV_DISCARD, cur, d, 0)
            replacement = False
            claimed = False
            h.asked = 0
            h.phase = PH_CLAIMS
            continue
        # PH_CLAIMS: ``cur`` discarded ``d``
        if outside is not None:
            if _gather(cur, d, np.bool_(False), _outside_wins(cur, d, False, t, par, rules,
                                                              tabs, wk),
                       t, par):
                break
        # a win on the discard (rule sets that allow it), first player in turn order
        if discard_wins and _win_on(cur, d, np.int64(0), t, par, rules, tabs, outside, wk, out,
                                    out_fans):
            break
        moved = False
        # 碰 / 杠 (any player) before 吃 (the next player only); a wild tile is never claimed
        if d != wild and par.claims:
            for step in range(1, 4):
                q = (cur + step) % 4
                if (solitaire and q != 0) or seats[q].n_melds >= 4 or conc[q, d] < 2:
                    continue
                out_q = False
                if outside is not None:
                    out_q = seats[q].policy == POLICY_OUTSIDE
                said = t.act[q, 0]
                if conc[q, d] == 3 and h.taken < h.limit and (
                        said == A_KONG if out_q else _accept(
                            q, np.int64(M_KONG), d, d, cur, t, par, tabs, dirs, hooks, fast,
                            wk)):
                    conc[q, d] -= 3                      # exposed kong, then a replacement
                    _add_meld(q, M_KONG, d, t)
                    seen[d] += 3
                    _emit(t, EV_KONG, q, d, cur)
                    cur = q
                    first_round = False
                    w = _draw(cur, back, t)
                    replacement = True
                    claimed = False
                    moved = True
                    break
                if said == A_PUNG if out_q else _accept(
                        q, np.int64(M_PUNG), d, d, cur, t, par, tabs, dirs, hooks, fast, wk):
                    conc[q, d] -= 2                      # pung
                    _add_meld(q, M_PUNG, d, t)
                    seen[d] += 2
                    _emit(t, EV_PUNG, q, d, cur)
                    cur = q
                    first_round = False
                    claimed = True
                    moved = True
                    break
        if moved:
            _clear_answers(t)
            h.phase = PH_TURN   # the claimer plays on (a kong's replacement, or a discard)
            continue
        nxt = (cur + 1) % 4
        if (d < 27 and d != wild and par.claims and seats[nxt].n_melds < 4
                and not (solitaire and nxt != 0)):
            chosen = np.int64(-1)
            answered = False
            if outside is not None:
                if seats[nxt].policy == POLICY_OUTSIDE:
                    if t.act[nxt, 0] == A_CHOW:
                        chosen = t.act[nxt, 1]
                    answered = True
            if not answered:
                # of the chows the player would accept, the one that helps most
                for first in range(d - 2, d + 1):
                    if _chow_fits(conc[nxt], d, first, wild) and _accept(
                            nxt, np.int64(M_CHOW), d, first, cur, t, par, tabs, dirs, hooks,
                            fast, wk):
                        chosen = first
                        break
            if chosen >= 0:                              # chow
                for i in range(3):
                    if chosen + i != d:
                        conc[nxt, chosen + i] -= 1
                        seen[chosen + i] += 1
                _add_meld(nxt, M_CHOW, chosen, t)
                _emit(t, EV_CHOW, nxt, chosen, cur)
                cur = nxt
                first_round = False
                claimed = True
                _clear_answers(t)
                h.phase = PH_TURN
                continue
        _clear_answers(t)
        cur = nxt
        if cur == 0:
            first_round = False
            if par.dealer_draws > 0 and seats[0].own_draws >= par.dealer_draws:
                _end_drawn(t, out)                      # the dealer's draws are used up
                break
        seats[cur].own_draws += 1
        h.draws += 1
        w = _draw(cur, front, t)
        if w < 0:
            seats[cur].own_draws -= 1
            h.draws -= 1
        h.phase = PH_TURN
    h.cur = cur
    h.w = w
    h.d = d
    h.first_round = 1 if first_round else 0
    h.replacement = 1 if replacement else 0
    h.claimed = 1 if claimed else 0


@njit(cache=True, inline="always")
def _self_flags(p, first_round, replacement, t):
    """The situation of a self-drawn win of player ``p`` now."""
    h = t.hand[0]
    flags = np.int64(F_SELF_DRAWN)
    if h.taken >= h.limit:
        flags |= F_LAST_WALL
    if replacement:
        flags |= F_KONG
    if first_round and p == 0 and t.seats[0].own_draws == 0:
        flags |= F_HEAVENLY_HAND     # the dealer, on the deal
    elif first_round and p != 0 and t.seats[p].own_draws == 1:
        flags |= F_EARTHLY_HAND      # a non-dealer, on the first draw
    return flags


@njit(cache=True)
def _end_drawn(t, out):
    """The hand ends without a win (荒牌, or a study's limit)."""
    h = t.hand[0]
    out.draws = h.draws
    out.taken = h.taken
    _emit(t, EV_DRAWN_OUT, -1, 0, 0)
    h.phase = PH_END


@njit(cache=True, inline="always")
def _clear_answers(t):
    for q in range(4):
        t.act[q, 0] = A_NONE


@njit(cache=True, inline="always")
def _put(t, n, code, a):
    row = t.legal[n]
    row[0] = code
    row[1] = a
    row[2] = -1
    row[3] = -1
    return n + 1


@njit(cache=True, inline="always")
def _complete(q, t, tabs, wk):
    return wild_need(t.conc[q], t.seats[q].n_melds, t.hand[0].wild, t.nocap, tabs,
                     wk.pol.sws) == 0


@njit(cache=True)
def _legal_turn(p, win, t, par):
    """Player ``p``'s options on its own turn: a win when ``win`` (any complete hand the rule
    set scores, read by :func:`advance`: one below the bar is a P胡), a concealed or added
    kong (never of the wild kind), a discard of any kind held."""
    c = t.conc[p]
    s = t.seats[p]
    wild = t.hand[0].wild
    n = np.int64(0)
    if win:
        n = _put(t, n, A_WIN, np.int64(-1))
    if not par.deal_only and s.n_melds < 4:
        for k in range(N_KINDS):
            if k == wild or c[k] == 0:
                continue
            if c[k] == 4:
                n = _put(t, n, A_KONG, k)
            else:
                for i in range(s.n_melds):
                    if t.mtype[p, i] == M_PUNG and t.mtile[p, i] == k:
                        n = _put(t, n, A_KONG, k)
    for k in range(N_KINDS):
        if c[k] > 0 and n < LEGAL_MAX:
            n = _put(t, n, A_DISCARD, k)
    t.hand[0].n_legal = n


@njit(cache=True)
def _legal_discards(p, t):
    """Player ``p``'s options after a claim: a discard of any kind held."""
    n = np.int64(0)
    for k in range(N_KINDS):
        if t.conc[p, k] > 0 and n < LEGAL_MAX:
            n = _put(t, n, A_DISCARD, k)
    t.hand[0].n_legal = n


@njit(cache=True)
def _legal_claim(q, cur, k, rob, win, t, par):
    """Player ``q``'s options on ``cur``'s discard ``k`` (with ``rob``: on the tile ``cur``
    added to a pung): a win when ``win`` (read by :func:`_outside_wins`), 明杠, 碰, 吃 (the
    next player; never of the wild kind), then pass.  Returns how many there are besides
    pass."""
    h = t.hand[0]
    wild = h.wild
    c = t.conc[q]
    s = t.seats[q]
    n = np.int64(0)
    if win:
        n = _put(t, n, A_WIN, np.int64(-1))
    if not rob and k != wild and par.claims and s.n_melds < 4:
        if c[k] == 3 and h.taken < h.limit:
            n = _put(t, n, A_KONG, k)
        if c[k] >= 2:
            n = _put(t, n, A_PUNG, k)
        if q == (cur + 1) % 4 and k < 27:
            for first in range(k - 2, k + 1):
                if _chow_fits(c, k, first, wild):
                    n = _put(t, n, A_CHOW, first)
    h.n_legal = _put(t, n, A_PASS, np.int64(-1))
    return n


@njit(cache=True, inline="always")
def _outside_wins(cur, k, rob, t, par, rules, tabs, wk):
    """The seats played from outside that could declare a win on ``cur``'s tile ``k`` (a
    discard, or with ``rob`` a tile added to a pung), as bits: any complete hand the rule
    set scores, one below the bar a P胡.  Inlined into :func:`advance`, which holds the
    evaluator anyway (an option kernel calling it would compile the evaluator once more)."""
    wins = np.int64(0)
    if not par.discard_wins:
        return wins
    for step in range(1, 4):
        q = (cur + step) % 4
        if t.seats[q].policy != POLICY_OUTSIDE or (par.solitaire and q != 0):
            continue
        t.conc[q, k] += 1
        if _complete(q, t, tabs, wk):
            counted, total = _win_value(q, k, np.int64(F_KONG) if rob else np.int64(0), t,
                                        par, rules, wk.score)
            if total >= 0:
                wins |= np.int64(1) << q
        t.conc[q, k] -= 1
    return wins


@njit(cache=True)
def _gather(cur, k, rob, wins, t, par):
    """Ask every seat played from outside that has an option on ``cur``'s tile ``k`` (a
    discard, or with ``rob`` a tile added to a pung; ``wins``: the seats that may declare a
    win on it, :func:`_outside_wins`), in turn order, before any is resolved.  True: one is
    asked now (``hand.ask``); False: all have answered (``t.act``)."""
    h = t.hand[0]
    for step in range(1, 4):
        q = (cur + step) % 4
        if t.seats[q].policy != POLICY_OUTSIDE or (h.asked >> q) & 1:
            continue
        if par.solitaire and q != 0:
            continue
        if (_legal_claim(q, cur, k, rob, (wins >> q) & 1 != 0, t, par) > 0
                and t.act[q, 0] == A_NONE):
            h.ask = Q_ROB if rob else Q_CLAIM
            h.ask_seat = q
            return True
        h.asked |= 1 << q
    h.n_legal = 0
    return False


@njit(cache=True, inline="always")
def _declare(q, k, flags, frm, t, par, rules, wk, out, out_fans):
    """Player ``q`` (played from outside) declares a win on ``k`` (in its hand already): a
    win if it reaches the bar, else a P胡 (``out.false_win``); either ends the hand.
    Inlined: the evaluator is compiled into :func:`advance` only."""
    counted, total = _win_value(q, k, flags, t, par, rules, wk.score)
    _record(out, out_fans, t, q, flags, counted, total, wk.score.fan, k, frm,
            counted < par.minimum)


@njit(cache=True, inline="always")
def _own_kong(p, t, par, tabs, dirs, hooks, fast, wk):
    """A kong player ``p`` declares on their own turn: (kind, meld index or -1), or (-1, -1).
    Concealed (four in hand) or added to a pung; never of the wild kind."""
    s = t.seats[p]
    if s.n_melds >= 4:
        return -1, -1
    c = t.conc[p]
    wild = t.hand[0].wild
    own_turn = np.int64(-1)
    for k in range(N_KINDS):
        if k == wild:
            continue
        if c[k] == 4:
            if _accept(p, np.int64(M_CKONG), k, k, own_turn, t, par, tabs, dirs, hooks, fast,
                       wk):
                return k, -1
        elif c[k] >= 1:
            for i in range(s.n_melds):
                if t.mtype[p, i] == M_PUNG and t.mtile[p, i] == k:
                    if _accept(p, np.int64(M_KONG), k, k, own_turn, t, par, tabs, dirs, hooks,
                               fast, wk):
                        return k, i
    return -1, -1


@njit(cache=True, inline="always")
def _win_on(cur, k, flags, t, par, rules, tabs, outside, wk, out, out_fans):
    """A win on ``cur``'s tile ``k`` by the first other player in turn order who can
    declare one: a discard, or with ``F_KONG`` the tile added to a pung (抢杠和)."""
    wild = t.hand[0].wild
    for step in range(1, 4):
        q = (cur + step) % 4
        if par.solitaire and q != 0:
            continue
        if outside is not None:
            if t.seats[q].policy == POLICY_OUTSIDE:
                if t.act[q, 0] == A_WIN:            # its answer, given before (_gather)
                    if flags & F_KONG:
                        out.robbed = 1
                    t.conc[q, k] += 1
                    _declare(q, k, flags, cur, t, par, rules, wk, out, out_fans)
                    return True
                continue
        t.conc[q, k] += 1
        if wild_need(t.conc[q], t.seats[q].n_melds, wild, t.nocap, tabs, wk.pol.sws) == 0:
            counted, total = _win_value(q, k, flags, t, par, rules, wk.score)
            if counted >= par.minimum:
                if flags & F_KONG:
                    out.robbed = 1
                _record(out, out_fans, t, q, flags, counted, total, wk.score.fan, k, cur,
                        np.bool_(False))
                return True
            if total >= 0:
                out.short += 1
        t.conc[q, k] -= 1
    return False


@njit(cache=True)
def _record(out, out_fans, t, p, flags, counted, total, fan, tile, frm, false_win):
    """The win of player ``p`` on ``tile`` (from seat ``frm``, -1: self-drawn) into the
    outcome record and its fans, and the hand's end (``false_win``: a P胡)."""
    s = t.seats[p]
    t.hand[0].phase = PH_END
    _emit(t, EV_FALSE_WIN if false_win else EV_WIN, p, tile, frm)
    out.false_win = 1 if false_win else 0
    out.flags = flags
    out.from_seat = frm
    out.win_tile = tile
    out.winner = p
    out.self_drawn = 1 if flags & F_SELF_DRAWN else 0
    out.draws = t.hand[0].draws
    out.own_draws = s.own_draws
    out.counted = counted
    out.total = total
    out.taken = t.hand[0].taken
    out.flowers = s.flowers
    out.melds = s.n_melds
    for f in range(out_fans.shape[0]):
        out_fans[f] = fan[f]


@njit(cache=True)
def new_table(n_ev):
    """The arrays of a :class:`~.game_state.Table` (cleared per hand by the game), with room
    for ``n_ev`` events (0: none kept) and every seat's policy from the ``GameParams``."""
    return Table(np.empty(N_WALL, np.int64), np.zeros((4, N_KINDS), np.int64),
                 np.zeros((4, 4), np.int64), np.zeros((4, 4), np.int64),
                 np.zeros(N_KINDS, np.int64), np.zeros(N_KINDS, np.int64),
                 np.zeros(4, SEAT_DTYPE), np.zeros(1, HAND_DTYPE), np.zeros(1, np.uint64),
                 np.zeros((4, 4), np.int64), np.zeros((LEGAL_MAX, 4), np.int64),
                 np.zeros((n_ev, 4), np.int32), np.full(4, -1, np.int64))


@njit(cache=True)
def score_scratch(n_fans):
    """A :class:`~.game_state.ScoreScratch` for a rule set of ``n_fans`` fans (no raw fans)."""
    return ScoreScratch(np.zeros(ROW_LEN, np.int32), np.zeros(n_fans, np.int64),
                        np.zeros(0, np.int64), np.zeros(DEC_LEN, np.int64),
                        np.zeros(WS_LEN, np.int64))


@njit(cache=True, nogil=True)
def play_hands(seed, first, par, tabs, rules, dirs, hooks, fast, out, out_fans):
    """Hands ``first .. first + len(out) - 1`` of (``seed``, ``par.level``), one after another.

    Parameters
    ----------
    seed : int
    first : int
        Number of the first hand.
    par : GameParams
    tabs : ShantenTables
    rules : RuleArrays
    dirs : Directions or None
        The directions of the value-aware policies (:mod:`.policy`); ``None``
        when no player plays one (that code is then not compiled).
    hooks : PolicyHooks or None
        Compiled callbacks (``int64(int64[::1])``) asked by ``POLICY_USER``
        players; ``None`` when no player has one.
    fast : StrongPlay or None
        The fast mode's tables and this thread's scratch for ``POLICY_STRONG``
        players; ``None`` when no player plays it.
    out : OUTCOME_DTYPE (n,)
        One record per hand.
    out_fans : int16 (n, n_fans)
        The winning hand's counted fans.

    Releases the GIL: the caller runs slices on several threads.  (A
    ``prange`` version compiles a third slower, for nothing: each hand's
    result depends only on (seed, level, hand number) anyway.)
    """
    n = out.shape[0]
    nf = rules.points.shape[0]
    t = new_table(0)
    wk = Work(policy_scratch(), score_scratch(nf), np.zeros(V_LEN, np.int64), np.zeros(3, np.int64))
    for i in range(n):
        play_hand(seed, first + i, par, tabs, rules, dirs, hooks, fast, t, wk, out[i],
                  out_fans[i])


@njit(cache=True)
def decide(p, ask, tile, frm, flags, par, tabs, rules, dirs, fast, t, wk, answer):
    """What the built-in player at seat ``p`` (its policy in ``t.seats[p]``) decides when
    asked ``ask`` (``Q_*``), the decision :func:`advance` has it make at the same point:
    written into ``answer`` (``[A_*, a, b, c]``).

    ``t`` holds what the player knows (its own tiles, melds, flowers and memory, the tiles
    seen, the wall's count and the wild kind; other seats' tiles are not read).  ``tile``:
    the drawn tile (``Q_TURN``), the discard (``Q_CLAIM``) or the tile added to a pung
    (``Q_ROB``); ``frm``: who discarded it; ``flags``: a self-drawn win's situation.
    """
    h = t.hand[0]
    c = t.conc[p]
    s = t.seats[p]
    wild = h.wild
    for i in range(4):
        answer[i] = -1
    if ask == Q_EXCHANGE:
        n = _exchange_picks(p, t, par, fast, None, wk)
        answer[0] = A_EXCHANGE
        for i in range(n):
            answer[1 + i] = wk.swap[i]
        return
    if ask == Q_TURN:
        if _complete(p, t, tabs, wk):
            counted, total = _win_value(p, tile, flags, t, par, rules, wk.score)
            if counted >= par.minimum:
                answer[0] = A_WIN
                return
        if not par.deal_only:
            k, i = _own_kong(p, t, par, tabs, dirs, None, fast, wk)
            if k >= 0:
                answer[0] = A_KONG
                answer[1] = k
                return
    if ask == Q_TURN or ask == Q_DISCARD:
        answer[0] = A_DISCARD
        answer[1] = _discard(p, t, par, tabs, dirs, None, fast, wk)
        return
    answer[0] = A_PASS
    if par.discard_wins:
        c[tile] += 1
        win = False
        if _complete(p, t, tabs, wk):
            counted, total = _win_value(p, tile, np.int64(F_KONG) if ask == Q_ROB else
                                        np.int64(0), t, par, rules, wk.score)
            win = counted >= par.minimum
        c[tile] -= 1
        if win:
            answer[0] = A_WIN
            return
    if ask == Q_ROB or tile == wild or not par.claims or s.n_melds >= 4:
        return
    if c[tile] >= 2:
        if c[tile] == 3 and h.taken < h.limit and _accept(
                p, np.int64(M_KONG), tile, tile, frm, t, par, tabs, dirs, None, fast, wk):
            answer[0] = A_KONG
            answer[1] = tile
            return
        if _accept(p, np.int64(M_PUNG), tile, tile, frm, t, par, tabs, dirs, None, fast, wk):
            answer[0] = A_PUNG
            answer[1] = tile
            return
    if p == (frm + 1) % 4 and tile < 27:
        for first in range(tile - 2, tile + 1):
            if _chow_fits(c, tile, first, wild) and _accept(
                    p, np.int64(M_CHOW), tile, first, frm, t, par, tabs, dirs, None, fast, wk):
                answer[0] = A_CHOW
                answer[1] = first
                return
