"""Scoring speed: mjkit against PyMahjongGB on the same hands, in one run.

    python benchmarks/bench_score.py [--hands 100000] [--seed 1]

Prints hands/s for ``mjkit.score_batch`` on one thread and on all threads,
for ``dazhong32`` with 0, 1, 2 and 4 wild tiles per hand, for PyMahjongGB (``MahjongFanCalculator``, positional arguments prepared
beforehand as tuples), their ratio, the latency of one ``mjkit.score`` call,
and the time a fresh process with a warm numba cache takes to import mjkit
and score its first hand.  Targets (issue 2): >= 10x PyMahjongGB on one
core, <= 50 us per score() call, <= 2 s to the first score.
"""

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

import numba

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
import mjkit  # noqa: E402
from _common import best_rate  # noqa: E402
from mjkit.random_hands import random_wild_hands, random_winning_hands  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args(argv)

    print(f"mjkit {mjkit.__version__}, numba {numba.__version__}, "
          f"{numba.config.NUMBA_NUM_THREADS} threads available")
    texts = random_winning_hands(args.hands, seed=args.seed)
    t = time.perf_counter()
    batch = mjkit.HandBatch.from_hands(texts, keep_hands=True)
    print(f"prepared {len(texts):,} hands in {time.perf_counter() - t:.1f} s (parsing, not timed below)")
    mjkit.score_batch(batch)  # compile / load the cache

    rates = {}
    all_threads = numba.get_num_threads()
    for threads in sorted({1, all_threads}):
        numba.set_num_threads(threads)
        rates[threads] = best_rate(lambda: mjkit.score_batch(batch), len(texts), args.repeats)
    numba.set_num_threads(all_threads)

    try:
        import MahjongGB
        import pgb
    except ImportError:
        print("PyMahjongGB is not installed (pip install PyMahjongGB): no comparison")
        peer = None
    else:
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
        row = []
        for threads in (1, all_threads):
            numba.set_num_threads(threads)
            row.append(best_rate(lambda: mjkit.score_batch(wbatch, rules="dazhong32"),
                                 len(items), max(1, args.repeats // 2)))
        numba.set_num_threads(all_threads)
        print(f"{k:<16}{row[0]:>14,.0f}{row[1]:>14,.0f}{1e6 / row[0]:>18.1f}")

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
