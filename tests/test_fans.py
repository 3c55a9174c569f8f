"""One hand per GB fan, the 不计 (exclusion) rules and the counting principles.

``CASES`` holds at least one hand for each of the 81 fans of
``mjkit.fan_table("gb")``.  Each case gives the hand (notation, situation
after ``|``), the fan it must score with its count, and the fans the hand
also *has* but must not count because a counted fan excludes them (不计).
For each case:

* ``test_fan_case`` checks the fan is counted with the right count and
  points, that none of the excluded fans is counted, and that
  ``ScoreResult.not_counted`` is consistent with the counted fans;
* ``test_fan_case_matches_pgb`` checks that the whole fan dict and the total
  are PyMahjongGB's (skipped only for a hand with one melded and one
  concealed kong, which PyMahjongGB scores as its non-standard 明暗杠).

``test_every_gb_fan_has_a_case`` makes sure no fan of the table can be
dropped without a case noticing.  The remaining tests pin the counting
principles (套算一次, 就高不就低, exposed discard-completed pungs, the 幺九刻
of wind pungs, seven pairs versus a regular reading) and ``not_counted``
with exact expected fans, derived from the rules and cross-checked with
PyMahjongGB.

Notation reminder: ``[...]`` melded set, ``{....}`` concealed kong, then the
concealed tiles; the last concealed tile (after the space) is the winning
tile.  Default situation: won on a discard, seat and round wind East.
"""

from __future__ import annotations

from typing import NamedTuple

import pytest

import mjkit

try:
    import pgb  # tests/ is on sys.path when it is not a package
except ImportError:  # pragma: no cover - tests/ made a package
    from tests import pgb


class FanCase(NamedTuple):
    """A hand that scores ``key`` ``count`` times and must not count ``forbid``."""

    key: str
    hand: str
    forbid: tuple[str, ...] = ()
    count: int = 1
    tag: str = ""  # distinguishes several cases of one fan in the test ids


C = FanCase
CASES: list[FanCase] = [
    # ---- 88 ---------------------------------------------------------------
    C("BIG_FOUR_WINDS", "[EEE][SSS][WWW]NNN1m 1m",
      ("BIG_THREE_WINDS", "LITTLE_FOUR_WINDS", "ALL_PUNGS", "PREVALENT_WIND", "SEAT_WIND",
       "PUNG_OF_TERMINALS_OR_HONORS")),
    C("BIG_THREE_DRAGONS", "[PPP][FFF]CCC123m5p 5p",
      ("LITTLE_THREE_DRAGONS", "TWO_DRAGON_PUNGS", "DRAGON_PUNG")),
    C("ALL_GREEN", "[234s]234s666s88sFF F", ("HALF_FLUSH", "ONE_VOIDED_SUIT")),
    C("NINE_GATES", "1112345678999m 5m",
      ("FULL_FLUSH", "CONCEALED_HAND", "ONE_VOIDED_SUIT", "NO_HONORS")),
    C("NINE_GATES", "1112345678999m 5m | self_drawn",
      ("FULL_FLUSH", "CONCEALED_HAND", "FULLY_CONCEALED_HAND", "ONE_VOIDED_SUIT", "NO_HONORS"),
      tag="self_drawn"),
    C("FOUR_KONGS", "[1111m][2222p][3333s][4444s]5p 5p",
      ("THREE_KONGS", "TWO_MELDED_KONGS", "MELDED_KONG", "ALL_PUNGS", "SINGLE_WAIT")),
    C("SEVEN_SHIFTED_PAIRS", "2233445566778m 8m",
      ("SEVEN_PAIRS", "FULL_FLUSH", "CONCEALED_HAND", "ONE_VOIDED_SUIT", "NO_HONORS",
       "SINGLE_WAIT")),
    C("THIRTEEN_ORPHANS", "119m19p19sESWNPF C",
      ("ALL_TYPES", "ALL_TERMINALS_AND_HONORS", "CONCEALED_HAND", "SINGLE_WAIT")),
    # ---- 64 ---------------------------------------------------------------
    C("ALL_TERMINALS", "[111m][999m]111p999p1s 1s",
      ("ALL_TERMINALS_AND_HONORS", "ALL_PUNGS", "OUTSIDE_HAND", "PUNG_OF_TERMINALS_OR_HONORS",
       "NO_HONORS", "DOUBLE_PUNG")),
    C("LITTLE_FOUR_WINDS", "[EEE][SSS]WWW123mN N",
      ("BIG_THREE_WINDS", "PUNG_OF_TERMINALS_OR_HONORS")),
    C("LITTLE_THREE_DRAGONS", "[PPP][FFF]123m456pC C", ("TWO_DRAGON_PUNGS", "DRAGON_PUNG")),
    C("ALL_HONORS", "[SSS][WWW]PPPFFFN N",
      ("ALL_TERMINALS_AND_HONORS", "ALL_PUNGS", "OUTSIDE_HAND", "PUNG_OF_TERMINALS_OR_HONORS",
       "ONE_VOIDED_SUIT", "DRAGON_PUNG")),
    C("FOUR_CONCEALED_PUNGS", "111m222p333s555pE E | self_drawn",
      ("ALL_PUNGS", "CONCEALED_HAND", "FULLY_CONCEALED_HAND", "THREE_CONCEALED_PUNGS",
       "TWO_CONCEALED_PUNGS")),
    C("PURE_TERMINAL_CHOWS", "1122337788995m 5m",
      ("SEVEN_PAIRS", "FULL_FLUSH", "ALL_CHOWS", "PURE_DOUBLE_CHOW", "TWO_TERMINAL_CHOWS",
       "ONE_VOIDED_SUIT", "NO_HONORS")),
    # ---- 48 / 32 ----------------------------------------------------------
    C("QUADRUPLE_CHOW", "[234m][234m]234m234m9p 9p",
      ("PURE_SHIFTED_PUNGS", "PURE_TRIPLE_CHOW", "TILE_HOG", "PURE_DOUBLE_CHOW")),
    C("FOUR_PURE_SHIFTED_PUNGS", "[222m][333m]444m555m9p 9p",
      ("PURE_TRIPLE_CHOW", "PURE_SHIFTED_PUNGS", "ALL_PUNGS")),
    C("FOUR_PURE_SHIFTED_CHOWS", "[123p][345p]567p789p5s 5s",
      ("PURE_SHIFTED_CHOWS", "TWO_TERMINAL_CHOWS", "SHORT_STRAIGHT")),
    C("THREE_KONGS", "[1111m][2222p][3333s]456p7s 7s",
      ("TWO_MELDED_KONGS", "MELDED_KONG", "TWO_CONCEALED_KONGS", "CONCEALED_KONG")),
    C("ALL_TERMINALS_AND_HONORS", "[111m][SSS]999p999sP P",
      ("ALL_PUNGS", "OUTSIDE_HAND", "PUNG_OF_TERMINALS_OR_HONORS")),
    # ---- 24 ---------------------------------------------------------------
    C("SEVEN_PAIRS", "1133m5577p99sEEP P", ("CONCEALED_HAND", "SINGLE_WAIT")),
    C("SEVEN_PAIRS", "1133m5577p99sEEP P | self_drawn",
      ("CONCEALED_HAND", "FULLY_CONCEALED_HAND", "SINGLE_WAIT"), tag="self_drawn"),
    C("GREATER_HONORS_AND_KNITTED_TILES", "ESWNPFC14m25p36s 9s",
      ("LESSER_HONORS_AND_KNITTED_TILES", "ALL_TYPES", "CONCEALED_HAND", "SINGLE_WAIT")),
    C("ALL_EVEN_PUNGS", "[222m][444p]666s888s8p 8p", ("ALL_PUNGS", "ALL_SIMPLES", "NO_HONORS")),
    C("FULL_FLUSH", "[123m]345m666m88m99m 9m", ("ONE_VOIDED_SUIT", "NO_HONORS")),
    C("PURE_TRIPLE_CHOW", "[123m]123m123m456p9s 9s", ("PURE_SHIFTED_PUNGS", "PURE_DOUBLE_CHOW")),
    C("PURE_SHIFTED_PUNGS", "[555p][666p]777p123s9m 9m", ("PURE_TRIPLE_CHOW",)),
    C("UPPER_TILES", "[789m][789p]777s88s99m 9m", ("UPPER_FOUR", "NO_HONORS")),
    C("MIDDLE_TILES", "[456m][456p]555s66m44s 4s", ("ALL_SIMPLES", "NO_HONORS")),
    C("LOWER_TILES", "[123m][123p]222s11s33m 3m", ("LOWER_FOUR", "NO_HONORS")),
    # ---- 16 ---------------------------------------------------------------
    C("PURE_STRAIGHT", "[123m]456m789m234p5s 5s", ("SHORT_STRAIGHT", "TWO_TERMINAL_CHOWS")),
    C("THREE_SUITED_TERMINAL_CHOWS", "123789m123789s5p 5p",
      ("ALL_CHOWS", "NO_HONORS", "MIXED_DOUBLE_CHOW", "TWO_TERMINAL_CHOWS")),
    C("PURE_SHIFTED_CHOWS", "[123m]234m345m789p5s 5s"),
    C("ALL_FIVE", "[345m][456p]555s567m5p 5p", ("ALL_SIMPLES", "NO_HONORS")),
    C("TRIPLE_PUNG", "[222m][222p]222s456m9s 9s", ("DOUBLE_PUNG",)),
    C("THREE_CONCEALED_PUNGS", "[123m]222p444s666s9m 9m", ("TWO_CONCEALED_PUNGS",)),
    # ---- 12 ---------------------------------------------------------------
    C("LESSER_HONORS_AND_KNITTED_TILES", "147m258p36sESWNP F",
      ("ALL_TYPES", "CONCEALED_HAND", "SINGLE_WAIT")),
    C("LESSER_HONORS_AND_KNITTED_TILES", "147m258p369sESWN P",
      ("ALL_TYPES", "CONCEALED_HAND", "SINGLE_WAIT"), tag="with_knitted_straight"),
    C("KNITTED_STRAIGHT", "147m25p369s234m55p 8p", tag="alone"),
    C("KNITTED_STRAIGHT", "[123m]147m258p369s5p 5p", tag="with_meld"),
    C("UPPER_FOUR", "[678m][789p]666s789s9m 9m", ("NO_HONORS",)),
    C("LOWER_FOUR", "[123m][234p]444s123s1m 1m", ("NO_HONORS",)),
    C("BIG_THREE_WINDS", "[EEE][SSS]WWW123m9p 9p | seat=N round=N",
      ("PUNG_OF_TERMINALS_OR_HONORS",)),
    # ---- 8 ----------------------------------------------------------------
    C("MIXED_STRAIGHT", "[123m]456p789s234m5p 5p"),
    C("REVERSIBLE_TILES", "[123p][456s]888s99pPP P", ("ONE_VOIDED_SUIT",)),
    C("MIXED_TRIPLE_CHOW", "[123m][123p]123s456m9p 9p", ("MIXED_DOUBLE_CHOW",)),
    C("MIXED_SHIFTED_PUNGS", "[111m][222p]333s456m9p 9p"),
    C("CHICKEN_HAND", "[234m][666p]345s78sEE 9s"),
    C("LAST_TILE_DRAW", "[234m][666p]345s78sEE 9s | self_drawn last_wall", ("SELF_DRAWN",)),
    C("LAST_TILE_CLAIM", "[234m][666p]345s78sEE 9s | last_wall"),
    C("OUT_WITH_REPLACEMENT_TILE", "{1111m}[666p]345s78sEE 9s | self_drawn kong",
      ("SELF_DRAWN",)),
    C("ROBBING_THE_KONG", "[234m][666p]345s78sEE 9s | kong last_copy", ("LAST_TILE",)),
    # ---- 6 ----------------------------------------------------------------
    C("ALL_PUNGS", "[222m][555p]777s88sEE E"),
    C("HALF_FLUSH", "[123m]345m666m99mSS S", ("ONE_VOIDED_SUIT",)),
    C("MIXED_SHIFTED_CHOWS", "[123m][234p]345s678m9s 9s"),
    C("ALL_TYPES", "[234m][456p]789sEEEC C"),
    C("MELDED_HAND", "[234m][456p][678s][SSS]5p 5p", ("SINGLE_WAIT",)),
    C("TWO_CONCEALED_KONGS", "{1111m}{2222p}345s78sEE 9s",
      ("CONCEALED_KONG", "TWO_CONCEALED_PUNGS")),
    C("TWO_DRAGON_PUNGS", "[PPP][FFF]123m45pEE 6p", ("DRAGON_PUNG",)),
    # ---- 4 ----------------------------------------------------------------
    C("OUTSIDE_HAND", "[123m][789p]111s78sEE 9s"),
    C("FULLY_CONCEALED_HAND", "234m666p345s78sEE 9s | self_drawn",
      ("SELF_DRAWN", "CONCEALED_HAND")),
    C("TWO_MELDED_KONGS", "[2222m][6666p]345s78sEE 9s", ("MELDED_KONG",)),
    C("LAST_TILE", "[234m][666p]345s78sEE 9s | last_copy"),
    # ---- 2 ----------------------------------------------------------------
    C("DRAGON_PUNG", "[234m][CCC]345s78sEE 9s"),
    C("PREVALENT_WIND", "[234m][SSS]345s78s55p 9s | round=S", ("PUNG_OF_TERMINALS_OR_HONORS",)),
    C("SEAT_WIND", "[234m][SSS]345s78s55p 9s | seat=S", ("PUNG_OF_TERMINALS_OR_HONORS",)),
    C("CONCEALED_HAND", "234m666p345s78sEE 9s"),
    C("ALL_CHOWS", "234m456p678s34s88m 5s", ("NO_HONORS",)),
    C("TILE_HOG", "[234m][444m]345s78sEE 9s"),
    C("DOUBLE_PUNG", "[666m][666p]345s78sEE 9s"),
    C("TWO_CONCEALED_PUNGS", "[234m]666p888s45sEE 3s"),
    C("CONCEALED_KONG", "{2222m}[666p]345s78sEE 9s"),
    # One melded and one concealed kong: 明杠 + 暗杠 (PyMahjongGB: 明暗杠).
    C("CONCEALED_KONG", "{1111m}[6666p]345s78sEE 9s", tag="with_melded_kong"),
    C("ALL_SIMPLES", "[234m][666p]345s78s55p 6s", ("NO_HONORS",)),
    # ---- 1 ----------------------------------------------------------------
    C("PURE_DOUBLE_CHOW", "[234m]234m666p78sEE 9s"),
    C("MIXED_DOUBLE_CHOW", "[234m][666p]234s78sEE 9s"),
    C("SHORT_STRAIGHT", "[234m][666p]567m78sEE 9s"),
    C("TWO_TERMINAL_CHOWS", "[123m][666p]789m45sEE 6s"),
    C("PUNG_OF_TERMINALS_OR_HONORS", "[234m][999p]345s78sEE 9s"),
    C("MELDED_KONG", "[234m][6666p]345s78sEE 9s"),
    C("ONE_VOIDED_SUIT", "[234m][666p]345m78pEE 9p"),
    C("NO_HONORS", "[234m][666p]345s78s11m 9s"),
    C("EDGE_WAIT", "[234m][666p]555s12sEE 3s"),
    C("CLOSED_WAIT", "[234m][666p]345s79sEE 8s"),
    C("SINGLE_WAIT", "[234m][666p]345s789sE E"),
    C("SELF_DRAWN", "[234m][666p]345s78sEE 9s | self_drawn"),
    C("FLOWER_TILES", "[234m][666p]345s78sEE 9s | flowers=2", count=2),
]
del C


def _case_id(case: FanCase) -> str:
    return case.key + (f"-{case.tag}" if case.tag else "")


CASE_PARAMS = [pytest.param(c, id=_case_id(c)) for c in CASES]


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


def _table():
    return mjkit.fan_table("gb")


def _key_to_zh() -> dict[str, str]:
    t = _table()
    return dict(zip(t["key"], t["zh"]))


def _key_to_points() -> dict[str, int]:
    t = _table()
    return {k: int(p) for k, p in zip(t["key"], t["points"])}


def _counted_keys(result) -> dict[str, int]:
    return {f.key: f.count for f in result.fans}


def _canonical(fans: dict[str, int]) -> dict[str, int]:
    """mjkit's ``{zh: count}`` in PyMahjongGB's spelling."""
    out: dict[str, int] = {}
    for zh, n in fans.items():
        if n:
            name = pgb.canonical_zh(zh)
            out[name] = out.get(name, 0) + n
    return out


def _mixed_kongs(hand) -> bool:
    """One melded and one concealed kong: PyMahjongGB scores its own 明暗杠."""
    kongs = [m for m in hand.melds if m.kind == "kong"]
    return (len(kongs) == 2 and sum(m.concealed for m in kongs) == 1)


def _require_pgb() -> None:
    if not pgb.available():
        pytest.skip("PyMahjongGB (module MahjongGB) is not installed")


def _assert_matches_pgb(text: str, result) -> None:
    theirs, their_total = pgb.pgb_fans(text)
    ours = _canonical(result.fan_counts())
    assert ours == theirs, f"{text}: mjkit {ours} != PyMahjongGB {theirs}"
    assert result.total == their_total, f"{text}: total {result.total} != {their_total}"


# ---------------------------------------------------------------------------
# The per-fan cases
# ---------------------------------------------------------------------------


def test_case_keys_are_valid():
    """Every key used by the cases (fan and forbidden ones) is a gb fan."""
    keys = set(_table()["key"])
    for case in CASES:
        assert case.key in keys, f"{_case_id(case)}: unknown fan {case.key}"
        bad = [k for k in case.forbid if k not in keys]
        assert not bad, f"{_case_id(case)}: unknown forbidden fan(s) {bad}"
        assert case.key not in case.forbid, _case_id(case)


def test_every_gb_fan_has_a_case():
    table_keys = list(_table()["key"])
    assert len(table_keys) == 81
    covered = {c.key for c in CASES}
    missing = [k for k in table_keys if k not in covered]
    assert not missing, f"gb fans without a case: {missing}"


@pytest.mark.parametrize("case", CASE_PARAMS)
def test_fan_case(case: FanCase):
    r = mjkit.score(case.hand, rules="gb")
    assert r.is_win, f"{case.hand}: not a winning hand"
    counted = _counted_keys(r)
    zh = _key_to_zh()

    # The fan itself, with its count and points.
    assert counted.get(case.key, 0) == case.count, (
        f"{case.hand}: {case.key} ({zh[case.key]}) counted {counted.get(case.key, 0)}x, "
        f"expected {case.count}x; fans {r.fan_counts()}")
    line = next(f for f in r.fans if f.key == case.key)
    assert line.zh == zh[case.key]
    assert line.points == _key_to_points()[case.key]

    # 不计: none of the excluded fans is counted.
    wrongly = [k for k in case.forbid if k in counted]
    assert not wrongly, f"{case.hand}: counted fans that {case.key} excludes: {wrongly}"

    # The result is self-consistent.
    assert r.total == sum(f.points * f.count for f in r.fans)
    names = r.fan_counts()
    for fan, because_of in r.not_counted:
        assert fan not in names, f"{fan} is both counted and not counted"
        assert because_of, f"{fan} not counted without a reason"
        assert all(b in names for b in because_of), (fan, because_of, names)


@pytest.mark.parametrize("case", CASE_PARAMS)
def test_fan_case_matches_pgb(case: FanCase):
    _require_pgb()
    r = mjkit.score(case.hand, rules="gb")
    if _mixed_kongs(r.hand):
        pytest.skip("one melded + one concealed kong: PyMahjongGB scores a non-standard 明暗杠")
    _assert_matches_pgb(case.hand, r)


def test_melded_and_concealed_kong_are_two_fans():
    """The 81-fan table has no 明暗杠: one of each kong is 明杠 (1) + 暗杠 (2)."""
    r = mjkit.score("{1111m}[6666p]345s78sEE 9s")
    assert r.fan_counts() == {"暗杠": 1, "明杠": 1, "幺九刻": 1}
    assert r.total == 4


# ---------------------------------------------------------------------------
# Counting principles, with exact expected fans
# ---------------------------------------------------------------------------


def _check_exact(text: str, expected: dict[str, int], total: int | None = None):
    r = mjkit.score(text, rules="gb")
    assert r.is_win
    assert r.fan_counts() == expected, f"{text}: {r.fan_counts()}"
    pts = {z: int(p) for z, p in zip(_table()["zh"], _table()["points"])}
    assert r.total == sum(pts[z] * n for z, n in expected.items())
    if total is not None:
        assert r.total == total
    if pgb.available():
        _assert_matches_pgb(text, r)
    return r


@pytest.mark.parametrize("text", [
    "234567s23456p55m 7p",
    "23456s234567p55m 7s",
    "234567m23456s88p 7s",
])
def test_combination_counted_once(text):
    """套算一次: 234s 567s 234p 567p is 喜相逢 x2 + 连六 x1, never 连六 x2.

    Four sets allow three combination fans; the second 连六 would combine
    two sets that have both already been combined.
    """
    r = mjkit.score(text)
    counts = r.fan_counts()
    assert counts.get("喜相逢") == 2
    assert counts.get("连六") == 1
    expected_rest = {"门前清": 1, "平和": 1, "断幺": 1}
    single = {k: v for k, v in counts.items() if k not in ("喜相逢", "连六")}
    assert single == expected_rest, counts
    if pgb.available():
        _assert_matches_pgb(text, r)


def test_pure_double_mixed_double_short_straight():
    """234s 234p 234p 567p: 一般高 + 喜相逢 + 连六, not 喜相逢 x2.

    The two 234p combine as 一般高; 234s may then pair with one 234p only.
    """
    _check_exact("234s22334456p88s 7p", {
        "一般高": 1, "喜相逢": 1, "连六": 1, "门前清": 1, "平和": 1, "断幺": 1, "缺一门": 1,
    }, total=10)


def test_prevalent_and_seat_wind_same_pung():
    """East round, East seat, pung of East: 圈风刻 + 门风刻, no 幺九刻 for it."""
    _check_exact("[EEE][666p]345s78s55m 9s", {"圈风刻": 1, "门风刻": 1}, total=4)
    # Only the round wind: still no 幺九刻 for that pung.
    _check_exact("[EEE][666p]345s78s55m 9s | seat=S", {"圈风刻": 1}, total=2)
    # Neither: a plain 幺九刻.
    _check_exact("[EEE][666p]345s78s55m 9s | seat=S round=S", {"幺九刻": 1}, total=1)


def test_big_three_winds_with_terminal_pung():
    """三风刻 covers the 幺九刻 of its three wind pungs only: 999m is 幺九刻 x1."""
    _check_exact("[EEE][SSS]WWW999m5p 5p | seat=N round=N", {
        "三风刻": 1, "碰碰和": 1, "双暗刻": 1, "幺九刻": 1, "缺一门": 1, "单钓将": 1,
    }, total=23)


def test_discard_completed_pung_is_exposed():
    """666p + 888s concealed: won on a discard 8s, 888s counts as exposed."""
    # Discard: one concealed pung only -> no 双暗刻 (only 无字 remains).
    _check_exact("[234m]666p88s345s99m 8s", {"无字": 1}, total=1)
    # Self-drawn: both pungs concealed -> 双暗刻.
    _check_exact("[234m]666p88s345s99m 8s | self_drawn", {"双暗刻": 1, "无字": 1, "自摸": 1},
                 total=4)


def test_highest_reading_wins():
    """就高不就低: 111222333m read as three chows or as three pungs.

    On a discard the 3m completes 333m from the discard, so the pung reading
    (一色三节高 24 + 双暗刻 2 + 幺九刻 1 + 门前清 2 + 缺一门 1 + 无字 1 = 31) loses to
    the chow reading, which is 全带幺 because every set holds a 1 or a 9.
    Self-drawn, the pungs are all concealed: 三暗刻 makes the pung reading
    (47) beat the chow reading (24 + 4 + 4 不求人 + 2 + 1 + 1 = 36).
    """
    r = _check_exact("11122233m789m99p 3m", {
        "一色三同顺": 1, "全带幺": 1, "门前清": 1, "平和": 1, "老少副": 1, "缺一门": 1,
    }, total=34)
    assert [s[0] for s in r.sets].count("chow") == 4
    r = _check_exact("11122233m789m99p 3m | self_drawn", {
        "一色三节高": 1, "三暗刻": 1, "不求人": 1, "幺九刻": 1, "缺一门": 1, "无字": 1,
    }, total=47)
    assert [s[0] for s in r.sets].count("pung") == 3
    # The situation may be given as keyword arguments too.
    assert mjkit.score("11122233m789m99p 3m", self_drawn=True).total == 47


def test_seven_pairs_versus_regular_reading():
    """A hand that is both seven pairs and a regular hand takes the higher one."""
    # 一色双龙会 (64) + 门前清 + 单钓将 = 67 beats 七对 + 清一色 = 48.
    r = _check_exact("1122337788995m 5m", {"一色双龙会": 1, "门前清": 1, "单钓将": 1},
                     total=67)
    assert r.form == "regular"
    # 七对 + 无字 = 25 beats 一般高 x2 + 门前清 + 平和 + 单钓将 (7).
    r = _check_exact("112233m445566p7s 7s", {"七对": 1, "无字": 1}, total=25)
    assert r.form == "seven pairs"


def test_chicken_hand_meets_minimum():
    r = _check_exact("[234m][666p]345s78sEE 9s", {"无番和": 1}, total=8)
    assert r.meets_minimum
    # Flowers add to the total but never help to reach the minimum.
    r = mjkit.score("[234m][666p]345s78sEE 9s | flowers=3")
    assert r.total == 11 and r.fan_counts() == {"无番和": 1, "花牌": 3}
    r = mjkit.score("[234m][666p]345s79sEE 8s | flowers=8")
    assert r.fan_counts() == {"嵌张": 1, "花牌": 8}
    assert r.is_win and not r.meets_minimum


# ---------------------------------------------------------------------------
# ScoreResult.not_counted
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("text, expected", [
    ("[EEE][SSS][WWW]NNN1m 1m", {"碰碰和": {"大四喜"}, "幺九刻": {"大四喜"}, "全带幺": {"混幺九"}}),
    ("1133m5577p99sEEP P", {"门前清": {"七对"}}),
    ("1133m5577p99sEEP P | self_drawn", {"不求人": {"七对"}}),
    ("234m666p345s78sEE 9s | self_drawn", {"自摸": {"不求人"}}),
    ("{1111m}{2222p}345s78sEE 9s", {"双暗刻": {"双暗杠"}}),
    ("[123m]345m666m88m99m 9m", {"无字": {"清一色"}}),
    ("111m222p333s555pE E | self_drawn", {"碰碰和": {"四暗刻"}, "不求人": {"四暗刻"}}),
    ("147m258p36sESWNP F", {"五门齐": {"全不靠"}, "门前清": {"全不靠"}}),
    ("[PPP][FFF]123m45pEE 6p", {"箭刻": {"双箭刻"}}),
    ("[234m][666p]345s78sEE 9s | kong last_copy", {"和绝张": {"抢杠和"}}),
])
def test_not_counted_names_reasons(text, expected):
    r = mjkit.score(text)
    got = dict(r.not_counted)
    for fan, reasons in expected.items():
        assert fan in got, f"{text}: {fan} missing from not_counted {r.not_counted}"
        assert reasons <= set(got[fan]), f"{text}: {fan} excluded by {got[fan]}"
        assert fan not in r.fan_counts()


def test_not_counted_empty_without_exclusions():
    r = mjkit.score("[234m][666p]345s78sEE 9s")
    assert r.not_counted == []
    r = mjkit.score("[666m][666p]345s78sEE 9s")
    assert r.fan_counts() == {"双同刻": 1}
    assert r.not_counted == []
