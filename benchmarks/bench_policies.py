"""Strength and calibration of the discard policies in one-player games (issue 14, part 2).

Every policy plays the same seeded walls (``mjkit.sim.solo``): 14 tiles dealt, then
``--draws`` draws, a legal self-drawn win at the bar or nothing.  Prints, per bar, each
policy's win rate with its 95% Wilson interval, and for the advisor the mean predicted
``p_win`` at the first decision beside the realised rate (calibration: the prediction
should fall inside the interval, and the interval be narrower than +-15% of the rate).

Games are played in chunks; each finished chunk is appended to ``--out`` (JSON lines, one
sealed record per chunk) and a rerun skips the chunks already there, so a long run never
loses finished work.

    python benchmarks/bench_policies.py --games 400 --bars 0 8 16 32
    python benchmarks/bench_policies.py --games 60 --policies advisor --bars 0 --draws 17
    python benchmarks/bench_policies.py --games 4000 --policies efficiency value distance fast \
        --cap distance=1000 --bars 0 8 16 24 32

After each bar, ``fast`` and ``advisor`` are compared with every other policy on the games
both played (the same walls): the difference of the win rates with its 95% interval.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import numpy as np
from tqdm.auto import tqdm

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mjkit import storage  # noqa: E402
from mjkit._kernels.fast_play import FAST_PLAY_VERSION  # noqa: E402
from mjkit.fast_calibration import fit_info  # noqa: E402
from mjkit.sim.solo import SOLO_POLICIES, solo_games, wilson  # noqa: E402

CHUNK = 20


def _records(path):
    """Chunks already played (records whose digest checks; damaged lines are dropped)."""
    out = {}
    if not path.exists():
        return out
    for line in path.read_text().splitlines():
        try:
            body = storage.unseal(json.loads(line))
            key = (body["policy"], body["bar"], body["draws"], body["seed"], body["first"],
                   body["n"], body.get("calibration", ""))
        except (ValueError, KeyError, TypeError):     # DamagedFile is a ValueError
            continue
        out[key] = body
    return out


def _append(path, body):
    with open(path, "a") as f:
        f.write(json.dumps(storage.seal(body), sort_keys=True) + "\n")
        f.flush()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--bars", type=int, nargs="+", default=[0, 8, 16, 32])
    ap.add_argument("--policies", nargs="+", default=list(SOLO_POLICIES),
                    choices=SOLO_POLICIES)
    ap.add_argument("--draws", type=int, default=17)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--rules", default="dazhong32")
    ap.add_argument("--out", type=Path, default=Path("policies.jsonl"))
    ap.add_argument("--cap", nargs="*", default=[], metavar="POLICY=GAMES",
                    help="fewer games for slow policies, e.g. distance=1000 advisor=200 "
                         "(the paired table compares the games both played)")
    args = ap.parse_args(argv)
    caps = {}
    for item in args.cap:
        name, _, num = item.partition("=")
        if name not in SOLO_POLICIES or not num.isdigit():
            ap.error(f"--cap wants POLICY=GAMES, got {item!r}")
        caps[name] = int(num)
    done = _records(args.out)
    rows = []
    for bar in args.bars:
        per_game = {}
        for pol in args.policies:
            won = counted = 0
            preds = []
            n = 0
            wins = []
            games = min(args.games, caps.get(pol, args.games))
            for first in tqdm(range(0, games, CHUNK), desc=f"{pol} at {bar}", unit="chunk",
                              leave=False):
                m = min(CHUNK, games - first)
                # the fast mode's games are those of one version of its play, and its
                # predictions those of one calibration table
                calib = (f"{fit_info()['digest']}/play{FAST_PLAY_VERSION}" if pol == "fast"
                         else "")
                key = (pol, bar, args.draws, args.seed, first, m, calib)
                body = done.get(key)
                if body is None:
                    r = solo_games(pol, m, bar=bar, draws=args.draws, rules=args.rules,
                                   seed=args.seed, first=first, progress=False)
                    body = {"policy": pol, "bar": bar, "draws": args.draws,
                            "seed": args.seed, "first": first, "n": m, "calibration": calib,
                            "won": r.won.astype(int).tolist(),
                            "counted": r.counted.tolist(),
                            "first_p": [None if math.isnan(x) else float(x)
                                        for x in r.first_p],
                            "seconds": r.seconds}
                    _append(args.out, body)
                n += m
                wins += body["won"]
                won += sum(body["won"])
                counted += sum(c for c, w in zip(body["counted"], body["won"]) if w)
                preds += [x for x in body["first_p"] if x is not None]
            lo, hi = wilson(won, n)
            rate = won / n
            row = {"bar": bar, "policy": pol, "games": n, "rate": rate, "lo": lo, "hi": hi,
                   "fans": counted / won if won else float("nan")}
            if preds:
                row["predicted"] = float(np.mean(preds))
            rows.append(row)
            per_game[pol] = np.array(wins, bool)
            _print_row(row)
        _print_paired(bar, per_game)
    return rows


def _print_paired(bar, per_game):
    """Each of fast and advisor against every other policy, on the games both played."""
    for a in ("fast", "advisor"):
        if a not in per_game:
            continue
        for b, wb in per_game.items():
            if b == a:
                continue
            n = min(len(per_game[a]), len(wb))
            if n == 0:
                continue
            x, y = per_game[a][:n], wb[:n]
            only_a, only_b = int((x & ~y).sum()), int((y & ~x).sum())
            d = (only_a - only_b) / n
            # the paired difference of two rates: its normal 95% interval
            half = 1.96 * math.sqrt(max(only_a + only_b - n * d * d, 0.0)) / n
            verdict = ("higher" if d - half > 0 else "lower" if d + half < 0
                       else "no difference shown")
            print(f"bar {bar:>2}  {a} - {b}: {d:+.4f} [{d - half:+.4f}, {d + half:+.4f}] on "
                  f"{n} games ({only_a} won by {a} only, {only_b} by {b} only): {verdict}",
                  flush=True)


def _print_row(r):
    pred = ""
    if "predicted" in r:
        inside = r["lo"] <= r["predicted"] <= r["hi"]
        narrow = (r["hi"] - r["lo"]) / 2 <= 0.15 * r["rate"] if r["rate"] > 0 else False
        pred = (f"  predicted {r['predicted']:.4f} ({'inside' if inside else 'OUTSIDE'} the "
                f"interval; half-width {'<=' if narrow else '>'} 15% of the rate)")
    print(f"bar {r['bar']:>2}  {r['policy']:<10} games {r['games']:>5}  win rate "
          f"{r['rate']:.4f} [{r['lo']:.4f}, {r['hi']:.4f}]  mean fans {r['fans']:.1f}{pred}",
          flush=True)


if __name__ == "__main__":
    main()
