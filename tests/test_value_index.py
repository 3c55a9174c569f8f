"""The value index's representatives: every pattern has the value of the one it stands for.

The index scores only the representatives of the patterns under permutations
of the suits, of the winds South, West and North and of the dragons
(``mjkit.value_index.symmetry``).  These tests check that claim pattern by
pattern on samples, without building a whole index: each sampled pattern is
scored itself and compared with its representative, for the shipped rule sets
and for a derived one whose points make many more ties.  (The complete
indexes of gb, dazhong and dazhong32 were compared, id by id, with indexes
built by scoring every pattern, when the representatives were introduced.)
"""

import numpy as np
import pytest

import mjkit
from mjkit import value_index as VI
from mjkit._kernels import value_index as KV

SAMPLE = 6000


def _rows(rs, numbers):
    rows = VI._rows(VI.families(), rs, np.asarray(numbers, np.int64), VI._hand_fans(rs))
    tied = (rows[:, 0] & KV.TIED) != 0
    rows[:, 0] &= ~KV.TIED
    return rows, tied


def _sample(seed, n=SAMPLE):
    fam = VI.families()
    rng = np.random.default_rng(seed)
    return np.unique(rng.integers(0, fam.n, n))


def _rep_of(numbers):
    fam, sym = VI.families().arrays(), VI.symmetry()
    return np.array([KV.representative_of(int(i), fam, sym) for i in numbers], np.int64)


def _tricky_rules():
    # equal points for fans that can tie across suits or tiles (three-chow fans, the
    # wait fans, 满江红 / 绿一色 / 推不倒), so that ties are common
    return mjkit.get_rules("dazhong32").derive(
        "tie-heavy", points={"MIXED_SHIFTED_CHOWS": 8, "MIXED_TRIPLE_CHOW": 8,
                             "MIXED_STRAIGHT": 8, "EDGE_WAIT": 2, "CLOSED_WAIT": 2,
                             "SINGLE_WAIT": 2, "REVERSIBLE_TILES": 6, "ALL_GREEN": 6,
                             "ALL_RED": 6, "TWO_SUITED_SHIFTED_CHOWS": 1})


@pytest.mark.parametrize("rules", ["gb", "dazhong32", "tricky"])
def test_patterns_have_their_representatives_value(rules):
    rs = _tricky_rules() if rules == "tricky" else mjkit.get_rules(rules)
    nums = _sample(7 if rules == "gb" else 8)
    reps = _rep_of(nums)
    own, _ = _rows(rs, nums)
    rep_rows, tied = _rows(rs, reps)
    moved = reps != nums
    assert moved.mean() > 0.8            # most patterns are not their own representative
    # an untied representative's row is every image's row
    ok = moved & ~tied
    bad = np.flatnonzero(ok & (own != rep_rows).any(axis=1))
    fam = VI.families()
    from mjkit.exact import pattern_text

    assert not len(bad), [(pattern_text(fam.pattern(nums[i]).astype(np.uint8)),
                           pattern_text(fam.pattern(reps[i]).astype(np.uint8)))
                          for i in bad[:5]]


def test_representatives_are_fixed_points_and_images_agree():
    fam, sym = VI.families(), VI.symmetry()
    arrays = fam.arrays()
    reps = VI.representatives()
    assert np.all(np.diff(reps) > 0) and reps[-1] == fam.n - 1
    pick = reps[np.random.default_rng(3).integers(0, len(reps), 300)]
    assert np.array_equal(_rep_of(pick), pick)
    out = np.empty(6 * KV.N_HON_PERMS, np.int64)
    for r in pick[:120].tolist():
        m = KV.orbit(r, arrays, sym, out)
        images = np.unique(out[:m])
        assert r in images and images.min() >= 0
        # every image stands for r, and is a pattern of the same tiles' shape
        assert np.all(_rep_of(images) == r)
        sizes = {tuple(np.sort(fam.pattern(i)[:27].reshape(3, 9).sum(axis=1))) for i in images}
        assert len(sizes) == 1


@pytest.mark.parametrize("text", [
    "22334466688s666z",          # 绿一色
    "123345p22456s555z",         # 推不倒
    "111222333456m77z",          # 满江红 (大众)
    "111222333444z66z",          # 四方大发财
])
def test_patterns_a_suit_or_dragon_fan_names_are_their_own_representatives(text):
    from mjkit.shanten import read_hand_counts

    c = np.ascontiguousarray(read_hand_counts(text)[0], np.int64)
    assert c.sum() == 14
    fam, sym = VI.families(), VI.symmetry()
    num = KV.rank_regular(c, *VI.rank_tables()[:2], VI.rank_tables()[2], fam.class_off,
                          fam.suit_ptr, fam.hon_ptr)
    assert num >= 0 and np.array_equal(fam.pattern(num), c)
    assert KV.representative_of(num, fam.arrays(), sym) == num
    out = np.empty(6 * KV.N_HON_PERMS, np.int64)
    assert KV.orbit(num, fam.arrays(), sym, out) == 1


def test_images_of_tied_representatives():
    """A representative whose best winning tile ties with other hand fans has its
    images scored one by one: ``_tied_images`` lists exactly those images."""
    fam, sym = VI.families(), VI.symmetry()
    reps = VI.representatives()
    pick = reps[np.random.default_rng(5).integers(0, len(reps) - len(fam.small), 40)]
    images = VI._tied_images(fam, pick)
    assert len(images) and not np.isin(images, pick).any()
    assert np.all(np.isin(_rep_of(images), pick))
    out = np.empty(6 * KV.N_HON_PERMS, np.int64)
    expect = set()
    for r in pick.tolist():
        expect.update(out[:KV.orbit(r, fam.arrays(), sym, out)].tolist())
    assert set(images.tolist()) == expect - set(pick.tolist())
