"""Simulator speed: complete four-player hands per second per core, per policy.

    python benchmarks/bench_sim.py [--hands 20000] [--strong-hands 1000] [--seed 1]
                                   [--repeats 3] [--study-hands 100000]

Plays the same seeded hands (``mjkit.sim.play_hands``) on one thread and on
all threads, for each policy in ``mjkit.sim.POLICIES`` (every player on it;
for ``break`` the dealer plays ``value``, for ``strong_break`` ``strong``),
at 连0 and 连8 of ``dazhong32`` at seed 000's table (a turned 财神, 起手换牌)
and in ``gb``; prints hands per second per core against the issue's target
(>= 2,000 per core with the value-aware policy) and the share of hands won.
Then it times the default study's players (``mjkit.sim.DEFAULT_STUDY``) at
each of its levels on all threads and prints how long the whole study of
``--study-hands`` hands per level takes (target: 30 minutes on 2 cores), and
the peak memory.  Speed is measured here, never asserted in the tests.
"""

import argparse
import resource
import time

import numba

import mjkit
from _common import best_rate
from mjkit.sim import DEFAULT_STUDY, POLICIES, play_hands

TARGET_PER_CORE = 2000
STUDY_TARGET_MIN = 30
TABLE = {"wild": "turned", "exchange": True}
SLOW = ("strong", "strong_break")


def rate(n, repeats, **kw):
    return best_rate(lambda: play_hands(n, **kw), n, repeats)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=20_000)
    ap.add_argument("--strong-hands", type=int, default=1000,
                    help="hands per run for the strong players (slower)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--study-hands", type=int, default=100_000)
    args = ap.parse_args(argv)
    threads = numba.get_num_threads()
    print(f"mjkit {mjkit.__version__}, numba {numba.__version__}, {threads} threads")
    t = time.perf_counter()
    play_hands(10, "dazhong32", seed=args.seed)
    print(f"first call (compiling or loading the game kernel): {time.perf_counter() - t:.1f} s")
    print(f"{'setting':<22}{'policy':<14}{'1 thread':>10}{f'{threads} threads':>11}"
          f"{'per core':>10}{'vs target':>11}{'won':>8}")
    per_core = {}
    for policy in POLICIES:
        n = args.strong_hands if policy in SLOW else args.hands
        dealer = {"break": "value", "strong_break": "strong"}.get(policy, policy)
        for label, kw in (("dazhong32, 连0拉0", {"rules": "dazhong32", "level": 0, **TABLE}),
                          ("dazhong32, 连8拉8", {"rules": "dazhong32", "level": 8, **TABLE}),
                          ("gb (discard wins)", {"rules": "gb"})):
            kw = dict(kw, seed=args.seed, others_policy=policy, dealer_policy=dealer)
            play_hands(10, **kw)                         # compile this player's kernel
            numba.set_num_threads(1)
            one = rate(n, args.repeats, **kw)
            numba.set_num_threads(threads)
            many = rate(n, args.repeats, **kw)
            won = (play_hands(n, **kw).outcomes[:, 0] >= 0).mean()
            core = max(one, many / threads)
            per_core[label, policy] = core
            print(f"{label:<22}{policy:<14}{one:>10,.0f}{many:>11,.0f}{core:>10,.0f}"
                  f"{core / TARGET_PER_CORE:>10.2f}x{won:>8.1%}")
    study = {k: v for k, v in DEFAULT_STUDY.items() if k not in ("levels", "hands")}
    total = 0.0
    print(f"the default study's players (dealer {study['dealer_policy']!r}, others "
          f"{study['others_policy']!r}), {threads} threads:")
    for level in DEFAULT_STUDY["levels"]:
        n = args.strong_hands
        kw = dict(study, level=level)
        r = best_rate(lambda: play_hands(n, **kw), n, 1)
        total += args.study_hands / r
        print(f"  连{level}: {r:,.0f} hands/s")
    print(f"the default study ({len(DEFAULT_STUDY['levels'])} levels x {args.study_hands:,} "
          f"hands) on {threads} threads: {total / 60:.1f} min (target <= "
          f"{STUDY_TARGET_MIN} min on 2 cores)")
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory of this process: {rss:.0f} MiB (target <= 1 GB)")


if __name__ == "__main__":
    main()
