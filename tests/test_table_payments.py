"""Payments of a hand (seed 001 D): who pays whom, and how much a win is worth."""

from __future__ import annotations

import itertools

import pytest

from mjkit import score
from mjkit.errors import HandError
from mjkit.table.payments import hand_amount, payments


@pytest.mark.parametrize("winner", range(4))
def test_a_self_drawn_win_is_paid_by_each_of_the_three_others(winner):
    pay = payments("win", winner, None, 37)
    assert sum(pay) == 0
    assert pay[winner] == 3 * 37
    assert all(pay[p] == -37 for p in range(4) if p != winner)


@pytest.mark.parametrize("winner,payer", [(w, f) for w, f in itertools.permutations(range(4), 2)])
def test_a_discard_win_is_paid_by_the_discarder_alone(winner, payer):
    pay = payments("win", winner, payer, 12)
    assert sum(pay) == 0
    assert pay[winner] == 12 and pay[payer] == -12
    assert all(pay[p] == 0 for p in range(4) if p not in (winner, payer))


def test_a_robbed_kong_is_paid_by_the_konger_like_a_discard():
    # Outcome.from_seat of a robbed kong is the seat whose kong was robbed (001 B.b:
    # "点胡：和他人打出的牌(包括抢杠胡)")
    assert payments("win", 0, 2, 20) == (20, 0, -20, 0)


@pytest.mark.parametrize("result,winner", [("false_win", 1), ("false_win", None),
                                           ("drawn_out", None)])
def test_a_false_win_or_a_drawn_hand_pays_nothing(result, winner):
    # the P胡 penalty is sitting out (000 §四.2), not points
    assert payments(result, winner, None, 25 if result == "false_win" else 0) == (0, 0, 0, 0)


def test_the_amount_is_every_fan_of_the_win_flowers_and_the_streak_included():
    # 连2拉2 (8) + 清一色 + ..., and after the minimum 花牌 x2 and 季花 (1f is East's 春)
    r = score("123456789m123m5m 5m", rules="dazhong32", self_drawn=True, lianla=2,
              flowers="1f2f")
    lines = {f.key: f.value for f in r.fans}
    assert lines["LIANLA"] == 8 and lines["FLOWER_TILES"] == 2
    assert r.total == r.counted_points + 3
    amount = hand_amount(counted=r.counted_points, total=r.total, flowers=2)
    assert amount == r.total == 60
    assert payments("win", 0, None, amount) == (3 * r.total, -r.total, -r.total, -r.total)


@pytest.mark.parametrize("call,words", [
    (lambda: payments("won", 0, None, 3), "result must be one of"),
    (lambda: payments("win", None, None, 3), "needs its winner"),
    (lambda: payments("win", 4, None, 3), "winner must be a whole number in 0..3"),
    (lambda: payments("win", True, None, 3), "winner must be a whole number"),
    (lambda: payments("win", 1, 1, 3), "from_seat 1 is the winner"),
    (lambda: payments("win", 1, -1, 3), "from_seat must be a whole number in 0..3"),
    (lambda: payments("win", 1, None, -3), "amount must be a whole number"),
    (lambda: payments("win", 1, None, 2.0), "amount must be a whole number"),
    (lambda: payments("drawn_out", 2, None, 0), "a drawn hand has no winner"),
    (lambda: hand_amount(counted=40, total=30), "must include the counted fans"),
    (lambda: hand_amount(counted=-1, total=30), "counted must be a whole number"),
    (lambda: hand_amount(counted=1, total=30, flowers=9), "flowers must be a whole number"),
])
def test_bad_arguments_are_refused_by_name(call, words):
    with pytest.raises(HandError, match=words.replace(".", r"\.").replace("(", r"\(")):
        call()
