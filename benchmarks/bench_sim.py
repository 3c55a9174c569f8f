"""Simulator speed: complete four-player hands per second per core, per policy.

    python benchmarks/bench_sim.py [--hands 20000] [--seed 1] [--repeats 3]

Plays the same seeded hands (``mjkit.sim.play_hands``) on one thread and on
all threads, for each policy in ``mjkit.sim.POLICIES``, at 连0 and 连8 of
``dazhong32`` and in ``gb``; prints hands per second per core against the
issue's target (>= 2,000 per core with the value-aware policy; the
value-aware policy is not built yet, so the value-blind one is what runs),
the time a 9-level study of ``--study-hands`` hands per level would take at
that rate, and the peak memory.  Speed is measured here, never asserted in
the tests.
"""

import argparse
import resource
import time

import numba

import mjkit
from _common import best_rate
from mjkit.sim import POLICIES, play_hands

TARGET_PER_CORE = 2000


def rate(n, repeats, **kw):
    return best_rate(lambda: play_hands(n, **kw), n, repeats)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=20_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--study-hands", type=int, default=100_000)
    args = ap.parse_args(argv)
    threads = numba.get_num_threads()
    print(f"mjkit {mjkit.__version__}, numba {numba.__version__}, {threads} threads")
    t = time.perf_counter()
    play_hands(10, "dazhong32", seed=args.seed)
    print(f"first call (compiling or loading the game kernel): {time.perf_counter() - t:.1f} s")
    print(f"{'setting':<40}{'policy':<12}{'1 thread':>12}{f'{threads} threads':>12}"
          f"{'per core':>10}{'vs target':>11}")
    per_core = {}
    for policy in POLICIES:
        for label, kw in (("dazhong32, 连0拉0", {"rules": "dazhong32", "level": 0}),
                          ("dazhong32, 连8拉8", {"rules": "dazhong32", "level": 8}),
                          ("gb (discard wins)", {"rules": "gb"})):
            kw = dict(kw, seed=args.seed, dealer_policy=policy, others_policy=policy)
            numba.set_num_threads(1)
            one = rate(args.hands, args.repeats, **kw)
            numba.set_num_threads(threads)
            many = rate(args.hands, args.repeats, **kw)
            core = max(one, many / threads)
            per_core[label, policy] = core
            print(f"{label:<40}{policy:<12}{one:>12,.0f}{many:>12,.0f}{core:>10,.0f}"
                  f"{core / TARGET_PER_CORE:>10.2f}x")
    slowest = min(per_core.values())
    study = 9 * args.study_hands / (slowest * threads)
    print(f"a 9-level study of {args.study_hands:,} hands per level at the slowest rate on "
          f"{threads} threads: {study / 60:.1f} min (target <= 10 min on 2 cores)")
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory of this process: {rss:.0f} MiB (target <= 1 GB)")


if __name__ == "__main__":
    main()
