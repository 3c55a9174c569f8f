"""The simulator's speed before and after a change: hands a second on one thread, same seeds.

    python benchmarks/bench_engine_speed.py [OTHER_CHECKOUT] [--repeats 3]

Plays ``mjkit.sim.play_hands`` of each built-in policy (every seat; ``dazhong32`` at seed
000's table: a turned 财神, 起手换牌) on one thread, best of ``--repeats``, in this checkout
and, given the path of another checkout of mjkit (e.g. ``git worktree add /tmp/old
5e946ee``), in that one too, each in its own process: the target of issue 36 is that the
engine with built-in players be no slower than before.  The two checkouts take turns, one
process each per repeat (this, other, this, other, ...), and each keeps its best: this
machine's speed drifts by a tenth or more over a minute, and runs of one checkout after
the other measured that drift, not the code.  Run it on a quiet machine.
"""

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

CHILD = r"""
import json, sys, time
sys.path.insert(0, sys.argv[1])
import numba
numba.set_num_threads(1)
from mjkit.sim import play_hands
TABLE = dict(rules="dazhong32", wild="turned", exchange=True)
cfg = [("efficiency", 3000), ("value", 3000), ("strong", 150)]
for pol, n in cfg:
    play_hands(4, dealer_policy=pol, others_policy=pol, seed=1, **TABLE)
res = {}
for rep in range(int(sys.argv[2])):
    for pol, n in cfg:
        t = time.perf_counter()
        play_hands(n, dealer_policy=pol, others_policy=pol, seed=1, **TABLE)
        res[pol] = max(res.get(pol, 0.0), n / (time.perf_counter() - t))
print(json.dumps(res))
"""


def rates(root, repeats):
    env = dict(os.environ)
    if root != HERE.parent:
        # the other checkout's kernels in a cache of their own
        env["NUMBA_CACHE_DIR"] = str(Path(root) / ".bench-numba-cache")
    out = subprocess.run([sys.executable, "-c", CHILD, str(root), str(repeats)], env=env,
                         check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _best(into, got):
    for pol, r in got.items():
        into[pol] = max(into.get(pol, 0.0), r)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("other", nargs="?", help="another checkout of mjkit to compare with")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    now, before = {}, ({} if args.other else None)
    for _ in range(args.repeats):          # alternating: the machine's drift hits both
        _best(now, rates(HERE.parent, 1))
        if args.other:
            _best(before, rates(Path(args.other).resolve(), 1))
    print(f"{'policy':<12}{'this checkout':>16}{'other':>12}{'ratio':>8}   target: ratio >= 1")
    for pol, r in now.items():
        if before:
            ratio = r / before[pol]
            print(f"{pol:<12}{r:14.1f}/s{before[pol]:10.1f}/s{ratio:8.2f}   "
                  f"{'ok' if ratio >= 0.97 else 'MISSED'}")
        else:
            print(f"{pol:<12}{r:14.1f}/s")


if __name__ == "__main__":
    main()
