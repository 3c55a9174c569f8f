"""Helpers shared by the benchmark scripts."""

import time


def best_rate(fn, n, repeats):
    """Items per second of the fastest of ``repeats`` runs of ``fn`` (``n`` items a run)."""
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return n / best
