"""waits(): every winning tile of a 13-tile hand, its value and legality."""

import pytest

import mjkit
from mjkit import HandError
from mjkit.reach import waits


def test_pure_flush_waits():
    w = waits("123m234m345m678m9m", rules="dazhong32")
    assert w.tiles == ["3m", "6m", "9m"]
    assert [x.unseen for x in w.waits] == [1, 3, 3]
    assert all(x.legal for x in w.waits)
    # each wait scores exactly what mjkit.score gives the completed hand
    for x in w.waits:
        r = mjkit.score("123m234m345m678m9m", rules="dazhong32", self_drawn=True,
                        win_tile=x.tile)
        assert (x.total, x.hand_points) == (r.total, r.hand_points)
    df = w.to_frame()
    assert list(df["tile"]) == w.tiles and df["legal"].all()
    assert "3m (1 left)" in w.summary() and "听 3 种牌" in w.summary("zh")


def test_legality_depends_on_the_level():
    hand = "2344m 567p 678s 999s"
    w0 = waits(hand, rules="dazhong32")
    assert w0.tiles == ["1m", "4m"] and not any(x.legal for x in w0.waits)
    w7 = waits(hand, rules="dazhong32", lianla=7)
    assert w7.bar == 4 and all(x.legal for x in w7.waits)
    # the client's reading counts 单钓 on 4m; 国标 does not
    lm = waits(hand, rules="dazhong32", wait_rule="leftmost")
    four = {x.tile: x for x in lm.waits}["4m"]
    assert "单钓将" in four.fans
    assert "单钓将" not in {x.tile: x for x in w0.waits}["4m"].fans


def test_visible_tiles_and_melds():
    w = waits("[123m] 456p 789s 5m EEE", seat_wind="S", visible="5m5m")
    assert w.tiles == ["5m"] and w.waits[0].unseen == 1
    with pytest.raises(HandError, match="only 4 exist"):
        waits("[123m] 456p 789s 5m EEE", visible="5m5m5m5m")


def test_not_ready_and_bad_input():
    w = waits("159m 159p 159s ESWN")
    assert not w.is_ready and w.waits == [] and "not ready" in w.summary()
    with pytest.raises(HandError, match="before the win"):
        waits("123m234m345m678m9m9m")
    with pytest.raises(HandError, match="before the win"):
        waits("123m234m345m678m")
    with pytest.raises(HandError):
        waits("123m234m345m678mX")
    with pytest.raises(HandError):
        waits(mjkit.parse_hand("123m234m345m678m9m 9m"))


def test_four_copies_held_is_no_wait():
    # 1111m held: a fifth 1m cannot be a wait
    w = waits("1111m 234p 567p 789s", rules="gb")
    assert "1m" not in w.tiles
