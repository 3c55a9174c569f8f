"""Speed of ``wild_completions`` (财神 completions) on near-complete hands.

    python benchmarks/bench_wild.py [--hands 2000] [--seed 1]

For n_wild = 1..4: complete hands from ``mjkit.random_hands`` (every form,
with melds and kongs), ``n_wild`` of their concealed tiles made wild.  Prints
the mean and max µs per hand, timed inside one jitted loop (no dispatcher
cost) and through the Python dispatcher, and the mean / max number of
completions.  Target: mean well under 1 ms with 4 wilds.
"""

import argparse
import random
import time

import numpy as np
from numba import njit

from mjkit._kernels.tables import suit_table, wild_table
from mjkit._kernels.wild import wild_completions
from mjkit.random_hands import random_hand_parts

CAP = 4096
CHUNK = 100


def make_hands(n, n_wild, seed):
    """(c, fixed, n_fixed) arrays of ``n`` hands with ``n_wild`` wilds."""
    rng = random.Random(seed)
    cs, fs, nfs = [], [], []
    parts = random_hand_parts(4 * n, seed=seed, biased=False)
    for p in parts:
        if len(p.concealed) < n_wild:
            continue
        allc = p.all_counts()
        c = np.zeros(34, np.int64)
        for t in p.concealed:
            c[t] += 1
        for t in rng.sample(list(p.concealed), n_wild):
            c[t] -= 1
        cs.append(c)
        fs.append(allc - np.bincount(p.concealed, minlength=34))
        nfs.append(len(p.melds))
        if len(cs) == n:
            break
    return np.array(cs), np.array(fs), np.array(nfs, np.int64)


@njit
def run_all(cs, fs, nfs, n_wild, table, out, counts):
    """Every hand once, inside numba (no dispatcher cost per hand)."""
    for i in range(cs.shape[0]):
        counts[i] = wild_completions(cs[i], fs[i], n_wild, nfs[i], table, out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeats", type=int, default=10)
    args = ap.parse_args(argv)

    t = time.perf_counter()
    suit_table()
    t_suit = time.perf_counter() - t
    t = time.perf_counter()
    table = wild_table()
    t_wild = time.perf_counter() - t
    print(f"wild_table: {table.nbytes / 1e6:.1f} MB, {t_wild * 1e3:.0f} ms on top of "
          f"suit_table ({t_suit * 1e3:.0f} ms); both include numba cache loading")
    out = np.zeros((CAP, 4), np.int64)
    print(f"{'wilds':>5} {'hands':>6} {'µs/hand (jit loop)':>19} {'µs/call (python)':>17} "
          f"{'max µs':>8} {'mean n':>7} {'max n':>6} {'none':>5}")
    for n_wild in (1, 2, 3, 4):
        cs, fs, nfs = make_hands(args.hands, n_wild, args.seed + n_wild)
        n = len(cs)
        counts = np.zeros(n, np.int64)
        run_all(cs, fs, nfs, n_wild, table, out, counts)  # compile / warm
        # Best of several runs over small chunks: the machine may be shared,
        # and a chunk is short enough to often run undisturbed.
        total = 0.0
        for a in range(0, n, CHUNK):
            sl = slice(a, a + CHUNK)
            best = float("inf")
            for _ in range(args.repeats):
                t = time.perf_counter()
                run_all(cs[sl], fs[sl], nfs[sl], n_wild, table, out, counts[sl])
                best = min(best, time.perf_counter() - t)
            total += best
        # Per call through the dispatcher (best of 3 per hand): the mean adds
        # the call overhead, the max is the slowest hand.
        per = np.full(n, np.inf)
        for _ in range(3):
            for i in range(n):
                t = time.perf_counter()
                wild_completions(cs[i], fs[i], n_wild, nfs[i], table, out)
                per[i] = min(per[i], time.perf_counter() - t)
        assert (counts >= 0).all(), "raise CAP"
        print(f"{n_wild:>5} {n:>6} {total / n * 1e6:>19.2f} {per.mean() * 1e6:>17.2f} "
              f"{per.max() * 1e6:>8.1f} {counts.mean():>7.1f} {counts.max():>6} "
              f"{(counts == 0).sum():>5}")


if __name__ == "__main__":
    main()
