"""The hand simulator: reproducible, legal wins only, and exact checks on the deal."""

from __future__ import annotations

import math

import numba
import numpy as np
import pytest

import mjkit
from mjkit import HandError, exact
from mjkit._kernels.game_state import OUTCOME_DTYPE
from mjkit.sim import play_hands, simulate, streak_chain, wilson


@pytest.fixture(scope="module")
def level8():
    return play_hands(600, "dazhong32", level=8, seed=11)


def test_same_seed_same_hands_whatever_the_threads_and_slices(level8):
    threads = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = play_hands(600, "dazhong32", level=8, seed=11)
    finally:
        numba.set_num_threads(threads)
    np.testing.assert_array_equal(one.outcomes, level8.outcomes)
    np.testing.assert_array_equal(one.fan_counts, level8.fan_counts)
    part = play_hands(200, "dazhong32", level=8, seed=11, first=300)
    np.testing.assert_array_equal(part.outcomes, level8.outcomes[300:500])
    other = play_hands(600, "dazhong32", level=8, seed=12)
    assert not np.array_equal(other.outcomes, level8.outcomes)


def test_every_win_reaches_the_bar_and_its_fans_add_up(level8):
    rs = mjkit.get_rules("dazhong32")
    o = level8.outcomes
    wins = o[:, 0] >= 0
    assert wins.sum() > 20
    assert (o[wins, 4] >= 32).all()                     # counted, 连拉 line included
    assert (o[wins & (o[:, 0] != 0), 4] >= 32).all()
    after = np.array(rs.after_minimum[:rs.n_fans])
    pts = rs.points.astype(np.int64)
    fans = level8.fan_counts.astype(np.int64)
    counted = (fans * pts * ~after).sum(axis=1)
    np.testing.assert_array_equal(counted[wins], o[wins, 4])
    np.testing.assert_array_equal((fans * pts).sum(axis=1)[wins], o[wins, 5])
    lianla = rs.fan_index("LIANLA")
    assert (fans[o[:, 0] == 0, lianla] == 8).all()      # 连8拉8 on every dealer win
    assert (o[wins, 1] == 1).all()                      # dazhong32: self-drawn only
    assert (o[:, 6] <= 120).all() and (o[~wins, 6] == 120).all()


def test_claims_and_kongs_happen_and_score():
    r = play_hands(800, "gb", seed=9)
    o = r.outcomes
    wins = o[:, 0] >= 0
    assert (o[wins, 8] > 0).mean() > 0.3                # many winners have claimed sets
    fans = r.fan_counts
    keys = r.fan_keys
    for k in ("MELDED_KONG", "CONCEALED_KONG", "ALL_PUNGS"):
        assert fans[wins, keys.index(k)].sum() > 0, k
    # closed self-drawn wins score 不求人 (unless a special form excludes it); a winner
    # with an exposed set never scores 门前清 / 不求人
    closed = wins & (o[:, 8] == 0) & (o[:, 1] == 1)
    special = (fans[:, [keys.index(k) for k in ("SEVEN_PAIRS", "THIRTEEN_ORPHANS",
                                                  "LESSER_HONORS_AND_KNITTED_TILES",
                                                  "GREATER_HONORS_AND_KNITTED_TILES",
                                                  "SEVEN_SHIFTED_PAIRS")]] > 0).any(axis=1)
    assert closed.sum() > 10
    assert (fans[closed & ~special, keys.index("FULLY_CONCEALED_HAND")] == 1).all()
    exposed = wins & (o[:, 8] > 0) & (fans[:, keys.index("CONCEALED_KONG")] == 0)
    assert exposed.sum() > 10
    for k in ("CONCEALED_HAND", "FULLY_CONCEALED_HAND"):
        assert (fans[exposed, keys.index(k)] == 0).all()


def test_solitaire_only_the_dealer_wins():
    r = play_hands(400, "dazhong32", level=8, seed=2, solitaire=True)
    w = r.outcomes[:, 0]
    assert set(np.unique(w)) <= {-1, 0} and (w == 0).sum() > 20


def test_discard_wins_where_the_rules_allow_them():
    r = play_hands(300, "gb", seed=4)
    o = r.outcomes
    assert (o[:, 0] >= 0).mean() > 0.2                  # 8 fans: many hands are won
    assert (o[o[:, 0] >= 0, 1] == 0).any()              # some on a discard
    assert (o[o[:, 0] >= 0, 4] >= 8).all()


def test_deal_matches_the_exact_probability_of_a_complete_hand():
    # With the bar at 0 and no play, the dealer wins exactly when the 14
    # dealt tiles (flowers replaced) are complete: 1 in 320,590.
    n = 1_500_000
    r = play_hands(n, "dazhong32", seed=7, deal_only=True, minimum=0)
    k = int((r.outcomes[:, 0] == 0).sum())
    p = float(exact.complete_hands().loc["overall", "probability"])
    lam = n * p
    # a two-sided 99.9% Poisson band around the exact expectation
    lo = max(0, math.floor(lam - 3.3 * math.sqrt(lam)))
    hi = math.ceil(lam + 3.3 * math.sqrt(lam) + 2)
    assert lo <= k <= hi, (k, lam)
    assert (r.outcomes[:, 6] >= 53).all()              # 13 x 4 + 1, plus flowers


def test_robbing_a_kong_where_discard_wins_are_allowed():
    r = play_hands(1500, "gb", seed=9)
    o = r.outcomes
    robbed = o[:, 10] == 1
    assert robbed.sum() >= 3
    keys = r.fan_keys
    fans = r.fan_counts
    assert (fans[robbed, keys.index("ROBBING_THE_KONG")] == 1).all()
    assert (o[robbed, 1] == 0).all() and (o[robbed, 0] >= 0).all()
    assert (fans[~robbed, keys.index("ROBBING_THE_KONG")] == 0).all()
    # dazhong32 wins by self-draw only: never a robbed kong
    assert play_hands(600, "dazhong32", level=8, seed=9).outcomes[:, 10].sum() == 0


def test_wild_tiles():
    fixed = play_hands(800, "dazhong32", level=8, seed=3, wild="P")
    o = fixed.outcomes
    assert (o[:, 9] == 31).all()
    wins = o[:, 0] >= 0
    keys = fixed.fan_keys
    no_wild = fixed.fan_counts[:, keys.index("NO_WILD")] > 0
    # some wins use a wild tile for another tile, some do not (无财神)
    assert (wins & no_wild).sum() > 10 and (wins & ~no_wild).sum() > 10
    assert (o[wins, 4] >= 32).all()
    plain = play_hands(800, "dazhong32", level=8, seed=3)
    assert wins.mean() > (plain.outcomes[:, 0] >= 0).mean()   # wild tiles make wins easier


def test_turned_wild_kind_is_uniform():
    # The turned tile is the first tile from the back that is not a flower: by symmetry
    # each of the 34 kinds with probability 4/136 = 1/34 exactly.
    n = 34 * 400
    r = play_hands(n, "dazhong32", seed=8, wild="turned", deal_only=True)
    counts = np.bincount(r.outcomes[:, 9], minlength=34)
    assert counts.sum() == n and len(counts) == 34
    expected = n / 34
    chi2 = float(((counts - expected) ** 2 / expected).sum())
    assert chi2 < 70.0, chi2          # 33 degrees of freedom: P(chi2 > 70) < 0.0002


def test_exhaustion_is_exact_without_wins():
    # a bar no hand can reach: every hand is drawn out after exactly `exhaust` tiles
    r = play_hands(200, "dazhong32", seed=5, minimum=10_000, exhaust=100)
    o = r.outcomes
    assert (o[:, 0] == -1).all() and (o[:, 6] == 100).all()
    assert (o[:, 12] >= 0).all() and o[:, 12].sum() > 0     # complete hands fell short


def test_simulate_and_streak_chain():
    df = simulate("dazhong32", levels=range(9), hands=150, seed=3, progress=False)
    assert list(df.index) == list(range(9))
    assert list(df["bar"]) == [32, 28, 24, 20, 16, 12, 8, 4, 0]
    assert (df["p_dealer_lo"] <= df["p_dealer"]).all() and (df["p_dealer"] <= df["p_dealer_hi"]).all()
    assert df.loc[8, "p_dealer"] > df.loc[0, "p_dealer"]
    again = simulate("dazhong32", levels=[8], hands=150, seed=3, progress=False)
    assert again.loc[8, "dealer_wins"] == df.loc[8, "dealer_wins"]
    chain = streak_chain(df)
    assert chain.loc[0, "p_reach"] == 1.0
    assert chain.loc[1, "p_reach"] == pytest.approx(df.loc[0, "p_dealer"])
    assert chain.attrs["expected_length"] >= chain.loc[1, "p_reach"]


def test_wilson_interval():
    lo, hi = wilson(0, 10)
    assert lo == pytest.approx(0.0, abs=1e-12) and 0.2 < hi < 0.35
    lo, hi = wilson(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-3) and hi == pytest.approx(0.5962, abs=1e-3)


@pytest.mark.parametrize("kwargs,msg", [
    ({"n": -1}, "n must be"),
    ({"n": 5, "level": -1}, "lianla"),
    ({"n": 5, "rules": "gb", "level": 2}, "连拉"),
    ({"n": 5, "exhaust": 10}, "exhaust"),
    ({"n": 5, "discard_wins": True}, "self-draw only"),
    ({"n": 5, "dealer_policy": "magic"}, "unknown policy"),
    ({"n": 5, "seed": -3}, "seed"),
    ({"n": 5, "wild": "3f"}, "flower"),
    ({"n": 5, "wild": 7}, "wild must be"),
    ({"n": 5, "wild": "Q"}, "wild must be.*unknown character"),
    ({"n": 5, "commit": 20}, "commit"),
    ({"n": 5, "slack": 2.5}, "slack"),
    ({"n": 5, "others_policy": "破拉"}, "unknown policy"),
])
def test_bad_input(kwargs, msg):
    with pytest.raises(HandError, match=msg):
        play_hands(**kwargs)


def test_claims_off_every_player_keeps_to_its_own_draws():
    col = {name: i for i, name in enumerate(OUTCOME_DTYPE.names)}
    on = play_hands(300, "gb", seed=4)
    off = play_hands(300, "gb", seed=4, claims=False)
    won = off.outcomes[:, col["winner"]] >= 0
    assert won.sum() > 20
    assert (off.outcomes[won, col["self_drawn"]] == 1).all()        # no discard won on
    assert (off.outcomes[:, col["robbed"]] == 0).all()
    keys = off.fan_keys
    for fan in ("MELDED_HAND", "MELDED_KONG", "LAST_TILE_CLAIM"):
        assert (off.fan_counts[:, keys.index(fan)] == 0).all(), fan
    # with claims, the same seeds see discards won on and sets claimed
    w_on = on.outcomes[:, col["winner"]] >= 0
    assert (on.outcomes[w_on, col["self_drawn"]] == 0).any()
    assert (on.outcomes[w_on, col["melds"]] > 0).any()
    # solitaire without claims: a one-player game
    solo = play_hands(300, "dazhong32", level=8, seed=2, solitaire=True, claims=False)
    w = solo.outcomes[:, col["winner"]]
    assert set(np.unique(w)) <= {-1, 0} and (w == 0).sum() > 10
    # every winner's melds are then its concealed kongs; with claims most winners claimed
    for claims, lo, hi in ((False, 1.0, 1.0), (True, 0.0, 0.3)):
        r = play_hands(600, "dazhong32", seed=6, minimum=0, claims=claims)
        fk, f = r.fan_keys, r.fan_counts.astype(int)
        kongs = (f[:, fk.index("CONCEALED_KONG")] + 2 * f[:, fk.index("TWO_CONCEALED_KONGS")]
                 + 3 * f[:, fk.index("THREE_KONGS")] + 4 * f[:, fk.index("FOUR_KONGS")])
        won = r.outcomes[:, col["winner"]] >= 0
        melds = r.outcomes[won, col["melds"]]
        assert won.sum() > 200
        assert lo <= (melds == kongs[won]).mean() <= hi, claims
        if not claims:
            assert (melds > 0).any()         # concealed kongs stay
    with pytest.raises(HandError, match="claims=False"):
        play_hands(1, "gb", claims=False, discard_wins=True)
    with pytest.raises(HandError, match="claims"):
        play_hands(1, "gb", claims="no")
