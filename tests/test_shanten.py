"""Shanten (向听) and useful tiles: ``mjkit.shanten`` against PyMahjongGB and
a brute-force reference.

What is compared
----------------
* PyMahjongGB, per form (``RegularShanten``, ``SevenPairsShanten``,
  ``ThirteenOrphansShanten``, ``HonorsAndKnittedTilesShanten``,
  ``KnittedStraightShanten``: shanten and useful-tile set) and overall
  (``MahjongShanten``), on random closed 13-tile hands drawn from a shuffled
  wall and on hands one to three tiles away from a random winning hand
  (every special form among them).  By default 80,000 + 20,000 hands; with
  ``-m oracle_full`` (or ``MJKIT_ORACLE_FULL=1``) 800,000 + 200,000.

  PyMahjongGB counts blocks as if every kind had unlimited copies: a quad
  ``1111p`` next to three sets is "ready" on a fifth ``1p``.  mjkit's
  default counts only copies that exist.  So the comparison is exact for
  ``shanten_batch(copy_limit=False)`` (same value, same useful tiles, with
  PyMahjongGB's one listing rule: a kind held four times is listed only
  when the hand is ready), and every hand where the default differs is
  checked against the brute-force reference below.
* The brute-force reference, on random hands with 1 to 4 melds (which
  PyMahjongGB's ``MahjongShanten`` ignores), on closed hands, and on their
  useful tiles.
* 14-tile hands: random winning hands are complete (-1) in their form;
  near-complete hands are complete exactly when ``mjkit.score_batch``
  scores them; the value of a 14-tile hand is its best discard's.
"""

from __future__ import annotations

import collections
import doctest
import importlib
import itertools
from functools import lru_cache

import numba
import numpy as np
import pytest

import mjkit
from mjkit import HandError
from mjkit.random_hands import random_closed_counts, random_hand_parts, random_winning_hands
from mjkit.shanten import FORMS, NO_FORM, shanten, shanten_batch
from mjkit.tiles import parse_tiles, tile_to_str, tiles_to_str

# The module itself: once mjkit exports the function shanten, the attribute
# mjkit.shanten is that function and "import mjkit.shanten as ms" binds it.
ms = importlib.import_module("mjkit.shanten")

try:
    import pgb  # tests/ is on sys.path when it is not a package
except ImportError:  # pragma: no cover - tests/ made a package
    from tests import pgb

needs_pgb = pytest.mark.skipif(not pgb.available(), reason="PyMahjongGB not installed")

N_RANDOM = 80_000
N_NEAR = 20_000
N_FULL_RANDOM = 800_000
N_FULL_NEAR = 200_000
N_MELDED = 2_000
#: melded hands whose useful tiles go through the reference, per meld count
#: (the reference is slow with one meld: 10 tiles)
N_MELDED_USEFUL = {1: 6, 2: 30, 3: 50, 4: 50}
N_CLOSED_REFERENCE = 30
SEED = 20_240_623
ORPHANS = (0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33)


# ---------------------------------------------------------------------------
# Hand generators (numpy default_rng, fixed seeds)
# ---------------------------------------------------------------------------

def random_closed(n: int, seed: int) -> np.ndarray:
    """``n`` closed 13-tile hands: the first 13 tiles of a shuffled 136-tile wall."""
    return random_closed_counts(n, seed)


def _meld_tiles(kind: str, tile: int) -> list[int]:
    if kind == "chow":
        return [tile, tile + 1, tile + 2]
    return [tile] * (4 if kind == "kong" else 3)


def _swap(rng, c: np.ndarray, melded: np.ndarray, k: int) -> None:
    """Replace ``k`` concealed tiles by random tiles (never a fifth copy)."""
    for _ in range(k):
        tiles = np.repeat(np.arange(34), c)
        c[tiles[rng.integers(len(tiles))]] -= 1
        while True:
            t = rng.integers(34)
            if c[t] + melded[t] < 4:
                c[t] += 1
                break


def near_complete(n: int, seed: int, *, keep_melds: bool, full: bool = False):
    """Hands close to a random winning hand (every form of ``random_hand_parts``).

    The winning hand loses one concealed tile (unless ``full``: then 14
    tiles stay) and 0 to 3 concealed tiles are swapped for random ones.
    Without ``keep_melds`` the melds become concealed tiles (a kong gives
    3), so the hand is closed.

    Returns
    -------
    counts, n_melds, melded : numpy arrays
    melds : list of list of (kind, tile)
    forms : list of str
    """
    rng = np.random.default_rng(seed)
    parts = random_hand_parts(n, seed=seed + 1)
    counts = np.zeros((n, 34), np.int64)
    melded = np.zeros((n, 34), np.int64)
    n_melds = np.zeros(n, np.int64)
    melds = []
    for i, p in enumerate(parts):
        tiles = list(p.concealed)
        ms_ = []
        for m in p.melds:
            if keep_melds:
                ms_.append((m.kind, m.tile, m.concealed))
                for t in _meld_tiles(m.kind, m.tile):
                    melded[i, t] += 1
            else:
                tiles += _meld_tiles(m.kind if m.kind != "kong" else "pung", m.tile)
        c = np.bincount(tiles, minlength=34)
        if not full:
            pool = np.repeat(np.arange(34), c)
            c[pool[rng.integers(len(pool))]] -= 1
        _swap(rng, c, melded[i], int(rng.integers(4)))
        counts[i] = c
        n_melds[i] = len(ms_)
        melds.append(ms_)
    return counts, n_melds, melded, melds, [p.form for p in parts]


def random_melded(n: int, seed: int, n_melds: tuple[int, ...] = (1, 2, 3, 4)):
    """Random hands with ``k`` random melds (chow, pung, kong) and 13 - 3k tiles."""
    rng = np.random.default_rng(seed)
    counts = np.zeros((n, 34), np.int64)
    melded = np.zeros((n, 34), np.int64)
    ks = np.zeros(n, np.int64)
    for i in range(n):
        k = n_melds[i % len(n_melds)]
        left = np.full(34, 4)
        made = 0
        while made < k:
            kind = ("chow", "pung", "kong")[rng.integers(3)]
            t = int(rng.integers(34))
            if kind == "chow" and (t >= 27 or t % 9 > 6):
                continue
            c = np.bincount(_meld_tiles(kind, t), minlength=34)
            if (left < c).any():
                continue
            left -= c
            melded[i] += c
            made += 1
        pool = np.repeat(np.arange(34), left)
        pick = rng.choice(len(pool), 13 - 3 * k, replace=False)
        counts[i] = np.bincount(pool[pick], minlength=34)
        ks[i] = k
    return counts, ks, melded


# ---------------------------------------------------------------------------
# Brute-force reference
#
# need = the least number of tiles to add so that part of the hand plus the
# added tiles is complete, no kind going past 4 copies counting the hand's
# melds (``limit=False``: no limit).  shanten = need - 1.  The regular form
# is searched tile by tile: the lowest tile left is either not used, or
# part of a pair, pung or chow whose other tiles come from the hand when
# there and are added otherwise; blocks of added tiles only cost 3 (a set)
# or 2 (the pair).  Special forms are minimised over their few shapes.
# Written for clarity, not speed, and independent of the kernels.
# ---------------------------------------------------------------------------

def _blocks_with(u: int) -> list[tuple[str, tuple[int, ...]]]:
    out = [("pair", (u, u)), ("set", (u, u, u))]
    if u < 27:
        r = u % 9
        for lo in (r - 2, r - 1, r):
            if 0 <= lo <= 6:
                b = u - r + lo
                out.append(("set", (b, b + 1, b + 2)))
    return out


_BLOCKS = [_blocks_with(u) for u in range(34)]
_SEQS = [tuple(sorted(9 * perm[c] + c + 3 * j for c in range(3) for j in range(3)))
         for perm in itertools.permutations(range(3))]


def ref_regular_need(hand, n_sets, caps, used=None) -> int:
    """Least additions for ``n_sets`` sets and a pair (``used``: copies already taken)."""

    @lru_cache(maxsize=None)
    def go(rem, sets_left, pair_left, used, start):
        u = start
        while u < 34 and not rem[u]:
            u += 1
        if u == 34:
            # Blocks of added tiles only: at most 14 target tiles and 4 melds
            # leave 8 kinds free for them.
            return 3 * sets_left + 2 * pair_left
        r = list(rem)
        r[u] -= 1
        best = go(tuple(r), sets_left, pair_left, used, u)      # u not used
        for kind, tiles in _BLOCKS[u]:
            if (kind == "pair" and not pair_left) or (kind == "set" and not sets_left):
                continue
            r = list(rem)
            us = list(used)
            cost = 0
            ok = True
            for t in tiles:
                us[t] += 1
                if us[t] > caps[t]:
                    ok = False
                    break
                if r[t] > 0:
                    r[t] -= 1
                else:
                    cost += 1
            if not ok or r[u] == rem[u] or cost >= best:
                continue
            for t in range(max(0, u - 2)):   # never touched again: forget
                us[t] = 0
            best = min(best, cost + go(tuple(r), sets_left - (kind == "set"),
                                       pair_left - (kind == "pair"), tuple(us), u))
        return best

    return go(tuple(int(x) for x in hand), n_sets, 1,
              tuple(used) if used is not None else (0,) * 34, 0)


def ref_needs(hand, n_melds: int, melded, limit: bool = True) -> dict[str, int]:
    """Need of each form the melds allow (see the section comment)."""
    h = [int(x) for x in hand]
    caps = [4 - int(m) for m in melded] if limit else [14] * 34
    out = {"regular": ref_regular_need(h, 4 - n_melds, caps)}
    if n_melds == 0:
        slots = []   # first and second pair of each kind (a quad is two pairs)
        for t in range(34):
            a = max(0, 2 - h[t])
            slots += [a, max(0, 4 - h[t]) - a]
        out["seven_pairs"] = sum(sorted(slots)[:7])
        base = sum(max(0, 1 - h[o]) for o in ORPHANS)
        out["thirteen_orphans"] = base + min(max(0, 2 - h[x]) - max(0, 1 - h[x])
                                             for x in ORPHANS)
        out["honors_knitted"] = min(
            sum(max(0, 1 - h[t]) for t in keep)
            for seq in _SEQS for keep in itertools.combinations(seq + tuple(range(27, 34)), 14))
    if n_melds <= 1:
        best = 99
        for seq in _SEQS:
            rem = list(h)
            used = [0] * 34
            cost = 0
            if any(caps[t] < 1 for t in seq):
                continue
            for t in seq:
                used[t] += 1
                if rem[t]:
                    rem[t] -= 1
                else:
                    cost += 1
            best = min(best, cost + ref_regular_need(rem, 1 - n_melds, caps, used))
        out["knitted_straight"] = best
    return out


def ref_useful(hand, n_melds: int, melded) -> dict[str, int]:
    """Useful-tile masks per form by the reference: tiles that lower the need."""
    base = ref_needs(hand, n_melds, melded)
    masks = dict.fromkeys(base, 0)
    for t in range(34):
        if hand[t] + melded[t] >= 4:
            continue
        h = list(hand)
        h[t] += 1
        for f, v in ref_needs(h, n_melds, melded).items():
            if v < base[f]:
                masks[f] |= 1 << t
    return masks


def _as_shanten(needs: dict[str, int]) -> list[int]:
    return [needs[f] - 1 if f in needs else NO_FORM for f in FORMS]


def _melded_copies(melds) -> np.ndarray:
    """Copies of each kind in a list of melds (objects with ``kind`` and ``tile``)."""
    out = np.zeros(34, np.int64)
    for m in melds:
        for t in _meld_tiles(m.kind, m.tile):
            out[t] += 1
    return out


def _text(counts, melds=()) -> str:
    head = "".join(str(mjkit.Meld(k, t, c)) for k, t, c in melds)
    return head + tiles_to_str(t for t in range(34) for _ in range(int(counts[t])))


def _mask_tiles(mask: int) -> list[str]:
    return [tile_to_str(t) for t in range(34) if (int(mask) >> t) & 1]


# ---------------------------------------------------------------------------
# Tables
# ---------------------------------------------------------------------------

def test_tables_shape_and_known_rows():
    suit, honor = ms.shanten_tables()
    assert suit.shape == (5 ** 9, 10) and suit.dtype == np.uint8
    assert honor.shape == (5 ** 7, 10) and honor.dtype == np.uint8
    assert not suit.flags.writeable and not honor.flags.writeable
    # empty pattern: s sets cost 3s, the pair 2 more
    assert suit[0].tolist() == [0, 2, 3, 5, 6, 8, 9, 11, 12, 14]
    assert honor[0].tolist() == [0, 2, 3, 5, 6, 8, 9, 11, 12, 14]
    key = sum(c * 5 ** r for r, c in enumerate([1, 1, 1, 0, 0, 0, 0, 0, 2]))  # 123 + 99
    assert suit[key, 2 * 1 + 1] == 0 and suit[key, 2 * 2 + 0] == 1   # 999 from 99
    assert suit[5 ** 9 - 1].tolist() == [0] * 10     # four of everything holds it all


def test_tables_match_the_dynamic_programme():
    from mjkit._kernels.shanten import group_dist_dp

    suit, honor = ms.shanten_tables()
    rng = np.random.default_rng(SEED)
    out = np.zeros(10, np.int64)
    for n, table, chows in ((9, suit, True), (7, honor, False)):
        for key in rng.integers(0, 5 ** n, 3000):
            digits = np.array([(int(key) // 5 ** r) % 5 for r in range(n)], np.int64)
            group_dist_dp(digits, np.full(n, 4, np.int64), chows, out)
            assert out.tolist() == table[key].tolist(), (n, digits)


def test_table_cache(tmp_path, monkeypatch):
    monkeypatch.setattr(ms, "TABLE_INFO", {})
    monkeypatch.setenv("MJKIT_CACHE_DIR", str(tmp_path / "cache"))
    suit, honor = ms._load_or_build()
    assert ms.TABLE_INFO["source"] == "built" and ms.TABLE_INFO["folder"]
    again = ms._load_or_build()
    assert ms.TABLE_INFO["source"] == "disk"
    assert np.array_equal(again[0], suit) and np.array_equal(again[1], honor)
    assert not again[0].flags.writeable            # a read-only memory map
    # a damaged file is noticed (CRC) and replaced
    path = next((tmp_path / "cache").glob("*_honor.npy"))
    data = bytearray(path.read_bytes())
    data[-1] ^= 1
    path.write_bytes(bytes(data))
    from mjkit._cache import CacheWarning

    with pytest.warns(CacheWarning, match="damaged"):
        ms._load_or_build()
    assert ms.TABLE_INFO["source"] == "built"
    ms._load_or_build()
    assert ms.TABLE_INFO["source"] == "disk"
    # no cache (empty setting) or an unwritable one: built in memory
    monkeypatch.setenv("MJKIT_CACHE_DIR", "")
    ms._load_or_build()
    assert ms.TABLE_INFO == {"source": "built", "folder": None,
                             "seconds": ms.TABLE_INFO["seconds"]}
    (tmp_path / "file").write_text("not a folder")
    monkeypatch.setenv("MJKIT_CACHE_DIR", str(tmp_path / "file" / "cache"))
    built = ms._load_or_build()
    assert ms.TABLE_INFO["folder"] is None and np.array_equal(built[0], suit)


def test_tables_rebuild_identically():
    suit, honor = ms.build_shanten_tables()
    s0, h0 = ms.shanten_tables()
    assert np.array_equal(suit, s0) and np.array_equal(honor, h0)


# ---------------------------------------------------------------------------
# Against PyMahjongGB
# ---------------------------------------------------------------------------

def _compare_with_pgb(counts: np.ndarray):
    """Every hand through PyMahjongGB's six shanten functions.

    Each value and useful set is compared with mjkit's default (copy-limited)
    result.  Hands where they differ, or where PyMahjongGB lists a kind the
    hand holds four times, are then compared with the block-count mode
    (``copy_limit=False``), which must agree with PyMahjongGB exactly, and
    with the brute-force reference, which must agree with the default.

    Returns
    -------
    block_bad : list
        (hand, form, PyMahjongGB value, mask) where the block-count mode
        disagrees with PyMahjongGB: must be empty.
    exact_diff : list
        (hand, form) where the default differs from PyMahjongGB.
    exact : ShantenBatch
    """
    exact = shanten_batch(counts, useful=True)
    quads_all = ((counts == 4) * (1 << np.arange(34, dtype=np.int64))).sum(axis=1).tolist()
    ex_f, ex_u, ex_s = exact.by_form.tolist(), exact.useful.tolist(), exact.shanten.tolist()
    theirs = {}          # hand -> (5 (value, mask), overall) for the second look
    exact_diff = []
    for i in range(counts.shape[0]):
        codes = pgb.standing_codes(counts[i])
        quads = quads_all[i]
        forms = [pgb.pgb_form_shanten(codes, f) for f in range(5)]
        overall = pgb.pgb_overall_shanten(codes)
        look = False
        for f, (value, mask) in enumerate(forms):
            if value != ex_f[i][f] or mask & ~quads != ex_u[i][f]:
                exact_diff.append((i, FORMS[f]))
                look = True
            look = look or bool(mask & quads)
        if overall != ex_s[i]:
            exact_diff.append((i, "overall"))
            look = True
        if look:
            theirs[i] = (forms, overall)
    block_bad = []
    if theirs:
        idx = np.array(sorted(theirs))
        block = shanten_batch(counts[idx], useful=True, copy_limit=False)
        for j, i in enumerate(idx.tolist()):
            forms, overall = theirs[i]
            quads = quads_all[i]
            for f, (value, mask) in enumerate(forms):
                ours = int(block.useful[j, f])
                # A kind held four times: PyMahjongGB lists its fifth copy
                # only sometimes (in the regular form when ready; in 组合龙
                # when the kind is in the sequence), never when it does not
                # help.
                if (value != block.by_form[j, f] or (mask ^ ours) & ~quads
                        or mask & quads & ~ours):
                    block_bad.append((i, FORMS[f], value, mask))
            if overall != block.shanten[j]:
                block_bad.append((i, "overall", overall, 0))
    return block_bad, exact_diff, exact


def _check_against_pgb(counts: np.ndarray, label: str) -> None:
    block_bad, exact_diff, exact = _compare_with_pgb(counts)
    # the faster modes (overall only; every form) give the same values
    assert np.array_equal(shanten_batch(counts).shanten, exact.shanten)
    assert np.array_equal(shanten_batch(counts, forms=True).by_form, exact.by_form)
    report = [f"{label}: {counts.shape[0]:,} hands x 5 forms + MahjongShanten"]
    for i, form, value, mask in block_bad[:10]:
        report.append(f"  {_text(counts[i])} {form}: PyMahjongGB {value} {_mask_tiles(mask)}")
    assert not block_bad, "\n".join(report)
    assert (exact.useful & ((counts == 4) * (1 << np.arange(34, dtype=np.int64)))
            .sum(axis=1)[:, None] == 0).all(), "a useful tile would be a fifth copy"
    # Every hand where the copy limit matters: the reference decides.
    hands = sorted({i for i, _ in exact_diff})
    for n_checked, i in enumerate(hands):
        need = ref_needs(counts[i], 0, [0] * 34)
        assert exact.by_form[i].tolist() == _as_shanten(need), _text(counts[i])
        if n_checked < 3:
            masks = ref_useful(counts[i], 0, [0] * 34)
            assert exact.useful[i].tolist() == [masks[f] for f in FORMS], _text(counts[i])
    per_form = collections.Counter(f for _, f in exact_diff)
    print(f"\n{label}: {counts.shape[0]:,} hands, each in 5 forms (shanten and useful "
          f"tiles) and overall.  Equal to PyMahjongGB except {len(hands)} hands where a "
          f"fifth copy would be needed ({dict(per_form)}); there PyMahjongGB equals "
          "copy_limit=False and the reference confirms the default"
          + (": " + ", ".join(_text(counts[i]) for i in hands[:5]) if hands else ""))


@needs_pgb
def test_pgb_random_closed_hands():
    _check_against_pgb(random_closed(N_RANDOM, SEED), "random closed hands")


@needs_pgb
def test_pgb_near_complete_hands():
    counts, _, _, _, forms = near_complete(N_NEAR, SEED + 1, keep_melds=False)
    assert set(forms) >= {"seven_pairs", "thirteen_orphans", "honors_knitted",
                          "knitted_straight"}
    # the mix really reaches ready hands in every special form
    by_form = shanten_batch(counts, forms=True).by_form
    assert all((by_form[:, f] == 0).sum() > 50 for f in range(5))
    _check_against_pgb(counts, "near-complete closed hands")


@needs_pgb
@pytest.mark.oracle_full
def test_pgb_full(request):
    """1,000,000 hands; opt in with ``-m oracle_full`` or ``MJKIT_ORACLE_FULL=1``."""
    for lo in range(0, N_FULL_RANDOM, 100_000):
        _check_against_pgb(random_closed(100_000, SEED + 100 + lo), f"random closed hands {lo:,}+")
    for lo in range(0, N_FULL_NEAR, 50_000):
        counts, *_ = near_complete(50_000, SEED + 200 + lo, keep_melds=False)
        _check_against_pgb(counts, f"near-complete hands {lo:,}+")


@needs_pgb
def test_pgb_waits_on_a_fifth_copy():
    """The documented difference: a quad that "waits" on its fifth copy."""
    counts = np.bincount(parse_tiles("123456789m1111p"), minlength=34)[None, :]
    codes = pgb.standing_codes(counts[0])
    assert pgb.pgb_overall_shanten(codes) == 0
    assert pgb.pgb_form_shanten(codes, 0) == (0, 1 << 9)          # "waits" on 1p
    assert shanten_batch(counts, copy_limit=False).shanten[0] == 0
    r = shanten("123456789m1111p")
    assert r.shanten == 1 and "1p" not in dict(r.useful)
    # with a fifth copy impossible, any new tile starts a pair
    assert len(r.useful) == 33


@needs_pgb
def test_pgb_melded_block_count():
    """PyMahjongGB reads 10/7/4/1 standing tiles as that many fixed sets; the
    block-count mode (melded copies not limiting) must agree."""
    counts, ks, _ = random_melded(N_MELDED, SEED + 3)
    block = shanten_batch(counts, ks, useful=True, copy_limit=False)
    quads_all = ((counts == 4) * (1 << np.arange(34, dtype=np.int64))).sum(axis=1)
    compared = collections.Counter()
    for i in range(len(ks)):
        codes = pgb.standing_codes(counts[i])
        for f in (0, 4):
            got = pgb.pgb_form_shanten(codes, f)
            if got is None:          # 组合龙 takes 13 or 10 standing tiles only
                assert f == 4 and ks[i] >= 2 and block.by_form[i, f] == NO_FORM
                continue
            value, mask = got
            quads = int(quads_all[i])
            want = int(block.useful[i, f]) if value <= 0 else int(block.useful[i, f]) & ~quads
            assert (value, mask) == (block.by_form[i, f], want), (_text(counts[i]), ks[i], FORMS[f])
            compared[FORMS[f]] += 1
    assert compared["regular"] == N_MELDED and compared["knitted_straight"] > 400


# ---------------------------------------------------------------------------
# Against the brute-force reference
# ---------------------------------------------------------------------------

def _melded_sample():
    a = random_melded(N_MELDED - 400, SEED + 4, n_melds=(1, 2, 2, 3, 3, 4, 4))
    counts, ks, melded, _, _ = near_complete(1200, SEED + 5, keep_melds=True)
    keep = np.flatnonzero(ks > 0)[:400]
    return (np.concatenate([a[0], counts[keep]]), np.concatenate([a[1], ks[keep]]),
            np.concatenate([a[2], melded[keep]]))


def test_melded_hands_against_reference():
    counts, ks, melded = _melded_sample()
    assert (ks > 0).all() and len(ks) == N_MELDED and set(ks.tolist()) == {1, 2, 3, 4}
    exact = shanten_batch(counts, ks, melded, forms=True)
    block = shanten_batch(counts, ks, melded, forms=True, copy_limit=False)
    differ = 0
    for i in range(len(ks)):
        want = _as_shanten(ref_needs(counts[i], ks[i], melded[i]))
        assert exact.by_form[i].tolist() == want, (_text(counts[i]), ks[i], melded[i].nonzero())
        assert exact.shanten[i] == min(want)
        if i % 5 == 0:
            want_block = _as_shanten(ref_needs(counts[i], ks[i], melded[i], limit=False))
            assert block.by_form[i].tolist() == want_block
            differ += want_block != want
    print(f"\nmelded hands: {len(ks):,} agree with the reference in every form "
          f"({differ} of {len(ks) // 5} sampled differ from the block count)")


def test_melded_useful_against_reference():
    counts, ks, melded = _melded_sample()
    rng = np.random.default_rng(SEED + 6)
    pick = np.concatenate([rng.choice(np.flatnonzero(ks == k), n, replace=False)
                           for k, n in N_MELDED_USEFUL.items()])
    got = shanten_batch(counts[pick], ks[pick], melded[pick], useful=True)
    for j, i in enumerate(pick):
        masks = ref_useful(counts[i], ks[i], melded[i])
        assert got.useful[j].tolist() == [masks.get(f, 0) for f in FORMS], _text(counts[i])
        # never a fifth copy, melds included
        full = ((counts[i] + melded[i]) == 4)
        assert not any((int(got.useful[j, f]) >> t) & 1 for f in range(5) for t in range(34)
                       if full[t])


def test_closed_hands_against_reference():
    rng_hands = random_closed(N_CLOSED_REFERENCE // 2, SEED + 7)
    near, *_ = near_complete(N_CLOSED_REFERENCE // 2, SEED + 8, keep_melds=False)
    counts = np.concatenate([rng_hands, near])
    got = shanten_batch(counts, useful=True)
    for i in range(len(counts)):
        assert got.by_form[i].tolist() == _as_shanten(ref_needs(counts[i], 0, [0] * 34))
    for i in (0, len(counts) - 1):
        masks = ref_useful(counts[i], 0, [0] * 34)
        assert got.useful[i].tolist() == [masks[f] for f in FORMS]


# ---------------------------------------------------------------------------
# 14-tile hands
# ---------------------------------------------------------------------------

_FORM_OF = {"regular": "regular", "nine_gates": "regular", "seven_pairs": "seven_pairs",
            "seven_shifted_pairs": "seven_pairs", "thirteen_orphans": "thirteen_orphans",
            "honors_knitted": "honors_knitted", "greater_honors_knitted": "honors_knitted",
            "knitted_straight": "knitted_straight"}


def test_winning_hands_are_complete():
    parts = random_hand_parts(3000, seed=SEED + 9)
    counts = np.array([np.bincount(p.concealed, minlength=34) for p in parts])
    ks = np.array([len(p.melds) for p in parts])
    melded = np.array([_melded_copies(p.melds) for p in parts])
    r = shanten_batch(counts, ks, melded, forms=True)
    assert (r.shanten == -1).all()
    for i, p in enumerate(parts):
        assert r.by_form[i, FORMS.index(_FORM_OF[p.form])] == -1, p
    # the same through shanten(Hand)
    for text in random_winning_hands(50, seed=SEED + 10):
        assert shanten(mjkit.parse_hand(text)).shanten == -1


def test_fourteen_tiles_complete_exactly_when_scored():
    texts, expect = [], []
    for keep in (False, True):
        counts, ks, melded, melds, _ = near_complete(1500, SEED + 11 + keep, keep_melds=keep,
                                                     full=True)
        r = shanten_batch(counts, ks, melded)
        for i in range(len(ks)):
            tiles = [t for t in range(34) for _ in range(int(counts[i, t]))]
            win = tiles.pop(len(tiles) // 2)
            head = "".join(str(mjkit.Meld(k, t, c)) for k, t, c in melds[i])
            texts.append(f"{head}{tiles_to_str(tiles)} {tile_to_str(win)}")
            expect.append(r.shanten[i] == -1)
    scored = mjkit.score_batch(mjkit.HandBatch.from_hands(texts, progress=False))
    assert (np.asarray(scored.totals) >= 0).tolist() == expect
    assert 300 < sum(expect) < len(expect) - 300


def test_fourteen_tiles_value_is_the_best_discard():
    counts, ks, melded, melds, _ = near_complete(200, SEED + 13, keep_melds=True, full=True)
    for i in range(len(ks)):
        m = [mjkit.Meld(k, t, c) for k, t, c in melds[i]]
        r = shanten(counts[i], melds=m)
        assert r.n_tiles == 14 and r.discards
        for f in FORMS:
            values = [d.by_form[f] for d in r.discards]
            if r.by_form[f] is None:
                assert all(v is None for v in values)
            else:
                assert r.by_form[f] == (-1 if r.by_form[f] == -1 else min(values))
                assert min(values) == max(r.by_form[f], 0)
        assert r.discards[0].shanten == max(r.shanten, 0)
        assert r.discard == r.discards[0].discard and r.useful == r.discards[0].useful


# ---------------------------------------------------------------------------
# API
# ---------------------------------------------------------------------------

def test_docstring_examples():
    assert doctest.testmod(ms, raise_on_error=False).failed == 0


def test_inputs_agree():
    hand13 = shanten("[123m]456p789s55mEE")
    counts = np.bincount(parse_tiles("456p789s55mEE"), minlength=34)
    for other in (shanten(counts, melds="[123m]"), shanten(list(counts), melds="[123m]"),
                  shanten(parse_tiles("456p789s55mEE"), melds=[mjkit.Meld("chow", 0)]),
                  shanten(["4p", "5p", "6p", "7s", "8s", "9s", "5m", "5m", "E", "E"],
                          melds="[123m]"),
                  shanten("[123m] 4 5 6p 7 8 9s 5 5m E E 1f")):     # a flower is set aside
        assert other == hand13
    assert hand13.shanten == 0 and hand13.useful == [("5m", 2), ("E", 2)]
    assert hand13.by_form["seven_pairs"] is None and hand13.n_tiles == 13
    full = shanten(mjkit.parse_hand("[123m]456p789s55mEE E | self_drawn"))
    assert full == shanten("[123m]456p789s55mEEE") == shanten("[123m]456p789s55mEE E | seat=S")
    assert full.shanten == -1 and full.n_tiles == 14
    assert shanten("[123m]456p789s55mEE | seat=S") == hand13       # suffix ignored
    assert shanten("[123m]456p789s55mEE | win_tile=E") == full     # ... but for win_tile
    with pytest.raises(HandError, match="unknown situation"):
        shanten("[123m]456p789s55mEE | sideways")


def test_visible_tiles_lower_unseen_counts():
    r = shanten("123m456p789s EES P", visible="E 1s [SSS]")
    assert r.useful == [("E", 1), ("S", 0), ("P", 3)] and r.unseen_total == 4
    assert shanten("123m456p789s EES P", visible=["E", 28, "S"]).useful == [
        ("E", 1), ("S", 1), ("P", 3)]
    r = shanten("19m19p19s1234567z", visible="E E")
    assert dict(r.useful)["E"] == 1 and r.unseen_total == 37


def test_useful_never_a_fifth_copy():
    counts = random_closed(20_000, SEED + 14)
    quads = ((counts == 4) * (1 << np.arange(34, dtype=np.int64))).sum(axis=1)
    assert quads.any()
    r = shanten_batch(counts, useful=True)
    assert ((r.useful & quads[:, None]) == 0).all()
    one = shanten("1111m234p567s99sE")
    assert "1m" not in dict(one.useful) and all(n > 0 for _, n in one.useful)


@pytest.mark.parametrize("bad, message", [
    ("123m456p789s11z", "wrong number of tiles"),
    ("123m456p789s11zSSSW", "wrong number of tiles"),
    ("11111m23456789p", "5th copy of 1m"),
    ("[111m]11m456p789sEE", "5th copy of 1m"),
    ("123m456p789s11x", "unknown character"),
    ("[124m]456p789s55mEE", "not a run"),
])
def test_bad_hands(bad, message):
    with pytest.raises(HandError, match=message):
        shanten(bad)


def test_bad_arguments():
    with pytest.raises(HandError, match="visible"):
        shanten("123m456p789s EES P", visible="EEE")
    with pytest.raises(HandError, match="melds="):
        shanten(mjkit.parse_hand("[123m]456p789s55mEE E"), melds="[999s]")
    with pytest.raises(HandError, match="melds="):
        shanten("456p789s55mE", melds="[123m]")
    with pytest.raises(HandError, match="integers"):
        shanten(np.zeros(34))
    with pytest.raises(HandError, match="negative"):
        shanten([-1] + [0] * 33)
    with pytest.raises(HandError):
        shanten(object())
    with pytest.raises(HandError, match="shape"):
        shanten_batch(np.zeros((3, 33), np.int64))
    with pytest.raises(HandError, match="row 1"):
        shanten_batch(np.vstack([random_closed(1, 1), np.zeros((1, 34), np.int64)]))
    with pytest.raises(HandError):
        shanten_batch(np.full((1, 34), 5, np.int64))


def test_explain_and_frames():
    r = shanten("123m456p789s EES P")
    text = str(r)
    assert "1-shanten" in text and "E×2" in text and "seven pairs 5" in text
    assert "一向听" in r.explain("zh") and "七对 5" in r.explain("zh")
    with pytest.raises(HandError):
        r.explain("fr")
    df = r.to_frame()
    assert df["tile"].tolist() == ["E", "S", "P"] and df["unseen"].tolist() == [2, 3, 3]
    assert df["regular"].all() and df["seven_pairs"].tolist() == [False, True, True]
    full = shanten("1112345678999m E")
    assert full.discard == "E" and "after the best discard" in str(full)
    frame = full.to_frame()
    assert frame.loc[0, "discard"] == "E" and frame.loc[0, "kinds"] == 9
    assert shanten("[123m]456p789s55mEE E").explain().count("complete") == 1
    assert "和了" in shanten("[123m]456p789s55mEE E").explain("zh")


def test_batch_matches_single_hands_and_threads():
    counts, ks, melded = random_melded(300, SEED + 15)
    closed = random_closed(300, SEED + 16)
    counts = np.concatenate([counts, closed])
    ks = np.concatenate([ks, np.zeros(300, np.int64)])
    melded = np.concatenate([melded, np.zeros((300, 34), np.int64)])
    r = shanten_batch(counts, ks, melded, useful=True)
    for i in range(0, 600, 7):
        if ks[i] == 0:   # shanten() of a closed hand takes its counts alone
            one = shanten(counts[i])
            assert one.shanten == r.shanten[i]
            assert [one.by_form[f] for f in FORMS] == [None if v == NO_FORM else v
                                                       for v in r.by_form[i].tolist()]
            assert [t for t, _ in one.useful_by_form["regular"]] == _mask_tiles(r.useful[i, 0])
    big = np.concatenate([random_closed(30_000, SEED + 17), counts[:300]])
    bk = np.concatenate([np.zeros(30_000, np.int64), ks[:300]])
    bm = np.concatenate([np.zeros((30_000, 34), np.int64), melded[:300]])
    threads = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = shanten_batch(big, bk, bm, useful=True)
    finally:
        numba.set_num_threads(threads)
    many = shanten_batch(big, bk, bm, useful=True)
    assert np.array_equal(one.shanten, many.shanten)
    assert np.array_equal(one.by_form, many.by_form) and np.array_equal(one.useful, many.useful)
    # the overall-only mode skips forms but gives the same value
    assert np.array_equal(shanten_batch(big, bk, bm).shanten, many.shanten)
