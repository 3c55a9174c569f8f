"""The old client's reading of waits (seed 000 §六.2), wait_rule="leftmost".

"比如12345 摸3的情况下，不会算镶边…再如 2234 摸2不算单调，因为22将已经默认了，2344摸4就算单调。"
"""

import numpy as np
import pytest

import mjkit
from mjkit import HandError, score
from mjkit._kernels.shapes import leftmost_reading, leftmost_wait
from mjkit.tiles import counts34, tile_from_str


def wait_fans(result):
    return {f.key for f in result.fans} & {"EDGE_WAIT", "CLOSED_WAIT", "SINGLE_WAIT"}


@pytest.mark.parametrize("hand,unique,leftmost", [
    # 2344 drawing 4: 234 + 44 for the client: 单钓 (国标: waits 1m and 4m, none)
    ("2344m 567p 678s 999s 4m", set(), {"SINGLE_WAIT"}),
    # 2234 drawing 2: 22 + 234, no 单钓 either way
    ("2234m 567p 678s 999s 2m", set(), set()),
    # 12345 drawing 3: 123 + 345, no 边张 (the drawn 3 is the low end of 345)
    ("12345m 567p 678s 99s 3m", set(), set()),
    # a plain edge wait and a plain closed wait: both rules agree
    ("12m 567p 678s 999s 55m 3m", {"EDGE_WAIT"}, {"EDGE_WAIT"}),
    ("13m 567p 678s 999s 55m 2m", {"CLOSED_WAIT"}, {"CLOSED_WAIT"}),
    # 4556 drawing 5: 坎张 in 国标 (001 C.k "4556和5也为坎张"); the client takes
    # 456 from the left and the drawn 5 lands in the pair 55: 单钓
    ("4556m 567p 678s 999s 5m", {"CLOSED_WAIT"}, {"SINGLE_WAIT"}),
])
def test_seed_examples(hand, unique, leftmost):
    u = score(hand, rules="dazhong32", self_drawn=True)
    lm = score(hand, rules="dazhong32", self_drawn=True, wait_rule="leftmost")
    assert wait_fans(u) == unique
    assert wait_fans(lm) == leftmost
    assert lm.wait_rule == "leftmost"


def test_leftmost_reading_order():
    c = counts34("22234m")
    kinds = np.zeros(5, np.int64)
    tiles = np.zeros(5, np.int64)
    n = leftmost_reading(c, 1, kinds, tiles, np.zeros(50, np.int64))
    assert n == 2 and list(kinds[:2]) == [0, 1] and list(tiles[:2]) == [1, 1]  # 22, then 234
    # pair first only where the rest still reads: 111 234 55 -> 11? no: 111 + 234 + 55
    c = counts34("11123455m")
    n = leftmost_reading(c, 2, kinds, tiles, np.zeros(50, np.int64))
    assert n == 3
    assert leftmost_reading(counts34("12m"), 0, kinds, tiles, np.zeros(50, np.int64)) == -1


def test_leftmost_wait_codes():
    work = np.zeros(50, np.int64)
    assert leftmost_wait(counts34("23444m"), 1, tile_from_str("4m"), work) == 3
    assert leftmost_wait(counts34("22234m"), 1, tile_from_str("2m"), work) == 0
    assert leftmost_wait(counts34("123345m"), 2, tile_from_str("3m"), work) == 0
    assert leftmost_wait(counts34("12355m"), 1, tile_from_str("3m"), work) == 1
    assert leftmost_wait(counts34("78955m"), 1, tile_from_str("7m"), work) == 1
    assert leftmost_wait(counts34("12355m"), 1, tile_from_str("2m"), work) == 2


def test_batch_and_bad_rule():
    hands = ["2344m 567p 678s 999s 4m | self_drawn"] * 3
    a = mjkit.score_batch(hands, rules="dazhong32", wait_rule="leftmost")
    b = mjkit.score_batch(hands, rules="dazhong32")
    assert (a.totals == b.totals + 1).all()
    batch = mjkit.HandBatch.from_hands(hands)
    assert (mjkit.score_batch(batch, rules="dazhong32", wait_rule="leftmost").totals
            == a.totals).all()
    with pytest.raises(HandError, match="wait_rule"):
        score(hands[0], wait_rule="left")
