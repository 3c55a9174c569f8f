"""Scoring speed: mjkit against PyMahjongGB on the same hands, in one run.

    python benchmarks/bench_score.py [--hands 100000] [--seed 1]

Prints hands/s for ``mjkit.score_batch`` on one thread and on all threads,
a per-phase profile of the scoring kernel on the same hands (``--phases``),
for ``dazhong32`` with 0, 1, 2 and 4 wild tiles per hand, for PyMahjongGB (``MahjongFanCalculator``, positional arguments prepared
beforehand as tuples), their ratio, the latency of one ``mjkit.score`` call,
and the time a fresh process with a warm numba cache takes to import mjkit
and score its first hand.  Targets (issue 2): >= 10x PyMahjongGB on one
core, <= 50 us per score() call, <= 2 s to the first score; issue 13:
<= 0.65 us per hand on one core.

The phase profile runs the evaluator's own building blocks
(``mjkit._kernels.evaluate``) cumulatively on the same rows, one thread:
phase k runs phases 1..k, so the time of phase k is the difference of two
runs.  Phase 5 (套算一次) runs the chow combination search alone on each
split; phase 6 replaces it with the whole fan detection of the split, so
phase 6 shows the other fans.  The last line is the real kernel
(``score_rows_plain``) less phase 8: writing the results and the batch loop.
"""

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

import numba
import numpy as np
from numba import njit

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
import mjkit  # noqa: E402
from _common import best_rate, peer_modules, rates_by_threads  # noqa: E402
from mjkit.random_hands import random_wild_hands, random_winning_hands  # noqa: E402
from mjkit._kernels import evaluate as E  # noqa: E402
from mjkit._kernels.fans import chow_fans  # noqa: E402
from mjkit._kernels.fan_ids import SEVEN_SHIFTED_PAIRS  # noqa: E402
from mjkit._kernels.layout import (  # noqa: E402
    CHOW, DEC_COUNTED, DEC_FORM, DEC_KNIT, DEC_LEN, FORM_SEVEN_PAIRS,
)
from mjkit._kernels.shapes import enumerate_divisions  # noqa: E402

PHASES = ("read the row, shared fans", "special forms (knitted, 7 pairs, ...)",
          "splits (enumerate_divisions)", "waits (count_waits)",
          "load split, chow fans (套算一次)", "other fan detection", "不计 (apply_rules), keep best",
          "连拉, flowers (finish)")


@njit(cache=True)
def phase_run(rows, rules, upto, used, totals, counted, fans):
    """Score ``rows`` (no wild tile, 国标 wait rule) up to phase ``upto`` (1..8).

    Phase 8 is the whole of ``evaluate.score_row``; with ``totals`` as long as
    ``rows`` it also writes each row's result as ``score_rows_plain`` does
    (``tests/test_benchmark_phases.py`` checks that they agree, so this copy
    of ``score_row``'s control flow cannot drift from it); empty outputs
    (the profile) write nothing.  Returns the sum of the totals reached.
    """
    nf = rules.points.shape[0]
    write = totals.shape[0] == rows.shape[0]
    ws = np.zeros(E.WS_LEN, np.int64)
    s = E.eval_scratch(ws)
    out = E.ScoreOut(np.zeros(nf, np.int64), np.zeros(0, np.int64), np.zeros(DEC_LEN, np.int64))
    acc = 0
    for i in range(rows.shape[0]):
        row = rows[i]
        dec = out.dec
        for k in range(DEC_LEN):
            dec[k] = 0
        dec[DEC_KNIT] = -1
        h = E.read_row(row, s)
        if upto == 1:
            continue
        best = np.int64(-1)
        if h.n_fixed <= 1 and h.n_distinct_suited >= 9:
            best = E.knitted_reading(h, s, rules, out, best)
        if best < 0 and h.n_fixed == 0:
            best = E.special_reading(h, s, rules, out, best)
        if upto == 2:
            continue
        if best < 0 or (dec[DEC_FORM] == FORM_SEVEN_PAIRS and out.fan[SEVEN_SHIFTED_PAIRS] == 0):
            n_sets = 4 - h.n_fixed
            nd = enumerate_divisions(s.c, n_sets, s.split_kind, s.split_tile, s.split_pair, s.work)
            if nd > 0:
                for t in range(34):
                    s.standing[t] = s.c[t]
                s.standing[h.win] -= 1
                nine = h.n_fixed == 0 and E.is_nine_gates(s.standing)
                E.order_splits(s, nd, n_sets, rules.tie_order)
                if upto == 3:
                    continue
                n_waits = E.split_waits(h, s, nd, n_sets, rules.table)
                if upto == 4:
                    continue
                seven = dec[DEC_FORM] == FORM_SEVEN_PAIRS
                for q in range(nd):
                    d = s.split_order[q]
                    E.load_split(s, d, h.n_fixed, nf)
                    if upto == 5:
                        ctiles = s.work[0:4]
                        n = 0
                        for j in range(4):
                            if s.kind[j] == CHOW:
                                ctiles[n] = s.tile[j]
                                n += 1
                        E.sort_by_key(ctiles, n, rules.tie_order)
                        if n >= 2:
                            chow_fans(ctiles, n, rules.points, s.cand, s.work[8:32])
                        continue
                    E.regular_reading(h, s, rules, s.split_pair[d], n_waits, E.WAIT_UNIQUE, nine)
                    if upto == 6:
                        continue
                    best = E.keep_split(s, rules, out, best, s.split_pair[d], seven)
        if upto == 7:
            acc += best
        if upto <= 7:       # rows without splits too: phases 3-6 leave out finish
            continue
        total = E.finish(row, h, rules, best, out)
        acc += total
        if write:
            totals[i] = total
            counted[i] = dec[DEC_COUNTED] if total >= 0 else -1
            for j in range(used.shape[0]):
                fans[i, j] = out.fan[used[j]]
    return acc


def phase_profile(rows, rules, repeats):
    """Print the cumulative phase times (us/hand, one thread) beside the real kernel.

    CPU time of this process, the best of ``repeats`` rounds, each round
    running every phase once in turn: the differences are small, and neither
    other processes' share of a busy machine nor its drift between phases
    should show in them.
    """
    n = len(rows)
    kr = rules.kernel_rules()
    used = rules.used_array()
    totals = np.empty(n, np.int64)
    counted = np.empty(n, np.int64)
    fans = np.empty((n, len(used)), np.int32)
    wait = np.full(n, E.WAIT_UNIQUE, np.int64)
    none = np.zeros(0, np.int64)
    runs = [(lambda k=k: phase_run(rows, kr, k, used, none, none, fans[:0]))
            for k in range(1, len(PHASES) + 1)]
    runs.append(lambda: E.score_rows_plain(rows, kr, wait, used, totals, counted, fans, 1))
    for fn in runs:
        fn()                                 # compile / load, touch the outputs
    best = [float("inf")] * len(runs)
    for _ in range(repeats):
        for i, fn in enumerate(runs):
            t = time.process_time()
            fn()
            best[i] = min(best[i], time.process_time() - t)
    cum = [0.0] + [1e6 * b / n for b in best]
    full = cum[-1]
    print()
    print(f"phase profile, one thread, {n:,} hands (cumulative runs, CPU time; us/hand and share):")
    names = list(PHASES) + ["result writing, batch loop"]
    for k, name in enumerate(names, 1):
        dt = cum[k] - cum[k - 1]
        print(f"  {name:<40}{dt:>8.3f} us{100 * dt / full:>7.1f} %")
    print(f"  {'whole kernel (score_rows_plain)':<40}{full:>8.3f} us   (target <= 0.65 us)")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--phases", action="store_true", help="only the phase profile")
    args = ap.parse_args(argv)

    print(f"mjkit {mjkit.__version__}, numba {numba.__version__}, "
          f"{numba.config.NUMBA_NUM_THREADS} threads available")
    texts = random_winning_hands(args.hands, seed=args.seed)
    t = time.perf_counter()
    batch = mjkit.HandBatch.from_hands(texts, keep_hands=True)
    print(f"prepared {len(texts):,} hands in {time.perf_counter() - t:.1f} s (parsing, not timed below)")
    numba.set_num_threads(1)
    phase_profile(batch.rows, mjkit.get_rules("gb"), max(args.repeats, 7))
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    if args.phases:
        return 0
    mjkit.score_batch(batch)  # compile / load the cache

    all_threads = numba.get_num_threads()
    rates = rates_by_threads(lambda: mjkit.score_batch(batch), len(texts), args.repeats)

    found = peer_modules()
    peer = None
    if found:
        MahjongGB, pgb = found
        calc = MahjongGB.MahjongFanCalculator
        calls = []
        for h in batch.hands:
            a = pgb.to_pgb_args(h)
            calls.append((a["pack"], a["hand"], a["winTile"], a["flowerCount"], a["isSelfDrawn"],
                          a["is4thTile"], a["isAboutKong"], a["isWallLast"], a["seatWind"],
                          a["prevalentWind"]))

        def run_peer():
            for c in calls:
                calc(*c)

        peer = best_rate(run_peer, len(calls), max(1, args.repeats // 2))

    print()
    print(f"{'scorer':<34}{'hands/s':>14}{'vs PyMahjongGB':>16}")
    for threads, r in rates.items():
        ratio = f"{r / peer:.1f}x" if peer else "-"
        print(f"{'mjkit.score_batch, ' + str(threads) + ' thread(s)':<34}{r:>14,.0f}{ratio:>16}")
    if peer:
        print(f"{'PyMahjongGB (1 core)':<34}{peer:>14,.0f}{'1.0x':>16}")

    # 大众32番: the same kernel with the 大众 fans, and the wild-tile search.
    print()
    n_wild_hands = max(1000, args.hands // 10)
    print(f"dazhong32, self-drawn hands with k wild tiles ({n_wild_hands:,} hands each; "
          "a wild kind the hand does not hold, k concealed tiles turned into it):")
    print(f"{'k wild tiles':<16}{'1 thread':>14}{str(all_threads) + ' threads':>14}"
          f"{'us/hand (1 thr)':>18}")
    for k in (0, 1, 2, 4):
        items = random_wild_hands(n_wild_hands, k, seed=args.seed + k)
        wbatch = mjkit.HandBatch.from_hands([h for h, _ in items],
                                            wild=[w for _, w in items] if k else None)
        mjkit.score_batch(wbatch, rules="dazhong32")
        r = rates_by_threads(lambda: mjkit.score_batch(wbatch, rules="dazhong32"), len(items),
                             max(1, args.repeats // 2))
        print(f"{k:<16}{r[1]:>14,.0f}{r[all_threads]:>14,.0f}{1e6 / r[1]:>18.1f}")

    hand = batch.hands[0]
    text = texts[0]
    mjkit.score(hand)
    n = 5000
    per_hand = 1e6 / best_rate(lambda: [mjkit.score(hand) for _ in range(n)], n, 3)
    per_text = 1e6 / best_rate(lambda: [mjkit.score(text) for _ in range(n)], n, 3)
    print()
    print(f"one mjkit.score(Hand) call: {per_hand:.1f} us; score(notation string): {per_text:.1f} us "
          f"(target <= 50 us)")

    code = ("import time; t = time.perf_counter(); import mjkit; "
            "r = mjkit.score('[123m]456p789s55mEE E'); "
            "print(f'{time.perf_counter() - t:.2f}', r.total)")
    env = dict(os.environ)
    times = []
    for _ in range(3):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                             check=True).stdout.split()
        times.append(float(out[0]))
    print(f"fresh process, warm numba cache: import mjkit + first score in {min(times):.2f} s "
          f"(runs: {', '.join(f'{x:.2f}' for x in times)}; target <= 2 s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
