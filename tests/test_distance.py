"""``mjkit.distance_to`` against independent references.

* With ``min_fans=0`` every complete hand counts, so the distance is the
  shanten, computed by a different algorithm (per-group distance tables,
  :mod:`mjkit.shanten`): compared on random closed 13- and 14-tile hands.
* A brute force: for every sub-multiset of the hand that could be kept
  (``13 - d`` tiles) and every multiset of ``d + 1`` tiles that could be
  drawn (within the unseen copies), the completions that are complete hands
  are scored by the evaluator (best winning tile); the smallest ``d`` with
  one worth enough is the distance.  Run for ``d <= 2`` on hands made near
  valuable targets, in the index's situation, in other winds, with visible
  tiles and with melds.
* The value index itself: stored values equal the evaluator's best score
  on random patterns, and its pattern families are exactly the complete
  hands :mod:`mjkit.exact` enumerates (that check is in the slow set).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import mjkit
from mjkit import HandError, exact
from mjkit import value_index as VI
from mjkit.distance import distance_to
from mjkit.shanten import shanten_batch
from mjkit.tiles import tiles_to_str

try:
    from brute import all_draws, complete_rows, sub_multisets
except ImportError:  # pragma: no cover - tests/ made a package
    from tests.brute import all_draws, complete_rows, sub_multisets

RULES = "dazhong32"


@pytest.fixture(scope="module")
def index():
    return VI.value_index(RULES, progress=False)


def _text(c):
    return tiles_to_str([t for t in range(34) for _ in range(int(c[t]))])


# ---------------------------------------------------------------- brute force


@pytest.fixture(scope="module")
def draws():
    return all_draws()


def _value(rows, melds, situation, lianla):
    """Best counted fans per complete concealed row, scored one by one with mjkit.score."""
    meld_text = "".join(str(m) for m in melds)
    situation = {"self_drawn": True, **situation}
    out = []
    for c in rows:
        tiles = [t for t in range(34) for _ in range(int(c[t]))]
        best = -1
        for w in sorted(set(tiles)):
            rest = list(tiles)
            rest.remove(w)
            try:
                r = mjkit.score(f"{meld_text}{tiles_to_str(rest)} {tiles_to_str([w])}",
                                rules=RULES, lianla=lianla, **situation)
            except HandError:
                continue
            if r.is_win:
                best = max(best, r.counted_points)
        out.append(best)
    return np.array(out)


def brute_distance(h, min_fans, draws, *, melds=(), unseen=None, situation=None, lianla=0,
                   max_d=2):
    """Smallest d <= max_d with a complete hand worth min_fans, else None."""
    k = len(melds)
    n = int(h.sum())
    if unseen is None:
        unseen = 4 - h
        for m in melds:
            for t in m.tiles:
                unseen[t] -= 1
    for d in range(-1, max_d + 1):
        keep = 13 - 3 * k - d
        add = 14 - 3 * k - keep
        if keep > n:
            continue
        if add == 0:
            cands = [h.copy()]
        else:
            a = draws[add]
            a = a[(a <= unseen).all(axis=1)]
            cands = [K + a for K in sub_multisets(h, keep)]
        rows = np.concatenate([np.atleast_2d(c) for c in cands])
        rows = rows[(rows.max(axis=1) <= 4)]
        if not len(rows):
            continue
        if k == 0:
            rows = complete_rows(rows)
            if not len(rows):
                continue
            if situation is None and lianla == 0:
                vals = exact.best_scores(rows, RULES).counted
            else:
                vals = _value(rows, melds, situation or {}, lianla)
        else:
            rows = np.unique(rows, axis=0)
            vals = _value(rows, melds, situation or {}, lianla)
        if (vals >= min_fans).any():
            return d
    return None


def _near_hands(index, n, seed, min_value):
    """13- or 14-tile hands one to three tiles away from a random pattern worth min_value."""
    rng = np.random.default_rng(seed)
    fam = VI.families()
    good = np.flatnonzero(index.counted >= min_value)
    hands = []
    while len(hands) < n:
        i = int(rng.integers(len(index.ids)))
        if index.ids[i] not in good:
            continue
        c = fam.pattern(i)
        for _ in range(int(rng.integers(1, 4))):
            t = int(rng.choice(np.flatnonzero(c > 0)))
            c[t] -= 1
            u = int(rng.integers(34))
            while c[u] >= 4:
                u = int(rng.integers(34))
            c[u] += 1
        if rng.random() < 0.5:
            c[int(rng.choice(np.flatnonzero(c > 0)))] -= 1
        hands.append(c)
    return hands


# ---------------------------------------------------------------- tests


def test_seed_example_ready_for_32():
    d = distance_to("123m234m345m678m9m", 32, RULES)
    assert d.distance == 0 and d.fit == 13 and d.draws == 1
    t = d.targets[0]
    assert t.counted >= 32 and t.need and not t.discard
    assert {"清一色", "一色三步高"} <= {f.split()[0] for f in t.fans} and t.counted >= 32
    # complete hand: -1, and below the bar it is not
    done = distance_to("123m234m345m678m99m", 32, RULES)
    assert done.distance == -1 and done.targets[0].need == ""


def test_min_fans_zero_is_shanten():
    rng = np.random.default_rng(3)
    hands = []
    for i in range(300):
        wall = rng.permutation(136) // 4
        c = np.bincount(wall[:13 + (i % 2)], minlength=34)
        hands.append(c)
    counts = np.array(hands)
    sh = shanten_batch(counts).shanten
    for c, s in zip(counts, sh):
        d = distance_to(c, min_fans=0, rules=RULES)
        assert d.distance == s, _text(c)


@pytest.mark.parametrize("min_value,seed", [(32, 1), (24, 2), (16, 3), (48, 4)])
def test_against_brute_force(index, draws, min_value, seed):
    for c in _near_hands(index, 4, seed, min_value):
        want = brute_distance(c, min_value, draws)
        got = distance_to(c, min_value, RULES).distance
        if want is None:
            assert got is None or got > 2, _text(c)
        else:
            assert got == want, _text(c)


def test_other_winds_against_brute_force(index, draws):
    situation = {"seat_wind": "S", "round_wind": "W", "self_drawn": True}
    hands = _near_hands(index, 4, 7, 24)
    hands.append(np.bincount([0, 1, 2, 9, 10, 11, 18, 19, 20, 28, 28, 28, 29], minlength=34))
    for c in hands:
        want = brute_distance(c, 32, draws, situation=situation, max_d=1)
        got = distance_to(c, 32, RULES, seat_wind="S", round_wind="W")
        if want is None:
            assert got.distance is None or got.distance > 1, _text(c)
        else:
            assert got.distance == want, _text(c)
            assert got.verified > 0


def test_lianla_lowers_what_the_hand_needs(draws):
    c = np.bincount([0, 1, 2, 1, 2, 3, 2, 3, 4, 12, 13, 14, 30], minlength=34)
    for level in (0, 2, 4):
        want = brute_distance(c, 32 - 4 * level, draws, max_d=2)
        got = distance_to(c, 32, RULES, lianla=level)
        assert got.distance == want
        if got.targets:
            assert got.targets[0].counted >= 32
    assert distance_to(c, 32, RULES, lianla=8).distance == shanten_batch(c[None]).shanten[0]


def test_visible_tiles_remove_targets(draws):
    c = np.bincount([0, 1, 2, 1, 2, 3, 2, 3, 4, 5, 6, 7, 8], minlength=34)  # 9m wait
    free = distance_to(c, 32, RULES)
    assert free.distance == 0
    blocked = distance_to(c, 32, RULES, visible="9m9m9m")
    unseen = 4 - c
    unseen[8] = 0
    assert blocked.distance == brute_distance(c, 32, draws, unseen=unseen)
    assert all("9m" not in t.need for t in blocked.targets)
    # a seven-pairs hand whose only wait is gone
    pairs = np.bincount([0, 0, 1, 1, 11, 11, 12, 12, 22, 22, 23, 23, 33], minlength=34)
    assert distance_to(pairs, 24, RULES).distance == 0
    gone = distance_to(pairs, 24, RULES, visible="CCC")
    unseen = 4 - pairs
    unseen[33] = 0
    assert gone.distance == brute_distance(pairs, 24, draws, unseen=unseen) > 0


def test_melded_hands_against_brute_force(draws):
    # chows and pungs use the closed counterpart as a bound; a kong is scored throughout
    cases = ["[123m]234m345m678m9m", "[555p]123m456m78m99s", "[EEE][SSS]WWNN9m9s5p",
             "[789p]112233m4567s", "[5555s]123m456p99m78p"]
    for text in cases:
        melds, tiles = mjkit.hand.read_tile_part(text)
        c = np.bincount(tiles, minlength=34)
        for value in ((16, 32) if text == cases[0] else (32,)):
            want = brute_distance(c, value, draws, melds=melds, max_d=1)
            got = distance_to(text, value, RULES)
            if want is None:
                assert got.distance is None or got.distance > 1, text
            else:
                assert got.distance == want, text
    # another seat and round wind with melds
    situation = {"seat_wind": "S", "round_wind": "S"}
    for text in ["[SSS]123m456p78s99s"]:
        melds, tiles = mjkit.hand.read_tile_part(text)
        c = np.bincount(tiles, minlength=34)
        want = brute_distance(c, 32, draws, melds=melds, situation=situation, max_d=1)
        got = distance_to(text, 32, RULES, seat_wind="S", round_wind="S")
        assert got.distance == want or (want is None and got.distance > 1), text


def test_targets_are_consistent(index):
    for c in _near_hands(index, 5, 11, 32):
        d = distance_to(c, 32, RULES, examples=5)
        assert 1 <= len(d.targets) <= 5
        for t in d.targets:
            r = mjkit.score(t.hand, rules=RULES, self_drawn=True)
            assert r.counted_points == t.counted >= 32
            keep = np.bincount(mjkit.tiles.parse_tiles(t.keep), minlength=34) if t.keep else 0
            assert int(np.sum(keep)) == d.fit
            assert math.prod(math.comb(u, k) for _, k, u in t.need_unseen) == t.ways


def test_unreachable_value():
    d = distance_to("123m456p789s1122z", 600, RULES)
    assert d.distance is None and d.targets == []
    assert "no complete hand" in d.summary()


@pytest.mark.parametrize("kwargs,msg", [
    ({"hand": "123m456p789s11z"}, "wrong number of tiles"),
    ({"hand": "11111m456p789s11z"}, "only 4 exist"),
    ({"hand": "123m456p789s1122z", "min_fans": -1}, "min_fans"),
    ({"hand": "123m456p789s1122z", "min_fans": 3.5}, "min_fans"),
    ({"hand": "123m456p789s1122z", "self_drawn": False}, "self-draw only"),
    ({"hand": "123m456p789s1122z", "rules": "gb", "lianla": 2}, "连拉"),
    ({"hand": "123m456p789s1122z", "examples": 0}, "examples"),
    ({"hand": "123m456p789s1122z", "seat_wind": "X"}, "seat_wind"),
    ({"hand": "123m456p789s1122z", "visible": "1m1m1m1m"}, "only 4 exist"),
])
def test_bad_input(kwargs, msg):
    kwargs = dict(kwargs)
    hand = kwargs.pop("hand")
    with pytest.raises(HandError, match=msg):
        distance_to(hand, **kwargs)


def test_index_values_match_the_evaluator(index):
    rng = np.random.default_rng(5)
    fam = VI.families()
    picks = rng.integers(len(index.ids), size=3000)
    picks = np.concatenate([picks, np.arange(fam.n - len(fam.small), fam.n, 97)])
    rows = np.array([fam.pattern(i) for i in picks], np.uint8)
    want = np.minimum(exact.best_scores(rows, RULES).counted, 255)
    got = index.counted[index.ids[picks]]
    np.testing.assert_array_equal(got, want)


def test_summary_and_frame():
    d = distance_to("2468m13579p2468s", 32, RULES)
    assert d.distance >= 3
    assert "tiles fit" in d.summary() and "合用" in d.summary("zh")
    df = d.to_frame()
    assert list(df.columns) == ["target", "keep", "discard", "need", "ways", "counted", "fans"]
    assert "<table" in d._repr_html_()


@pytest.mark.slow
def test_families_are_the_complete_hands(request):
    fam = VI.families()
    pats = np.empty((fam.n, 34), np.uint8)
    from mjkit._kernels import value_index as KV

    KV.fill_patterns(np.arange(fam.n, dtype=np.int64), fam.arrays(), pats, 64)
    w = 5 ** np.arange(17, dtype=np.int64)

    def keys(a):
        a = a.astype(np.int64)
        return np.unique(np.stack([a[:, :17] @ w, a[:, 17:] @ w], 1), axis=0)

    assert np.array_equal(keys(pats), keys(exact.enumerate_patterns(progress=False).counts))


def test_docstring_examples():
    import doctest
    import importlib

    # (the attribute mjkit.targets is the function: reach the modules by name)
    for name in ("mjkit.distance", "mjkit.targets"):
        mod = importlib.import_module(name)
        assert doctest.testmod(mod, raise_on_error=False).failed == 0
