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
    assert (o[won, COL["melds"]] == 0).all()              # off a void bar the hand stays closed
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
    r = play_hands(150, "dazhong32", level=2, seed=5, dealer_policy="strong",
                   others_policy="strong", wild="turned", exchange=True)
    o = r.outcomes
    won = o[:, COL["winner"]] >= 0
    assert won.sum() > 5
    assert (o[won, COL["counted"]] >= 32).all()
    assert (o[won, COL["melds"]] == 0).all()


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
