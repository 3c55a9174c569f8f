"""Reach-analysis speed: mjkit against PyMahjongGB on the same hands, in one run.

    python benchmarks/bench_reach.py [--hands 100000] [--seed 1] [--repeats 9]

Shanten section: the time to build the shanten tables from scratch and their
memory; then the same random closed 13-tile hands (the first 13 tiles of a
shuffled 136-tile wall, numpy ``default_rng(seed)``), prepared beforehand in
each library's own form (an int64 ``(n, 34)`` count array for mjkit, tuples
of tile codes for PyMahjongGB), through ``mjkit.shanten.shanten_batch`` on
one thread and on all threads and through ``MahjongGB.MahjongShanten``.
Target (issue): mjkit >= 20x PyMahjongGB.  For information it also times
mjkit with every form's value and with useful tiles (PyMahjongGB computes
neither in ``MahjongShanten``), and one ``shanten()`` call.

Distance section: the value index (size, time to read it, and with
``--build-index`` the time and peak memory to build it from scratch), then
``mjkit.distance_to`` one query at a time on the first ``--queries`` of
those hands at T = 0, 8, 16, 24 and 32 (target: <= 50 ms per query at
T = 32), the same question at T = 0 against PyMahjongGB ``MahjongShanten``,
``mjkit.targets``, and the slower paths (other winds, melds).

Speed is measured here, never asserted in the tests.
"""

import argparse
import importlib
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numba
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
import mjkit  # noqa: E402
from _common import best_rate, peer_modules, rates_by_threads  # noqa: E402
from mjkit.random_hands import random_closed_counts  # noqa: E402

# the module (the attribute mjkit.shanten may be the function of that name)
ms = importlib.import_module("mjkit.shanten")


def _fresh_process_tables():
    """Seconds a new process takes to import mjkit.shanten and get its tables
    (from the cache folder in ``MJKIT_CACHE_DIR``)."""
    code = ("import time; t = time.perf_counter(); from mjkit.shanten import shanten_tables; "
            "shanten_tables(); print(f'{time.perf_counter() - t:.2f}')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env=dict(os.environ))
    return float(out.stdout.strip())


def bench_shanten(args, counts):
    """Shanten: table build and memory, batch throughput against PyMahjongGB."""
    n = len(counts)
    print("== shanten (向听) ==")
    t = time.perf_counter()
    suit, honor = ms.build_shanten_tables()
    first = time.perf_counter() - t
    t = time.perf_counter()
    suit, honor = ms.build_shanten_tables()
    again = time.perf_counter() - t
    mem = (suit.nbytes + honor.nbytes) / 2 ** 20
    print(f"tables: suit {suit.shape} + honours {honor.shape} uint8 = {mem:.1f} MiB; "
          f"built from scratch in {again:.2f} s ({first:.2f} s for the first build of this "
          "process, loading the compiled builder)")
    with tempfile.TemporaryDirectory() as folder:
        os.environ["MJKIT_CACHE_DIR"] = folder
        try:
            ms._load_or_build()                     # builds and writes the cache
            t = time.perf_counter()
            ms._load_or_build()
            load = time.perf_counter() - t
            where = ms.TABLE_INFO["source"]
            cold = _fresh_process_tables()
        finally:
            del os.environ["MJKIT_CACHE_DIR"]
    print(f"read back from the disk cache ({where}, memory-mapped, CRC-checked): "
          f"{load * 1e3:.0f} ms")
    print(f"new process: import mjkit.shanten and get its tables from the cache: {cold:.2f} s")
    ms.shanten_batch(counts[:100], useful=True)   # compile / load the kernels

    all_threads = numba.get_num_threads()
    modes = (("overall", {}), ("every form", {"forms": True}),
             ("forms + useful tiles", {"useful": True}))
    rates = {}
    for label, kw in modes:
        reps = args.repeats if label == "overall" else max(1, args.repeats // 2)
        for threads, r in rates_by_threads(lambda: ms.shanten_batch(counts, **kw), n,
                                           reps).items():
            rates[label, threads] = r

    found = peer_modules()
    peer = None
    if found:
        MahjongGB, pgb = found
        hands = [pgb.standing_codes(c) for c in counts]
        calc = MahjongGB.MahjongShanten

        def run_peer():
            for h in hands:
                calc((), h)

        peer = best_rate(run_peer, n, max(1, args.repeats // 2))
        check = ms.shanten_batch(counts[:2000]).shanten
        same = sum(int(calc((), h)) == int(v) for h, v in zip(hands[:2000], check))
        print(f"same overall shanten as PyMahjongGB on {same} of 2000 hands checked here "
              "(tests/test_shanten.py compares every form)")

    print()
    print(f"{n:,} random closed 13-tile hands (seed {args.seed}), hands per second:")
    print(f"{'':<44}{'hands/s':>14}{'vs PyMahjongGB':>16}")
    for (label, threads), r in rates.items():
        ratio = f"{r / peer:.1f}x" if peer else "-"
        name = f"mjkit shanten_batch, {label}, {threads} thr"
        print(f"{name:<44}{r:>14,.0f}{ratio:>16}")
    if peer:
        print(f"{'PyMahjongGB MahjongShanten (1 core)':<44}{peer:>14,.0f}{'1.0x':>16}")
        best = max(rates["overall", t] for t in {1, all_threads})
        print(f"overall shanten: {best / peer:.1f}x PyMahjongGB (target >= 20x); "
              f"{rates['overall', 1] / peer:.1f}x on one thread")

    text13, text14 = "123m456p789s EES P", "1112345678999m E"
    for text in (text13, text14):
        ms.shanten(text)
        per = 1e6 / best_rate(lambda: [ms.shanten(text) for _ in range(500)], 500, 3)
        print(f"one shanten({text!r}) call: {per:.0f} us")
    return rates, peer


def _quantiles(times):
    a = np.sort(np.asarray(times)) * 1e3
    return (f"median {np.median(a):6.1f} ms, p95 {a[int(0.95 * (len(a) - 1))]:6.1f} ms, "
            f"max {a[-1]:6.1f} ms, {len(a) / (a.sum() / 1e3):7.1f} queries/s")


def _index_build_subprocess(rules):
    """Build a value index from scratch in a new process; its seconds and peak memory."""
    code = ("import resource, time; from mjkit import value_index as V; "
            "t = time.perf_counter(); "
            f"i = V.build_value_index({rules!r}, progress=False); "
            "print(time.perf_counter() - t, "
            "resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, "
            "i.ids.nbytes / 2**20, len(i.counted))")
    with tempfile.TemporaryDirectory() as folder:
        env = dict(os.environ, MJKIT_CACHE_DIR=folder)
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             check=True, env=env)
    secs, rss, ids_mb, rows = out.stdout.split()
    return float(secs), float(rss), float(ids_mb), int(rows)


def bench_distance(args, counts):
    """distance_to and targets: per-query time at T = 8, 16, 32, and the value index."""
    from mjkit import value_index as VI

    print("== distance to value (distance_to, targets) ==")
    t = time.perf_counter()
    index = VI.value_index(args.rules)
    first = time.perf_counter() - t
    info = VI.INDEX_INFO.get(args.rules, {})
    mem = (index.ids.nbytes + index.counted.nbytes + index.hand_fans.nbytes) / 2 ** 20
    fam = VI.families()
    fam_mb = sum(a.nbytes for a in fam.arrays()) / 2 ** 20
    print(f"value index {args.rules}: {len(index.ids):,} complete closed patterns, "
          f"{len(index.counted):,} distinct (value, fans) rows, {mem:.1f} MiB "
          f"(+ {fam_mb:.1f} MiB of pattern parts); obtained from {info.get('source')} "
          f"in {first:.2f} s")
    code = ("import time; t = time.perf_counter(); from mjkit import value_index as V; "
            f"V.value_index({args.rules!r}); print(f'{{time.perf_counter() - t:.2f}}')")
    cold = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout.strip()
    print(f"new process: import and memory-map the cached index: {cold} s")
    if args.build_index:
        secs, rss, ids_mb, rows = _index_build_subprocess(args.rules)
        print(f"built from scratch in a new process: {secs:.0f} s on "
              f"{numba.config.NUMBA_NUM_THREADS} threads, peak memory {rss:.0f} MiB "
              f"(ids {ids_mb:.1f} MiB, {rows:,} rows)")
    else:
        print("(build from scratch: pass --build-index; a few minutes on 2 cores)")

    hands = counts[:args.queries]
    mjkit.distance_to(hands[0], 32, args.rules)          # compile / load
    mjkit.targets(hands[0], rules=args.rules, top=0)
    print()
    print(f"{len(hands)} random closed 13-tile hands (seed {args.seed}), one query at a time:")
    results = {}
    for T in (0, 8, 16, 24, 32):
        times, dist = [], []
        for h in hands:
            t = time.perf_counter()
            d = mjkit.distance_to(h, T, args.rules, examples=1)
            times.append(time.perf_counter() - t)
            dist.append(-9 if d.distance is None else d.distance)
        results[T] = times
        print(f"distance_to T={T:>2}: {_quantiles(times)}; mean distance {np.mean(dist):.2f}")
    if max(results[32]) < 0.05:
        print("every T=32 query within the 50 ms target")
    else:
        over = sum(x >= 0.05 for x in results[32])
        print(f"T=32: {over} of {len(hands)} queries over the 50 ms target")

    found = peer_modules("no peer for T=0")
    if found:
        MahjongGB, pgb = found
        codes = [pgb.standing_codes(c) for c in hands]
        t = time.perf_counter()
        for c in codes:
            MahjongGB.MahjongShanten((), c)
        per = (time.perf_counter() - t) / len(codes)
        mine = float(np.median(results[0]))
        print(f"peer, the same question at T=0 (plain shanten): PyMahjongGB MahjongShanten "
              f"{per * 1e6:.0f} us per hand; distance_to(T=0) is {mine / per:.0f}x slower "
              "(it also finds example targets; mjkit's shanten_batch is the fast path)")

    n_small = max(20, len(hands) // 10)
    times = []
    for h in hands[:n_small]:
        t = time.perf_counter()
        mjkit.targets(h, rules=args.rules, top=3)
        times.append(time.perf_counter() - t)
    print(f"targets (whole catalogue, top 3 scored), {n_small} hands: {_quantiles(times)}")
    for label, kw in (("seat S, round W (candidates re-scored)",
                       {"seat_wind": "S", "round_wind": "W"}),):
        times = []
        for h in hands[:n_small]:
            t = time.perf_counter()
            mjkit.distance_to(h, 32, args.rules, examples=1, **kw)
            times.append(time.perf_counter() - t)
        print(f"distance_to T=32, {label}: {_quantiles(times)}")
    melded = ["[123m]456p789s1122z", "[123m][456p]789s1122z", "[EEE]123m456p78s99s",
              "[234s]2468m1357p99s"]
    times = []
    for text in melded:
        t = time.perf_counter()
        mjkit.distance_to(text, 32, args.rules, examples=1)
        times.append(time.perf_counter() - t)
    print(f"distance_to T=32 with melds (candidates bounded by the closed hand, then "
          f"re-scored), {len(melded)} hands: "
          f"{_quantiles(times)}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeats", type=int, default=9)
    ap.add_argument("--queries", type=int, default=300,
                    help="distance_to / targets queries timed per setting")
    ap.add_argument("--build-index", action="store_true",
                    help="also build a value index from scratch (minutes) for its time and memory")
    ap.add_argument("--rules", default="dazhong32")
    args = ap.parse_args(argv)

    print(f"mjkit {mjkit.__version__}, numba {numba.__version__}, "
          f"{numba.config.NUMBA_NUM_THREADS} threads available")
    counts = random_closed_counts(args.hands, args.seed)

    # Each section prints its own report on the shared random hands.
    bench_shanten(args, counts)
    print()

    bench_distance(args, counts)


if __name__ == "__main__":
    main()
