"""Fan-view latency: how long the hand builder takes to redraw after a click.

    python benchmarks/bench_widgets.py [--hands 200] [--seed 1] [--chance-hands 20] [--draws 12]

The issue's budget is 100 ms from a change to the updated fan view.  For
random complete hands (14 tiles: fans, 不计, bar, P胡 verdict) and the same
hands less their winning tile (13 tiles: shanten, waits with their values and
the distance to the bar), it times ``fan_view(state).to_html()`` and a whole
``HandBuilder`` click (state, palette, hand row, controls and view), prints
median / p95 / max against the budget, and the plain ``mjkit.score`` call as
the peer the view is built on (the view's cost over the engine's).

The win chances (issue 14): for 14-tile hands at distance 2 from a hand worth
the bar (seeded: random complete hands with two tiles exchanged), at
``--draws`` draws, warm (kernels compiled, value index loaded, no cached
answer), it times the click on the 14th tile to "computing…" (budget 100 ms)
and to the chances drawn (budget 1 s, the advisor's deep-mode target), with
:func:`mjkit.advise` alone on the same hands as the peer, and the longest the
event loop (this thread, ticking every millisecond) waited while the worker
computed.
"""

import argparse
import random
import statistics
import time

import mjkit
from mjkit.random_hands import random_winning_hands
from mjkit.widgets import BuilderState, HandBuilder, fan_view
from mjkit.widgets.chances import AdviceCache, ChanceWorker

BUDGET_MS = 100.0
RESULT_BUDGET_MS = 1000.0


def stats(ms):
    ms = sorted(ms)
    return statistics.median(ms), ms[int(0.95 * (len(ms) - 1))], ms[-1]


def row(label, ms, budget=BUDGET_MS):
    med, p95, top = stats(ms)
    print(f"{label:<44}{med:>9.1f}{p95:>9.1f}{top:>9.1f}{budget / p95:>10.1f}x")


def distance2_states(n, seed, lianla=0):
    """``n`` closed 14-tile builder states at distance 2 from a hand worth the bar, not wins."""
    rng = random.Random(seed)
    out = []
    for text in random_winning_hands(n * 40, seed=seed):
        h = mjkit.parse_hand(text)
        if h.flowers or h.melds:
            continue
        tiles = list(h.concealed)
        for i in sorted(rng.sample(range(14), 2), reverse=True):
            tiles.pop(i)
        while len(tiles) < 14:
            k = rng.randrange(34)
            if tiles.count(k) < 4:
                tiles.append(k)
        s = BuilderState(lianla=lianla)
        for t in tiles:
            s = s.add(t)
        if fan_view(s, distance=False).wants_chances and \
                mjkit.distance_to(tiles, None, rules=s.rules, lianla=lianla).distance == 2:
            out.append(s)
            if len(out) == n:
                break
    return out


def chance_latency(states, draws):
    """``(to computing, to result, engine alone, longest event-loop wait)`` in ms per hand."""
    from mjkit.advise import advise

    b = HandBuilder(draws=draws, chances=ChanceWorker(cache=AdviceCache()))
    computing, result, peer, stall = [], [], [], []
    for s in states:
        # the peer next to each measure, so both see the same load on a shared machine
        # (the advisor keeps no answers between calls: a second call is no faster)
        t = time.perf_counter()
        advise(list(s.tiles), s.rules, s.lianla, draws_left=draws)
        peer.append(1000 * (time.perf_counter() - t))
        b._apply(s.remove(len(s.tiles) - 1))     # the 13 tiles before, their chances drawn
        b.wait_chances(600)
        b.click_palette(s.tiles[-1])
        if b.view.chances_status != "computing":
            continue                             # the same 14 tiles came twice: cached
        computing.append(b.last_update_ms)
        gap, last = 0.0, time.perf_counter()
        while b.chances.busy:
            time.sleep(0.001)
            now = time.perf_counter()
            gap, last = max(gap, now - last), now
        result.append(b.last_chances_ms)
        stall.append(1000 * gap)
    b.close()
    return computing, result, peer, stall


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--chance-hands", type=int, default=20)
    ap.add_argument("--draws", type=int, default=12)
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
    b = HandBuilder(chances=False)
    for s in states[:50]:
        b._apply(s.remove(len(s.tiles) - 1))
        t = time.perf_counter()
        b.click_palette(s.tiles[-1])
        click.append(1000 * (time.perf_counter() - t))
    row("mjkit.score alone (the engine, peer)", peer)
    row("fan view, 14 tiles (fans, 不计, bar)", full)
    row("fan view, 13 tiles (shanten, waits, distance)", ready)
    row("HandBuilder click, whole redraw (no chances)", click)
    if args.chance_hands:
        hands = distance2_states(args.chance_hands + 1, args.seed)
        chance_latency(hands[:1], args.draws)    # warm up: the advisor's kernels
        computing, result, peer, stall = chance_latency(hands[1:], args.draws)
        print(f"\nwin chances, {len(result)} hands at distance 2, {args.draws} draws, warm "
              f"(ratio = budget / p95)")
        row("click to 'computing…' (budget 100 ms)", computing)
        row("click to chances drawn (budget 1 s)", result, RESULT_BUDGET_MS)
        row("mjkit.advise alone (the engine, peer)", peer, RESULT_BUDGET_MS)
        row("longest event-loop wait while computing", stall)


if __name__ == "__main__":
    main()
