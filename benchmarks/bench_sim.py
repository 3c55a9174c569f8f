"""Simulator speed: complete four-player hands per second per core, per policy.

    python benchmarks/bench_sim.py [--hands 20000] [--seed 1] [--repeats 3]

Plays the same seeded hands (``mjkit.sim.play_hands``) on one thread and on
all threads, for each policy in ``mjkit.sim.POLICIES`` (every player on it;
for ``break`` the dealer plays ``value``), at 连0 and 连8 of ``dazhong32``
and in ``gb``; prints hands per second per core against the issue's target
(>= 2,000 per core with the value-aware policy), the share of hands won, the
time a 9-level study of ``--study-hands`` hands per level would take at the
value-aware rate, and the peak memory.  Speed is measured here, never
asserted in the tests.
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
    print(f"{'setting':<22}{'policy':<12}{'1 thread':>10}{f'{threads} threads':>11}"
          f"{'per core':>10}{'vs target':>11}{'won':>8}")
    per_core = {}
    for policy in POLICIES:
        for label, kw in (("dazhong32, 连0拉0", {"rules": "dazhong32", "level": 0}),
                          ("dazhong32, 连8拉8", {"rules": "dazhong32", "level": 8}),
                          ("gb (discard wins)", {"rules": "gb"})):
            kw = dict(kw, seed=args.seed, others_policy=policy,
                      dealer_policy="value" if policy == "break" else policy)
            numba.set_num_threads(1)
            one = rate(args.hands, args.repeats, **kw)
            numba.set_num_threads(threads)
            many = rate(args.hands, args.repeats, **kw)
            won = (play_hands(args.hands, **kw).outcomes[:, 0] >= 0).mean()
            core = max(one, many / threads)
            per_core[label, policy] = core
            print(f"{label:<22}{policy:<12}{one:>10,.0f}{many:>11,.0f}{core:>10,.0f}"
                  f"{core / TARGET_PER_CORE:>10.2f}x{won:>8.1%}")
    value = [v for (label, policy), v in per_core.items() if policy == "value"
             and label.startswith("dazhong32")]
    study = 9 * args.study_hands / (min(value) * threads)
    print(f"a 9-level dazhong32 study of {args.study_hands:,} hands per level, value-aware "
          f"players, at the slower of its two rates on {threads} threads: "
          f"{study / 60:.1f} min (target <= 10 min on 2 cores)")
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory of this process: {rss:.0f} MiB (target <= 1 GB)")


if __name__ == "__main__":
    main()
