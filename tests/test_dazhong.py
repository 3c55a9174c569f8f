"""大众 and 大众32番连拉: the fans outside 国标, 连N拉N and the legality bar.

Each non-国标 fan has a hand that shows it, with the fans it must not also
count (its 不计 list); the 32-fan combinations of seed 000 §三 are built and
checked at every 连拉 level.
"""

import numpy as np
import pytest

import mjkit
from mjkit import HandError, score, threshold
from mjkit.random_hands import random_winning_hands


def keys(result):
    return {f.key: f.count for f in result.fans}


def fan_points(result, key):
    return sum(f.value for f in result.fans if f.key == key)


# --------------------------------------------------------------- rule sets

def test_builtin_rule_sets():
    assert {"gb", "dazhong", "dazhong32"} <= set(mjkit.rule_names())
    assert mjkit.get_rules("dazhong").minimum == 8
    dz32 = mjkit.get_rules("dazhong32")
    assert dz32.minimum == 32 and dz32.self_drawn_only and dz32.streak_points == 4


@pytest.mark.parametrize("rules,fan,points", [
    ("dazhong32", "天和", 168), ("dazhong", "天和", 88),
    ("dazhong32", "地和", 158), ("dazhong", "地和", 64),
    ("dazhong32", "人和", 108), ("dazhong", "人和", 48),
    ("dazhong32", "四方大发财", 168), ("dazhong", "四方大发财", 0),
    ("dazhong32", "混杠", 88), ("dazhong32", "天听", 32), ("dazhong32", "地听", 16),
    ("dazhong32", "混四节", 6), ("dazhong32", "混四步", 4), ("dazhong32", "混三节", 4),
    ("dazhong32", "混三步", 2), ("dazhong32", "无财神", 2), ("dazhong", "无财神", 2),
    ("dazhong32", "二五八将", 1), ("dazhong32", "幺九头", 1), ("dazhong", "幺九头", 0),
    ("dazhong32", "季花", 1), ("dazhong", "季花", 0), ("dazhong", "满江红", 32),
    ("dazhong", "八花聚顶", 32), ("dazhong", "梅兰竹菊", 4), ("dazhong", "春夏秋冬", 4),
    ("dazhong", "报听", 2), ("dazhong", "双报听", 2), ("gb", "天和", 0),
    ("dazhong32", "清龙", 16), ("dazhong", "明暗杠", 0),
])
def test_values(rules, fan, points):
    rs = mjkit.get_rules(rules)
    assert int(rs.points[rs.fan_index(fan)]) == points


def test_threshold():
    assert [threshold("dazhong32", lianla=n) for n in range(10)] == \
        [32, 28, 24, 20, 16, 12, 8, 4, 0, 0]
    assert threshold("gb") == 8
    with pytest.raises(HandError, match="no 连拉"):
        threshold("gb", lianla=1)
    with pytest.raises(HandError, match="lianla"):
        threshold("dazhong32", lianla=-1)
    with pytest.raises(HandError, match="lianla"):
        threshold("dazhong32", lianla=1.5)


def test_self_draw_only():
    with pytest.raises(HandError, match="self-draw only"):
        score("123456789m111pE E", rules="dazhong32")
    with pytest.raises(HandError, match="self-draw only"):
        mjkit.score_batch(["123456789m111pE E"], rules="dazhong32")
    assert score("123456789m111pE E", rules="dazhong").is_win


def test_derive_without_editing_the_package():
    house = mjkit.get_rules("dazhong32").derive(
        "house32", points={"天和": 88}, drop=["幺九头"], excludes={"满江红": []})
    assert int(house.points[house.fan_index("天和")]) == 88
    r = score("123m456m789m CCC 11m", rules=house, self_drawn=True)
    assert "TERMINAL_PAIR" not in keys(r) and "HALF_FLUSH" in keys(r)
    assert "HALF_FLUSH" not in keys(score("123m456m789m CCC 11m", rules="dazhong32",
                                          self_drawn=True))
    with pytest.raises(HandError, match=">= 0"):
        house.derive("bad", points={"天和": -1})


# ------------------------------------------------------- non-国标 fans

def test_all_red():
    r = score("123m456m789m CCC 11m", rules="dazhong32", self_drawn=True)
    k = keys(r)
    assert "ALL_RED" in k and "HALF_FLUSH" not in k and "ONE_VOIDED_SUIT" not in k
    assert fan_points(r, "ALL_RED") == 32
    # characters alone are 清一色, not 满江红
    assert "ALL_RED" not in keys(score("123m456m789m 111m 99m", rules="dazhong32",
                                       self_drawn=True))


def test_four_winds_great_fortune():
    r = score("EEE SSS WWW NNN F F", rules="dazhong32", self_drawn=True)
    k = keys(r)
    assert k.get("FOUR_WINDS_GREAT_FORTUNE") == 1
    for gone in ("BIG_FOUR_WINDS", "ALL_HONORS", "ALL_PUNGS", "BIG_THREE_WINDS",
                 "PREVALENT_WIND", "SEAT_WIND", "PUNG_OF_TERMINALS_OR_HONORS"):
        assert gone not in k
    # a pair other than 发 is plain 大四喜
    r = score("EEE SSS WWW NNN C C", rules="dazhong32", self_drawn=True)
    assert "FOUR_WINDS_GREAT_FORTUNE" not in keys(r) and "BIG_FOUR_WINDS" in keys(r)


def test_pair_fans():
    r = score("[123m][456p][789s]234s5s 5s", rules="dazhong32", self_drawn=True)
    assert "TWO_FIVE_EIGHT_PAIR" in keys(r) and "TERMINAL_PAIR" not in keys(r)
    r = score("[123m][456p][789s]234s9s 9s", rules="dazhong32", self_drawn=True)
    assert "TERMINAL_PAIR" in keys(r) and "TWO_FIVE_EIGHT_PAIR" not in keys(r)
    # dazhong has 二五八将 but not 幺九头
    r = score("[123m][456p][789s]234s9s 9s", rules="dazhong", self_drawn=True)
    assert "TERMINAL_PAIR" not in keys(r)
    # 全带五 forces the pair: no 二五八将 with it
    r = score("345m 456p 555s 567s 5p 5p", rules="dazhong32", self_drawn=True)
    assert "ALL_FIVE" in keys(r) and "TWO_FIVE_EIGHT_PAIR" not in keys(r)


@pytest.mark.parametrize("hand, rules, present, absent", [
    ("123m 234m 345p 789s 55s", "dazhong32", {"TWO_SUITED_SHIFTED_CHOWS"}, set()),
    # three suits are 三色三步高 (6), not 混三步
    ("123m 234p 345s 789s 55s", "dazhong32", {"MIXED_SHIFTED_CHOWS"},
     {"TWO_SUITED_SHIFTED_CHOWS"}),
    ("123m 234m 345p 456p 55s", "dazhong32", {"MIXED_FOUR_SHIFTED_CHOWS"},
     {"TWO_SUITED_SHIFTED_CHOWS"}),
    # 一色三步高 (16) inside four shifted chows beats 混四步 (4)
    ("123m 234m 345m 456p 55s", "dazhong32", {"PURE_SHIFTED_CHOWS"},
     {"MIXED_FOUR_SHIFTED_CHOWS"}),
    ("[111m][222m][333p]555s5p 5p", "dazhong32", {"TWO_SUITED_SHIFTED_PUNGS"}, set()),
    ("[111m][222m][333p][444p]5s 5s", "dazhong32", {"MIXED_FOUR_SHIFTED_PUNGS"},
     {"TWO_SUITED_SHIFTED_PUNGS"}),
    # 三色三节高 (8) beats 混三节 (4) among four pungs
    ("[111m][222p][333s][222m]5s 5s", "dazhong32", {"MIXED_SHIFTED_PUNGS"},
     {"TWO_SUITED_SHIFTED_PUNGS"}),
    # none of them in gb
    ("123m 234m 345p 456p 55s", "gb", set(),
     {"MIXED_FOUR_SHIFTED_CHOWS", "TWO_SUITED_SHIFTED_CHOWS"}),
])
def test_mixed_shifted_chows_and_pungs(hand, rules, present, absent):
    k = set(keys(score(hand, rules=rules, self_drawn=True)))
    assert present <= k and not absent & k


def test_flower_fans():
    hand = "[123m][456p][789s]234s5s 5s"
    r = score(hand, rules="dazhong32", self_drawn=True, seat_wind="S", flowers="2f6f")
    assert keys(r)["SEAT_FLOWER"] == 2 and keys(r)["FLOWER_TILES"] == 2
    assert r.total - r.counted_points == 4  # flowers come after the bar
    r = score(hand, rules="dazhong", self_drawn=True, flowers="5f6f7f8f")
    k = keys(r)
    assert k.get("FOUR_GENTLEMEN") == 1 and "FOUR_SEASONS" not in k
    assert all(f.key not in ("FOUR_GENTLEMEN", "FLOWER_TILES") for f in r.counted)
    k = keys(score(hand, rules="dazhong", self_drawn=True, flowers="1f2f3f4f"))
    assert k.get("FOUR_SEASONS") == 1
    # a bare count says nothing of which flowers
    k = keys(score(hand, rules="dazhong32", self_drawn=True, flowers=4))
    assert "FOUR_SEASONS" not in k and "SEAT_FLOWER" not in k


def test_eight_flowers():
    all8 = "1f2f3f4f5f6f7f8f"
    r = score("[123m][456p][789s]234s5s 5s", rules="dazhong32", self_drawn=True, flowers=all8)
    k = keys(r)
    assert k["EIGHT_FLOWERS"] == 1 and k["FLOWER_TILES"] == 8
    assert "FOUR_SEASONS" not in k and "FOUR_GENTLEMEN" not in k
    assert r.legal
    # a win by itself, whatever the tiles
    r = score("1m3m5m7m9m1p3p5p7p9p1s3s5s 7s", rules="dazhong", self_drawn=True, flowers=all8)
    assert r.is_win and r.form == "eight flowers" and r.counted_points == 32
    r = score("1m3m5m7m9m1p3p5p7p9p1s3s5s 7s", rules="gb", self_drawn=True, flowers=all8)
    assert not r.is_win


def test_no_wild_tile_used():
    hand = "[123m][456p][789s]234s5s 5s"
    r = score(hand, rules="dazhong32", self_drawn=True, wild="C")
    assert keys(r)["NO_WILD"] == 1 and r.counted_points == r.total - 2
    assert "NO_WILD" not in keys(score(hand, rules="dazhong32", self_drawn=True))
    assert "NO_WILD" not in keys(score(hand, rules="gb", self_drawn=True, wild="C"))


# --------------------------------------------------- first turn, ready

SIMPLE = "123m456p789s123s5m 5m"


@pytest.mark.parametrize("flag,key,rules,kw", [
    ("heavenly_hand", "HEAVENLY_HAND", "dazhong32", dict(self_drawn=True, seat_wind="E")),
    ("earthly_hand", "EARTHLY_HAND", "dazhong32", dict(self_drawn=True, seat_wind="S")),
    ("human_hand", "HUMAN_HAND", "dazhong", dict(seat_wind="S")),
    ("heavenly_ready", "HEAVENLY_READY", "dazhong", {}),
    ("earthly_ready", "EARTHLY_READY", "dazhong", {}),
])
def test_first_turn_fans_cancel_concealed_hand(flag, key, rules, kw):
    r = score(SIMPLE, rules=rules, **{flag: True}, **kw)
    k = keys(r)
    assert k.get(key) == 1 and "CONCEALED_HAND" not in k
    rs = mjkit.get_rules(rules)
    assert fan_points(r, key) == int(rs.points[rs.fan_index(key)])
    assert key not in keys(score(SIMPLE, rules="gb", **{flag: True}, **kw))


def test_declared_ready():
    k = keys(score(SIMPLE, rules="dazhong", declared_ready=True))
    assert k.get("DECLARED_READY") == 1 and k.get("CONCEALED_HAND") == 1
    k = keys(score(SIMPLE, rules="dazhong", declared_ready=True, double_ready=True))
    assert k.get("DECLARED_READY") == 1 and k.get("DOUBLE_READY") == 1
    # 天听 is a declaration at the deal: no 报听 beside it
    k = keys(score(SIMPLE, rules="dazhong", heavenly_ready=True, double_ready=True))
    assert "DECLARED_READY" not in k and k.get("DOUBLE_READY") == 1


def test_human_hand_cannot_happen_in_self_draw_only_rules():
    with pytest.raises(HandError):
        score(SIMPLE, rules="dazhong32", human_hand=True, seat_wind="S")


# ------------------------------------------------------------ 连拉 and the bar

def test_lianla_line_and_bar():
    r = score("123456789m111pE E", rules="dazhong32", self_drawn=True, lianla=3)
    assert r.fans[0].key == "LIANLA" and r.fans[0].zh == "连3拉3" and r.fans[0].value == 12
    assert r.bar == 20 and r.hand_points == 23 and r.counted_points == 35 and r.legal
    assert r.short_by == 0 and "Legal" in r.verdict()
    r = score("123456789m111pE E", rules="dazhong32", self_drawn=True, lianla=2)
    assert r.bar == 24 and not r.legal and r.short_by == 1
    assert "P胡" in r.verdict() and "1 short" in r.verdict()
    assert "还差 1 番" in r.verdict("zh")
    assert any(f.key == "LIANLA" for f in r.counted)
    with pytest.raises(HandError, match="no 连拉"):
        score("123456789m111pE E", rules="dazhong", self_drawn=True, lianla=1)


def test_any_complete_hand_wins_at_lianla_8():
    cheap = "[123m][456p][789s]234s5s 5s"
    for n in range(10):
        r = score(cheap, rules="dazhong32", self_drawn=True, lianla=n)
        assert r.legal == (n >= 8) or r.hand_points >= r.bar
    assert score(cheap, rules="dazhong32", self_drawn=True, lianla=8).legal
    assert not score("123m456p789s123s5m 6m", rules="dazhong32", self_drawn=True,
                     lianla=8).legal


# Seed 000 §三 "特别说明": 32-fan combinations, as hands (self-drawn, East).
# (hand, the combination's fans, the total the hand scores)
COMBINATIONS = [
    # 清一色24 + 一色三步高16 (+ 不求人 4, 平和 2, 连六 1, 幺九头 1)
    ("123m234m345m678m9m 9m", {"FULL_FLUSH", "PURE_SHIFTED_CHOWS"}, 24 + 16 + 4 + 2 + 1 + 1),
    # 清一色24 + 一色三节高24
    ("111m222m333m789m5m 5m", {"FULL_FLUSH", "PURE_SHIFTED_PUNGS"}, None),
    # 清一色24 + 碰碰和6 + 断幺九2 (exposed pungs: no 暗刻)
    ("[222m][333m][555m]777m8m 8m", {"FULL_FLUSH", "ALL_PUNGS", "ALL_SIMPLES"}, None),
]


@pytest.mark.parametrize("hand,combo,total", COMBINATIONS)
def test_seed_combinations_reach_32(hand, combo, total):
    r = score(hand, rules="dazhong32", self_drawn=True)
    assert combo <= set(keys(r)), r.explain("en")
    assert sum(fan_points(r, k) for k in combo) >= 32
    if total is not None:
        assert r.total == total
    assert r.legal and r.bar == 32


def test_seven_pairs_with_last_copy_is_impossible_nearest_hands():
    # 七对 + 五门齐 + 和绝张 cannot happen: a pair's other copy is in the hand,
    # so at most two copies are visible when it is won (see docs/rules.md).
    with pytest.raises(HandError):
        score("1m1m9p9p5s5sEESSCCF F", rules="dazhong32", self_drawn=True, last_copy=True)
    # nearest: 七对 24 + 五门齐 6 + 自摸 1 = 31, one short at 连0, legal at 连1拉1
    hand = "1m1m9p9p5s5sEESSCCF F"
    r0 = score(hand, rules="dazhong32", self_drawn=True)
    assert {"SEVEN_PAIRS", "ALL_TYPES"} <= set(keys(r0)) and r0.hand_points == 31
    assert not r0.legal and r0.short_by == 1
    assert score(hand, rules="dazhong32", self_drawn=True, lianla=1).legal
    # 连1拉1 + 七对: with 断幺九 and 缺一门 it reaches 32
    r = score("2m2m3m3m5m5m4p4p6p6p7p7p8p 8p", rules="dazhong32", self_drawn=True, lianla=1)
    assert r.counted_points == 4 + 24 + 2 + 1 + 1 and r.legal
    assert not score("2m2m3m3m5m5m4p4p6p6p7p7p8p 8p", rules="dazhong32",
                     self_drawn=True).legal


@pytest.mark.parametrize("level,hand,fan", [
    (2, "123m456m789m111m5m 5m", "FULL_FLUSH"),          # 连2拉2 + 清一色
    (2, "1m1m9p9p5s5sEESSCCN N", "SEVEN_PAIRS"),         # 连2拉2 + 七对
    (3, "123m234m345m567p2s 2s", "PURE_SHIFTED_CHOWS"),  # 连3拉3 + 一色三步 + 平和 + 将
])
def test_lianla_combinations(level, hand, fan):
    r = score(hand, rules="dazhong32", self_drawn=True, lianla=level)
    assert fan in keys(r) and r.legal
    below = score(hand, rules="dazhong32", self_drawn=True, lianla=level - 1)
    assert below.hand_points == r.hand_points
    assert below.legal == (r.hand_points >= 32 - 4 * (level - 1))


# ------------------------------------------------- dazhong scores like gb

def test_dazhong_equals_gb_without_dazhong_fans():
    """Where the 大众 reading has no 大众-only fan, the scores agree with gb."""
    hands = random_winning_hands(3000, seed=11)
    batch = mjkit.HandBatch.from_hands(hands)
    gb = mjkit.score_batch(batch, rules="gb")
    dz = mjkit.score_batch(batch, rules="dazhong")
    rs = mjkit.get_rules("dazhong")
    gb_rules = mjkit.get_rules("gb")
    extra = [j for j, k in enumerate(dz.fans)
             if gb_rules.points[rs.fan_index(k)] == 0]
    plain = dz.fan_counts[:, extra].sum(axis=1) == 0
    # 清幺九 with 三同刻: seed 001 excludes 三同刻 where 国标 counts it (the one
    # 不计 difference, docs/rules.md)
    both = ((gb.fan_counts[:, gb.fans.index("ALL_TERMINALS")] > 0)
            & (gb.fan_counts[:, gb.fans.index("TRIPLE_PUNG")] > 0))
    np.testing.assert_array_equal(dz.totals[plain & both], gb.totals[plain & both] - 16)
    plain &= ~both
    assert plain.sum() > 1500  # most random hands have none
    np.testing.assert_array_equal(dz.totals[plain], gb.totals[plain])
    cols = [dz.fans.index(k) for k in gb.fans if k in dz.fans]
    gcols = [gb.fans.index(k) for k in gb.fans if k in dz.fans]
    np.testing.assert_array_equal(dz.fan_counts[plain][:, cols], gb.fan_counts[plain][:, gcols])
    # and with them, dazhong never scores less
    assert (dz.totals[~both] >= gb.totals[~both]).all()


def test_batch_matches_single_scores_for_dazhong32():
    hands = []
    for text in random_winning_hands(400, seed=5):
        try:
            hands.append(mjkit.parse_hand(text, self_drawn=True))
        except HandError:  # e.g. 抢杠和 has no self-drawn form
            pass
    # 连拉 is the dealer's alone (seat East); the others play at level 0
    levels = np.where([h.seat_wind == 0 for h in hands], np.arange(len(hands)) % 9, 0)
    assert (levels > 0).sum() > 20
    res = mjkit.score_batch(hands, rules="dazhong32", lianla=levels)
    for i in range(0, len(hands), 5):
        r = score(hands[i], rules="dazhong32", lianla=int(levels[i]))
        assert res.totals[i] == r.total and res.counted[i] == r.counted_points
        assert res.legal[i] == r.legal


def test_rules_doc_is_up_to_date():
    from pathlib import Path

    from mjkit.rules import doc

    path = Path(__file__).resolve().parent.parent / "docs" / "rules.md"
    text = path.read_text(encoding="utf-8")
    assert doc.render(text) == text, "run: python -m mjkit.rules.doc"
