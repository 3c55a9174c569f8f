"""Name numba's compiled functions in a ``perf`` profile of the simulator.

    perf record -F 999 -g -o sim.perf python benchmarks/perf_map.py [--hands 300] [--level 0]
    perf report -i sim.perf --no-children --sort symbol

``perf`` cannot name code numba compiled (or loaded from its cache) at run time: it
looks such addresses up in ``/tmp/perf-<pid>.map``.  This script plays ``--hands``
hands with the default study's players (``mjkit.sim.DEFAULT_STUDY``) on one thread,
then writes that map from the addresses of every symbol numba's JIT engine holds (each
function's size is taken as the gap to the next symbol).  Its own timing is printed
but is no benchmark (``bench_sim.py`` is): the profile is for finding where the time
goes.  That is how the reference counts of the query's innermost loops were found (a
quarter of a ``strong`` player's time: ``NRT_incref`` / ``NRT_decref``); a function
that calls them can be found by breaking on their address in ``gdb`` and reading the
return address at ``$rsp``.
"""

import argparse
import os
import time

import numba

from mjkit.sim import DEFAULT_STUDY, play_hands


def write_perf_map(path=None):
    """Write ``perf``'s map of numba's compiled symbols (``/tmp/perf-<pid>.map`` by
    default); returns the path and the number of symbols."""
    from numba.core.registry import cpu_target
    engine = cpu_target.target_context.codegen()._engine
    addresses = {}
    for name in list(engine._defined_symbols):
        try:
            a = engine.get_function_address(name)
        except Exception:       # a data symbol, or one not finalised: not code to name
            continue
        if a:
            addresses[a] = name
    items = sorted(addresses.items())
    path = path or f"/tmp/perf-{os.getpid()}.map"
    with open(path, "w") as f:
        for i, (a, name) in enumerate(items):
            size = min(items[i + 1][0] - a, 1 << 18) if i + 1 < len(items) else 1 << 12
            f.write(f"{a:x} {size:x} {name}\n")
    return path, len(items)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=300)
    ap.add_argument("--level", type=int, default=0)
    args = ap.parse_args(argv)
    study = {k: v for k, v in DEFAULT_STUDY.items() if k not in ("levels", "hands")}
    numba.set_num_threads(1)
    play_hands(5, level=args.level, **study)          # compile or load first
    t = time.perf_counter()
    play_hands(args.hands, level=args.level, **study)
    dt = time.perf_counter() - t
    print(f"{args.hands} hands at 连{args.level} on one thread: {args.hands / dt:.1f} a second")
    path, n = write_perf_map()
    print(f"{n} numba symbols named in {path}")


if __name__ == "__main__":
    main()
