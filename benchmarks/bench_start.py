"""Time to the first answer: each entry point in a fresh process, cold and warm.

    python benchmarks/bench_start.py [--calls score,shanten,waits,play_hands,distance_to]
                                     [--profile] [--repeats 2]

For every call, a fresh numba cache folder (``NUMBA_CACHE_DIR``) is made, then

* **cold**: a new Python process imports mjkit and makes the call once, so numba
  compiles everything that call needs (the message mjkit prints before compiling
  is part of it);
* **warm**: another new process makes the same call with the cache the cold run left
  (the best of ``--repeats`` runs);

both timed from before ``import mjkit`` to the answer (interpreter start-up excluded),
and the CLI's ``python -m mjkit score`` timed whole, as a user sees it.  ``--profile``
adds, for each cold run, what numba compiled and for how long (exclusive seconds per
function, from numba's compile events), so the next person knows where the time goes.

The value index ``distance_to`` reads is built first in the ordinary mjkit cache
(``MJKIT_CACHE_DIR``) and its build is not timed here (``bench_index.py`` times it).
Targets (issue 13): first ``score`` <= 10 s cold and <= 1 s warm, import included;
``shanten``, ``waits``, ``play_hands``, ``distance_to`` <= 20 s cold each.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

CALLS = {
    "score": ("mjkit.score('123m456p789s123s55p')", 10.0, 1.0),
    "shanten": ("mjkit.shanten('123m456p789s1236s')", 20.0, 1.0),
    "waits": ("mjkit.waits('123m456p789s1236s')", 20.0, 1.0),
    "play_hands": ("import mjkit.sim; mjkit.sim.play_hands(20, 'dazhong32', seed=1)", 20.0, 1.0),
    "distance_to": ("mjkit.distance_to('19m19p19s1234567z', rules='gb')", 20.0, 1.0),
}

# Runs in the child: times the call and, with a profile, records numba's compile events.
_CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
events = []
if {profile}:
    from numba.core import event

    class _Listener(event.Listener):
        def __init__(self):
            self.stack = []

        def on_start(self, ev):
            d = ev.data.get("dispatcher")
            name = d.py_func.__module__ + "." + d.py_func.__qualname__ if d else "?"
            self.stack.append([name, time.perf_counter(), 0.0])

        def on_end(self, ev):
            name, start, child = self.stack.pop()
            took = time.perf_counter() - start
            events.append((name, took - child))
            if self.stack:
                self.stack[-1][2] += took

    event.register("numba:compile", _Listener())
import mjkit
{call}
took = time.perf_counter() - t0
print("BENCH" + json.dumps({{"seconds": took, "events": events}}))
"""


def run_child(call, cache, profile=False):
    env = dict(os.environ, NUMBA_CACHE_DIR=cache)
    code = _CHILD.format(call=call, profile=bool(profile))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    if out.returncode:
        raise SystemExit(f"the call failed:\n{call}\n{out.stderr[-3000:]}")
    line = [s for s in out.stdout.splitlines() if s.startswith("BENCH")][-1]
    return json.loads(line[5:])


def run_cli(cache):
    env = dict(os.environ, NUMBA_CACHE_DIR=cache)
    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "mjkit", "score", "123m456p789s123s55p"], env=env,
                   check=True, capture_output=True)
    return time.perf_counter() - t


def profile_lines(events, top=12):
    """Exclusive compile seconds per function (compilations counted), largest first."""
    by = {}
    for name, sec in events:
        s, k = by.get(name, (0.0, 0))
        by[name] = (s + sec, k + 1)
    rows = sorted(by.items(), key=lambda kv: -kv[1][0])
    total = sum(s for s, _ in by.values())
    lines = [f"    numba compiled {sum(k for _, k in by.values())} specializations of "
             f"{len(by)} functions in {total:.1f} s; the largest (exclusive s, compilations):"]
    for name, (s, k) in rows[:top]:
        lines.append(f"      {s:6.2f}  x{k:<3d} {name.replace('mjkit._kernels.', '')}")
    return lines


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", default=",".join(CALLS))
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--repeats", type=int, default=2)
    args = ap.parse_args(argv)
    names = [c for c in args.calls.split(",") if c]
    unknown = [c for c in names if c not in CALLS]
    if unknown:
        ap.error(f"unknown call(s) {unknown}; choose from {list(CALLS)}")

    import numba

    import mjkit

    print(f"mjkit {mjkit.__version__}, numba {numba.__version__}, {os.cpu_count()} CPUs; "
          "each row: a fresh numba cache; seconds from before `import mjkit` to the answer")
    if "distance_to" in names:
        # the index is data, not compilation: build it (if missing) outside the timed runs
        with tempfile.TemporaryDirectory() as cache:
            t = time.perf_counter()
            run_child(CALLS["distance_to"][0], cache)
            print(f"(value index ready in the mjkit cache: {time.perf_counter() - t:.0f} s, "
                  "compilation included, not counted below)")

    print(f"{'call':<14}{'cold s':>9}{'target':>8}{'warm s':>9}{'target':>8}")
    results = {}
    for name in names:
        call, cold_target, warm_target = CALLS[name]
        with tempfile.TemporaryDirectory(prefix="mjkit-bench-nc-") as cache:
            cold = run_child(call, cache, profile=args.profile)
            warm = min(run_child(call, cache)["seconds"] for _ in range(max(1, args.repeats)))
            cli = min(run_cli(cache) for _ in range(max(1, args.repeats))) if name == "score" else None
        results[name] = (cold["seconds"], warm)
        print(f"{name:<14}{cold['seconds']:>9.1f}{cold_target:>8.0f}{warm:>9.2f}{warm_target:>8.0f}"
              + (f"   CLI `python -m mjkit score` warm, whole process: {cli:.2f} s" if cli else ""))
        if args.profile:
            print("\n".join(profile_lines(cold["events"])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
