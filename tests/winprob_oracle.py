"""A brute-force expectimax for the exact win probability (the oracle of tests/test_winprob.py).

Written apart from the library's search: plain recursion over every live draw (weighted
by its copies) and every discard, no pruning, and the legality of each complete hand
from the public scorer (``mjkit.score_batch``).  Only small problems are within reach.
"""

from __future__ import annotations

import numpy as np

import mjkit
from mjkit._kernels import layout as L
from mjkit.score import situation_row


class Oracle:
    """Optimal ``(p_win, expected counted fans given a win)`` for one player's situation."""

    def __init__(self, melds, rules, *, wild=None, lianla=0, bar=None, seat=0, rnd=0):
        self.melds = tuple(melds)
        self.rules = rules
        self.wild = wild
        self.lianla = lianla
        rs = mjkit.get_rules(rules)
        self.bar = rs.minimum if bar is None else bar
        self.seat = seat
        self.rnd = rnd
        self.fans = {}          # (counts14, x) -> counted fans of a legal win, or -1

    # -- the leaves ---------------------------------------------------------
    def _score(self, leaves):
        # rows in HandBatch's public layout: the situation, then counts and winning tile
        wild = -1 if self.wild is None else self.wild
        level = self.lianla if self.seat == 0 else 0
        row = situation_row(self.melds, self.seat, self.rnd, True, level, wild)
        rows = np.tile(row, (len(leaves), 1))
        rows[:, L.COUNTS:L.COUNTS + 34] = [counts for counts, _ in leaves]
        rows[:, L.WIN] = [x for _, x in leaves]
        res = mjkit.score_batch(mjkit.HandBatch(rows), rules=self.rules)
        for key, c, ok in zip(leaves, res.counted, res.is_win):
            self.fans[key] = int(c) if ok and c >= self.bar else -1

    # -- the recursion ---------------------------------------------------------
    def _v13(self, held, pool, r, collect, memo):
        if r == 0:
            return 0.0, 0.0
        key = (held, pool, r)
        if key in memo:
            return memo[key]
        n = sum(pool)
        sp = sf = 0.0
        for x in range(34):
            w = pool[x]
            if w == 0:
                continue
            h14 = list(held)
            h14[x] += 1
            h14 = tuple(h14)
            leaf = (h14, x)
            if collect:
                self._pending.add(leaf)
                f = -1
            else:
                f = self.fans[leaf]
            if f >= 0:
                sp += w
                sf += w * f
                continue
            p2 = list(pool)
            p2[x] -= 1
            p, fx = self._v14(h14, tuple(p2), r - 1, collect, memo)
            sp += w * p
            sf += w * fx
        out = (sp / n, sf / n) if n else (0.0, 0.0)
        memo[key] = out
        return out

    def _v14(self, h14, pool, r, collect, memo):
        best = (0.0, 0.0)
        first = True
        for d in range(34):
            if h14[d] == 0:
                continue
            h = list(h14)
            h[d] -= 1
            v = self._v13(tuple(h), pool, r, collect, memo)
            if first or v[0] > best[0] + 1e-15 or (v[0] > best[0] - 1e-15 and v[1] > best[1]):
                best = v
                first = False
        return best

    def solve(self, counts, pool, draws):
        """``{discard kind or None: (p_win, exp_fans given a win)}`` for 14 or 13 counts."""
        counts = tuple(int(v) for v in counts)
        pool = tuple(int(v) for v in pool)
        roots = []
        if (sum(counts) + 3 * len(self.melds)) % 3 == 2:
            for d in range(34):
                if counts[d]:
                    h = list(counts)
                    h[d] -= 1
                    roots.append((d, tuple(h)))
        else:
            roots.append((None, counts))
        self._pending = set()
        memo = {}
        for _, h in roots:
            self._v13(h, pool, draws, True, memo)
        todo = [k for k in self._pending if k not in self.fans]
        if todo:
            self._score(todo)
        memo = {}
        out = {}
        for d, h in roots:
            p, f = self._v13(h, pool, draws, False, memo)
            out[d] = (p, f / p if p > 0 else float("nan"))
        return out
