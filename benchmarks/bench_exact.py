"""Speed of the exact tables (mjkit.exact): enumeration and scoring.

    python benchmarks/bench_exact.py [--sample 500000] [--seed 1] [--full]

Times the enumeration of every complete 14-tile pattern, then scores a
random sample of the patterns (the same mix of forms as the whole) for each
rule set, with the kernel's shortcut and with every winning tile tried, on
one thread and on all threads, and projects the time of the full scoring.
``--full`` runs the whole recomputation (``mjkit.exact.compute``) into a
temporary folder, from scratch, and reports its wall and CPU time.

Wall time is what the machine gave us; CPU time (process time, all threads)
shows how much of it other processes took when they differ a lot.
"""

import argparse
import tempfile
import time
from pathlib import Path

import numba
import numpy as np

from mjkit import exact as E
from mjkit.rules import get_rules


def timed(fn):
    w, c = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - w, time.process_time() - c


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sample", type=int, default=500_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--full", action="store_true", help="also time the whole recomputation")
    args = ap.parse_args(argv)

    threads = numba.get_num_threads()
    print(f"numba {numba.__version__}, {threads} threads")
    E.best_scores(np.array([[3, 1, 1, 1, 2, 1, 1, 1, 3] + [0] * 25]), "gb")   # compile / load
    p, w, c = timed(lambda: E.enumerate_patterns(progress=False))
    print(f"enumeration: {len(p):,} patterns in {w:.1f} s wall, {c:.1f} s CPU")

    rng = np.random.default_rng(args.seed)
    idx = np.sort(rng.choice(len(p), min(args.sample, len(p)), replace=False))
    counts, forms = np.ascontiguousarray(p.counts[idx]), p.forms[idx]
    scale = len(p) / len(idx)
    print(f"\nscoring a sample of {len(idx):,} patterns (projected to all {len(p):,})")
    print(f"{'rules':<11}{'mode':<12}{'threads':>8}{'patterns/s':>14}{'full, s':>10}{'CPU, s':>10}")
    total = 0.0
    for rules in E.RULES:
        rs = get_rules(rules)
        for all_tiles in (False, True):
            for n in sorted({1, threads}):
                numba.set_num_threads(n)
                # the kernel as the full run calls it (no decoding of the fans)
                _, w, c = timed(lambda: E._score(counts, forms, rs, all_tiles))
                mode = "every tile" if all_tiles else "shortcut"
                print(f"{rules:<11}{mode:<12}{n:>8}{len(idx) / w:>14,.0f}{w * scale:>10.0f}"
                      f"{c * scale:>10.0f}")
                if not all_tiles and n == threads:
                    total += w * scale
            numba.set_num_threads(threads)
    print(f"projected full scoring, three rule sets, {threads} threads: {total / 60:.1f} min")

    if args.full:
        with tempfile.TemporaryDirectory() as d:
            _, w, c = timed(lambda: E.compute(out=Path(d) / "out", workdir=Path(d) / "work",
                                              progress=False, log=lambda s: None))
        print(f"\nfull recomputation (python -m mjkit.exact, fresh): {w / 60:.1f} min wall, "
              f"{c / 60:.1f} min CPU")


if __name__ == "__main__":
    main()
