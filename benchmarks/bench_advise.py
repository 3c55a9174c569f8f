"""Advisor speed: deep-mode seconds per hand by distance, and fast-mode time per decision.

    python benchmarks/bench_advise.py [--hands 3] [--seed 1] [--repeats 2] [--quick]

Deep section (issue 14's target: at most 1 s per hand at distance 4 or less, one core,
warm caches).  For each of 连0 (bar 32) and 连8 (bar 0) in dazhong32, ``--hands`` closed
14-tile hands per distance 0..4: a seeded random complete closed hand
(``random_winning_hands``) with ``d + 1`` of its tiles swapped for tiles of a shuffled
wall (numpy ``default_rng(seed)``), kept when ``distance_to`` at that level's bar gives
exactly ``d``.  Each hand, 17 draws left, on one numba thread after a warm-up call:

- ``engine``: ``mjkit.winprob.win_chances(hand, 17, mode="deep")``, all 14 discards,
  the best of ``--repeats`` runs;
- ``advise``: ``mjkit.advise`` (the engine, then each discard's distance, useful tiles
  and targets), its first run on that hand;
- ``states`` explored and ``cut`` (the graph hit its node limit: ``p_win`` is then
  underestimated), with the best discard and its ``p_win``.

Each distance's median and maximum are printed beside the target.

Fast section: the time of one simulator decision (``_kernels.fast_play.fast_decide`` on a
14-tile hand: the nearest-target query of the value index, then the rating of all 14
discards and the choice), called from one jitted loop over seeded random starting hands
(the best of ``--repeats`` passes), with the query alone timed the same way, against the
50 us target (at a void bar, the tile-efficiency discard the simulator plays there without
the rating, too); then the time per decision in one-player games beside the efficiency
policy's, in the same run, and their ratio.

Speed is measured here, never asserted in the tests.
"""

import argparse
import time

import numba
import numpy as np

import mjkit
from mjkit import winprob as W
from mjkit._kernels import fast_play as KF
from mjkit.rules import get_rules
from mjkit.sim.solo import solo_games
from mjkit.random_hands import random_closed_counts, random_winning_hands
from mjkit.tiles import N_KINDS, tiles_of_counts, tiles_to_str

RULES = "dazhong32"
DRAWS = 17
LEVELS = (0, 8)
DISTANCES = range(5)
TARGET_S = 1.0        # deep mode, per hand, distance <= 4 (issue 14)
TARGET_FAST_US = 50.0  # fast mode, per decision of 14 discards (issue 14)


def _closed_wins(seed):
    """Complete closed 14-tile hands as counts, endlessly (seeded)."""
    batch = 0
    while True:
        for text in random_winning_hands(200, seed=seed * 1000 + batch):
            hand = mjkit.parse_hand(text)
            if not hand.melds:
                yield np.bincount(hand.concealed, minlength=N_KINDS)[:N_KINDS]
        batch += 1


def hands_by_distance(level, per, seed, max_tries=20_000):
    """``{d: [counts, ...]}``: ``per`` hands at each distance 0..4 at ``level``'s bar."""
    rng = np.random.default_rng(seed)
    wins = _closed_wins(seed)
    found = {d: [] for d in DISTANCES}
    for _ in range(max_tries):
        if all(len(v) >= per for v in found.values()):
            break
        base = next(wins)
        want = int(rng.choice([d for d in DISTANCES if len(found[d]) < per]))
        c = base.copy()
        # swap want + 1 tiles: out of the hand, in from what is left of the wall
        for t in rng.choice(np.repeat(np.arange(N_KINDS), c), size=want + 1, replace=False):
            c[t] -= 1
        wall = np.repeat(np.arange(N_KINDS), 4 - base)
        for t in rng.choice(wall, size=want + 1, replace=False):
            c[t] += 1
        d = mjkit.distance_to(c, rules=RULES, lianla=level, examples=1).distance
        if d is not None and 0 <= d <= 4 and len(found[d]) < per:
            found[d].append(c)
    return found


def _timed(fn):
    t = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t


def bench_deep(args):
    per = 1 if args.quick else args.hands
    repeats = 1 if args.quick else args.repeats
    print(f"== deep mode: {RULES}, {DRAWS} draws, {per} hand(s) per distance, "
          f"{numba.get_num_threads()} numba thread(s) ==")
    warm = random_closed_counts(1, args.seed, n_tiles=14)[0]
    for level in LEVELS:                    # compile / load the kernels and the index
        W.win_chances(warm, DRAWS, RULES, lianla=level)
        mjkit.advise(warm, RULES, lianla=level, draws_left=DRAWS)
    head = (f"{'level':>5} {'dist':>4}  {'hand':<20}{'engine s':>9}{'advise s':>9}"
            f"{'states':>9} {'cut':<4} best  p_win")
    summary, not_probability = [], []
    for level in LEVELS:
        found = hands_by_distance(level, per, args.seed + level)
        print()
        print(f"连{level}拉{level} (the hand needs {mjkit.threshold(RULES, level)} fans)")
        print(head)
        for d in DISTANCES:
            engine_s, advise_s = [], []
            for c in found[d]:
                adv, a_s = _timed(lambda: mjkit.advise(c, RULES, lianla=level, draws_left=DRAWS))
                best = float("inf")
                for _ in range(repeats):
                    w, s = _timed(lambda: W.win_chances(c, DRAWS, RULES, lianla=level))
                    best = min(best, s)
                engine_s.append(best)
                advise_s.append(a_s)
                if not 0.0 <= w.best.p_win <= 1.0:
                    not_probability.append((level, tiles_to_str(tiles_of_counts(c)), w.best))
                print(f"{level:>5} {d:>4}  {tiles_to_str(tiles_of_counts(c)):<20}{best:>9.3f}"
                      f"{a_s:>9.3f}{w.states:>9,} {'yes' if w.cut else 'no':<4} "
                      f"{w.best.tile:<5} {w.best.p_win:.4f}")
            if len(found[d]) < per:
                print(f"{level:>5} {d:>4}  only {len(found[d])} hand(s) found at this distance")
            if engine_s:
                summary.append((level, d, engine_s, advise_s))
    print()
    print(f"per hand, seconds (target <= {TARGET_S:g} s at distance <= 4, one core, warm):")
    print(f"{'level':>5} {'dist':>4} {'hands':>5} {'engine med':>11} {'engine max':>11} "
          f"{'advise med':>11} {'advise max':>11}  advise within target")
    over = 0
    for level, d, e, a in summary:
        ok = max(a) <= TARGET_S
        over += not ok
        print(f"{level:>5} {d:>4} {len(e):>5} {np.median(e):>11.3f} {max(e):>11.3f} "
              f"{np.median(a):>11.3f} {max(a):>11.3f}  {'yes' if ok else 'NO'}")
    n = sum(len(e) for _, _, e, _ in summary)
    print(f"{n} hands: every advise call within {TARGET_S:g} s" if not over else
          f"{over} of {len(summary)} (level, distance) groups have a hand over {TARGET_S:g} s")
    for level, text, c in not_probability:
        print(f"engine error: 连{level} {text}, discard {c.tile}: p_win {c.p_win:.4f} is not a "
              "probability")


@numba.njit
def _query_loop(hands, pools, ft, fs, found):
    for i in range(hands.shape[0]):
        found[i] = KF.fast_targets(hands[i], pools[i], np.int64(-1), ft, fs)


@numba.njit
def _void_loop(hands, pools, ft, fs, chosen):
    for i in range(hands.shape[0]):
        chosen[i] = KF.void_discard(hands[i], pools[i], np.int64(-1), ft, fs)


@numba.njit
def _decide_loop(hands, pools, draws, ft, fs, chosen):
    for i in range(hands.shape[0]):
        chosen[i] = KF.fast_decide(hands[i], pools[i], draws, np.int64(-1), ft, fs)


def bench_fast(args):
    print("== fast mode (the simulator's decisions) ==")
    n = 50 if args.quick else 500
    hands = np.ascontiguousarray(random_closed_counts(n, args.seed, n_tiles=14), np.int64)
    pools = np.ascontiguousarray(4 - hands, np.int64)
    rs = get_rules(RULES)
    fs = W.fast_scratch()
    found = np.zeros(n, np.int64)
    chosen = np.zeros(n, np.int64)
    draws = np.int64(DRAWS)
    for level in LEVELS:
        bar = mjkit.threshold(RULES, level)    # the hand's own need at this level
        ft = W.fast_tables(rs, bar)
        _query_loop(hands[:2], pools[:2], ft, fs, found)
        _decide_loop(hands[:2], pools[:2], draws, ft, fs, chosen)
        q = d = float("inf")
        for _ in range(max(args.repeats, 1)):
            t = time.perf_counter()
            _query_loop(hands, pools, ft, fs, found)
            t1 = time.perf_counter()
            _decide_loop(hands, pools, draws, ft, fs, chosen)
            t2 = time.perf_counter()
            q, d = min(q, t1 - t), min(d, t2 - t1)
        q_us, total = q / n * 1e6, d / n * 1e6
        print(f"连{level}拉{level} (bar {bar}), {n} random 14-tile deals, 17 draws, in one kernel "
              f"call: {total:,.0f} us per decision = nearest-target query {q_us:,.0f} us + "
              f"rating and choice {total - q_us:,.0f} us ({found.mean():.0f} targets on "
              f"average, at most {found.max()}); target <= {TARGET_FAST_US:g} us: "
              f"{'met' if total <= TARGET_FAST_US else 'not met'}")
        if ft.void:
            _void_loop(hands[:2], pools[:2], ft, fs, chosen)
            v = float("inf")
            for _ in range(max(args.repeats, 1)):
                t = time.perf_counter()
                _void_loop(hands, pools, ft, fs, chosen)
                v = min(v, time.perf_counter() - t)
            v_us = v / n * 1e6
            print(f"  a void bar (every complete hand reaches it): the simulator's decision "
                  f"is the tile-efficiency discard, {v_us:,.0f} us (the rating above is "
                  f"computed only for a p_win); target <= {TARGET_FAST_US:g} us: "
                  f"{'met' if v_us <= TARGET_FAST_US else 'not met'}")
    games = 40 if args.quick else 300
    print(f"in one-player games ({games} games, seed {args.seed}; the batch judge of each "
          "draw included), us per decision against the efficiency policy (the simulator's "
          "fastest player), in the same run:")
    for level in LEVELS:
        bar = mjkit.threshold(RULES, level)
        per = {}
        for pol in ("efficiency", "fast"):
            solo_games(pol, 5, bar=bar, seed=args.seed + 99, progress=False)     # warm
            r = solo_games(pol, games, bar=bar, seed=args.seed, progress=False)
            decisions = int(np.where(r.won_at >= 0, r.won_at, r.draws).sum())
            per[pol] = r.seconds / max(decisions, 1) * 1e6
        print(f"  bar {bar:>2}: fast {per['fast']:,.0f} us, efficiency "
              f"{per['efficiency']:,.1f} us: fast / efficiency = "
              f"{per['fast'] / per['efficiency']:,.1f}x; fast against its target: "
              f"{per['fast'] / TARGET_FAST_US:,.1f}x")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=3, help="hands per distance and level")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--quick", action="store_true",
                    help="one hand per distance, one run each, fewer fast-mode hands")
    args = ap.parse_args(argv)
    threads = numba.get_num_threads()
    numba.set_num_threads(1)                # the targets are for one core
    try:
        print(f"mjkit {mjkit.__version__}, numba {numba.__version__}, timed on 1 of "
              f"{threads} numba threads")
        bench_deep(args)
        print()
        bench_fast(args)
    finally:
        numba.set_num_threads(threads)


if __name__ == "__main__":
    main()
