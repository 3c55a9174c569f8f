"""The ``strong`` players (the fast mode at the player's own bar) and 起手换牌 at the table."""

from __future__ import annotations

import numba
import numpy as np
import pytest

from mjkit import HandError
from mjkit._kernels.game_state import OUTCOME_DTYPE
from mjkit.sim import play_hands

import user_policies as U

COL = {name: i for i, name in enumerate(OUTCOME_DTYPE.names)}
ONE_PLAYER = dict(solitaire=True, claims=False, wild="turned", exchange=True)


@pytest.fixture(scope="module")
def strong_bar16():
    return play_hands(300, "dazhong32", level=4, seed=21, dealer_policy="strong", **ONE_PLAYER)


def test_strong_is_legal_closed_and_reproducible(strong_bar16):
    o = strong_bar16.outcomes
    won = o[:, COL["winner"]] == 0
    assert won.sum() > 30
    assert (o[won, COL["counted"]] >= 32).all()           # never a P胡
    # no claims: its only melds are the concealed kongs it chose (2 of 95 wins here)
    melded = won & (o[:, COL["melds"]] > 0)
    keys = strong_bar16.fan_keys
    fc = strong_bar16.fan_counts
    assert (fc[melded, keys.index("CONCEALED_KONG")] + fc[melded, keys.index("TWO_CONCEALED_KONGS")]
            > 0).all()
    threads = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = play_hands(300, "dazhong32", level=4, seed=21, dealer_policy="strong",
                         **ONE_PLAYER)
    finally:
        numba.set_num_threads(threads)
    np.testing.assert_array_equal(one.outcomes, o)
    part = play_hands(100, "dazhong32", level=4, seed=21, first=150, dealer_policy="strong",
                      **ONE_PLAYER)
    np.testing.assert_array_equal(part.outcomes, o[150:250])


def test_strong_beats_the_value_player_on_the_same_walls(strong_bar16):
    value = play_hands(300, "dazhong32", level=4, seed=21, dealer_policy="value", **ONE_PLAYER)
    s = strong_bar16.outcomes[:, COL["winner"]] == 0
    v = value.outcomes[:, COL["winner"]] == 0
    # measured on 800 walls (seed 21): .3275 against .2213
    assert s.sum() > v.sum()


def test_strong_at_a_void_bar_plays_tile_efficiency():
    kw = dict(level=8, seed=3, others_policy="efficiency", wild="turned", exchange=True)
    a = play_hands(200, "dazhong32", dealer_policy="strong", **kw)
    b = play_hands(200, "dazhong32", dealer_policy="efficiency", **kw)
    np.testing.assert_array_equal(a.outcomes, b.outcomes)


def test_strong_at_the_four_player_table():
    r = play_hands(300, "dazhong32", level=2, seed=5, dealer_policy="strong",
                   others_policy="strong", wild="turned", exchange=True)
    o = r.outcomes
    won = o[:, COL["winner"]] >= 0
    assert won.sum() > 10
    assert (o[won, COL["counted"]] >= 32).all()
    # the strong players meld when the meld's value keeps the hand above the bar: some
    # winners melded, and most stayed closed (measured on seed 5: 6 of 48 winners melded)
    melded = o[won, COL["melds"]] > 0
    assert 0 < melded.sum() < won.sum() / 2


def test_exchange_is_the_policys_choice():
    kw = dict(level=6, seed=8, solitaire=True, claims=False)
    plain = play_hands(300, "dazhong32", dealer_policy=U.keep_all_highest, **kw)
    asked = play_hands(300, "dazhong32", dealer_policy=U.keep_all_highest, exchange=True, **kw)
    # a player that exchanges nothing plays the same hands as a table without 起手换牌
    np.testing.assert_array_equal(plain.outcomes, asked.outcomes)
    swapped = play_hands(300, "dazhong32", dealer_policy=U.swap_lowest_highest, exchange=True,
                         **kw)
    assert not np.array_equal(plain.outcomes, swapped.outcomes)
    # tiles leave the wall only by being taken: a drawn-out hand still took 120
    drawn = swapped.outcomes[:, COL["winner"]] < 0
    assert (swapped.outcomes[drawn, COL["taken"]] == 120).all()


def test_exchange_helps_the_efficiency_player():
    kw = dict(level=6, seed=21, solitaire=True, claims=False, wild="turned")
    off = play_hands(800, "dazhong32", **kw)
    on = play_hands(800, "dazhong32", exchange=True, **kw)
    # measured (seed 21): .395 without, .490 with: lone tiles swapped for random ones
    assert (on.outcomes[:, 0] == 0).sum() > (off.outcomes[:, 0] == 0).sum() + 30


def test_exchange_must_be_a_flag():
    with pytest.raises(HandError, match="exchange"):
        play_hands(1, "dazhong32", exchange="yes")


def test_strong_break_feeds_a_streaking_dealer_fewer_claims():
    kw = dict(level=6, seed=7, dealer_policy="efficiency", wild="turned", exchange=True)
    plain = play_hands(400, "dazhong32", others_policy="strong", **kw).outcomes
    brk = play_hands(400, "dazhong32", others_policy="strong_break", **kw).outcomes

    def dealer_melds(o):
        won = o[:, COL["winner"]] == 0
        return o[won, COL["melds"]].sum(), won.sum()

    # measured on 1000 hands (seed 7): 1.27 melds per dealer win against the strong
    # players, 0.89 against 破拉; the dealer's win rate .359 against .351
    m_plain, w_plain = dealer_melds(plain)
    m_brk, w_brk = dealer_melds(brk)
    assert m_brk / w_brk < 0.85 * m_plain / w_plain
    won = brk[:, COL["winner"]] >= 0
    assert (brk[won, COL["counted"]] >= 32).all()


def test_strong_break_is_strong_below_break_from():
    kw = dict(level=1, seed=7, dealer_policy="value", wild="turned", exchange=True,
              break_from=2)
    a = play_hands(120, "dazhong32", others_policy="strong", **kw)
    b = play_hands(120, "dazhong32", others_policy="strong_break", **kw)
    np.testing.assert_array_equal(a.outcomes, b.outcomes)
    # a strong+break dealer plays strong: 破拉 is against the dealer
    c = play_hands(120, "dazhong32", level=3, seed=7, dealer_policy="strong_break",
                   others_policy="value", wild="turned", exchange=True)
    d = play_hands(120, "dazhong32", level=3, seed=7, dealer_policy="strong",
                   others_policy="value", wild="turned", exchange=True)
    np.testing.assert_array_equal(c.outcomes, d.outcomes)


def test_a_study_of_strong_players_is_the_same_whatever_the_chunks():
    from mjkit.sim import simulate

    kw = dict(levels=[2], hands=120, seed=4, dealer_policy="strong",
              others_policy="strong_break", progress=False)
    a = simulate("dazhong32", chunk=120, **kw)
    b = simulate("dazhong32", chunk=50, **kw)
    assert a.stats == b.stats
    assert a.params["engine"]["exchange"] is True
    assert a.loc[2, "dealer_wins"] + a.loc[2, "other_wins"] > 0


def _melded_bundle(bar):
    from mjkit._kernels.game import score_scratch
    from mjkit._kernels.game_state import strong_play
    from mjkit.rules import get_rules
    from mjkit.winprob import fast_scratch, fast_tables

    rs = get_rules("dazhong32")
    ft = fast_tables(rs, bar)
    strong = strong_play(ft, ft, fast_scratch(), rs.kernel_rules())
    return rs, ft, strong, score_scratch(rs.kernel_rules().points.shape[0])


@pytest.mark.parametrize("concealed,meld,bar,some", [
    ("12345678m11p", "EEE", 16, True),      # a pung of the seat wind beside a straight
    # the same closed reaches 24 (门前清 and 不求人); with the pung exposed it is 23
    ("12345678m11p", "EEE", 24, False),
    ("2345m678s99pW", "[345p]", 4, True),   # a chow: only targets with a free 345p stay
    ("345567p789s1p", "[345p]", 16, True),
])
def test_melded_targets_keep_the_meld_and_reach_the_bar(concealed, meld, bar, some):
    from mjkit import score
    from mjkit._kernels import strong_melds as SM
    from mjkit._kernels.fast_play import fast_targets
    from mjkit._kernels.layout import M_CHOW, M_PUNG
    from mjkit.tiles import counts34, tile_from_str, tiles_to_str

    rs, ft, strong, sc = _melded_bundle(bar)
    c = np.ascontiguousarray(counts34(concealed), np.int64)
    chow = meld.startswith("[")
    first = tile_from_str(meld.strip("[]")[0] + meld[-2] if chow else meld[0])
    mtype = np.array([M_CHOW if chow else M_PUNG, 0, 0, 0], np.int64)
    mtile = np.array([first, 0, 0, 0], np.int64)
    mc = np.zeros(34, np.int64)                  # the meld's tiles
    if chow:
        mc[first:first + 3] = 1
    else:
        mc[first] = 3
    strong.live[:] = 4 - c - mc
    n = SM.melded_targets(c, np.int64(1), mtype, mtile, np.int64(-1), ft, strong, sc)
    kept = {tuple(r) for r in strong.fs.targets[:n]}
    # the oracle: the closed index's targets of the read-in tiles, kept where the meld's
    # tiles are in them and the rest, with the meld exposed, scores at the bar
    readin = np.ascontiguousarray(c + mc, np.int64)
    m = fast_targets(readin, strong.live, np.int64(-1), ft, strong.fs)
    want = set()
    bracket = "[" + tiles_to_str(np.repeat(np.arange(34), mc)) + "]"
    for pat in strong.fs.targets[:m].copy():
        rest = pat - mc
        if (rest < 0).any():
            continue
        miss = np.flatnonzero(rest > c)
        win = int(miss[0]) if len(miss) else int(np.flatnonzero(rest)[0])
        body = rest.copy()
        body[win] -= 1
        text = f"{bracket}{tiles_to_str(np.repeat(np.arange(34), body))} {tiles_to_str([win])}"
        r = score(text, rules="dazhong32", self_drawn=True, seat_wind="E", round_wind="E")
        if r.is_win and r.hand_points >= bar:
            want.add(tuple(rest))
    assert (n > 0) == some
    assert kept == want
    for t in kept:                       # concealed parts: 14 tiles less the meld's 3
        assert sum(t) == 11
