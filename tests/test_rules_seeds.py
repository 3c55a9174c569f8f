"""Issue 12 §5: rule defects found against the seeds.

清幺九 excludes 三同刻 in the 大众 rule sets (seeds 000, 001, 003); only the
dealer (East) has a 连拉 level, everywhere; ``docs/rules.md`` accounts for every
departure from the first seed a rule set follows, quoting the seed's line.
"""

import os
from pathlib import Path

import pytest

import mjkit
from mjkit import HandError
from mjkit.cli import main

DEALER_ONLY = "only the dealer (East seat) has a 连拉 level; seed 000: 另外三家则还需要32番"

ROOT = Path(__file__).resolve().parent.parent
RULES_MD = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
# The seed texts are not part of the repository; where present (the project's
# shared folder, or $MJKIT_SEEDS) the quotes are checked against them too.
_SEEDS = Path(os.environ.get("MJKIT_SEEDS", ROOT.parent / "shared" / "seeds"))
ALL_TERMINALS_TRIPLE = "111m111p111s999m9p 9p"


def keys(r):
    return {f.key for f in r.fans}


# ------------------------------------------------------------- 清幺九 and 三同刻

def test_all_terminals_excludes_triple_pung_in_dazhong_not_in_gb():
    gb = mjkit.score(ALL_TERMINALS_TRIPLE, self_drawn=True)
    assert "TRIPLE_PUNG" in keys(gb) and gb.total == 146    # 国标 / PyMahjongGB
    for rules in ("dazhong", "dazhong32"):
        r = mjkit.score(ALL_TERMINALS_TRIPLE, rules=rules, self_drawn=True)
        assert "TRIPLE_PUNG" not in keys(r) and "DOUBLE_PUNG" not in keys(r)
        assert ("三同刻", ("清幺九",)) in r.not_counted
        assert r.total == 130                                # 清幺九 64 + 四暗刻 64 + 2


def test_all_terminals_list_covers_seed_001():
    # 001 C.b: "清幺九…不计混幺九、三同刻、碰碰和、全带幺、双同刻、幺九刻、无字"
    seed = {"混幺九", "三同刻", "碰碰和", "全带幺", "双同刻", "幺九刻", "无字"}
    from mjkit.rules import fan_catalogue

    cat = fan_catalogue()
    zh = dict(zip(cat["key"], cat["zh"]))
    for rules in ("dazhong", "dazhong32"):
        t = mjkit.fan_table(rules).set_index("key")
        assert {zh[k] for k in t.loc["ALL_TERMINALS", "excludes"].split()} >= seed
    gb = mjkit.fan_table("gb").set_index("key")
    assert "TRIPLE_PUNG" not in gb.loc["ALL_TERMINALS", "excludes"].split()


def test_batch_and_single_scores_agree_on_the_new_exclusion():
    hands = [ALL_TERMINALS_TRIPLE + " | self_drawn", "111m111p111s999p9m 9m | self_drawn"]
    for rules in ("gb", "dazhong", "dazhong32"):
        res = mjkit.score_batch(hands, rules=rules)
        assert res.totals.tolist() == [mjkit.score(h, rules=rules).total for h in hands]


# --------------------------------------------------------- 连拉: the dealer only

NON_DEALER = "123456789m111pE E | self_drawn seat=S"


def test_score_refuses_a_level_for_a_non_dealer():
    with pytest.raises(HandError, match="only the dealer.*另外三家则还需要32番"):
        mjkit.score(NON_DEALER, rules="dazhong32", lianla=3)
    for seat in "SWN":
        with pytest.raises(HandError, match=f"seat={seat}"):
            mjkit.score("123456789m111pE E", rules="dazhong32", self_drawn=True,
                        seat_wind=seat, lianla=1)
    assert mjkit.score(NON_DEALER, rules="dazhong32").lianla == 0
    assert mjkit.score("123456789m111pE E", rules="dazhong32", self_drawn=True,
                       lianla=3).legal


def test_batch_refuses_a_level_for_a_non_dealer_naming_the_hand():
    dealer = "123456789m111pE E | self_drawn"
    with pytest.raises(HandError, match="hand 1: .*only the dealer"):
        mjkit.score_batch([dealer, NON_DEALER], rules="dazhong32", lianla=3)
    with pytest.raises(HandError, match="hand 1: .*only the dealer"):
        mjkit.HandBatch.from_hands([dealer, NON_DEALER], lianla=[2, 1])
    ok = mjkit.score_batch([dealer, NON_DEALER], rules="dazhong32", lianla=[2, 0])
    assert ok.lianla.tolist() == [2, 0]
    batch = mjkit.HandBatch.from_hands([dealer, NON_DEALER])
    with pytest.raises(HandError, match="hand 1: .*only the dealer"):
        mjkit.score_batch(batch, rules="dazhong32", lianla=4)
    rows = batch.rows.copy()
    rows[1, mjkit._kernels.layout.LIANLA] = 2
    with pytest.raises(HandError, match="row 1: .*only the dealer"):
        mjkit.HandBatch(rows)


def test_reach_refuses_a_level_for_a_non_dealer():
    with pytest.raises(HandError, match="only the dealer"):
        mjkit.waits("123m234m345m678m9m", rules="dazhong32", lianla=2, seat_wind="S")
    with pytest.raises(HandError, match="only the dealer"):
        mjkit.distance_to("123m234m345m678m9m", lianla=2, seat_wind="W")


def test_cli_refuses_a_level_for_a_non_dealer(capsys):
    code = main(["score", "123456789m111pE E", "--rules", "dazhong32", "--self-drawn",
                 "--seat", "S", "--lianla", "3"])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and DEALER_ONLY in err and "Traceback" not in err
    code = main(["distance", "123m234m345m678m9m", "--lianla", "2", "--seat-wind", "N"])
    out, err = capsys.readouterr()
    assert code == 2 and DEALER_ONLY in err


def test_builder_state_refuses_a_level_for_a_non_dealer():
    from mjkit.widgets.state import BuilderState

    s = BuilderState(rules="dazhong32").with_options(lianla=2)
    with pytest.raises(HandError, match="only the dealer"):
        s.with_options(seat=1)
    with pytest.raises(HandError, match="only the dealer"):
        BuilderState(rules="dazhong32", seat=2).with_options(lianla=1)
    assert s.with_options(seat=1, lianla=0).seat == 1


def test_hand_builder_offers_no_level_for_a_non_dealer():
    pytest.importorskip("ipywidgets")
    from mjkit.widgets import HandBuilder

    b = HandBuilder(rules="dazhong32", lianla=2)
    assert not b.lianla.disabled
    b.seat.value = 1                      # South: the level goes, with a message
    assert b.state.seat == 1 and b.state.lianla == 0 and b.lianla.value == 0
    assert b.lianla.disabled and "only the dealer" in b.message.value
    b.lianla.value = 3                    # even if set: refused as a message, no raise
    assert b.state.lianla == 0 and "only the dealer" in b.message.value
    b.seat.value = 0
    assert not b.lianla.disabled


# ----------------------------------------------- docs/rules.md and the seed lines

# (what the departure is about, [the seed's words quoted in docs/rules.md])
DEPARTURES = [
    ("清幺九", ["不计混幺九、三同刻、碰碰和、全带 幺、双同刻、幺九刻、无字", "清幺九 64 碰碰和，同刻，无字"]),
    ("连拉", ["而另外三家则还需要32番才能胡牌", "连拉即指庄家连庄"]),
    ("组合龙 with 五门齐, 单钓将", ["组合龙 12 门清，单钓，五门齐", "十三不靠 12 门清，单钓，五门齐",
                            "如配以任意五种字牌，则为全不靠组合龙，计24番。不重复计算：门清、单钓、五门齐"]),
    ("全带幺 with 无字", ["全带幺 4 断幺九，无字", "全带五 16 断幺九，无字"]),
    ("天和 / 地和 with 不求人", ["天和 · 168", "地和 · 158"]),
    ("混杠 with 箭刻 and 无财神", ["混杠 · 88", "胡牌时没有财神或财神代替本身花色使用"]),
    ("抢杠和 at 8", ["抢杠和 8", "抢杠和：明杠时开杠的牌正好被别人成和"]),
    ("一条龙 = 花龙", ["一条龙 8", "花龙：由三种数牌的123、456、789各一顺组成"]),
]


@pytest.mark.parametrize("topic, quotes", DEPARTURES, ids=[d[0] for d in DEPARTURES])
def test_rules_md_quotes_the_seed_for_each_departure(topic, quotes):
    assert topic in RULES_MD, f"docs/rules.md has no entry for {topic}"
    for q in quotes:
        assert q in RULES_MD, f"docs/rules.md does not quote {q!r} ({topic})"


@pytest.mark.parametrize("topic, quotes", DEPARTURES, ids=[d[0] for d in DEPARTURES])
def test_quoted_lines_are_the_seeds_words(topic, quotes):
    texts = sorted(_SEEDS.glob("00*.txt")) if _SEEDS.is_dir() else []
    if not texts:
        pytest.skip("seed texts not available (set MJKIT_SEEDS)")
    seeds = "\n".join(p.read_text(encoding="utf-8") for p in texts)
    for q in quotes:
        assert q in seeds, f"{q!r} is not in the seeds"


def test_documented_choices_are_what_mjkit_does():
    d32 = dict(rules="dazhong32", self_drawn=True)
    # 组合龙 with 五门齐 and 单钓将 (and 不求人) in dazhong32: 27
    r = mjkit.score("147m258p369sEEEC C", **d32)
    assert {"KNITTED_STRAIGHT", "ALL_TYPES", "SINGLE_WAIT", "FULLY_CONCEALED_HAND"} <= keys(r)
    assert r.total == 27
    # 全带幺 with 无字
    assert {"OUTSIDE_HAND", "NO_HONORS"} <= keys(mjkit.score("123m789m111p999p1s 1s", **d32))
    # 天和 with 不求人 and a wait fan; only 门前清 excluded
    r = mjkit.score("123m456m789m13p55p 2p", heavenly_hand=True, **d32)
    assert {"HEAVENLY_HAND", "FULLY_CONCEALED_HAND", "CLOSED_WAIT"} <= keys(r)
    # 混杠 with 箭刻 and 无财神
    r = mjkit.score("{PPPP}123m456m789m1s 1s", wild="P", **d32)
    assert {"WILD_KONG", "DRAGON_PUNG", "NO_WILD"} <= keys(r)
    # 抢杠和 cannot occur in dazhong32: a discard win is refused, kong on a draw is 杠上开花
    rs = mjkit.get_rules("dazhong32")
    assert rs.points[rs.fan_index("ROBBING_THE_KONG")] == 8
    robbed = "[EEEE]123m456m11s46s 5s"
    assert "ROBBING_THE_KONG" in keys(mjkit.score(robbed, rules="dazhong", kong=True))
    with pytest.raises(HandError, match="self-draw"):
        mjkit.score(robbed, rules="dazhong32", self_drawn=False, kong=True)
    r = mjkit.score(robbed, kong=True, **d32)
    assert "OUT_WITH_REPLACEMENT_TILE" in keys(r) and "ROBBING_THE_KONG" not in keys(r)
    # 一条龙 8 is 花龙
    r = mjkit.score("123m456p789s11sEE E", **d32)
    assert "MIXED_STRAIGHT" in keys(r) and rs.points[rs.fan_index("花龙")] == 8


def test_fan_table_of_rules_md_names_rule_set_additions():
    from mjkit.rules import doc

    assert doc.render(RULES_MD) == RULES_MD     # the generated table is up to date
    line = next(x for x in RULES_MD.splitlines() if x.startswith("| 8 | 清幺九"))
    assert "dazhong, dazhong32 also: 三同刻" in line
