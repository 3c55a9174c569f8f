"""Brute-force helpers shared by the reach tests: every completion of a hand."""

import itertools
import math

import numpy as np

from mjkit._kernels import complete as KC

_BINOM4 = np.array([math.comb(4, k) for k in range(5)], np.int64)


def all_draws():
    """All multisets of 1, 2 and 3 tile kinds, as count rows."""
    out = {}
    for k in (1, 2, 3):
        rows = []
        for combo in itertools.combinations_with_replacement(range(34), k):
            r = np.zeros(34, np.int64)
            for t in combo:
                r[t] += 1
            rows.append(r)
        out[k] = np.array(rows)
    return out


def sub_multisets(h, size):
    tiles = [t for t in range(34) for _ in range(int(h[t]))]
    seen = set()
    for keep in itertools.combinations(tiles, size):
        if keep in seen:
            continue
        seen.add(keep)
        c = np.zeros(34, np.int64)
        for t in keep:
            c[t] += 1
        yield c


def complete_rows(rows):
    rows = np.unique(rows, axis=0).astype(np.uint8)
    forms = np.zeros(len(rows), np.uint8)
    combos = np.zeros(len(rows), np.int64)
    KC.forms_and_weights(rows, _BINOM4, forms, combos, 4)
    return rows[forms > 0]
