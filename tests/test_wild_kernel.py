"""``wild.wild_completions`` checked against a brute-force oracle.

The oracle tries every multiset of ``n_wild`` tile kinds (plain
``itertools.combinations_with_replacement`` over the 34 kinds, no pruning at
all), adds it to the non-wild counts, drops it if any kind then exceeds 4
copies counting the declared melds, and otherwise asks the completeness
functions of ``shapes.py`` directly: ``is_regular_complete``; with no meld
``seven_pairs_kind > 0``, ``is_thirteen_orphans``, ``honors_knitted_kind >
0``; with at most one meld ``find_knitted`` and ``is_regular_complete`` on
what the knitted sequence leaves.  The kernel must return exactly the set of
multisets the oracle accepts, each once, sorted within a row.

Hands are drawn from a 136-tile wall without the wild kind: mostly complete
hands of every form (regular with 0..4 melds, seven pairs, thirteen orphans,
honours-and-knitted with 5..7 honours, knitted straight with and without a
meld) with ``n_wild`` random tiles taken out, plus plain random draws.
"""

import itertools
import random

import numpy as np
import pytest

from mjkit import tiles as T
from mjkit._kernels.shapes import (
    find_knitted, honors_knitted_kind, is_regular_complete, is_thirteen_orphans,
    knitted_tile, seven_pairs_kind, suit_key,
)
from mjkit._kernels.tables import wild_table
from mjkit._kernels.wild import (
    HONOR_OFFSET, WILD_TABLE_LEN, WILD_WS_LEN, wild_completions, wild_completions_ws,
)

ORPHANS = [t for t in range(34) if t >= 27 or t % 9 in (0, 8)]
HONOURS = list(range(27, 34))
CHOW_STARTS = [t for t in range(27) if t % 9 <= 6]


# ---------------------------------------------------------------------------
# Oracle
# ---------------------------------------------------------------------------

def _complete(h, n_fixed):
    if is_regular_complete(h):
        return True
    if n_fixed == 0 and (seven_pairs_kind(h) > 0 or is_thirteen_orphans(h)
                         or honors_knitted_kind(h) > 0):
        return True
    if n_fixed <= 1:
        k = find_knitted(h)
        if k >= 0:
            rest = h.copy()
            for i in range(9):
                rest[knitted_tile(k, i)] -= 1
            if is_regular_complete(rest):
                return True
    return False


def oracle(c, fixed, n_wild, n_fixed):
    found = set()
    h = c.copy()
    for combo in itertools.combinations_with_replacement(range(34), n_wild):
        for t in combo:
            h[t] += 1
        if all(h[t] + fixed[t] <= 4 for t in combo) and _complete(h, n_fixed):
            found.add(combo)
        for t in combo:
            h[t] -= 1
    return found


def kernel(c, fixed, n_wild, n_fixed, cap=4096):
    out = np.full((cap, 4), 7, np.int64)
    n = wild_completions(c, fixed, n_wild, n_fixed, wild_table(), out)
    assert n >= 0
    rows = [tuple(int(x) for x in out[i]) for i in range(n)]
    for row in rows:
        assert all(x == -1 for x in row[n_wild:])
        assert list(row[:n_wild]) == sorted(row[:n_wild])
        assert all(0 <= x < 34 for x in row[:n_wild])
    assert rows == sorted(rows)
    got = {row[:n_wild] for row in rows}
    assert len(got) == n
    return got


# ---------------------------------------------------------------------------
# Hand generators (counts only; melds only matter through ``fixed``)
# ---------------------------------------------------------------------------

def _counts(text):
    return T.counts34(text).astype(np.int64)


class Wall:
    def __init__(self, wild):
        self.left = [4] * 34
        self.left[wild] = 0

    def take(self, tiles):
        need = {}
        for t in tiles:
            need[t] = need.get(t, 0) + 1
        if any(self.left[t] < k for t, k in need.items()):
            return False
        for t, k in need.items():
            self.left[t] -= k
        return True


def _random_set(rng, meld):
    u = rng.random()
    if u < 0.5:
        t = rng.choice(CHOW_STARTS)
        return [t, t + 1, t + 2]
    t = rng.randrange(34)
    return [t] * (4 if meld and u > 0.85 else 3)


def _sets(rng, wall, n, meld, fixed, conc):
    for _ in range(n):
        for _ in range(50):
            s = _random_set(rng, meld)
            if wall.take(s):
                break
        else:
            return False
        for t in s:
            (fixed if meld else conc)[t] += 1
    return True


def _pair(rng, wall, conc):
    for _ in range(50):
        t = rng.randrange(34)
        if wall.take([t, t]):
            conc[t] += 2
            return True
    return False


def complete_hand(rng, form, n_fixed, wild):
    """(concealed counts, fixed counts) of a complete hand, or None."""
    wall = Wall(wild)
    conc = np.zeros(34, np.int64)
    fixed = np.zeros(34, np.int64)
    if form == "regular":
        ok = (_sets(rng, wall, n_fixed, True, fixed, conc)
              and _sets(rng, wall, 4 - n_fixed, False, fixed, conc)
              and _pair(rng, wall, conc))
    elif form == "seven_pairs":
        ok = all(_pair(rng, wall, conc) for _ in range(7))
    elif form == "orphans":
        tiles = ORPHANS + [rng.choice(ORPHANS)]
        ok = wall.take(tiles)
        for t in tiles:
            conc[t] += 1
    elif form == "honors_knitted":
        k = rng.randrange(6)
        n_h = rng.choice([5, 6, 7, 7])
        tiles = rng.sample([knitted_tile(k, i) for i in range(9)], 14 - n_h)
        tiles += rng.sample(HONOURS, n_h)
        ok = wall.take(tiles)
        for t in tiles:
            conc[t] += 1
    elif form == "knitted":
        k = rng.randrange(6)
        tiles = [knitted_tile(k, i) for i in range(9)]
        ok = wall.take(tiles)
        for t in tiles:
            conc[t] += 1
        ok = (ok and _sets(rng, wall, n_fixed, True, fixed, conc)
              and _sets(rng, wall, 1 - n_fixed, False, fixed, conc)
              and _pair(rng, wall, conc))
    else:
        raise ValueError(form)
    return (conc, fixed) if ok else None


def random_draw(rng, n_fixed, n_wild, wild):
    """Melds, then the rest of the concealed tiles drawn at random."""
    wall = Wall(wild)
    conc = np.zeros(34, np.int64)
    fixed = np.zeros(34, np.int64)
    if not _sets(rng, wall, n_fixed, True, fixed, conc):
        return None
    pool = [t for t in range(34) for _ in range(wall.left[t])]
    for t in rng.sample(pool, 14 - 3 * n_fixed - n_wild):
        conc[t] += 1
    return conc, fixed


FORMS = ["regular", "regular", "regular", "seven_pairs", "orphans",
         "honors_knitted", "knitted"]


def near_complete(rng, n_wild, form=None, n_fixed=None):
    """A complete hand with ``n_wild`` of its concealed tiles made wild."""
    while True:
        wild = rng.randrange(34)
        f = form or rng.choice(FORMS)
        if n_fixed is not None:
            nf = n_fixed
        elif f == "regular":
            nf = rng.choice([0, 0, 1, 2, 3, 4])
        elif f == "knitted":
            nf = rng.choice([0, 1])
        else:
            nf = 0
        if 14 - 3 * nf < n_wild:
            continue
        got = complete_hand(rng, f, nf, wild)
        if got is None:
            continue
        conc, fixed = got
        tiles = [t for t in range(34) for _ in range(conc[t])]
        for t in rng.sample(tiles, n_wild):
            conc[t] -= 1
        return conc, fixed, nf


def sample_hands(seed, n, n_wild, p_random=0.2):
    rng = random.Random(seed)
    hands = []
    while len(hands) < n:
        if rng.random() < p_random:
            nf = rng.choice([0, 0, 1, 2, 3])
            if 14 - 3 * nf < n_wild:
                continue
            got = random_draw(rng, nf, n_wild, rng.randrange(34))
            if got is None:
                continue
            hands.append((got[0], got[1], nf))
        else:
            hands.append(near_complete(rng, n_wild))
    return hands


def check(c, fixed, n_wild, n_fixed):
    want = oracle(c, fixed, n_wild, n_fixed)
    got = kernel(c, fixed, n_wild, n_fixed)
    assert got == want, (T.tiles_to_str([t for t in range(34) for _ in range(c[t])]),
                         n_fixed, sorted(got ^ want))
    return len(want)


# ---------------------------------------------------------------------------
# Against the oracle
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("n_wild, n_hands, seed", [
    (1, 400, 11), (2, 300, 12), (3, 40, 13), (4, 6, 14),
])
def test_random_hands_match_oracle(n_wild, n_hands, seed):
    total = 0
    for c, fixed, nf in sample_hands(seed, n_hands, n_wild):
        total += check(c, fixed, n_wild, nf)
    assert total > n_hands  # near-complete hands do have completions


FORM_CASES = [
    ("regular", 0), ("regular", 1), ("regular", 2), ("regular", 3), ("regular", 4),
    ("seven_pairs", 0), ("orphans", 0), ("honors_knitted", 0),
    ("knitted", 0), ("knitted", 1),
]


# (with 4 melds only 2 tiles are concealed: at most 2 wilds)
@pytest.mark.parametrize("form, n_fixed, n_wild", [
    (f, nf, w) for f, nf in FORM_CASES for w in (1, 2, 3) if 14 - 3 * nf >= w
])
def test_every_form_matches_oracle(form, n_fixed, n_wild):
    rng = random.Random(f"{form}-{n_fixed}-{n_wild}")
    n = {1: 12, 2: 8, 3: 2}[n_wild]
    for _ in range(n):
        c, fixed, nf = near_complete(rng, n_wild, form, n_fixed)
        assert check(c, fixed, n_wild, nf) >= 1


@pytest.mark.parametrize("form, n_fixed", [
    ("seven_pairs", 0), ("orphans", 0), ("honors_knitted", 0),
    ("knitted", 0), ("knitted", 1), ("regular", 3),
])
def test_special_forms_four_wilds(form, n_fixed):
    rng = random.Random(len(form) * 7 + n_fixed)
    c, fixed, nf = near_complete(rng, 4, form, n_fixed)
    assert check(c, fixed, 4, nf) >= 1


def test_honors_knitted_by_hand():
    # 147m 258p 3s and six honours: 中 (七星不靠) or a 6s/9s (全不靠)
    c = _counts("147m258p3sESWNPF")
    want = {(T.tile_from_str(x),) for x in ("6s", "9s", "C")}
    assert kernel(c, np.zeros(34, np.int64), 1, 0) == want
    check(c, np.zeros(34, np.int64), 1, 0)


# ---------------------------------------------------------------------------
# Edge cases
# ---------------------------------------------------------------------------

def test_no_wild():
    zero = np.zeros(34, np.int64)
    out = np.zeros((4, 4), np.int64)
    assert wild_completions(_counts("123m456p789sEEE11s"), zero, 0, 0, wild_table(), out) == 1
    assert list(out[0]) == [-1] * 4
    assert wild_completions(_counts("123m456p789sEEE12s"), zero, 0, 0, wild_table(), out) == 0
    for text in ("11223344556677m",        # seven pairs (and regular)
                 "11113355779999m",        # seven pairs with two quads
                 "19m19p19sESWNPFCC",      # thirteen orphans
                 "147m258p369sEEE11s",     # knitted straight
                 "147m258p36sESWNPF"):     # honours and knitted
        assert wild_completions(_counts(text), zero, 0, 0, wild_table(), out) == 1, text
    # a declared meld: 11 concealed tiles
    fixed = _counts("777p")
    assert wild_completions(_counts("123m456p789s11s"), fixed, 0, 1, wild_table(), out) == 1


def test_four_wilds_with_ten_tiles():
    zero = np.zeros(34, np.int64)
    for text in ("123m456p789sE", "19m19p19sESWN", "147m258p369sE", "1133557799m"):
        c = _counts(text)
        assert c.sum() == 10
        assert check(c, zero, 4, 0) > 0
    # three melds and one tile: the wilds make a set and a pair around it
    fixed = _counts("123m456m789m")
    assert check(_counts("5p"), fixed, 4, 3) > 0


def test_four_copy_limit():
    zero = np.zeros(34, np.int64)
    one_m = T.tile_from_str("1m")
    # 1111m in hand: a wild may not become a fifth 1m
    c = _counts("1111m456p789s234s")
    got = kernel(c, zero, 1, 0)
    assert all(one_m not in row for row in got)
    assert oracle(c, zero, 1, 0) == got
    # the same tile held once with a declared pung of it
    fixed = _counts("111m")
    c = _counts("1m456p789s234s")
    assert kernel(c, fixed, 1, 1) == set()
    # without the pung the pair is allowed
    fixed = _counts("789m")
    assert kernel(c, fixed, 1, 1) == {(one_m,)}
    # a declared kong blocks its kind entirely
    fixed = _counts("5555p")
    got = kernel(_counts("123m456s789s"), fixed, 2, 1)
    assert got and all(T.tile_from_str("5p") not in row for row in got)
    check(_counts("123m456s789s"), fixed, 2, 1)


def test_cap_overflow():
    zero = np.zeros(34, np.int64)
    c = _counts("123m456p789sE")
    n = len(kernel(c, zero, 4, 0))
    assert n > 10
    table = wild_table()
    assert wild_completions(c, zero, 4, 0, table, np.zeros((n - 1, 4), np.int64)) == -1
    assert wild_completions(c, zero, 4, 0, table, np.zeros((n, 4), np.int64)) == n
    assert wild_completions(c, zero, 4, 0, table, np.zeros((0, 4), np.int64)) == -1
    # n_wild == 0 needs one row too
    c = _counts("123m456p789sEEE11s")
    assert wild_completions(c, zero, 0, 0, table, np.zeros((0, 4), np.int64)) == -1


def test_workspace_reuse_and_many_completions():
    # 3344556677m: seven pairs with any two new pairs, plus regular ones; the
    # most completions found by a search over hands (1035).
    zero = np.zeros(34, np.int64)
    c = _counts("3344556677m")
    ws = np.full(WILD_WS_LEN, 123456, np.int64)   # garbage in, must not matter
    out = np.zeros((2048, 4), np.int64)
    n = wild_completions_ws(c, zero, 4, 0, wild_table(), out, ws)
    assert n == 1035
    assert {tuple(r) for r in out[:n]} == oracle(c, zero, 4, 0)
    for c, fixed, nf in sample_hands(99, 60, 3):
        a = kernel(c, fixed, 3, nf)
        n = wild_completions_ws(c, fixed, 3, nf, wild_table(), out, ws)
        assert {tuple(r[:3]) for r in out[:n]} == a


def test_bad_sizes_raise():
    zero = np.zeros(34, np.int64)
    out = np.zeros((8, 4), np.int64)
    with pytest.raises(ValueError):
        wild_completions(_counts("123m"), zero, 2, 0, wild_table(), out)
    with pytest.raises(ValueError):
        wild_completions(_counts("123m456p"), zero, 5, 0, wild_table(), out)


def test_table_built_once():
    wild_table.cache_clear()
    a = wild_table()
    b = wild_table()
    assert a is b
    assert wild_table.cache_info().misses == 1
    assert a.shape == (WILD_TABLE_LEN,) and a.dtype == np.uint16
    assert not a.flags.writeable


def _complete_group_patterns(n_kinds, honours):
    """Every complete one-group pattern (counts <= 4) with its option bit."""
    sets = [("p", t) for t in range(n_kinds)]
    if not honours:
        sets += [("c", t) for t in range(7)]
    pats = {}
    for n_sets in range(5):
        for combo in itertools.combinations_with_replacement(sets, n_sets):
            base = np.zeros(n_kinds, np.int64)
            for kind, t in combo:
                if kind == "p":
                    base[t] += 3
                else:
                    base[t:t + 3] += 1
            for pair in [None] + list(range(n_kinds)):
                p = base.copy()
                if pair is not None:
                    p[pair] += 2
                if p.max() > 4:
                    continue
                bit = 1 << (n_sets + (5 if pair is not None else 0))
                key = tuple(p)
                pats[key] = pats.get(key, 0) | bit
    keys = np.array(list(pats), np.int64)
    bits = np.array(list(pats.values()), np.int64)
    return keys, bits


@pytest.mark.parametrize("honours", [False, True])
def test_table_bits_are_sub_multisets_of_complete_patterns(honours):
    n_kinds = 7 if honours else 9
    pats, bits = _complete_group_patterns(n_kinds, honours)
    table = wild_table()
    rng = np.random.default_rng(5)
    samples = rng.integers(0, 5, size=(1500, n_kinds))
    # bias towards small patterns, where most bits live
    samples = np.where(rng.random(samples.shape) < 0.6, 0, samples)
    samples = np.vstack([samples, pats[rng.integers(0, len(pats), 300)]])
    weights = 5 ** np.arange(n_kinds)
    for p in samples:
        want = np.bitwise_or.reduce(np.where((pats >= p).all(axis=1), bits, 0))
        key = int(p @ weights)
        got = int(table[HONOR_OFFSET + key] if honours else table[key])
        assert got == want, (p, got, want)
    if not honours:
        c = np.zeros(34, np.int64)
        c[:9] = samples[0]
        assert suit_key(c, 0) == int(samples[0] @ weights)
