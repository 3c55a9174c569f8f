"""The phase profile of ``benchmarks/bench_score.py`` measures the real scorer.

``phase_run`` repeats the control flow of ``evaluate.score_row`` from the
evaluator's building blocks so that it can stop after each phase.  With
every phase enabled it must give exactly what ``score_rows_plain`` gives
(totals, counted fans, every fan count), or the profile times something
else than the kernel it reports on.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import mjkit
from mjkit._kernels import evaluate as E
from mjkit.random_hands import random_wild_hands, random_winning_hands

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))   # bench_score imports its neighbour _common
import bench_score  # noqa: E402

# not complete: the phases must agree on the -1 path too
NOT_WINS = ["123m456p789s124m5p 5p", "1122334455668p 9p", "19m19p19s1234567z 2m"]


def _rows(rules):
    if rules == "gb":
        texts = random_winning_hands(300, seed=13)
    else:   # 连拉 levels, flowers and 无财神 (no wild tile in hand: the plain kernel)
        texts = [h for h, _ in random_wild_hands(150, 0, seed=13)]
    batch = mjkit.HandBatch.from_hands(texts + NOT_WINS, lianla=2 if rules == "dazhong32" else 0)
    return batch.rows


def _outputs(n, n_used):
    return np.full(n, -7, np.int64), np.full(n, -7, np.int64), np.full((n, n_used), -7, np.int32)


@pytest.mark.parametrize("rules", ["gb", "dazhong32"])
def test_phase_run_with_every_phase_is_the_kernel(rules):
    rs = mjkit.get_rules(rules)
    rows = _rows(rules)
    kr, used = rs.kernel_rules(), rs.used_array()
    n = len(rows)
    totals, counted, fans = _outputs(n, len(used))
    wait = np.full(n, E.WAIT_UNIQUE, np.int64)
    E.score_rows_plain(rows, kr, wait, used, totals, counted, fans, 1)
    assert (totals > 0).sum() >= n - len(NOT_WINS) and (totals[-len(NOT_WINS):] == -1).all()

    p_totals, p_counted, p_fans = _outputs(n, len(used))
    acc = bench_score.phase_run(rows, kr, len(bench_score.PHASES), used, p_totals, p_counted,
                                p_fans)
    np.testing.assert_array_equal(p_totals, totals)
    np.testing.assert_array_equal(p_counted, counted)
    np.testing.assert_array_equal(p_fans, fans)
    assert acc == totals.sum()


def test_the_profile_phases_run_and_write_nothing():
    """Phases 1-6 stop before a total; phase 7 sums the best readings, which in gb
    (no 连拉) are the counted fans; empty outputs are left alone."""
    rs = mjkit.get_rules("gb")
    rows = _rows("gb")
    kr, used = rs.kernel_rules(), rs.used_array()
    n = len(rows)
    totals, counted, fans = _outputs(n, len(used))
    E.score_rows_plain(rows, kr, np.full(n, E.WAIT_UNIQUE, np.int64), used, totals, counted,
                       fans, 1)
    none = np.zeros(0, np.int64)
    no_fans = np.zeros((0, len(used)), np.int32)
    got = [bench_score.phase_run(rows, kr, upto, used, none, none, no_fans)
           for upto in range(1, len(bench_score.PHASES) + 1)]
    assert got[:6] == [0] * 6
    assert got[6] == counted.sum() and got[7] == totals.sum()
