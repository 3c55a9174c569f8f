"""Build time and peak memory of the value index (``mjkit.value_index``), beside the targets.

Each build runs in a child process of its own, with a fresh, empty
``MJKIT_CACHE_DIR`` (so the index is really built, and saved, as on a first
``distance_to`` / ``targets`` call), and reports:

* ``build s``: wall seconds of ``value_index(rules)`` (building and saving;
  the import of mjkit excluded), target 30 s on 2 cores;
* ``cpu s``: the process's user + system seconds over the same call;
* ``peak MB``: the child's peak resident memory (``ru_maxrss``, the whole
  process: import, kernels, build), target 1 GB;
* with ``--phases``, the wall and CPU seconds of each step of the best build
  (``INDEX_INFO[rules]["phases"]``: the cache key with the families and
  symmetries it hashes, representatives, scoring the blocks, tied images,
  table and ids, expanding the ids, saving), for code that records them.

The numba cache is the usual one (warm: the kernels are loaded, not
compiled) unless ``--cold`` gives every child an empty ``NUMBA_CACHE_DIR``
(then compiling the scorer is part of ``build s``).  ``--peer DIR`` builds
the same index with another checkout of mjkit (e.g. a worktree of an older
commit) in the same run, for a before/after comparison.

    python benchmarks/bench_index.py                       # dazhong32, warm numba cache
    python benchmarks/bench_index.py gb dazhong --repeats 2
    python benchmarks/bench_index.py --peer /tmp/old-mjkit  # and the old code beside it
    python benchmarks/bench_index.py gb --phases            # and where the time goes
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

TARGET_S = 30.0
TARGET_MB = 1024.0
ROOT = Path(__file__).resolve().parents[1]

_CHILD = r"""
import json, resource, sys, time
t0 = time.perf_counter()
import mjkit
from mjkit import value_index as VI
def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime
c1, t1 = cpu(), time.perf_counter()
idx = VI.value_index(sys.argv[1], progress=False)
t2 = time.perf_counter()
info = VI.INDEX_INFO[idx.rules]
print(json.dumps({"import_s": t1 - t0, "build_s": t2 - t1, "cpu_s": cpu() - c1,
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "source": info["source"], "rows": len(idx.counted), "n": len(idx.ids),
                  "phases": info.get("phases"), "mjkit": mjkit.__file__}))
"""


def build_once(rules, root, cold):
    """One child process building ``rules``' index with the mjkit in ``root``; its figures."""
    with tempfile.TemporaryDirectory(prefix="mjkit-bench-index-") as tmp:
        env = dict(os.environ, MJKIT_CACHE_DIR=str(Path(tmp) / "cache"),
                   PYTHONPATH=os.pathsep.join([str(root)] + [p for p in os.environ.get(
                       "PYTHONPATH", "").split(os.pathsep) if p]))
        if cold:
            env["NUMBA_CACHE_DIR"] = str(Path(tmp) / "numba")
        out = subprocess.run([sys.executable, "-c", _CHILD, rules], env=env, cwd=tmp,
                             capture_output=True, text=True)
        if out.returncode != 0:
            raise RuntimeError(f"the build of {rules} with {root} failed:\n{out.stderr[-3000:]}")
        got = json.loads(out.stdout.strip().splitlines()[-1])
        if got["source"] != "built":
            raise RuntimeError(f"{rules}: the index was not built ({got['source']})")
        return got


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("rules", nargs="*", default=["dazhong32"])
    ap.add_argument("--repeats", type=int, default=1, help="builds per rule set (best kept)")
    ap.add_argument("--cold", action="store_true", help="an empty numba cache per build")
    ap.add_argument("--peer", type=Path, help="another mjkit checkout to build with too")
    ap.add_argument("--phases", action="store_true", help="the best build's steps too")
    args = ap.parse_args(argv)
    codes = [("this", ROOT)] + ([("peer", args.peer.resolve())] if args.peer else [])
    print(f"value index build, {os.cpu_count()} cores (load average "
          f"{os.getloadavg()[0]:.1f} at the start), numba cache "
          f"{'empty (cold)' if args.cold else 'warm'}, best of {args.repeats}")
    print(f"{'rules':<10} {'code':<5} {'build s':>8} {'target':>7} {'cpu s':>7} "
          f"{'peak MB':>8} {'target':>7} {'rows':>6}")
    for rules in args.rules:
        # the codes take turns, so that a change in the machine's load hits both alike
        runs = {name: [] for name, _ in codes}
        for _ in range(args.repeats):
            for name, root in codes:
                runs[name].append(build_once(rules, root, args.cold))
        for name, _ in codes:
            best = min(runs[name], key=lambda r: r["build_s"])
            peak = min(r["peak_mb"] for r in runs[name])
            ok = "ok" if best["build_s"] <= TARGET_S and peak <= TARGET_MB else "MISSED"
            print(f"{rules:<10} {name:<5} {best['build_s']:8.1f} {TARGET_S:7.0f} "
                  f"{best['cpu_s']:7.1f} {peak:8.0f} {TARGET_MB:7.0f} {best['rows']:6d}  {ok}",
                  flush=True)
            if args.phases:
                print_phases(best.get("phases"))


def print_phases(phases):
    """The steps of one build: wall and CPU seconds, and CPU / wall (2.0: both cores busy)."""
    if not phases:
        print("    (this code records no phases)")
        return
    for step, (wall, cpu) in phases.items():
        par = f"{cpu / wall:5.2f}" if wall > 0.005 else "    -"
        print(f"    {step:<24} {wall:7.2f} s wall {cpu:7.2f} s cpu  cpu/wall {par}")


if __name__ == "__main__":
    main()
