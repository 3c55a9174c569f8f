"""Exact counts of complete hands and the fan distribution (mjkit.exact).

The enumeration is checked against independent methods on cases small
enough to brute-force: one suit (every count vector, by the recognisers and
by a plain recursive split written here), two suits with fewer tiles (every
count vector), hands of 1 to 3 sets (every product of sets, deduplicated),
and closed formulas for seven pairs, thirteen orphans and the knitted
forms.  The fan distribution is checked against ``mjkit.score`` (the public
API, every winning tile tried) on a sample of patterns, and the shipped
tables against each other and against a fresh enumeration.

The full recomputation of the fan tables (minutes) is behind ``-m slow``
(or ``MJKIT_SLOW=1``).
"""

import math
from itertools import combinations_with_replacement

import numba
import numpy as np
import pytest
from numba import njit

import mjkit
from mjkit import exact as E
from mjkit._kernels import complete as K
from mjkit._kernels.shapes import knitted_tile
from mjkit._kernels.tables import suit_table
from mjkit.rules.catalogue import catalogue_lists

NONE = np.zeros((0, 34), np.uint8)
ORPHANS = (0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33)


@pytest.fixture(scope="module")
def patterns():
    return E.enumerate_patterns(progress=False)


@pytest.fixture(scope="module")
def suit_keyspace():
    """Every one-suit count vector (counts 0..4), row ``key`` = base-5 digits."""
    keys = np.arange(5 ** 9)
    return np.stack([(keys // 5 ** r) % 5 for r in range(9)], axis=1).astype(np.uint8)


def _rows(a):
    """Rows of a uint8 matrix as a set of bytes (order-free comparison)."""
    a = np.ascontiguousarray(a, np.uint8)
    return {a[i].tobytes() for i in range(len(a))}


@njit
def _keys_kernel(c, out):
    for i in range(c.shape[0]):
        for g in range(3):
            k = 0
            for t in range(12 * g, min(34, 12 * g + 12)):
                k = k * 5 + c[i, t]
            out[i, g] = k


def _keys(c):
    """Exact base-5 keys of 34 counts in three int64 words."""
    out = np.zeros((len(c), 3), np.int64)
    _keys_kernel(np.ascontiguousarray(c, np.uint8), out)
    return out


def _sorted_keys(c):
    """The rows of ``c`` as sorted exact keys (for comparing multisets of rows)."""
    k = _keys(c)
    return k[np.lexsort(k.T[::-1])]


def _regular(n_sets):
    sv, sp = K.group_lists(K.suit_sets())
    hv, hp = K.group_lists(K.honor_sets())
    out = np.zeros((K.regular_patterns(sv, sp, hv, hp, n_sets, NONE), 34), np.uint8)
    K.regular_patterns(sv, sp, hv, hp, n_sets, out)
    return out


def _py_splits(c, n_sets, pair, chows=True):
    """Can ``c`` be split into ``n_sets`` sets and (if ``pair``) one pair?

    A plain recursive search, written here to share nothing with mjkit: take
    the lowest tile left as a pair, a pung or the start of a chow.
    """
    c = list(c)

    def rec(sets_left, pair_left):
        i = next((r for r in range(len(c)) if c[r]), None)
        if i is None:
            return sets_left == 0 and not pair_left
        if pair_left and c[i] >= 2:
            c[i] -= 2
            ok = rec(sets_left, False)
            c[i] += 2
            if ok:
                return True
        if sets_left and c[i] >= 3:
            c[i] -= 3
            ok = rec(sets_left - 1, pair_left)
            c[i] += 3
            if ok:
                return True
        if sets_left and chows and i + 2 < len(c) and c[i + 1] and c[i + 2]:
            for d in range(3):
                c[i + d] -= 1
            ok = rec(sets_left - 1, pair_left)
            for d in range(3):
                c[i + d] += 1
            if ok:
                return True
        return False

    return rec(n_sets, pair)


# ---------------------------------------------------------------- one group


def test_suit_groups_match_the_recognisers_on_every_vector(suit_keyspace):
    """Each (sets, pair) class of one suit = every vector the split test accepts."""
    sums = suit_keyspace.sum(axis=1)
    flags = suit_table()            # bit 0: sets only, bit 1: sets and a pair (greedy)
    sv, sp = K.group_lists(K.suit_sets())
    for k in range(5):
        for pair in (0, 1):
            got = sv[sp[2 * k + pair]:sp[2 * k + pair + 1]]
            want = suit_keyspace[(sums == 3 * k + 2 * pair) & ((flags & (2 if pair else 1)) != 0)]
            assert len(got) == len(want), (k, pair)
            assert _rows(got) == _rows(want), (k, pair)


def test_suit_groups_match_a_plain_recursive_split(suit_keyspace):
    """All vectors of up to 8 tiles, and a sample of 11 and 14, split by hand."""
    sums = suit_keyspace.sum(axis=1)
    sv, sp = K.group_lists(K.suit_sets())
    rng = np.random.default_rng(3)
    for k in range(5):
        for pair in (0, 1):
            n = 3 * k + 2 * pair
            cls = _rows(sv[sp[2 * k + pair]:sp[2 * k + pair + 1]])
            cand = np.flatnonzero(sums == n)
            if n > 8:
                cand = rng.choice(cand, 3000, replace=False)
            for i in cand.tolist():
                v = suit_keyspace[i]
                assert (v.tobytes() in cls) == _py_splits(v, k, bool(pair)), v


def test_honour_groups():
    hv, hp = K.group_lists(K.honor_sets())
    for k in range(5):
        for pair in (0, 1):
            got = hv[hp[2 * k + pair]:hp[2 * k + pair + 1]]
            # k pungs and a pair of another kind: C(7, k) * (7 - k)
            assert len(got) == math.comb(7, k) * ((7 - k) if pair else 1)
            assert all(_py_splits(v, k, bool(pair), chows=False) for v in got)


# ---------------------------------------------------------------- whole hands


def _set_sums(n_sets):
    """Counts of every multiset of ``n_sets`` sets (34 pungs, 21 chows), one row each."""
    sets = np.zeros((55, 34), np.uint8)
    for t in range(34):
        sets[t, t] = 3
    for j, t in enumerate(t for t in range(27) if t % 9 <= 6):
        sets[34 + j, t:t + 3] = 1
    combo = np.array(list(combinations_with_replacement(range(55), n_sets)))
    return sets[combo].sum(axis=1, dtype=np.uint8)


@pytest.mark.parametrize("n_sets", [1, 2, 3])
def test_small_hands_match_every_product_of_sets(n_sets):
    """5, 8 and 11 tiles: every multiset of sets plus a pair, deduplicated."""
    base = _set_sums(n_sets)
    pairs = 2 * np.eye(34, dtype=np.uint8)
    hands = (base[:, None, :] + pairs[None, :, :]).reshape(-1, 34)
    want = _sorted_keys(hands[hands.max(axis=1) <= 4])
    want = want[np.r_[True, (want[1:] != want[:-1]).any(axis=1)]]      # deduplicated
    got = _sorted_keys(_regular(n_sets))
    assert got.shape == want.shape and (got == want).all()               # each once, all found


def test_two_suits_eight_tiles_match_every_count_vector():
    """Every vector of 8 tiles over m and p (counts <= 4) tested by the recogniser."""
    tiles = np.array(list(combinations_with_replacement(range(18), 8)), np.int64)
    counts = np.zeros((len(tiles), 34), np.int64)
    np.add.at(counts, (np.repeat(np.arange(len(tiles)), 8), tiles.ravel()), 1)
    counts = np.ascontiguousarray(counts[counts.max(axis=1) <= 4], np.uint8)
    forms = np.zeros(len(counts), np.uint8)
    combos = np.zeros(len(counts), np.int64)
    K.forms_and_weights(counts, np.array([1, 4, 6, 4, 1], np.int64), forms, combos, 8)
    want = counts[(forms & K.REGULAR) != 0]
    got = _regular(2)
    got = got[got[:, 18:].sum(axis=1) == 0]
    assert len(got) == len(want) > 1000
    assert _rows(got) == _rows(want)


def test_one_suit_fourteen_tiles(patterns, suit_keyspace):
    """The enumerated one-suit hands = every 14-tile m vector a recogniser accepts."""
    c = patterns.counts
    mine = c[c[:, :9].sum(axis=1, dtype=np.int64) == 14]
    vecs = suit_keyspace[suit_keyspace.sum(axis=1) == 14]
    full = np.zeros((len(vecs), 34), np.uint8)
    full[:, :9] = vecs
    forms = np.zeros(len(full), np.uint8)
    combos = np.zeros(len(full), np.int64)
    K.forms_and_weights(full, np.array([1, 4, 6, 4, 1], np.int64), forms, combos, 8)
    rows = _rows(mine)
    assert rows == _rows(full[forms != 0])
    # and by the plain split (or seven pairs, a quad being two pairs)
    for v in vecs[np.random.default_rng(0).choice(len(vecs), 2000, replace=False)]:
        complete = _py_splits(v, 4, True) or (all(x % 2 == 0 for x in v) and sum(v) == 14)
        assert (v.tobytes() + bytes(25) in rows) == complete


def test_patterns_are_distinct_and_valid(patterns):
    c = patterns.counts
    assert c.shape == (27_919_573, 34)
    assert (c.sum(axis=1, dtype=np.int64) == 14).all() and c.max() <= 4
    assert patterns.forms.all()
    # distinct: sort 64-bit hashes of exact keys; equal neighbours would be
    # duplicates (or a hash collision: then compare the keys themselves)
    k = _keys(c)
    h = np.empty(len(k), np.uint64)
    K.row_hashes(k, h)
    hs = np.sort(h)
    dup = np.unique(hs[1:][hs[1:] == hs[:-1]])
    for x in dup.tolist():
        rows = k[h == x]
        assert len(np.unique(rows, axis=0)) == len(rows)


# ---------------------------------------------------------------- forms by formula


def test_seven_pairs_by_formula(patterns):
    # q kinds held four times (two pairs each), 7 - 2q held twice
    n = sum(math.comb(34, q) * math.comb(34 - q, 7 - 2 * q) for q in range(4))
    w = sum(math.comb(34, q) * math.comb(34 - q, 7 - 2 * q) * 6 ** (7 - 2 * q) for q in range(4))
    assert K.seven_pairs_patterns(7, NONE) == n == 16_417_104
    m = patterns.has_form("seven_pairs")
    assert m.sum() == n and int(patterns.combinations[m].sum()) == w


def test_thirteen_orphans_by_formula(patterns):
    m = patterns.has_form("thirteen_orphans")
    assert m.sum() == 13                       # which orphan is doubled
    assert int(patterns.combinations[m].sum()) == 13 * math.comb(4, 2) * 4 ** 12


def test_honours_and_knitted_by_formula(patterns):
    # six knitted sequences; 7 to 9 of their tiles with 7 to 5 of the 7 honours
    n = 6 * sum(math.comb(9, s) * math.comb(7, 14 - s) for s in (7, 8, 9))
    m = patterns.has_form("honors_knitted")
    assert m.sum() == n == 720
    assert int(patterns.combinations[m].sum()) == n * 4 ** 14    # 14 distinct tiles


def test_knitted_straight_by_construction(patterns):
    want = set()
    sets = [(t, t, t) for t in range(34)] + [(t, t + 1, t + 2) for t in range(27) if t % 9 <= 6]
    for k in range(6):
        seq = [int(knitted_tile(k, i)) for i in range(9)]
        for s in sets:
            for p in range(34):
                c = [0] * 34
                for t in seq + list(s) + [p, p]:
                    c[t] += 1
                if max(c) <= 4:
                    want.add(bytes(c))
    m = patterns.has_form("knitted_straight")
    assert _rows(patterns.counts[m]) == want
    w = sum(math.prod(math.comb(4, x) for x in c) for c in want)
    assert int(patterns.combinations[m].sum()) == w


def test_combinations_are_products_of_binomials(patterns):
    rng = np.random.default_rng(1)
    for i in rng.choice(len(patterns), 500, replace=False).tolist():
        c = patterns.counts[i]
        assert patterns.combinations[i] == math.prod(math.comb(4, int(x)) for x in c)


# ---------------------------------------------------------------- shipped tables


def test_complete_hands_table_is_consistent():
    t = mjkit.exact.complete_hands()
    assert list(t.index[:5]) == list(E.FORMS) and t.index[-1] == "overall"
    for form, r in t.iterrows():
        assert r.probability == pytest.approx(r.combinations / math.comb(136, 14), rel=1e-12)
    forms = t[t.kind == "form"]
    over = t[t.kind == "overlap"]
    overall = t.loc["overall"]
    extra = [len(f.split("+")) - 1 for f in over.index]
    assert overall.patterns == forms.patterns.sum() - (over.patterns * extra).sum()
    assert overall.combinations == forms.combinations.sum() - (over.combinations * extra).sum()
    assert overall.combinations <= forms.combinations.sum()
    assert list(over.index) == ["regular+seven_pairs"]
    assert t.loc["regular", "patterns"] == 11_498_658


def test_complete_hands_table_matches_a_fresh_enumeration(patterns):
    shipped = mjkit.exact.complete_hands()
    fresh = E._hands_table(patterns)
    assert list(fresh.index) == list(shipped.index)
    for col in ("kind", "patterns", "combinations"):
        assert fresh[col].tolist() == shipped[col].tolist()
    assert np.allclose(fresh["probability"], shipped["probability"], rtol=1e-12)


@pytest.mark.parametrize("rules", E.RULES)
def test_fan_tables_are_consistent(rules):
    t = mjkit.exact.complete_hands()
    n_all, c_all = int(t.loc["overall", "patterns"]), int(t.loc["overall", "combinations"])
    d = mjkit.exact.fan_distribution(rules)
    assert d.rules == rules
    tot = d.totals
    assert tot.patterns.sum() == n_all and tot.combinations.sum() == c_all
    assert tot.total.is_monotonic_increasing and tot.total.min() > 0
    for r in d.thresholds.itertuples():
        sel = tot[tot.total >= r.threshold]
        assert r.patterns == sel.patterns.sum() and r.combinations == sel.combinations.sum()
        assert r.pattern_fraction == pytest.approx(r.patterns / n_all, rel=1e-12)
        assert r.combination_fraction == pytest.approx(r.combinations / c_all, rel=1e-12)
        assert r.probability == pytest.approx(r.combinations / math.comb(136, 14), rel=1e-12)
    assert d.thresholds.combinations.is_monotonic_decreasing
    c = d.combinations
    for (th, by), g in c.groupby(["threshold", "ranked_by"]):
        assert list(g["rank"]) == list(range(1, E.TOP + 1))
        assert (g.total >= th).all()
        assert g[by].is_monotonic_decreasing
        reach = d.thresholds.set_index("threshold").loc[th]
        assert g.patterns.sum() <= reach.patterns and g.combinations.sum() <= reach.combinations
        assert g.combination_share.iloc[0] == pytest.approx(
            g.combinations.iloc[0] / reach.combinations, rel=1e-12)
    f = d.fans
    assert set(f.threshold) == {0, *E.THRESHOLDS}
    assert ((f.pattern_share > 0) & (f.pattern_share <= 1)).all()
    assert (f.combination_share <= 1).all()


@pytest.mark.parametrize("rules", E.RULES)
def test_example_hands_score_as_listed(rules):
    """Every listed fan combination's example hand, scored with the public API."""
    d = mjkit.exact.fan_distribution(rules)
    keys = catalogue_lists().key
    for r in d.combinations.itertuples():
        s = mjkit.score(r.example, rules=rules, self_drawn=True, seat_wind="E", round_wind="E")
        assert s.counted_points == r.total, r.example
        got = " ".join(sorted(f.key + (f"*{f.count}" if f.count > 1 else "") for f in s.fans))
        assert got == " ".join(sorted(r.keys.split())), r.example
    assert set(keys) >= {k.split("*")[0] for k in " ".join(d.combinations["keys"]).split()}


def test_unknown_rule_set_needs_recompute():
    with pytest.raises(ValueError, match="recompute=True"):
        mjkit.exact.fan_distribution(mjkit.get_rules("gb").derive("house", drop=["幺九头"]))


# ---------------------------------------------------------------- scoring


def _sample(patterns, seed, per_form=40):
    """Patterns of every form and overlap, plus random ones (indices)."""
    rng = np.random.default_rng(seed)
    idx = []
    for mask in np.unique(patterns.forms).tolist():
        cand = np.flatnonzero(patterns.forms == mask)
        idx.extend(rng.choice(cand, min(per_form, len(cand)), replace=False).tolist())
    idx.extend(rng.choice(len(patterns), per_form, replace=False).tolist())
    return np.array(sorted(set(idx)))


def _by_api(counts, rules):
    """Best winning tile by the public API: every kind held, most counted fans, lowest tile."""
    best = None
    for w in range(34):
        if counts[w]:
            s = mjkit.score(E.pattern_text(counts, w), rules=rules, self_drawn=True,
                            seat_wind="E", round_wind="E")
            assert s.is_win
            if best is None or s.counted_points > best[0]:
                best = (s.counted_points, w, {f.key: f.count for f in s.fans})
    return best


@pytest.mark.parametrize("rules", E.RULES)
def test_kernel_matches_the_public_api(patterns, rules):
    idx = _sample(patterns, seed=E.RULES.index(rules))
    got = E.best_scores(patterns.counts[idx], rules, patterns.forms[idx])
    keys = got.keys
    for j, i in enumerate(idx.tolist()):
        counted, w, fans = _by_api(patterns.counts[i], rules)
        mine = {keys[f]: int(x) for f, x in enumerate(got.fan_counts[j]) if x}
        assert (got.counted[j], got.win_tile[j], mine) == (counted, w, fans), \
            E.pattern_text(patterns.counts[i])


def test_shortcut_gives_the_same_results_as_every_tile(patterns):
    """Skipping the calls that repeat an earlier result changes nothing."""
    rng = np.random.default_rng(7)
    idx = np.sort(rng.choice(len(patterns), 30_000, replace=False))
    idx = np.union1d(idx, _sample(patterns, seed=8, per_form=500))
    c, f = patterns.counts[idx], patterns.forms[idx]
    for rules in E.RULES:
        a = E.best_scores(c, rules, f)
        b = E.best_scores(c, rules, f, all_tiles=True)
        assert (a.counted == b.counted).all() and (a.win_tile == b.win_tile).all()
        assert (a.fan_counts == b.fan_counts).all()


def test_results_do_not_depend_on_threads_or_blocks(patterns, tmp_path):
    idx = _sample(patterns, seed=11, per_form=300)
    sub = E.Patterns(np.ascontiguousarray(patterns.counts[idx]), patterns.forms[idx],
                     patterns.combinations[idx])
    n = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = E.best_scores(sub.counts, "dazhong32", sub.forms)
    finally:
        numba.set_num_threads(n)
    many = E.best_scores(sub.counts, "dazhong32", sub.forms)
    assert (one.counted == many.counted).all() and (one.fan_counts == many.fan_counts).all()
    a = E._score_all(sub, "gb", workdir=tmp_path / "a", block=97, progress=False)
    b = E._score_all(sub, "gb", workdir=tmp_path / "b", block=len(sub), progress=False)
    for k in a:
        assert (a[k] == b[k]).all(), k


def test_interrupted_runs_resume(patterns, tmp_path):
    idx = _sample(patterns, seed=12, per_form=100)
    sub = E.Patterns(np.ascontiguousarray(patterns.counts[idx]), patterns.forms[idx],
                     patterns.combinations[idx])
    first = E._score_all(sub, "gb", workdir=tmp_path, block=200, progress=False)
    files = sorted(tmp_path.rglob("gb-*.npz"))
    assert len(files) == -(-len(sub) // 200)
    stamps = {f: f.stat().st_mtime_ns for f in files}
    files[1].unlink()                        # as if the run had stopped there
    again = E._score_all(sub, "gb", workdir=tmp_path, block=200, progress=False)
    for k in first:
        assert (first[k] == again[k]).all()
    assert files[1].exists()
    assert all(f.stat().st_mtime_ns == stamps[f] for f in files if f != files[1])


def test_pattern_text_round_trips():
    c = np.zeros(34, np.uint8)
    for t in ORPHANS:
        c[t] = 1
    c[27] = 2
    text = E.pattern_text(c, 27)
    assert text == "19m19p19sESWNPFC E"
    h = mjkit.parse_hand(text)
    assert h.win_tile == 27 and sorted(h.concealed) == sorted(ORPHANS + (27,))


def test_main_rewrites_the_tables_of_the_rules_asked(patterns, tmp_path, monkeypatch, capsys):
    """``python -m mjkit.exact --rules gb`` on a small sample: gb rows replaced, others kept."""
    import shutil

    out = tmp_path / "out"
    shutil.copytree(E.data_dir(), out)
    idx = _sample(patterns, seed=13, per_form=50)
    sub = E.Patterns(np.ascontiguousarray(patterns.counts[idx]), patterns.forms[idx],
                     patterns.combinations[idx])
    monkeypatch.setattr(E, "enumerate_patterns", lambda progress=None: sub)
    assert E.main(["--rules", "gb", "--out", str(out), "--workdir", str(tmp_path / "w"),
                   "--quiet", "--block", "100"]) == 0
    assert "regular+seven_pairs" in capsys.readouterr().out
    hands = E._read("hands", str(out))
    assert hands.set_index("form").loc["overall", "patterns"] == len(sub)
    for name in ("totals", "thresholds", "combinations", "fans"):
        new, old = E._read(name, str(out)), E._read(name)
        assert list(dict.fromkeys(new["rules"])) == list(E.RULES)
        for r in ("dazhong", "dazhong32"):
            a = new[new.rules == r].reset_index(drop=True)
            b = old[old.rules == r].reset_index(drop=True)
            assert a.astype(str).equals(b.astype(str)), (name, r)
    tot = E._read("totals", str(out))
    assert tot[tot.rules == "gb"].patterns.sum() == len(sub)


def test_main_help(capsys):
    with pytest.raises(SystemExit) as e:
        E.main(["--help"])
    assert e.value.code == 0
    assert "data/exact" in capsys.readouterr().out


# ---------------------------------------------------------------- slow


@pytest.mark.slow
def test_four_set_hands_match_every_product_of_sets(request):
    """All 11,498,658 regular patterns = every 4 sets + pair, deduplicated."""
    base = _set_sums(4)
    base = base[base.max(axis=1) <= 4]
    found = []
    for p in range(34):
        h = base.copy()
        h[:, p] += 2
        found.append(_keys(h[h.max(axis=1) <= 4]))
    want = np.concatenate(found)
    want = want[np.lexsort(want.T[::-1])]
    want = want[np.r_[True, (want[1:] != want[:-1]).any(axis=1)]]
    got = _sorted_keys(_regular(4))
    assert got.shape == want.shape == (11_498_658, 3)
    assert (got == want).all()


@pytest.mark.slow
@pytest.mark.parametrize("rules", E.RULES)
def test_shipped_fan_tables_are_reproduced(request, rules, tmp_path):
    """Recompute one rule set from scratch (two to three minutes) and compare."""
    fresh = mjkit.exact.fan_distribution(rules, recompute=True, workdir=tmp_path, progress=False)
    shipped = mjkit.exact.fan_distribution(rules)
    for name in ("totals", "thresholds", "combinations", "fans"):
        a, b = getattr(fresh, name), getattr(shipped, name)
        assert list(a.columns) == list(b.columns), name
        for col in a.columns:
            if a[col].dtype.kind == "f":
                assert np.allclose(a[col], b[col], rtol=1e-12), (name, col)
            else:
                assert a[col].astype(str).tolist() == b[col].astype(str).tolist(), (name, col)
