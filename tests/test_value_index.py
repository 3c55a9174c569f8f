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


def test_unique_rows_is_numpys_unique():
    """The build's linear-time ``unique_rows`` gives numpy's sorted table and inverse."""
    rng = np.random.default_rng(11)
    base = rng.integers(0, 2 ** 63, (300, 3), dtype=np.uint64)
    base[:, 0] = rng.integers(0, 256, 300).astype(np.uint64) | (
        KV.TIED * rng.integers(0, 2, 300).astype(np.uint64))
    base[::7, 1] |= np.uint64(1) << np.uint64(63)         # words with the top bit set
    base[::5, 1:] = base[1::5, 1:][:len(base[::5])]       # rows sharing all but column 0
    rows = np.ascontiguousarray(base[rng.integers(0, 300, 20000)])
    table, inv = VI.unique_rows(rows)
    want, want_inv = np.unique(rows, axis=0, return_inverse=True)
    assert np.array_equal(table, want) and np.array_equal(inv, want_inv.reshape(-1))
    table, inv = VI.unique_rows(np.zeros((0, 3), np.uint64))
    assert table.shape == (0, 3) and inv.shape == (0,)


def test_families_are_pattern_families():
    """``Families`` is the kernels' ``PatternFamilies`` (its fields, not a copy of them)."""
    from mjkit._kernels.bundles import PatternFamilies

    fam = VI.families()
    assert isinstance(fam, PatternFamilies) and fam._fields == PatternFamilies._fields
    arrays = fam.arrays()
    assert type(arrays) is PatternFamilies
    assert all(a is b for a, b in zip(arrays, fam))
    assert fam.n == 27_927_511 and fam.n_tiles == 14
    for k in range(1, 5):
        m = VI.meld_families(k)
        assert m.n_tiles == 14 - 3 * k == int(m.pattern(m.n - 1).sum())


def test_rows_do_not_depend_on_the_chunks():
    """Each row is its pattern's alone: any number of interleaved chunks gives the same rows."""
    rs = mjkit.get_rules("gb")
    fam = VI.families()
    reps = VI.representatives()
    nums = np.ascontiguousarray(reps[np.random.default_rng(2).integers(0, len(reps), 500)])
    key_cols = np.asarray(VI._hand_fans(rs), np.int64)
    got = []
    for chunks in (1, 3, 64):
        rows = np.empty((len(nums), 3), np.uint64)
        KV.index_rows(nums, fam.arrays(), rs.kernel_rules(), key_cols, rows, chunks)
        got.append(rows)
    assert np.array_equal(got[0], got[1]) and np.array_equal(got[0], got[2])
    assert np.array_equal(got[0], VI._rows(fam, rs, nums, key_cols))


def test_representatives_do_not_depend_on_the_chunks():
    fam, sym = VI.families(), VI.symmetry()
    counts = []
    for chunks in (1, 7):
        per_class = np.zeros(len(fam.classes), np.int64)
        KV.count_reps(fam.arrays(), sym, per_class, chunks)
        counts.append(per_class)
    assert np.array_equal(counts[0], counts[1])
    assert counts[0].sum() + len(fam.small) == len(VI.representatives())


def test_rows_name_a_pattern_that_is_not_complete():
    fam = VI.families()
    from mjkit.shanten import read_hand_counts

    bad = read_hand_counts("1245m1245p1245s99m")[0].astype(np.uint8)[None]
    odd = fam._replace(small=np.ascontiguousarray(bad))
    with pytest.raises(RuntimeError, match="is not complete"):
        VI._rows(odd, mjkit.get_rules("gb"), [int(odd.class_off[-1])], VI._hand_fans(
            mjkit.get_rules("gb")))
