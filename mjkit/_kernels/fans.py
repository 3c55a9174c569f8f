"""Fan detection for one reading of a hand.

Each function adds the fans a reading *has* to an int64 count vector; the
rule set's points, 不计 lists and enabled fans are applied afterwards by
``evaluate.py``.  Fans are addressed by the indices in ``fan_ids.py``.

Combination fans between sets follow the two counting principles of the
Chinese Official rules:

* 套算一次 (account once): a set not yet combined may combine with the sets
  already combined only once, so the combinations chosen form a forest;
* 不得相同 (no repeats): a set may not form the same fan twice.

For chows without a three-chow fan the best combination under both
principles is found exactly by trying every subset of the (at most six)
pairwise fans.
"""

import numpy as np
from numba import njit

from . import fan_ids as F
from .layout import (
    CHOW, F_DECLARED_READY, F_DOUBLE_READY, F_EARTHLY_HAND, F_EARTHLY_READY, F_HEAVENLY_HAND,
    F_HEAVENLY_READY, F_HUMAN_HAND, PUNG,
)


# ---------------------------------------------------------------- tiles

@njit(cache=True, inline="always")
def _suit(t):
    return t // 9 if t < 27 else 3


@njit(cache=True, inline="always")
def _rank(t):
    # 1-based rank of a suited tile
    return t % 9 + 1


@njit(cache=True, inline="always")
def _is_terminal(t):
    return t < 27 and (t % 9 == 0 or t % 9 == 8)


@njit(cache=True, inline="always")
def _is_wind(t):
    return 27 <= t <= 30


@njit(cache=True, inline="always")
def _is_dragon(t):
    return t >= 31


@njit(cache=True, inline="always")
def chow_pair_fan(a, b):
    """Fan of two chows given by their lowest tiles, or -1."""
    if _suit(a) != _suit(b):
        if a % 9 == b % 9:
            return F.MIXED_DOUBLE_CHOW
        return -1
    if a + 3 == b or b + 3 == a:
        return F.SHORT_STRAIGHT
    ra = a % 9
    rb = b % 9
    if (ra == 0 and rb == 6) or (ra == 6 and rb == 0):
        return F.TWO_TERMINAL_CHOWS
    if a == b:
        return F.PURE_DOUBLE_CHOW
    return -1


@njit(cache=True, inline="always")
def _shifted1_unordered(r0, r1, r2):
    lo = min(r0, min(r1, r2))
    hi = max(r0, max(r1, r2))
    return hi - lo == 2 and r0 != r1 and r1 != r2 and r0 != r2


@njit(cache=True, inline="always")
def chow_triple_fan(a, b, c):
    """Three-chow fan of chows sorted by reading order, or -1."""
    sa, sb, sc = _suit(a), _suit(b), _suit(c)
    ra, rb, rc = a % 9, b % 9, c % 9
    if sa != sb and sa != sc and sb != sc:
        if _shifted1_unordered(ra, rb, rc):
            return F.MIXED_SHIFTED_CHOWS
        if ra == rb and rb == rc:
            return F.MIXED_TRIPLE_CHOW
        lo = min(ra, min(rb, rc))
        hi = max(ra, max(rb, rc))
        if lo == 0 and hi == 6 and ra + rb + rc == 9:
            return F.MIXED_STRAIGHT
        return -1
    if sa == sb and sb == sc:
        if a + 3 == b and b + 3 == c:
            return F.PURE_STRAIGHT
        if (a + 1 == b and b + 1 == c) or (a + 2 == b and b + 2 == c):
            return F.PURE_SHIFTED_CHOWS
        if a == b and b == c:
            return F.PURE_TRIPLE_CHOW
        return -1
    # exactly two suits (a 大众 fan; the caller skips it where it scores 0)
    if _shifted1_unordered(ra, rb, rc):
        return F.TWO_SUITED_SHIFTED_CHOWS
    return -1


@njit(cache=True, inline="always")
def _mixed_four_steps(t0, t1, t2, t3):
    """Four suited sets one rank apart, in more than one suit (混四步 / 混四节)."""
    if t0 >= 27 or t1 >= 27 or t2 >= 27 or t3 >= 27:
        return False
    s0 = _suit(t0)
    if s0 == _suit(t1) and s0 == _suit(t2) and s0 == _suit(t3):
        return False
    r0, r1, r2, r3 = t0 % 9, t1 % 9, t2 % 9, t3 % 9
    lo = min(min(r0, r1), min(r2, r3))
    mask = (1 << (r0 - lo)) | (1 << (r1 - lo)) | (1 << (r2 - lo)) | (1 << (r3 - lo))
    return mask == 15


@njit(cache=True, inline="always")
def chow_quad_fan(a, b, c, d):
    if (a + 1 == b and b + 1 == c and c + 1 == d) or (a + 2 == b and b + 2 == c and c + 2 == d):
        if _suit(a) == _suit(d):
            return F.FOUR_PURE_SHIFTED_CHOWS
    if a == b and b == c and c == d:
        return F.QUADRUPLE_CHOW
    return -1


# Preference among one-point chow pair fans when the principles leave a
# choice (as the reference calculator keeps them).
@njit(cache=True, inline="always")
def _pair_pref(f):
    if f == F.PURE_DOUBLE_CHOW:
        return 3
    if f == F.MIXED_DOUBLE_CHOW:
        return 2
    if f == F.SHORT_STRAIGHT:
        return 1
    return 0


@njit(cache=True, inline="always")
def _forest_value(mask, m, n, ea, eb, ef, parent, points):
    """(allowed, value, preference key) of the pairwise fans ``mask`` keeps."""
    for i in range(n):
        parent[i] = i
    val = 0
    # Equal values are ranked by the fans kept, highest preference first:
    # key counts each kept fan in its own base-8 digit.
    key = 0
    for e in range(m):
        if (mask >> e) & 1 == 0:
            continue
        # 不得相同: neither end may already carry this fan
        for e2 in range(e):
            if (mask >> e2) & 1 and ef[e2] == ef[e] and (
                    ea[e2] == ea[e] or ea[e2] == eb[e] or eb[e2] == ea[e] or eb[e2] == eb[e]):
                return False, 0, 0
        # 套算一次: no cycle
        x = ea[e]
        while parent[x] != x:
            x = parent[x]
        y = eb[e]
        while parent[y] != y:
            y = parent[y]
        if x == y:
            return False, 0, 0
        parent[x] = y
        val += points[ef[e]]
        key += 1 << (3 * _pair_pref(ef[e]))
    return True, val, key


@njit(cache=True)
def _best_pair_forest(tiles, n, points, scratch):
    """The best set of pairwise chow fans allowed by 套算一次 / 不得相同.

    Returns its value and the edges kept (a bit mask over the pairwise fans
    found, which stay in ``scratch`` for :func:`_add_pair_forest`).
    ``scratch`` holds at least 22 ints (edges and a union-find forest).
    """
    m = 0
    ea = scratch[0:6]
    eb = scratch[6:12]
    ef = scratch[12:18]
    parent = scratch[18:22]
    for i in range(n):
        for j in range(i + 1, n):
            f = chow_pair_fan(tiles[i], tiles[j])
            if f >= 0 and points[f] > 0:
                ea[m] = i
                eb[m] = j
                ef[m] = f
                m += 1
    if m == 0:
        return 0, 0
    # Every fan scores, so when all of them are allowed together no other
    # choice comes close: the usual case, decided without the search.
    full = (1 << m) - 1
    ok, val, key = _forest_value(full, m, n, ea, eb, ef, parent, points)
    if ok:
        return val, full
    best_mask = 0
    best_val = -1
    best_key = -1
    for mask in range(1, full):
        ok, val, key = _forest_value(mask, m, n, ea, eb, ef, parent, points)
        if not ok:
            continue
        if val > best_val or (val == best_val and key > best_key):
            best_val = val
            best_key = key
            best_mask = mask
    return best_val, best_mask


@njit(cache=True, inline="always")
def _add_pair_forest(mask, fan, scratch):
    """Add the pairwise fans of ``mask`` (from :func:`_best_pair_forest`) to ``fan``."""
    ef = scratch[12:18]
    for e in range(6):
        if (mask >> e) & 1:
            fan[ef[e]] += 1


@njit(cache=True, inline="always")
def _extra_chow_fan(x, y, z, w, points):
    """Best pairwise fan the fourth chow ``w`` adds to a three-chow fan."""
    best = -1
    for o in (x, y, z):
        f = chow_pair_fan(o, w)
        if f < 0 or points[f] <= 0:
            continue
        if best < 0 or points[f] > points[best] or (
                points[f] == points[best] and _pair_pref(f) > _pair_pref(best)):
            best = f
    return best


@njit(cache=True, inline="always")
def _extra_pung_fan(x, y, z, w):
    """The pair fan the fourth pung ``w`` adds with the first of ``x, y, z`` it makes one with."""
    for o in (x, y, z):
        g = pung_pair_fan(o, w)
        if g >= 0:
            return g
    return -1


@njit(cache=True, inline="always")
def _triple(k, n):
    """The k-th triple of n (3 or 4) sets, in the order 012, 013, 023, 123,
    and the set left over (-1 for three sets)."""
    if n == 3:
        return 0, 1, 2, -1
    if k == 0:
        return 0, 1, 2, 3
    if k == 1:
        return 0, 1, 3, 2
    if k == 2:
        return 0, 2, 3, 1
    return 1, 2, 3, 0


@njit(cache=True)
def best_triple(tiles, n, points, chows):
    """The best three-set fan among ``n`` (3 or 4) chows or pungs, and the pair
    fan the fourth set then adds with one of the three (套算一次).

    Returns ``(fan, extra, value)``: -1 for no fan (no extra), ``value`` the
    points of both (-1 without a fan).  Ties keep the first triple in the
    order of :func:`_triple`.
    """
    best_f = -1
    best_x = -1
    best_v = -1
    for k in range(4 if n == 4 else 1):
        i0, i1, i2, i3 = _triple(k, n)
        a, b, c = tiles[i0], tiles[i1], tiles[i2]
        f = chow_triple_fan(a, b, c) if chows else pung_triple_fan(a, b, c)
        if f < 0 or points[f] <= 0:
            continue
        x = -1
        if i3 >= 0:
            if chows:
                x = _extra_chow_fan(a, b, c, tiles[i3], points)
            else:
                x = _extra_pung_fan(a, b, c, tiles[i3])
        v = points[f] + (points[x] if x >= 0 else 0)
        if v > best_v:
            best_v = v
            best_f = f
            best_x = x
    return best_f, best_x, best_v


@njit(cache=True)
def chow_fans(tiles, n, points, fan, scratch):
    """Fans among ``n`` chows (lowest tiles, sorted by reading order)."""
    mixed4 = False
    if n == 4:
        f = chow_quad_fan(tiles[0], tiles[1], tiles[2], tiles[3])
        if f >= 0 and points[f] > 0:
            fan[f] += 1
            return
        mixed4 = points[F.MIXED_FOUR_SHIFTED_CHOWS] > 0 and _mixed_four_steps(
            tiles[0], tiles[1], tiles[2], tiles[3])
    if n >= 3:
        best_f, best_x, best_v = best_triple(tiles, n, points, np.bool_(True))
        # 混四步 is worth less than the 国标 three-chow fans it may contain:
        # 就高不就低 picks whichever reading of the four chows scores more.
        if mixed4 and points[F.MIXED_FOUR_SHIFTED_CHOWS] >= best_v:
            fan[F.MIXED_FOUR_SHIFTED_CHOWS] += 1
            return
        if best_f >= 0:
            # 混三步 (2) can be worth less than the pairwise fans instead.
            if best_f != F.TWO_SUITED_SHIFTED_CHOWS or best_v >= _best_pair_forest(
                    tiles, n, points, scratch)[0]:
                fan[best_f] += 1
                if best_x >= 0:
                    fan[best_x] += 1
                return
    if n >= 2:
        _add_pair_forest(_best_pair_forest(tiles, n, points, scratch)[1], fan, scratch)


# ------------------------------------------------------ pung combinations

@njit(cache=True, inline="always")
def pung_pair_fan(a, b):
    if a < 27 and b < 27:
        if a % 9 == b % 9:
            return F.DOUBLE_PUNG
        return -1
    if _is_dragon(a) and _is_dragon(b):
        return F.TWO_DRAGON_PUNGS
    return -1


@njit(cache=True, inline="always")
def pung_triple_fan(a, b, c):
    if a < 27 and b < 27 and c < 27:
        sa, sb, sc = _suit(a), _suit(b), _suit(c)
        ra, rb, rc = a % 9, b % 9, c % 9
        if sa != sb and sa != sc and sb != sc:
            if _shifted1_unordered(ra, rb, rc):
                return F.MIXED_SHIFTED_PUNGS
            if ra == rb and rb == rc:
                return F.TRIPLE_PUNG
        elif sa == sb and sb == sc:
            if a + 1 == b and b + 1 == c:
                return F.PURE_SHIFTED_PUNGS
        elif _shifted1_unordered(ra, rb, rc):
            return F.TWO_SUITED_SHIFTED_PUNGS  # 大众 混三节
        return -1
    if _is_wind(a) and _is_wind(b) and _is_wind(c):
        return F.BIG_THREE_WINDS
    if _is_dragon(a) and _is_dragon(b) and _is_dragon(c):
        return F.BIG_THREE_DRAGONS
    return -1


@njit(cache=True)
def pung_fans(tiles, n, points, fan):
    """Fans among ``n`` pungs/kongs (tiles sorted by reading order)."""
    if n == 4:
        a, b, c, d = tiles[0], tiles[1], tiles[2], tiles[3]
        if a < 27 and _suit(a) == _suit(d) and a + 1 == b and b + 1 == c and c + 1 == d:
            fan[F.FOUR_PURE_SHIFTED_PUNGS] += 1
            return
        if _is_wind(a) and _is_wind(b) and _is_wind(c) and _is_wind(d):
            fan[F.BIG_FOUR_WINDS] += 1
            return
    if n >= 3:
        best_f, best_g, best_v = best_triple(tiles, n, points, np.bool_(False))
        if n == 4 and points[F.MIXED_FOUR_SHIFTED_PUNGS] > 0 and \
                points[F.MIXED_FOUR_SHIFTED_PUNGS] >= best_v and _mixed_four_steps(
                    tiles[0], tiles[1], tiles[2], tiles[3]):
            fan[F.MIXED_FOUR_SHIFTED_PUNGS] += 1
            return
        if best_f >= 0:
            fan[best_f] += 1
            if best_g >= 0:
                fan[best_g] += 1
            return
    for i in range(n):
        for j in range(i + 1, n):
            g = pung_pair_fan(tiles[i], tiles[j])
            if g >= 0:
                fan[g] += 1


# -------------------------------------------------- whole-hand properties

# Per-tile property bits: 0-3 group (m p s honours), 4 honour, 5 terminal,
# 6 wind, 7 dragon, 8 green (23468s 发), 9 reversible (1234589p 245689s 白),
# 10-18 rank 1-9, 19 terminal or honour.  tests/test_kernels.py checks them
# against the definitions in tiles.py.
TILE_PROPS = (
    525345, 2049, 4097, 8193, 16385, 32769, 65537, 131073, 786465,
    525858, 2562, 4610, 8706, 16898, 32770, 65538, 131586, 786978,
    525348, 2820, 4356, 8964, 16900, 33540, 65540, 131844, 786980,
    524376, 524376, 524376, 524376, 524952, 524696, 524440,
)


@njit(cache=True)
def tile_fans(allc, n_kongs, fan):
    """Fans decided by the multiset of tiles alone (suits, ranks, kinds, 四归一)."""
    any_p = 0
    all_p = (1 << 20) - 1
    n4 = 0
    for t in range(34):
        x = allc[t]
        if x == 0:
            continue
        pr = TILE_PROPS[t]
        any_p |= pr
        all_p &= pr
        if x == 4:
            n4 += 1
    has_h = (any_p & 8) != 0
    voided = (0 if any_p & 1 else 1) + (0 if any_p & 2 else 1) + (0 if any_p & 4 else 1)
    if not has_h:
        fan[F.NO_HONORS] = 1
    if voided == 2:
        if has_h:
            fan[F.HALF_FLUSH] = 1
        else:
            fan[F.FULL_FLUSH] = 1
    elif voided > 0:
        fan[F.ONE_VOIDED_SUIT] = voided
    if voided == 2 and has_h and (any_p & 1) and allc[33] > 0:
        red = True  # 满江红: characters and 中 only
        for t in range(27, 33):
            if allc[t] > 0:
                red = False
        if red:
            fan[F.ALL_RED] = 1
    if voided == 0 and has_h and (any_p & 64) and (any_p & 128):
        fan[F.ALL_TYPES] = 1
    simples = (any_p & (1 << 19)) == 0
    if simples:
        fan[F.ALL_SIMPLES] = 1
    if all_p & 512:
        fan[F.REVERSIBLE_TILES] = 1
    if all_p & 256:
        fan[F.ALL_GREEN] = 1
    if not simples:
        if all_p & 16:
            fan[F.ALL_HONORS] = 1
        elif all_p & 32:
            fan[F.ALL_TERMINALS] = 1
        elif all_p & (1 << 19):
            fan[F.ALL_TERMINALS_AND_HONORS] = 1
    if not has_h:
        rank_mask = ((any_p >> 10) & 511) << 1
        if rank_mask & ~0b11110 == 0:
            if rank_mask & (1 << 4):
                fan[F.LOWER_FOUR] = 1
            else:
                fan[F.LOWER_TILES] = 1
        elif rank_mask & ~0b1111000000 == 0:
            if rank_mask & (1 << 6):
                fan[F.UPPER_FOUR] = 1
            else:
                fan[F.UPPER_TILES] = 1
        elif rank_mask & ~0b1110000 == 0:
            fan[F.MIDDLE_TILES] = 1
    # 四归一: kinds whose four copies are all used, kongs aside.
    if n4 - n_kongs > 0:
        fan[F.TILE_HOG] = n4 - n_kongs


@njit(cache=True, inline="always")
def win_fans(flags_self, flags_last_copy, flags_kong, flags_last_wall, fan):
    if flags_last_copy:
        fan[F.LAST_TILE] = 1
    if flags_last_wall:
        fan[F.LAST_TILE_DRAW if flags_self else F.LAST_TILE_CLAIM] = 1
    if flags_kong:
        fan[F.OUT_WITH_REPLACEMENT_TILE if flags_self else F.ROBBING_THE_KONG] = 1
    if flags_self:
        fan[F.SELF_DRAWN] = 1


@njit(cache=True, inline="always")
def situation_fans(flags, fan):
    """大众 first-turn and ready-declaration fans from the row's flag bits."""
    if flags & F_HEAVENLY_HAND:
        fan[F.HEAVENLY_HAND] = 1
    if flags & F_EARTHLY_HAND:
        fan[F.EARTHLY_HAND] = 1
    if flags & F_HUMAN_HAND:
        fan[F.HUMAN_HAND] = 1
    if flags & F_HEAVENLY_READY:
        fan[F.HEAVENLY_READY] = 1
    if flags & F_EARTHLY_READY:
        fan[F.EARTHLY_READY] = 1
    if flags & F_DECLARED_READY:
        fan[F.DECLARED_READY] = 1
    if flags & F_DOUBLE_READY:
        fan[F.DOUBLE_READY] = 1


@njit(cache=True, inline="always")
def pair_fans(pair, fan):
    """二五八将 / 幺九头: what the pair (将) is."""
    if pair < 27:
        r = pair % 9
        if r == 1 or r == 4 or r == 7:
            fan[F.TWO_FIVE_EIGHT_PAIR] = 1
        elif r == 0 or r == 8:
            fan[F.TERMINAL_PAIR] = 1


@njit(cache=True, inline="always")
def concealment_fans(n_exposed, self_drawn, fan):
    """门前清 / 不求人 / 全求人 from the number of exposed melds."""
    if n_exposed == 0:
        if self_drawn:
            fan[F.FULLY_CONCEALED_HAND] = 1
        else:
            fan[F.CONCEALED_HAND] = 1
    elif n_exposed == 4:
        if self_drawn:
            fan[F.SELF_DRAWN] = 1
        else:
            fan[F.MELDED_HAND] = 1
    elif self_drawn:
        fan[F.SELF_DRAWN] = 1


@njit(cache=True)
def kong_fans(n_exposed_kongs, n_concealed_kongs, n_concealed_pungs, points, fan):
    """Kong fans and concealed-pung fans (a concealed kong is a concealed pung)."""
    k = n_exposed_kongs + n_concealed_kongs
    if k == 1:
        if n_exposed_kongs == 1:
            fan[F.MELDED_KONG] = 1
        else:
            fan[F.CONCEALED_KONG] = 1
    elif k == 2:
        if n_concealed_kongs == 0:
            fan[F.TWO_MELDED_KONGS] = 1
        elif n_concealed_kongs == 1:
            # 明暗杠 only where the rule set scores it; else 明杠 + 暗杠.
            if points.shape[0] > F.CONCEALED_KONG_AND_MELDED_KONG and points[F.CONCEALED_KONG_AND_MELDED_KONG] > 0:
                fan[F.CONCEALED_KONG_AND_MELDED_KONG] = 1
            else:
                fan[F.MELDED_KONG] = 1
                fan[F.CONCEALED_KONG] = 1
        else:
            fan[F.TWO_CONCEALED_KONGS] = 1
    elif k == 3:
        fan[F.THREE_KONGS] = 1
    elif k == 4:
        fan[F.FOUR_KONGS] = 1
    c = n_concealed_kongs + n_concealed_pungs
    if c == 2:
        fan[F.TWO_CONCEALED_PUNGS] = 1
    elif c == 3:
        fan[F.THREE_CONCEALED_PUNGS] = 1
    elif c == 4:
        fan[F.FOUR_CONCEALED_PUNGS] = 1


@njit(cache=True)
def pack_trait_fans(kind, tile, pair, fan):
    """全带幺 / 全带五 / 全双刻 over the four sets and the pair."""
    outside = 0
    five = 0
    even = 0
    for i in range(5):
        if i < 4:
            k = kind[i]
            t = tile[i]
        else:
            k = PUNG
            t = pair
        if t >= 27:
            outside += 1
            continue
        r = _rank(t)
        if k == CHOW:
            if r == 1 or r == 7:
                outside += 1
            elif 3 <= r <= 5:
                five += 1
        else:
            if r == 1 or r == 9:
                outside += 1
            elif r == 5:
                five += 1
            elif r % 2 == 0:
                even += 1
    if outside == 5:
        fan[F.OUTSIDE_HAND] = 1
    elif five == 5:
        fan[F.ALL_FIVE] = 1
    elif even == 5:
        fan[F.ALL_EVEN_PUNGS] = 1


@njit(cache=True)
def terminal_chows_fans(kind, tile, pair, fan):
    """一色双龙会 / 三色双龙会; True if found (then no other chow fan)."""
    if pair >= 27 or pair % 9 != 4:
        return False
    ps = _suit(pair)
    # per-suit counts of 123 and 789 chows, four bits per suit
    n123 = 0
    n789 = 0
    for i in range(4):
        if kind[i] != CHOW:
            return False
        r = tile[i] % 9
        s = _suit(tile[i])
        if r == 0:
            n123 += 1 << (4 * s)
        elif r == 6:
            n789 += 1 << (4 * s)
        else:
            return False
    if (n123 >> (4 * ps)) & 15 == 2 and (n789 >> (4 * ps)) & 15 == 2:
        fan[F.PURE_TERMINAL_CHOWS] = 1
        return True
    if (n123 >> (4 * ps)) & 15 == 0 and (n789 >> (4 * ps)) & 15 == 0:
        ok = True
        for s in range(3):
            if s != ps and ((n123 >> (4 * s)) & 15 != 1 or (n789 >> (4 * s)) & 15 != 1):
                ok = False
        if ok:
            fan[F.THREE_SUITED_TERMINAL_CHOWS] = 1
            return True
    return False


@njit(cache=True)
def wait_position_fans(kind, tile, fixed, pair, win, fan):
    """边张 / 嵌张 / 单钓将 for a sole wait, from where the winning tile sits."""
    edge = False
    closed = False
    single = False
    for i in range(4):
        if fixed[i] or kind[i] != CHOW:
            continue
        mid = tile[i] + 1
        if mid == win:
            closed = True
        elif mid + 1 == win or mid - 1 == win:
            edge = True
    if pair == win:
        single = True
    if edge:
        fan[F.EDGE_WAIT] = 1
    elif closed:
        fan[F.CLOSED_WAIT] = 1
    elif single:
        fan[F.SINGLE_WAIT] = 1


@njit(cache=True)
def terminal_honor_pungs(kind, tile, n, fan, seat, rnd, covers, nine_gates):
    """圈风刻 / 门风刻 and the 幺九刻 left over after the fans that include them.

    A wind pung of the round or seat wind, the three pungs of 三风刻 and one
    terminal pung of 九莲宝灯 already carry their 幺九刻 (when the rule set
    says so through ``covers``), so they are not counted again.
    """
    total = 0
    covered = 0
    three_winds = fan[F.BIG_THREE_WINDS] > 0 and covers[F.BIG_THREE_WINDS] != 0
    for i in range(n):
        if kind[i] == CHOW:
            continue
        t = tile[i]
        if _is_wind(t):
            total += 1
            w = t - 27
            cov = False
            if fan[F.BIG_FOUR_WINDS] == 0:
                if w == rnd:
                    fan[F.PREVALENT_WIND] = 1
                    if covers[F.PREVALENT_WIND] != 0:
                        cov = True
                if w == seat:
                    fan[F.SEAT_WIND] = 1
                    if covers[F.SEAT_WIND] != 0:
                        cov = True
            if three_winds:
                cov = True
            if cov:
                covered += 1
        elif _is_terminal(t):
            total += 1
        elif _is_dragon(t):
            fan[F.DRAGON_PUNG] += 1
    if nine_gates and covers[F.NINE_GATES] != 0 and total > covered:
        covered += 1
    if total - covered > 0:
        fan[F.PUNG_OF_TERMINALS_OR_HONORS] = total - covered
