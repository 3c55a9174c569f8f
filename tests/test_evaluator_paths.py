"""The evaluator's entry points and tables: each path scores the same, compiles what it needs.

* the numpy table builders (``tables``) give the kernel builders' tables,
  bit for bit, and a cached copy is checked before it is used;
* the plain entry points (no wild tile in hand, wait fan given) give exactly
  what the wild-capable ``score_hand_row`` / ``score_rows`` give;
* importing mjkit and scoring a hand does not import pandas;
* (slow) scoring a hand without wild tiles from an empty numba cache compiles
  neither the wild-tile search nor the leftmost reading, and no kernel twice.
"""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import mjkit
from mjkit import _cache
from mjkit._kernels import evaluate as E
from mjkit._kernels import layout as L
from mjkit._kernels import tables as T
from mjkit._kernels.shapes import build_suit_table
from mjkit._kernels.wild import build_wild_table
from mjkit.random_hands import random_wild_hands, random_winning_hands


def test_numpy_tables_equal_kernel_builders():
    suit = T.build_suit_table_np()
    assert np.array_equal(suit, build_suit_table())
    assert np.array_equal(T.build_wild_table_np(suit), build_wild_table(suit))
    # what the rule sets carry is the same table, read-only
    for got, want in ((T.suit_table(), suit), (T.wild_table(), T.build_wild_table_np(suit))):
        assert np.array_equal(got, want) and not got.flags.writeable


def test_table_cache_written_read_and_checked(tmp_path, monkeypatch):
    monkeypatch.setenv("MJKIT_CACHE_DIR", str(tmp_path))
    T._tables.cache_clear()
    try:
        built = T._tables()
        assert T.TABLE_INFO["source"] == "built"
        T._tables.cache_clear()
        loaded = T._tables()
        assert T.TABLE_INFO["source"] == "disk"
        for k in built:
            assert np.array_equal(built[k], loaded[k])
        # a flipped byte is noticed: one warning, then rebuilt
        f = next(tmp_path.glob("eval_tables_v*_suit.npy"))
        data = bytearray(f.read_bytes())
        data[-1] ^= 1
        f.write_bytes(bytes(data))
        T._tables.cache_clear()
        with pytest.warns(_cache.CacheWarning):
            again = T._tables()
        assert T.TABLE_INFO["source"] == "built"
        assert np.array_equal(again["suit"], built["suit"])
    finally:
        T._tables.cache_clear()


def _rows(texts, **kw):
    return mjkit.HandBatch.from_hands(texts, **kw).rows


@pytest.mark.parametrize("rules", ["gb", "dazhong"])
@pytest.mark.parametrize("wait_rule", ["unique", "leftmost"])
def test_plain_entry_equals_wild_capable_entry(rules, wait_rule):
    rs = mjkit.get_rules(rules)
    kr = rs.kernel_rules()
    if rules == "dazhong":      # a wild kind the hand does not hold: 无财神, no search
        items = random_wild_hands(3000, 0, seed=5)
        rows = _rows([h for h, _ in items], wait_rule=wait_rule, wild=[w for _, w in items])
    else:
        rows = _rows(random_winning_hands(3000, seed=5), wait_rule=wait_rule)
    nf = rs.n_fans
    ws = np.zeros(E.WS_LEN, np.int64)
    for row in rows:
        a = [np.zeros(nf, np.int64), np.zeros(nf, np.int64), np.zeros(L.DEC_LEN, np.int64)]
        b = [np.full(nf, 7, np.int64), np.full(nf, 7, np.int64), np.full(L.DEC_LEN, 7, np.int64)]
        if row[L.WILD] >= 0 and row[L.COUNTS + row[L.WILD]] > 0:
            continue
        ta = E.score_hand_row(row, kr, *a, ws)
        wf = E.leftmost_wait_fan(row, ws) if wait_rule == "leftmost" else E.WAIT_UNIQUE
        tb = E.score_plain_row(row, kr, *b, ws, wf)
        assert ta == tb
        for x, y in zip(a, b):
            assert np.array_equal(x, y)
    # and in batches
    used = rs.used_array()
    outs = []
    for plain in (False, True):
        n = len(rows)
        res = (np.empty(n, np.int64), np.empty(n, np.int64), np.empty((n, len(used)), np.int32))
        if plain:
            wf = np.empty(n, np.int64)
            E.leftmost_wait_fans(rows, wf)
            E.score_rows_plain(rows, kr, wf, used, *res, 7)
        else:
            E.score_rows(rows, kr, used, *res, 7)
        outs.append(res)
    for x, y in zip(*outs):
        assert np.array_equal(x, y)


def test_batch_with_some_wild_rows_matches_single_scores():
    """A batch in which some hands hold a wild tile takes the wild-capable kernel for all."""
    items = random_wild_hands(150, 2, seed=9) + random_wild_hands(150, 0, seed=10)
    hands = [h for h, _ in items]
    wild = [w for _, w in items]
    got = mjkit.score_batch(mjkit.HandBatch.from_hands(hands, wild=wild), rules="dazhong32")
    for i in range(0, 300, 7):
        r = mjkit.score(hands[i], rules="dazhong32", wild=wild[i])
        assert (got.totals[i], got.counted[i]) == (r.total, r.counted_points)


def _run(code, env=None):
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, env=env, check=True).stdout


def test_scoring_does_not_import_pandas():
    out = _run("""
        import sys
        import mjkit
        r = mjkit.score("123m456p789s123s55p")
        print(r.total, "pandas" in sys.modules)
    """)
    assert out.split() == ["14", "False"]


@pytest.mark.slow
def test_plain_score_compiles_only_its_kernels(tmp_path):
    """From an empty numba cache: no wild search, no leftmost reading, no kernel twice."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "nc"))
    out = _run("""
        import collections
        from numba.core import event
        seen = collections.Counter()
        class L(event.Listener):
            def on_start(self, ev):
                d = ev.data["dispatcher"]
                seen[d.py_func.__module__ + "." + d.py_func.__qualname__] += 1
            def on_end(self, ev):
                pass
        event.register("numba:compile", L())
        import mjkit
        assert mjkit.score("123m456p789s123s55p").total == 14
        for k, v in sorted(seen.items()):
            print(k, v)
    """, env)
    seen = dict(line.rsplit(" ", 1) for line in out.splitlines())
    assert seen, out
    assert not [k for k in seen if ".wild." in k or "leftmost" in k], out
    assert all(v == "1" for v in seen.values()), out
