"""Fan-view latency: how long the hand builder takes to redraw after a click.

    python benchmarks/bench_widgets.py [--hands 200] [--seed 1]

The issue's budget is 100 ms from a change to the updated fan view.  For
random complete hands (14 tiles: fans, 不计, bar, P胡 verdict) and the same
hands less their winning tile (13 tiles: shanten, waits with their values and
the distance to the bar), it times ``fan_view(state).to_html()`` and a whole
``HandBuilder`` click (state, palette, hand row, controls and view), prints
median / p95 / max against the budget, and the plain ``mjkit.score`` call as
the peer the view is built on (the view's cost over the engine's).
"""

import argparse
import statistics
import time

import mjkit
from mjkit.random_hands import random_winning_hands
from mjkit.widgets import BuilderState, HandBuilder, fan_view

BUDGET_MS = 100.0


def stats(ms):
    ms = sorted(ms)
    return statistics.median(ms), ms[int(0.95 * (len(ms) - 1))], ms[-1]


def row(label, ms):
    med, p95, top = stats(ms)
    print(f"{label:<44}{med:>9.1f}{p95:>9.1f}{top:>9.1f}{BUDGET_MS / p95:>10.1f}x")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    states = []
    for text in random_winning_hands(args.hands * 3, seed=args.seed):
        h = mjkit.parse_hand(text)
        if h.flowers or h.melds:
            continue
        s = BuilderState()
        rest = list(h.concealed)
        rest.remove(h.win_tile)
        try:
            for t in rest + [h.win_tile]:
                s = s.add(t)
        except mjkit.HandError:
            continue
        states.append(s)
        if len(states) == args.hands:
            break
    # warm up: compile or load the kernels, memory-map the value index
    fan_view(states[0]).to_html()
    fan_view(states[0].remove(len(states[0].tiles) - 1)).to_html()
    print(f"{len(states)} closed random hands; ms per update "
          f"(budget {BUDGET_MS:.0f} ms, ratio = budget / p95)")
    print(f"{'':<44}{'median':>9}{'p95':>9}{'max':>9}{'vs budget':>11}")
    peer, full, ready, click = [], [], [], []
    for s in states:
        t = time.perf_counter()
        mjkit.score(s.notation(), rules=s.rules, **s.situation())
        peer.append(1000 * (time.perf_counter() - t))
        t = time.perf_counter()
        fan_view(s).to_html()
        full.append(1000 * (time.perf_counter() - t))
        s13 = s.remove(len(s.tiles) - 1)
        t = time.perf_counter()
        fan_view(s13).to_html()
        ready.append(1000 * (time.perf_counter() - t))
    b = HandBuilder()
    for s in states[:50]:
        b._apply(s.remove(len(s.tiles) - 1))
        t = time.perf_counter()
        b.click_palette(s.tiles[-1])
        click.append(1000 * (time.perf_counter() - t))
    row("mjkit.score alone (the engine, peer)", peer)
    row("fan view, 14 tiles (fans, 不计, bar)", full)
    row("fan view, 13 tiles (shanten, waits, distance)", ready)
    row("HandBuilder click, whole widget redraw", click)


if __name__ == "__main__":
    main()
