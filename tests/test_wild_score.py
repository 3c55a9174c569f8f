"""Wild tiles (财神) in scoring: the best assignment, 无财神, 混杠, every form.

The oracle below tries every assignment of kinds to the wild copies by
rewriting the hand without wild tiles and scoring it with ``wild=None``;
mjkit's pruned search must find the same best (fans toward the bar first,
then the total).
"""

import itertools

import numpy as np
import pytest

import mjkit
from mjkit import HandError, score
from mjkit.random_hands import random_wild_hands
from mjkit.tiles import tile_from_str, tile_to_str, tiles_to_str

RULES = "dazhong32"


def keys(result):
    return {f.key: f.count for f in result.fans}


def test_best_assignment_nine_gates():
    r = score("PP 123m456m789m11m 1m", rules=RULES, self_drawn=True, wild="P")
    assert r.wild == "P" and r.wild_as == ["9m", "9m"]
    assert "NINE_GATES" in keys(r) and "NO_WILD" not in keys(r)


def test_no_wild_tile_in_the_hand_counts_no_wild():
    r = score("123m456m789m11m2p2p 2p", rules=RULES, self_drawn=True, wild="P")
    assert keys(r)["NO_WILD"] == 1 and r.wild_as == []
    assert r.total == r.counted_points + 2


def test_wild_standing_for_itself_counts_no_wild():
    # 发 wild; the best reading keeps the three 发 as a pung of 发 (大三元)
    r = score("CCC PPP 123m 55m FF F", rules=RULES, self_drawn=True, wild="F")
    assert r.wild_as == ["F", "F", "F"]
    assert "BIG_THREE_DRAGONS" in keys(r) and keys(r)["NO_WILD"] == 1


def test_wild_kong():
    r = score("{PPPP}123m456m789m1m 1m", rules=RULES, self_drawn=True, wild="P")
    k = keys(r)
    assert k["WILD_KONG"] == 1 and "CONCEALED_KONG" not in k and k["NO_WILD"] == 1
    assert any("混杠" in n for n in r.notes)
    # without a wild tile in the game it is a plain 暗杠
    k = keys(score("{PPPP}123m456m789m1m 1m", rules=RULES, self_drawn=True))
    assert "WILD_KONG" not in k and "CONCEALED_KONG" in k


@pytest.mark.parametrize("hand", ["[PPP]123m456m789m1m 1m", "[PPPP]123m456m789m1m 1m",
                                  "[123m]PP456m789m11m 1m"])
def test_wild_tile_never_claimed(hand):
    with pytest.raises(HandError, match="wild"):
        score(hand, rules=RULES, self_drawn=True, wild="P" if "PPP" in hand else "2m")


def test_bad_wild_option():
    for bad in ("X", "1f", 40, True, 3.5):
        with pytest.raises(HandError):
            score("123m456m789m11m2p2p 2p", rules=RULES, self_drawn=True, wild=bad)


@pytest.mark.parametrize("hand,wild,form,fan", [
    ("1m1m3m3m5m5m7p7p9p9pEE C C", "C", "seven pairs", "SEVEN_PAIRS"),
    ("1m9m1p9p1s9sESWNPF C C", "C", "thirteen orphans", "THIRTEEN_ORPHANS"),
    ("1m4m7m2p5p8p3s6sESWNP C", "C", "honors and knitted tiles",
     "LESSER_HONORS_AND_KNITTED_TILES"),
    ("1m4m7m2p5p8p3s6s9s234s C C", "C", "knitted straight", "KNITTED_STRAIGHT"),
    ("123m456m789m11p5p C C", "C", "regular", "PURE_STRAIGHT"),
])
def test_wild_in_every_form(hand, wild, form, fan):
    r = score(hand, rules=RULES, self_drawn=True, wild=wild)
    assert r.is_win and r.form == form and fan in keys(r), r.explain("en")
    w = tile_from_str(wild)
    assert len(r.wild_as) == sum(1 for t in r.hand.concealed if t == w)


def _oracle(hand, wild, rules=RULES):
    """Best (counted, total) over every assignment, by rewriting the hand."""
    w = tile_from_str(wild)
    conc = [t for t in hand.concealed if t != w]
    k = len(hand.concealed) - len(conc)
    best = None
    for combo in itertools.combinations_with_replacement(range(34), k):
        tiles = conc + list(combo)
        if any(tiles.count(t) + sum(m.tiles.count(t) for m in hand.melds) > 4
               for t in set(combo)):
            continue
        wins = sorted(set(combo)) if hand.win_tile == w else [hand.win_tile]
        for win in wins:
            rest = list(tiles)
            rest.remove(win)
            text = "".join(str(m) for m in hand.melds) + tiles_to_str(rest) + " " + \
                tile_to_str(win)
            try:
                r = score(text, rules=rules, self_drawn=hand.self_drawn,
                          seat_wind=hand.seat_wind, round_wind=hand.round_wind)
            except HandError:
                continue
            if not r.is_win:
                continue
            bonus = 2 if all(t == w for t in combo) else 0
            key = (r.counted_points, r.total + bonus)
            if best is None or key > best:
                best = key
    return best


def _wild_hands(n, k, seed):
    return random_wild_hands(n, k, seed=seed)


@pytest.mark.parametrize("k,n", [(1, 60), (2, 12)])
def test_best_assignment_matches_brute_force(k, n):
    for hand, wild in _wild_hands(n, k, seed=k):
        r = score(hand, rules=RULES, wild=wild)
        assert r.is_win
        assert (r.counted_points, r.total) == _oracle(hand, wild), (str(hand), wild)
        assert len(r.wild_as) == k
        assert ("NO_WILD" in keys(r)) == all(a == wild for a in r.wild_as)


def test_batch_matches_single_with_wild_tiles():
    items = []
    for k in (1, 2, 3, 4):
        items += random_wild_hands(15, k, seed=10 + k)
    hands = [h for h, _ in items]
    wilds = [w for _, w in items]
    res = mjkit.score_batch(hands, rules=RULES, wild=wilds)
    assert res.is_win.all()
    for i, (h, w) in enumerate(items):
        r = score(h, rules=RULES, wild=w)
        assert res.totals[i] == r.total and res.counted[i] == r.counted_points
    # the same game options given to an existing batch
    batch = mjkit.HandBatch.from_hands(hands)
    again = mjkit.score_batch(batch, rules=RULES, wild=wilds)
    np.testing.assert_array_equal(again.totals, res.totals)
    with pytest.raises(HandError, match="one tile per hand"):
        mjkit.score_batch(batch, rules=RULES, wild=wilds[:3])
