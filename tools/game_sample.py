"""Write (or check) the stored sample of seeded simulated hands: ``tests/data/game_sample.npz``.

    python tools/game_sample.py          # write the sample with the code as it is
    python tools/game_sample.py --check  # compare the code as it is with the stored sample

Every built-in policy (and a user policy) as the dealer and as the others, in
``dazhong32`` at seed 000's table (a turned 财神, 起手换牌) at 连0 and 连8, in ``gb``
(wins on discards), in solitaire mode and with the one-player study's draw limit.  The
sample was written before the game kernel became resumable (issue 36): the test
``tests/test_table_engine.py::test_simulated_hands_are_the_stored_sample`` checks that
outcomes on the same seeds stay what they were.
"""

import argparse
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
SAMPLE = HERE.parent / "tests" / "data" / "game_sample.npz"

POLICIES = ("efficiency", "value", "break", "strong", "strong_break")
SLOW = ("strong", "strong_break")
TABLE = {"rules": "dazhong32", "wild": "turned", "exchange": True}


def configs():
    """(name, n, keyword arguments of play_hands) of every part of the sample."""
    out = []
    for pol in POLICIES:
        n = 24 if pol in SLOW else 120
        dealer = {"break": "value", "strong_break": "strong"}.get(pol, pol)
        out.append((f"{pol}-lvl0", n, dict(TABLE, level=0, dealer_policy=dealer,
                                           others_policy=pol, seed=11)))
        out.append((f"{pol}-lvl8", n, dict(TABLE, level=8, dealer_policy=dealer,
                                           others_policy=pol, seed=12)))
        out.append((f"{pol}-gb", n, dict(rules="gb", dealer_policy=pol, others_policy=pol,
                                         seed=13)))
    out.append(("mixed-lvl3", 24, dict(TABLE, level=3, dealer_policy="strong",
                                       others_policy="value", seed=14)))
    out.append(("mixed-break", 24, dict(TABLE, level=3, dealer_policy="value",
                                        others_policy="strong_break", seed=15)))
    out.append(("solitaire", 120, dict(rules="dazhong32", level=2, solitaire=True,
                                       dealer_policy="value", seed=16)))
    out.append(("dealer-draws", 120, dict(rules="dazhong32", level=0, dealer_draws=15,
                                          dealer_policy="efficiency", seed=17, wild="5m")))
    out.append(("dazhong-noclaims", 120, dict(rules="dazhong", claims=False, seed=18)))
    return out


def user_config():
    sys.path.insert(0, str(HERE.parent / "tests"))
    from user_policies import swap_lowest_highest
    from mjkit.sim import user_policy
    return ("user", 120, dict(TABLE, level=1, dealer_policy=user_policy(swap_lowest_highest),
                              others_policy="efficiency", seed=19))


def play_all():
    from mjkit.sim import play_hands
    arrays = {}
    for name, n, kw in configs() + [user_config()]:
        r = play_hands(n, **kw)
        arrays[f"{name}/outcomes"] = np.asarray(r.outcomes)
        arrays[f"{name}/fans"] = np.asarray(r.fan_counts)
    return arrays


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args(argv)
    arrays = play_all()
    if not args.check:
        np.savez_compressed(SAMPLE, **arrays)
        print(f"wrote {SAMPLE} ({len(arrays) // 2} parts)")
        return 0
    stored = np.load(SAMPLE)
    bad = 0
    for key, a in arrays.items():
        b = stored[key]
        cols = min(a.shape[1], b.shape[1])
        if not np.array_equal(a[:, :cols], b[:, :cols]):
            rows = np.flatnonzero((a[:, :cols] != b[:, :cols]).any(axis=1))
            print(f"{key}: {len(rows)} hands differ, first {rows[:5]}")
            bad += 1
    print("same" if not bad else f"{bad} parts differ")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
