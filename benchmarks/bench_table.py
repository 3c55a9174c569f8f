"""The table's speed: a bot's decision, a learner's step, a hand of built-in players, the
first table.

    python benchmarks/bench_table.py [--hands 200] [--decisions 300] [--steps 300]
                                     [--seed 3] [--cold]

Prints each figure beside its target (issue 36 §5) and a peer from the same run:

* a decision of ``mjkit.bot.decide`` from an observation (strong, bar 32: ``dazhong32`` at
  连0拉0), median of ``--decisions`` warm decisions — target ≤ 2 ms; peer: the same
  decisions taken inside the kernel (a hand of four strong players at the same seeds,
  per decision);
* a learner's step (``Table.step``: the learner's discard, then the three strong players
  until the learner decides again), median over ``--steps`` steps — target ≤ 50 ms;
* hands of four built-in players at a ``Table`` (one Python call a hand) against
  ``mjkit.sim.play_hands`` on the same seeds (one thread): the engine is one kernel, so the
  table may not be slower than the simulator by more than its Python per hand;
* with ``--cold``: the first table on an empty numba cache (a fresh process with
  ``NUMBA_CACHE_DIR`` set to an empty folder) beside the first ``play_hands`` measured the
  same way — target: no slower.

Speed is measured here, never asserted in the tests.  Ratios differ between CPUs: say
which machine.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numba

import mjkit
from mjkit.bot import Bot
from mjkit.sim import play_hands
from mjkit.table import Table

DECIDE_TARGET_MS = 2.0
STEP_TARGET_MS = 50.0
SEATS = ("strong",) * 4


def _seat(bot, found):
    """A seat played by ``bot`` that keeps every observation it is asked about."""
    def keep(obs, legal):
        found.append(obs)
        return bot.decide(obs)
    return keep


def _decisions(n, seed):
    """The observations of the strong players' decisions in seeded hands, and how many hands
    they came from."""
    found = []
    hand = 0
    while len(found) < n:
        Table("dazhong32", seed=seed, hand=hand,
              seats=tuple(_seat(Bot("strong"), found) for _ in range(4)))
        hand += 1
    return found[:n], hand


def bench_decide(n, seed):
    obs, hands = _decisions(n, seed)
    bot = Bot("strong")
    bot.decide(obs[0])
    times = []
    for o in obs:
        bot.reset()
        t = time.perf_counter()
        bot.decide(o)
        times.append(time.perf_counter() - t)
    med = statistics.median(times) * 1000
    # peer: the kernel's own decisions, per decision, on the hands those decisions came from
    t = time.perf_counter()
    play_hands(hands, "dazhong32", seed=seed, dealer_policy="strong", others_policy="strong",
               wild="turned", exchange=True)
    kernel = (time.perf_counter() - t) / max(len(obs), 1) * 1000
    print(f"bot decision (strong, bar 32)     median {med:7.2f} ms   target <= "
          f"{DECIDE_TARGET_MS} ms   {'ok' if med <= DECIDE_TARGET_MS else 'MISSED'}   "
          f"peer: inside the kernel ~{kernel:.2f} ms a decision ({len(obs)} decisions)")


def bench_step(n, seed):
    times = []
    hand = 0
    bot = Bot("strong")
    while len(times) < n:
        t0 = time.perf_counter()
        t = Table("dazhong32", seed=seed, hand=hand, seats=("you", "strong", "strong", "strong"))
        first = time.perf_counter() - t0
        bot.reset()
        while not t.done and len(times) < n:
            act = bot.decide(t.observe(0))
            s = time.perf_counter()
            t.step(act)
            times.append(time.perf_counter() - s)
        hand += 1
    med = statistics.median(times) * 1000
    p90 = sorted(times)[int(0.9 * len(times))] * 1000
    print(f"learner's step (3 strong players) median {med:7.2f} ms   target <= "
          f"{STEP_TARGET_MS} ms   {'ok' if med <= STEP_TARGET_MS else 'MISSED'}   "
          f"(90th percentile {p90:.1f} ms; a new table {first * 1000:.0f} ms)")


def bench_hands(n, seed):
    for policy in ("efficiency", "strong"):
        m = n if policy == "efficiency" else max(n // 10, 5)
        kw = dict(seed=seed, dealer_policy=policy, others_policy=policy, wild="turned",
                  exchange=True)
        play_hands(2, "dazhong32", **kw)
        Table("dazhong32", seed=seed, seats=(policy,) * 4)
        numba.set_num_threads(1)
        try:
            t = time.perf_counter()
            play_hands(m, "dazhong32", **kw)
            sim = m / (time.perf_counter() - t)
        finally:
            numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
        t = time.perf_counter()
        for i in range(m):
            Table("dazhong32", seed=seed, hand=i, seats=(policy,) * 4)
        tab = m / (time.perf_counter() - t)
        print(f"hands of 4 {policy:<10} at a Table {tab:8.1f}/s   peer play_hands (1 thread) "
              f"{sim:8.1f}/s   table/simulator {tab / sim:.2f}")


# (name, the first table, the first play_hands of the same players): the simulator's default
# players with a learner at the dealer's seat, and the README's strong players
_COLD = (
    ("efficiency players",
     "from mjkit.table import Table; Table('dazhong32', seed=7, "
     "seats=('you', 'efficiency', 'efficiency', 'efficiency'))",
     "from mjkit.sim import play_hands; play_hands(10, 'dazhong32', seed=1, "
     "dealer_policy='efficiency', others_policy='efficiency')"),
    ("strong players",
     "from mjkit.table import Table; Table('dazhong32', seed=7, "
     "seats=('you', 'strong', 'strong_break', 'strong_break'))",
     "from mjkit.sim import play_hands; play_hands(10, 'dazhong32', seed=1, "
     "dealer_policy='strong', others_policy='strong_break')"),
)


def _first(code):
    """Seconds a fresh process on an empty numba cache takes to run ``code``."""
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, NUMBA_CACHE_DIR=d, MJKIT_QUIET="1")
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import mjkit; " + code], env=env,
                       check=True, capture_output=True)
        return time.perf_counter() - t


def bench_cold(which=None, repeats=1):
    """Each first table and the first play_hands of its players, ``repeats`` times in turn
    (table, play_hands, table, ...), the best of each: the machine's speed drifts."""
    for name, table, sim in _COLD:
        if which and which not in name:
            continue
        tab = base = float("inf")
        for _ in range(repeats):
            tab = min(tab, _first(table))
            base = min(base, _first(sim))
        print(f"first table of {name:<19} on an empty numba cache {tab:6.0f} s   target: no "
              f"slower than the first play_hands of the same players, {base:.0f} s "
              f"({'ok' if tab <= base * 1.05 else 'MISSED'}: within 5%)")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=200)
    ap.add_argument("--decisions", type=int, default=300)
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--cold", action="store_true",
                    help="also time the first table on an empty numba cache (minutes)")
    ap.add_argument("--cold-only", metavar="PLAYERS", nargs="?", const="players",
                    help="time only the first tables on an empty cache (of 'efficiency' or "
                         "'strong' players; both when no name is given)")
    ap.add_argument("--cold-repeats", type=int, default=1, metavar="N",
                    help="time each first table and first play_hands N times in turn, the "
                         "best of each (default 1)")
    args = ap.parse_args(argv)
    if args.cold_only:
        bench_cold(args.cold_only, args.cold_repeats)
        return
    print(f"mjkit {mjkit.__version__}, numba {numba.__version__}, "
          f"{numba.get_num_threads()} threads, {os.cpu_count()} CPUs")
    t = time.perf_counter()
    Table("dazhong32", seed=args.seed, seats=("you", "strong", "strong", "strong"))
    print(f"first table in this process (loading the kernels): {time.perf_counter() - t:.1f} s")
    bench_decide(args.decisions, args.seed)
    bench_step(args.steps, args.seed)
    bench_hands(args.hands, args.seed)
    if args.cold:
        bench_cold(repeats=args.cold_repeats)


if __name__ == "__main__":
    main()
