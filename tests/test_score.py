"""The scoring API: score, score_batch, results, rule sets."""

import numba
import numpy as np
import pytest

import mjkit
from mjkit import HandError
from mjkit._kernels.evaluate import score_rows
from mjkit.random_hands import random_winning_hands

EXAMPLE = "[123m]456p789s55mEE E"


def test_example_from_the_readme():
    r = mjkit.score(EXAMPLE, self_drawn=True, seat_wind="S", round_wind="E")
    assert r.total == 11
    assert [(f.zh, f.points, f.count) for f in r.fans] == [("花龙", 8, 1), ("圈风刻", 2, 1), ("自摸", 1, 1)]
    assert r.is_win and r.meets_minimum and r.minimum == 8
    assert r.form == "regular"
    assert r.sets == [("chow", "123m", True), ("chow", "456p", False), ("chow", "789s", False),
                      ("pung", "EEE", False)]
    assert r.pair == "55m"


def test_hand_text_and_situation_keywords_agree():
    h = mjkit.parse_hand(EXAMPLE + " | self_drawn seat=S")
    a = mjkit.score(h)
    b = mjkit.score(EXAMPLE, self_drawn=True, seat_wind=1)
    c = mjkit.score(EXAMPLE + " | self_drawn seat=S round=E")
    assert a.fan_counts() == b.fan_counts() == c.fan_counts()
    assert a.total == b.total == c.total


def test_situation_keyword_overrides_the_hand():
    h = mjkit.parse_hand(EXAMPLE + " | self_drawn")
    assert "自摸" not in mjkit.score(h, self_drawn=False).fan_counts()


def test_incomplete_hand_is_not_a_win():
    r = mjkit.score("123m456p789s1357m E")
    assert not r.is_win and not r.meets_minimum
    assert r.total == 0 and r.fans == [] and r.form == "none"
    assert "not a complete hand" in r.explain()


def test_flowers_do_not_count_toward_the_minimum():
    r = mjkit.score("[234m][567p]345s789s2m 2m", flowers=7)   # 平和 + 单钓将 = 3
    assert r.flowers == 7 and r.counted_points == 3 and r.total == 10
    assert not r.meets_minimum


def test_chicken_hand():
    r = mjkit.score("[234m][567p][678s]23sEE 1s | seat=S round=W", flowers=2)
    assert r.fan_counts() == {"无番和": 1, "花牌": 2}
    assert r.counted_points == 8 and r.meets_minimum


@pytest.mark.parametrize("bad", [None, 5, b"123m", "123x", "1111m2222m3333m44444m", "[135m]456p789s1122m 1m"])
def test_bad_input_raises_hand_error(bad):
    with pytest.raises(HandError):
        mjkit.score(bad)


def test_unknown_rule_set():
    with pytest.raises(HandError, match="unknown rule set"):
        mjkit.score(EXAMPLE, rules="riichi")


def test_results_render():
    r = mjkit.score(EXAMPLE, self_drawn=True, seat_wind="S")
    df = r.to_frame()
    assert list(df.columns) == ["id", "zh", "en", "points", "count", "value", "excludes",
                                "toward_bar"]
    assert df["value"].sum() == r.total
    assert "Mixed Straight" in r.explain("en") and "花龙" in str(r)
    assert "<table" in r._repr_html_()


def test_not_counted_names_the_reason():
    r = mjkit.score("1122334455667p 7p")
    assert ("清一色", ("连七对",)) in r.not_counted
    line = next(f for f in r.fans if f.zh == "连七对")
    assert "清一色" in line.excludes


def test_fan_table_gb_has_81_fans():
    t = mjkit.fan_table("gb")
    assert len(t) == 81
    assert t["id"].is_unique and t["zh"].is_unique and t["en"].is_unique
    assert t.loc[t["zh"] == "大四喜", "points"].item() == 88
    assert t.loc[t["zh"] == "花牌", "points"].item() == 1


HANDS = random_winning_hands(3000, seed=4242)


def test_score_batch_matches_score():
    batch = mjkit.HandBatch.from_hands(HANDS[:600])
    res = mjkit.score_batch(batch)
    assert res.fan_counts.shape == (600, 81)
    names = list(mjkit.fan_table("gb")["zh"])
    for i, text in enumerate(HANDS[:600]):
        r = mjkit.score(text)
        assert res.totals[i] == r.total
        got = {names[j]: int(c) for j, c in enumerate(res.fan_counts[i]) if c}
        assert got == r.fan_counts(), text
    frame = res.fan_frame()
    assert list(frame.columns) == names


def test_batch_is_independent_of_threads_and_chunks():
    batch = mjkit.HandBatch.from_hands(HANDS)
    rows = np.array(batch.rows)     # batch.rows is a read-only view
    rs = mjkit.get_rules("gb")
    results = []
    old = numba.get_num_threads()
    try:
        for threads in (1, numba.config.NUMBA_NUM_THREADS):
            numba.set_num_threads(threads)
            for chunks in (1, 3, 64):
                totals = np.zeros(len(HANDS), np.int64)
                counted = np.zeros(len(HANDS), np.int64)
                fans = np.zeros((len(HANDS), len(rs.used_fans())), np.int32)
                score_rows(rows, rs.kernel_rules(), rs.used_array(), totals, counted, fans,
                           chunks)
                results.append((totals, fans))
    finally:
        numba.set_num_threads(old)
    for totals, fans in results[1:]:
        np.testing.assert_array_equal(totals, results[0][0])
        np.testing.assert_array_equal(fans, results[0][1])
    assert (results[0][0] > 0).all()


def test_batch_reports_incomplete_hands():
    res = mjkit.score_batch([EXAMPLE, "123m456p789s1357m E"])
    assert list(res.is_win) == [True, False]
    assert res.totals[1] == -1 and res.fan_counts[1].sum() == 0


def test_batch_names_the_bad_hand():
    with pytest.raises(HandError, match="hand 1"):
        mjkit.HandBatch.from_hands([EXAMPLE, "123m"])


def test_derived_rule_set():
    gb = mjkit.get_rules("gb")
    house = gb.derive("house", points={"花龙": 16, "SELF_DRAWN": 2}, drop=["圈风刻"], minimum=12)
    r = mjkit.score(EXAMPLE, rules=house, self_drawn=True, seat_wind="S")
    assert r.fan_counts() == {"花龙": 1, "自摸": 1, "幺九刻": 1}
    assert r.total == 16 + 2 + 1 and r.minimum == 12 and r.meets_minimum
    # the original is untouched
    assert mjkit.score(EXAMPLE, self_drawn=True, seat_wind="S").total == 11
    with pytest.raises(HandError, match="unknown fan"):
        gb.derive("x", points={"不存在": 3})


def test_registered_rule_set_by_name():
    from mjkit.rules import register_rules, rule_names

    register_rules(mjkit.get_rules("gb").derive("gb-test-8", minimum=9))
    assert "gb-test-8" in rule_names()
    assert mjkit.score(EXAMPLE, rules="gb-test-8").minimum == 9
