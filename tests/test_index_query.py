"""The value index's query kernels (mjkit._kernels.index_query) and the fast mode's kernel.

The query's answers are checked elsewhere against brute force (tests/test_distance.py);
here each of its shortcuts is checked against the plain computation it replaces: the
value bounds, the partial sorts, the explicit rows' block bounds, the example table, and
the fast mode's one-kernel decision against the same query and rating run from Python.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

from mjkit import value_index as VI
from mjkit._kernels import fast_play as KF
from mjkit._kernels import index_query as KQ
from mjkit._kernels import target_chances as KT
from mjkit.distance import nearest_patterns
from mjkit.random_hands import random_closed_counts
from mjkit.rules import get_rules
from mjkit.winprob import (fast_order, fast_rates, fast_scratch, fast_tables,
                           fast_void_discard)

RULES = "dazhong32"
NONE = np.zeros(34, np.int64)


@pytest.fixture(scope="module")
def index():
    return VI.value_index(RULES, progress=False)


def _deals(n, seed, tiles=14):
    return np.ascontiguousarray(random_closed_counts(n, seed, n_tiles=tiles), np.int64)


def test_value_bounds_are_the_subtree_maxima(index):
    fam = VI.families()
    vb = index.bounds()
    sp = np.diff(fam.suit_ptr)
    hp = np.diff(fam.hon_ptr)
    value = np.minimum(index.counted + 1, 255)
    rng = np.random.default_rng(3)
    for k in rng.choice(len(fam.classes), 40, replace=False):
        n0, n1, n2 = (int(sp[fam.classes[k, g]]) for g in range(3))
        n3 = int(hp[fam.classes[k, 3]])
        if n0 * n1 * n2 * n3 > 3_000_000:
            continue
        v = value[index.ids[fam.class_off[k]:fam.class_off[k + 1]]].reshape(n0, n1, n2, n3)
        m3 = v.max(axis=3)
        assert np.array_equal(vb.v3[vb.off3[k]:vb.off3[k + 1]], m3.ravel())
        assert np.array_equal(vb.v2[vb.off2[k]:vb.off2[k + 1]], m3.max(axis=2).ravel())
        assert np.array_equal(vb.v1[vb.off1[k]:vb.off1[k + 1]], m3.max(axis=(1, 2)))


def test_partial_sort_is_the_stable_order_above_the_floor():
    rng = np.random.default_rng(5)
    ov = rng.integers(0, 15, 500).astype(np.uint8)
    ptr = np.array([0, 7, 7, 300, 500], np.int64)
    count = np.zeros(KQ.MAX_OVERLAP + 2, np.int64)
    rows = np.stack([ov[::-1], ov])          # row 1 is sorted; row 0 must stay untouched
    for L in range(4):
        seg = ov[ptr[L]:ptr[L + 1]].astype(np.int64)
        for floor in (-3, 0, 5, 9, 14, 15):
            perm = np.full((2, 500), -1, np.int32)
            n = KQ._sort_segment(rows, np.int64(1), ptr, np.int64(L), perm, count,
                                 np.int64(floor))
            want = [i for i in np.argsort(-seg, kind="stable") if seg[i] >= floor]
            assert n == len(want)
            assert perm[1, ptr[L]:ptr[L] + n].tolist() == want
            assert (perm[0] == -1).all()


def test_block_bounds_hold_for_every_row():
    fam = VI.families()
    lay = VI.query_layout(0)
    rows = fam.small.astype(np.int64)
    for h in _deals(60, 8):
        ov = np.minimum(rows, h[None, :]).sum(axis=1)
        for b in range(len(lay.block_ptr) - 1):
            r0, r1 = lay.block_ptr[b], lay.block_ptr[b + 1]
            assert ov[r0:r1].max() <= KQ._block_bound(h, lay, np.int64(b))


def _query(h, unseen, need, index, prune, cap, rules=None):
    fam = VI.families()
    melds = KQ.no_melds(fam)
    from mjkit.score import situation_row

    q = KQ.IndexQuery(h, unseen, True, index.ids, index.accept_codes(need, need), False,
                      situation_row([], 0, 0, True, 0), False, int(need), int(prune))
    ex = np.zeros((cap, 34), np.int64)
    best, n, _ = KQ.nearest(fam.arrays(), VI.query_layout(0), q, melds, rules,
                            index.bounds(), ex, KQ.query_scratch(fam))
    return best, ex[:n]


@pytest.mark.parametrize("need", [0, 16, 40])
def test_pruning_and_the_example_table_change_no_answer(index, need):
    """Skipping subtrees below the bar and deduplicating by hash give the answer of the
    plain search (no bounds), example for example and in the same order; a capacity below
    the number found keeps the first ones."""
    for h in _deals(12, 10 + need):
        unseen = np.ascontiguousarray(4 - h, np.int64)
        plain = _query(h, unseen, need, index, KQ.NO_BOUND, 4096)
        pruned = _query(h, unseen, need, index, KQ.value_bound_of(need), 4096)
        assert plain[0] == pruned[0]
        assert np.array_equal(plain[1], pruned[1])
        assert len({r.tobytes() for r in pruned[1]}) == len(pruned[1])     # no repeats
        if len(pruned[1]) > 3:
            few = _query(h, unseen, need, index, KQ.value_bound_of(need), 3)
            assert np.array_equal(few[1], pruned[1][:3])


def test_rules_none_gives_the_query_with_rules(index):
    rs = get_rules(RULES)
    for h in _deals(6, 4):
        unseen = np.ascontiguousarray(4 - h, np.int64)
        a = _query(h, unseen, 24, index, KQ.value_bound_of(24), 1024)
        b = _query(h, unseen, 24, index, KQ.value_bound_of(24), 1024, rs.kernel_rules())
        assert a[0] == b[0] and np.array_equal(a[1], b[1])


@pytest.mark.parametrize("bar", [0, 24])
def test_fast_kernel_is_the_query_and_rating_from_python(bar):
    """The one-kernel decision (fast_play) equals the general query (distance.
    nearest_patterns) followed by the rating kernel, and plays fast_order's first."""
    rs = get_rules(RULES)
    ft, fs = fast_tables(rs, bar), fast_scratch()
    for h in _deals(10, 20 + bar):
        live = np.ascontiguousarray(4 - h, np.int64)
        _, pats, _ = nearest_patterns(h, [], NONE, live, rs, bar, 0, (0, 0, True), 1024)
        want = KT.discard_chances_out()
        KT.discard_chances(h, live, np.int64(12), np.int64(-1), True,
                           KT.TargetSet(pats, np.zeros(len(pats))), want)
        x = KF.fast_decide(h, live, np.int64(12), np.int64(-1), ft, fs)
        for a, b in zip(fs.out, want):
            assert np.array_equal(a, b)
        # at a void bar (0) the played discard leads: the tile-efficiency one
        lead = fast_void_discard(h, [], live, rs, bar, (0, 0), -1)
        assert (lead >= 0) == (bar == 0)
        assert x == fast_order(want, h, lead)[0]
        out, got = fast_rates(h, [], NONE, live, 12, rs, bar, 0, (0, 0), -1)
        assert np.array_equal(got, pats)


def test_queries_on_several_threads(index):
    """Each thread has its own scratch space: concurrent queries give their own answers."""
    rs = get_rules(RULES)
    hands = _deals(16, 30)
    want = [nearest_patterns(h, [], NONE, 4 - h, rs, 16, 0, (0, 0, True), 256)[1]
            for h in hands]
    got = [None] * len(hands)

    def work(i0):
        for i in range(i0, len(hands), 4):
            for _ in range(5):
                got[i] = nearest_patterns(hands[i], [], NONE, 4 - hands[i], rs, 16, 0,
                                          (0, 0, True), 256)[1]

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(np.array_equal(a, b) for a, b in zip(want, got))
