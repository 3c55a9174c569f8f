"""Helpers shared by the benchmark scripts."""

import time

import numba


def best_rate(fn, n, repeats):
    """Items per second of the fastest of ``repeats`` runs of ``fn`` (``n`` items a run)."""
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return n / best


def rates_by_threads(fn, n, repeats):
    """``{threads: items per second}`` of ``fn`` on one thread and on all of numba's threads.

    The thread counts alternate within each of the ``repeats`` rounds and the
    best round of each is kept, so a busy moment on a shared machine favours
    neither; numba's thread count is restored afterwards.
    """
    all_threads = numba.get_num_threads()
    rates = {}
    try:
        for _ in range(repeats):
            for threads in sorted({1, all_threads}):
                numba.set_num_threads(threads)
                rates[threads] = max(rates.get(threads, 0.0), best_rate(fn, n, 1))
    finally:
        numba.set_num_threads(all_threads)
    return rates


def peer_modules(what="no comparison"):
    """``(MahjongGB, pgb)``, the peer and ``tests/pgb.py`` (its argument builders), or None.

    None, said on stdout (``what``: what is skipped), when PyMahjongGB is not
    installed.  The scripts put ``tests/`` on ``sys.path`` for ``pgb``.
    """
    try:
        import MahjongGB
        import pgb
    except ImportError:
        print(f"PyMahjongGB is not installed (pip install PyMahjongGB): {what}")
        return None
    return MahjongGB, pgb
