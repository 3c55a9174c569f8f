"""The numba kernels checked against slow, obviously-correct Python."""

import itertools

import numpy as np
import pytest

from mjkit import tiles as T
from mjkit._kernels import fan_ids as F
from mjkit._kernels.fans import TILE_PROPS
from mjkit._kernels.shapes import (
    MAX_DIVISIONS, count_waits, enumerate_divisions, is_regular_complete, suit_key,
)
from mjkit._kernels.tables import suit_table
from mjkit.rules import fan_catalogue

GREEN = {T.tile_from_str(s) for s in ("2s", "3s", "4s", "6s", "8s", "F")}
REVERSIBLE = {T.tile_from_str(s) for s in
              ("1p", "2p", "3p", "4p", "5p", "8p", "9p", "2s", "4s", "5s", "6s", "8s", "9s", "P")}


def test_fan_ids_match_catalogue():
    keys = list(fan_catalogue()["key"])
    consts = {k: v for k, v in vars(F).items() if k.isupper() and isinstance(v, int)}
    assert {k: keys.index(k) for k in consts} == consts
    assert len(keys) == len(consts)


def test_tile_props_match_tile_definitions():
    for t in range(34):
        p = TILE_PROPS[t]
        group = "mpsz".index(T.suit_of(t))
        assert p & 15 == 1 << group
        assert bool(p & 16) == T.is_honor(t)
        assert bool(p & 32) == T.is_terminal(t)
        assert bool(p & 64) == T.is_wind(t)
        assert bool(p & 128) == T.is_dragon(t)
        assert bool(p & 256) == (t in GREEN)
        assert bool(p & 512) == (t in REVERSIBLE)
        assert bool(p & (1 << 19)) == T.is_terminal_or_honor(t)
        if T.is_suited(t):
            assert (p >> 10) & 511 == 1 << (T.rank_of(t) - 1)


def _splits(counts, n_sets):
    """Every multiset of n_sets sets + a pair equal to counts (brute force)."""
    sets = [("pung", t) for t in range(34) if counts[t] >= 3]
    sets += [("chow", t) for t in range(27) if t % 9 <= 6 and counts[t] and counts[t + 1] and counts[t + 2]]
    out = set()
    for combo in itertools.combinations_with_replacement(sets, n_sets):
        c = counts.copy()
        for kind, t in combo:
            if kind == "pung":
                c[t] -= 3
            else:
                c[t:t + 3] -= 1
        if (c < 0).any():
            continue
        nz = np.flatnonzero(c)
        if len(nz) == 1 and c[nz[0]] == 2:
            out.add((tuple(sorted(combo)), int(nz[0])))
    return out


@pytest.mark.parametrize("seed", range(6))
def test_enumerate_divisions_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    dk = np.zeros(4 * MAX_DIVISIONS, np.int64)
    dt = np.zeros(4 * MAX_DIVISIONS, np.int64)
    dp = np.zeros(MAX_DIVISIONS, np.int64)
    scratch = np.zeros(32, np.int64)
    checked = 0
    while checked < 150:
        # complete one- or two-suit hands built from random sets: many splits
        hi = 9 * int(rng.integers(1, 3))
        counts = np.zeros(34, np.int64)
        for _ in range(4):
            t = int(rng.integers(0, hi))
            if rng.random() < 0.5 and t % 9 <= 6:
                counts[t:t + 3] += 1
            else:
                counts[t] += 3
        counts[int(rng.integers(0, hi))] += 2
        if counts.max() > 4:
            continue
        expect = _splits(counts, 4)
        nd = enumerate_divisions(counts.copy(), 4, dk, dt, dp, scratch)
        got = set()
        for d in range(nd):
            combo = tuple(sorted(("pung" if dk[4 * d + j] == 2 else "chow", int(dt[4 * d + j])) for j in range(4)))
            got.add((combo, int(dp[d])))
        assert nd == len(got)
        assert got == expect, T.tiles_to_str(np.repeat(np.arange(34), counts))
        checked += 1


def _waits_brute(standing, closed):
    waits = set()
    for t in range(34):
        c = standing.copy()
        c[t] += 1
        if is_regular_complete(c):
            waits.add(t)
        if closed and c.sum() == 14 and all(x % 2 == 0 for x in c):
            waits.add(t)
    return waits


@pytest.mark.parametrize("seed", range(4))
def test_count_waits_matches_brute_force(seed):
    rng = np.random.default_rng(100 + seed)
    table = suit_table()
    seen = {0: 0, 1: 0, 2: 0}
    for _ in range(600):
        pool = np.repeat(np.arange(rng.choice([9, 18, 34])), 4)
        standing = np.bincount(rng.choice(pool, 13, replace=False), minlength=34).astype(np.int64)
        waits = _waits_brute(standing, True)
        first = min(waits) if waits else 0
        n = count_waits(standing.copy(), True, first, table)
        assert n == min(len(waits), 2), (T.tiles_to_str(np.repeat(np.arange(34), standing)), waits)
        seen[n] += 1
    assert seen[1] > 0 and seen[2] > 0


def test_suit_table_agrees_with_greedy_split():
    table = suit_table()
    rng = np.random.default_rng(7)
    for _ in range(3000):
        c = np.zeros(34, np.int64)
        c[:9] = rng.integers(0, 5, 9)
        flags = table[suit_key(c, 0)]
        full = c.copy()
        total = int(c[:9].sum())
        # pad with honour pungs/pair so that is_regular_complete judges the suit
        if total % 3 == 0:
            full[27] = 2
            assert bool(flags & 1) == is_regular_complete(full)
        elif total % 3 == 2:
            assert bool(flags & 2) == is_regular_complete(full)
        else:
            assert flags == 0
