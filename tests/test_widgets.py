"""The hand builder: state rules, the fan view, and the real ipywidgets driven by clicks."""

from __future__ import annotations

import re
import threading

import pytest

import mjkit
from mjkit import HandError
from mjkit.tiles import tile_from_str
from mjkit.widgets import BuilderState, HandBuilder, fan_view


def _kinds(text):
    return [tile_from_str(t) for t in text.split()]


def test_state_refuses_a_fifth_copy_and_a_fifteenth_tile():
    s = BuilderState()
    for k in _kinds("5m 5m 5m 5m"):
        s = s.add(k)
    with pytest.raises(HandError, match="no copy of 5m left"):
        s.add(tile_from_str("5m"))
    assert s.copies_left(tile_from_str("5m")) == 0
    for k in _kinds("1p 2p 3p 4p 5p 6p 7p 8p 9p 1s"):
        s = s.add(k)
    assert s.size == 14
    with pytest.raises(HandError, match="14 tiles"):
        s.add(tile_from_str("E"))
    with pytest.raises(HandError, match="kind 0..33"):
        s.add(40)


def test_state_melds_and_removal():
    s = BuilderState().add_meld("chow", tile_from_str("1m")).add_meld("concealed kong",
                                                                    tile_from_str("E"))
    assert s.melds_text() == "[123m]{EEEE}" and s.size == 6
    assert s.copies_left(tile_from_str("E")) == 0
    with pytest.raises(HandError, match="no chow starts at 8m"):
        s.add_meld("chow", tile_from_str("8m"))
    with pytest.raises(HandError, match="not enough copies of E"):
        s.add_meld("pung", tile_from_str("E"))
    s = s.remove_meld(0)
    assert s.melds_text() == "{EEEE}"
    s = s.add(1).add(2).add(3)
    s = s.with_win(0).remove(1)
    assert s.tiles == (1, 3) and s.win_tile == 1
    with pytest.raises(HandError, match="no concealed tile at position 9"):
        s.remove(9)
    with pytest.raises(HandError, match="连拉"):
        BuilderState(rules="gb").with_options(lianla=2)
    with pytest.raises(HandError, match="flowers"):
        s.with_options(flowers=9)


def test_fan_view_of_a_complete_hand_agrees_with_score():
    s = BuilderState(rules="dazhong32", lianla=2)
    for k in _kinds("1m 2m 3m 2m 3m 4m 3m 4m 5m 6m 7m 8m 9m 9m"):
        s = s.add(k)
    v = fan_view(s)
    r = mjkit.score(s.notation(), rules="dazhong32", lianla=2, **s.situation())
    assert v.stage == "complete" and v.total == r.total and v.legal == r.legal
    names = [row[0] for row in v.fan_rows()]
    assert "清一色" in names and "一色三步高" in names and "连2拉2" in names
    html = v.to_html()
    assert "清一色" in html and str(r.total) in html and "可以和" in html
    assert any("清一色" in b or "一色三步高" in b for _, b in v.not_counted())


def test_fan_view_warns_of_a_false_win():
    s = BuilderState(rules="dazhong32")
    for k in _kinds("1m 2m 3m 4p 5p 6p 7s 8s 9s E E E S S"):
        s = s.add(k)
    v = fan_view(s)
    assert v.stage == "complete" and not v.legal
    assert "P胡" in v.to_html()
    en = fan_view(s.with_options(lang="en")).to_html()
    assert "P胡 warning" in en and "short" in en


def test_fan_view_of_a_ready_hand_lists_waits():
    s = BuilderState(rules="dazhong32")
    for k in _kinds("1m 2m 3m 2m 3m 4m 3m 4m 5m 6m 7m 8m 9m"):
        s = s.add(k)
    v = fan_view(s, distance=False)
    assert v.stage == "ready13" and v.shanten.shanten == 0
    tiles = [w.tile for w in v.waits.waits]
    assert "9m" in tiles
    assert "9m" in v.to_html()


def test_builder_widget_clicks_and_controls():
    b = HandBuilder(rules="dazhong32", lang="en")
    for t in "1m 2m 3m 2m 3m 4m 3m 4m 5m 6m 7m 8m 9m".split():
        b.palette[tile_from_str(t)].click()
    assert len(b.hand_row.children) == 13 and b.view.stage == "ready13"
    b.palette[tile_from_str("9m")].click()
    assert b.view.stage == "complete" and "Full Flush" in b.out.value
    # all four 3m are in the hand: its palette button is disabled, the hand is full
    assert b.palette[tile_from_str("3m")].disabled
    # the 连拉 slider changes the bar
    b.lianla.value = 4
    assert b.state.lianla == 4 and b.view.bar == 16
    # a click on a hand tile takes it out
    b.hand_row.children[0].click()
    assert len(b.state.tiles) == 13 and b.view.stage == "ready13"
    # a refused change says why and leaves the state alone
    b.rules.value = "gb"
    assert "连拉" in b.message.value and b.state.rules == "dazhong32"
    b.lianla.value = 0
    b.rules.value = "gb"
    assert b.state.rules == "gb" and b.lianla.disabled
    # meld mode: a click adds the pung
    b.clear_button.click()
    b.mode.value = "pung"
    b.palette[tile_from_str("P")].click()
    assert b.state.melds == (("pung", tile_from_str("P"), False),)
    assert len(b.melds_row.children) == 1
    b.melds_row.children[0].click()
    assert b.state.melds == ()
    # language
    b.lang.value = "zh"
    assert b.palette[0].description == "1万·4"        # with the copies left
    b.palette[0].click()                                # still in pung mode: a pung
    assert b.palette[0].description == "1万·1"
    b.mode.value = "tile"
    b.palette[0].click()
    assert b.palette[0].description == "1万·0" and b.palette[0].disabled
    assert b.last_update_ms < 5000
    b.close()


def test_builder_palette_is_tile_pictures():
    """Each palette button's face is its tile's picture (a CSS class whose background is the
    SVG of mjkit.pictures); its hidden text and tooltip name the tile in the language."""
    import base64

    from mjkit.tiles import tile_to_str

    b = HandBuilder(lang="en", chances=False, tile_size=64)
    css = b.style.value
    assert css.startswith("<style>") and b.style.layout.display == "none"
    for k, button in enumerate(b.palette):
        cls = f"mjkit-tile-en-{k}"
        assert {cls, "mjkit-tile", "mjkit-palette", "mjkit-left-4"} <= set(button._dom_classes)
        m = re.search(r"\.%s\{background-image:url\(\"data:image/svg\+xml;base64,([^\"]+)"
                      % cls, css)
        svg = base64.b64decode(m.group(1)).decode()
        assert f'data-tile="{tile_to_str(k)}"' in svg and "<text" not in svg
        assert button.layout.height == "66px" and button.tooltip.endswith(": 4 left")
    assert b.palette[27].tooltip == "East Wind (E): 4 left"
    b.palette[0].click()
    assert "mjkit-left-3" in b.palette[0]._dom_classes           # the copies-left badge
    assert "mjkit-left-4" not in b.palette[0]._dom_classes
    (tile,) = b.hand_row.children
    assert {"mjkit-hand-tile", "mjkit-tile-en-0"} <= set(tile._dom_classes)
    # the tile size control scales the palette, the hand and the fan view
    b.tile_size.value = 80
    assert b.palette[5].layout.height == "82px" and b.hand_row.children[0].layout.height == "82px"
    assert 'height="80"' in b.out.value
    # the language control: the pictures' labels, names and every control follow
    b.lang.value = "zh"
    assert "mjkit-tile-zh-0" in b.palette[0]._dom_classes
    assert "mjkit-tile-en-0" not in b.palette[0]._dom_classes
    assert ".mjkit-tile-zh-0{" in b.style.value and ".mjkit-tile-en-0{" not in b.style.value
    assert b.palette[0].tooltip == "一万：还剩 3 张" and b.clear_button.description == "清空"
    assert b.mode.value == "tile" and dict(b.mode.options)["顺子"] == "chow"
    assert b.tile_size.description == "牌的大小" and b.seat.label == "东"
    b.lang.value = "en"
    assert b.seat.label == "East" and b.lianla.description == "streak (连N拉N)"


def test_widgets_refuse_a_bad_language_or_tile_size():
    from mjkit.widgets import CombinationExplorer, QuizWidget

    for make in (lambda **kw: QuizWidget(1, **kw), lambda **kw: HandBuilder(chances=False, **kw),
                 lambda **kw: CombinationExplorer(fans="", **kw)):
        for bad in ("fr", "ZH", None):
            with pytest.raises(HandError, match="lang must be zh or en") as info:
                make(lang=bad)
            assert info.value.code == "unknown_name"
    for make in (lambda **kw: QuizWidget(1, **kw), lambda **kw: HandBuilder(chances=False, **kw)):
        for bad in (10, 121, 56.5, True, "big"):
            with pytest.raises(HandError, match="tile_size must be a whole number"):
                make(tile_size=bad)


def test_quiz_widget_labels_follow_its_language():
    from mjkit.widgets import QuizWidget

    zh, en = QuizWidget(3, seed=2, lang="zh"), QuizWidget(3, seed=2, lang="en", tile_size=80)
    assert [o[0] for o in zh.legal.options] == ["可以", "不可以"]
    assert [o[0] for o in en.legal.options] == ["yes", "no"]
    assert (zh.check_button.description, zh.next_button.description) == ("检查", "下一题")
    assert (en.check_button.description, en.next_button.description) == ("check", "next")
    assert [o[0] for o in zh.difficulty.options] == ["简单", "中等", "困难"]
    assert zh.fan_buttons[0].description == zh.fan_choices[0]       # the Chinese name alone
    assert zh.tile_size.value == 56 and 'height="56"' in zh.hand.value
    assert 'height="80"' in en.hand.value
    en.tile_size.value = 40
    assert 'height="40"' in en.hand.value and "mjkit-hand-picture" in en.hand.value
    # the choices fill the width in as many columns as fit (a phone: two)
    assert "auto-fill" in zh.fans.layout.grid_template_columns
    assert "mjkit-quiz" in zh.widget._dom_classes


@pytest.fixture(scope="module")
def value_index():
    """The advisor reads the value index (the builder shows chances only when it exists):
    built here once if missing (in a full run, conftest's warm-up has built it)."""
    from mjkit.value_index import value_index as build

    build("dazhong32")


def test_builder_loads_a_hand(value_index):
    b = HandBuilder(hand="[123m]456p789s55mEE E | self_drawn seat=S")
    assert b.state.melds == (("chow", 0, False),) and b.view.stage == "complete"
    assert b.seat.value == 1
    assert not b.view.legal and b.view.chances_status == "computing"   # P胡: chances
    b.load("123m234m345m678m9m 9m | self_drawn")
    assert b.view.legal and b.view.chances_status == ""       # a legal win: its fans only
    assert "computing" not in b.out.value
    b.close()


# ---------------------------------------------------------------- win chances in the builder

CHANCE_RE = re.compile(r'class="mjkit-chance" data-tile="([^"]+)"[^>]*style="([^"]*)">([^<]+)<')
HAND_RE = re.compile(r'class="mjkit-chances" data-hand="([^"]+)" data-draws="(\d+)"')


class CountingEngine:
    """mjkit.advise, counted, and held back until ``release`` is set (when ``gate``)."""

    def __init__(self, gate=False):
        from mjkit.advise import advise

        self.advise = advise
        self.calls = []
        self.release = threading.Event()
        self.entered = threading.Event()          # a call has started
        if not gate:
            self.release.set()

    def __call__(self, hand, **kw):
        self.calls.append(tuple(hand))
        self.entered.set()
        assert self.release.wait(60), "the test never released the engine"
        return self.advise(hand, **kw)


def _builder(engine, **kw):
    from mjkit.widgets.chances import AdviceCache, ChanceWorker

    return HandBuilder(chances=ChanceWorker(engine, AdviceCache()), **kw)


def _click(b, text):
    for t in text.split():
        b.palette[tile_from_str(t)].click()


def _shown(html):
    """``{tile: (percentage, highlighted)}`` under the hand's tiles."""
    return {t: (p, "background:#2a7" in style) for t, style, p in CHANCE_RE.findall(html)}


def _wait(b):
    assert b.wait_chances(60), "no win chances within 60 s"


def test_builder_shows_p_win_under_each_discard(value_index):
    from mjkit.advise import advise
    from mjkit.widgets.view import percent

    engine = CountingEngine()
    b = _builder(engine, lang="en", lianla=2, draws=3)
    b.load("123m234m345m67m99s E | self_drawn")        # 14 tiles in one change
    assert b.view.stage == "complete" and not b.view.legal and b.view.wants_chances
    _wait(b)
    adv = advise("123m234m345m67m99sE", "dazhong32", lianla=2, draws_left=3)
    assert b.view.chances_status == "done"
    shown = _shown(b.out.value)
    assert set(shown) == {r.tile for r in adv.rows}
    for r in adv.rows:
        assert shown[r.tile][0] == percent(r.p_win), r.tile
    best = [t for t, (_, hi) in shown.items() if hi]
    assert best == [r.tile for r in adv.rows if r.p_win == adv.best.p_win] and "E" in best
    assert HAND_RE.search(b.out.value).groups() == (adv.hand, "3")
    assert f"discard E: {percent(adv.p_win)}" in b.out.value
    assert adv.best.targets and adv.best.targets[0].hand in b.out.value   # the best target
    assert len(engine.calls) == 1
    # the draws control asks again; the language does not (the same answer, drawn in zh)
    b.draws.value = 2
    _wait(b)
    two = advise("123m234m345m67m99sE", "dazhong32", lianla=2, draws_left=2)
    assert _shown(b.out.value)["E"][0] == percent(two.p_win) and len(engine.calls) == 2
    b.lang.value = "zh"
    assert b.view.chances_status == "done" and "打 东" in b.out.value
    assert len(engine.calls) == 2
    b.close()


def test_builder_shows_p_win_of_a_13_tile_hand_with_its_melds_and_winds(value_index):
    from mjkit.advise import advise
    from mjkit.widgets.view import percent

    b = _builder(CountingEngine(), lang="en", lianla=2, draws=2)
    b.round.value = 1
    b.mode.value = "pung"
    _click(b, "E")
    b.mode.value = "tile"
    _click(b, "1m 2m 3m 4m 5m 6m 7m 8m 9m 9m")
    assert b.state.size == 13
    _wait(b)
    adv = advise("[EEE]123456789m9m", "dazhong32", lianla=2, draws_left=2, round_wind="S")
    assert len(adv.rows) == 1 and adv.rows[0].tile is None and adv.p_win > 0
    assert _shown(b.out.value) == {}                         # no discards: one p_win
    assert f"this hand: {percent(adv.p_win)}" in b.out.value
    assert HAND_RE.search(b.out.value).group(1) == adv.hand
    east = advise("[EEE]123456789m9m", "dazhong32", lianla=2, draws_left=2)
    assert percent(east.p_win) != percent(adv.p_win)       # the round wind counts
    b.close()


def test_builder_says_computing_first_and_never_shows_a_stale_hand(value_index):
    from mjkit.advise import advise
    from mjkit.widgets.view import percent

    engine = CountingEngine(gate=True)
    b = _builder(engine, lang="en", lianla=2, draws=2)
    seen = []
    b.out.observe(lambda ch: seen.append(ch["new"]), names="value")
    b.load("123m234m345m67m99s E | self_drawn")               # hand A, held back
    assert "computing…" in b.out.value and _shown(b.out.value) == {}
    assert b.chances.busy and engine.entered.wait(60)          # A is being computed
    b.hand_row.children[-1].click()                            # take E out: hand B
    assert b.state.size == 13 and "computing…" in b.out.value
    engine.release.set()
    _wait(b)
    a = advise("123m234m345m67m99sE", "dazhong32", lianla=2, draws_left=2)
    bb = advise("123m234m345m67m99s", "dazhong32", lianla=2, draws_left=2)
    assert f"this hand: {percent(bb.p_win)}" in b.out.value
    assert all(f'data-hand="{a.hand}"' not in html and _shown(html) == {} for html in seen)
    assert HAND_RE.search(b.out.value).group(1) == bb.hand
    # A was computed (B was asked for while A ran) and cached, not shown
    assert len(engine.calls) == 2 and b.chances.superseded == 1
    # back to hand A: drawn from the cache by the click itself
    _click(b, "E")
    assert b.view.chances_status == "done" and not b.chances.busy
    assert _shown(b.out.value)["E"][0] == percent(a.p_win)
    assert len(engine.calls) == 2
    b.close()


class RefusingEngine(CountingEngine):
    """mjkit.advise, but refusing (HandError, as the advisor refuses bad input) beyond 2
    draws: the builder's way of showing the advisor's errors is under test, and the
    builder itself never sends a request the advisor refuses."""

    def __call__(self, hand, **kw):
        if kw["draws_left"] > 2:
            self.calls.append(tuple(hand))
            raise HandError("draws_left: this engine takes at most 2 draws")
        return super().__call__(hand, **kw)


def test_builder_shows_advisor_errors_as_a_message(value_index):
    b = _builder(RefusingEngine(), lang="en", draws=12)
    b.wild.value = tile_from_str("P")
    _click(b, "1m 2m 3m 2m 3m 4m 3m 4m 5m 6m 7m 9s P")
    _wait(b)
    assert b.view.chances_status == "error"
    assert "this engine takes at most 2 draws" in b.out.value
    assert "Traceback" not in b.out.value and b.chances.error is None
    b.draws.value = 2
    _wait(b)
    assert b.view.chances_status == "done" and "this hand:" in b.out.value
    b.close()


def test_chance_worker_keeps_only_the_newest_request():
    from mjkit.widgets.chances import AdviceCache, ChanceWorker, chance_request

    engine = CountingEngine(gate=True)
    w = ChanceWorker(engine, AdviceCache(maxsize=2))
    got = []
    s = BuilderState(rules="dazhong32", lianla=2)
    for k in _kinds("1m 2m 3m 2m 3m 4m 3m 4m 5m 6m 7m 9s 9s"):
        s = s.add(k)
    reqs = [chance_request(s, d) for d in (1, 2, 3)]
    for r in reqs:
        w.submit(r, lambda req, ans: got.append((req.draws, ans.draws)))
        assert engine.entered.wait(60)            # the first is running before the others
    engine.release.set()
    assert w.wait(60)
    # the first was running when the others came: computed, not delivered; the second
    # was replaced before it started; the third delivered
    assert got == [(3, 3)] and len(engine.calls) == 2 and w.superseded == 1
    assert reqs[0].key in w.cache and reqs[1].key not in w.cache
    assert w.lookup(reqs[2]).draws == 3
    w.submit(reqs[1], lambda req, ans: got.append((req.draws, ans.draws)))
    assert w.wait(60) and got[-1] == (2, 2) and len(w.cache) == 2
    assert reqs[0].key not in w.cache                 # the least recently used went
    same = chance_request(s.with_options(lang="en", self_drawn=False), 3)
    assert same.key == reqs[2].key                    # language and flags: the same answer
    with pytest.raises(HandError, match="draws"):
        chance_request(s, 31)
    w.close()
    with pytest.raises(HandError, match="closed"):
        w.submit(reqs[2], got.append)


# ---------------------------------------------------------------- the quiz

def test_quiz_is_seeded_and_checks_answers(tmp_path):
    from mjkit.quiz import Quiz

    a = Quiz(9, seed=4, difficulty="hard")
    b = Quiz(9, seed=4, difficulty="hard")
    assert [q.hand for q in a] == [q.hand for q in b]
    assert [q.hand for q in Quiz(9, seed=5, difficulty="hard")] != [q.hand for q in a]
    assert [q.kind for q in a][:3] == ["fans", "total", "legal"]
    for i, q in enumerate(a):
        assert 5 <= len(q.fans) and q.result.is_win
        good = list(q.answer) if q.kind == "fans" else (
            q.answer if q.kind == "total" else ("yes" if q.answer else "no"))
        assert a.answer(i, good).correct
        assert q.result.verdict("en") in q.explanation("en")
    assert a.score == (9, 9)
    q = a[1]
    assert not a.answer(1, q.answer + 1).correct and a.score == (8, 9)
    legal = [q.answer for q in a if q.kind == "legal"]
    assert True in legal and False in legal                   # both verdicts asked
    fans_q = a[0]
    assert set(fans_q.answer) <= set(fans_q.choices) and len(fans_q.choices) > len(fans_q.answer)
    with pytest.raises(HandError, match="not among the choices"):
        a.answer(0, ["大四喜之王"])
    with pytest.raises(HandError, match="whole number"):
        a.answer(1, "many")
    with pytest.raises(HandError, match="yes or no"):
        a.answer(2, "perhaps")
    path = a.to_csv(tmp_path / "class.csv")
    import pandas as pd

    df = pd.read_csv(path)
    assert len(df) == 9 and df["correct"].sum() == 8
    with pytest.raises(HandError, match="difficulty"):
        Quiz(3, difficulty="impossible")
    with pytest.raises(HandError, match="连拉"):
        Quiz(3, rules="gb", lianla=2)


def test_quiz_widget_round_trip(tmp_path):
    from mjkit.widgets import QuizWidget

    w = QuizWidget(3, seed=2, difficulty="easy", lang="en")
    q = w.quiz[0]
    assert q.kind == "fans" and w.answer_box.children == (w.fans,)
    for b, name in zip(w.fan_buttons, w.fan_choices):       # toggle the right fans on
        b.value = name in q.answer
    assert all(b.description.endswith(f"({name})")          # English first, 中文 beside
               for b, name in zip(w.fan_buttons, w.fan_choices))
    w.check_button.click()
    assert "Right!" in w.feedback.value and "score 1 / 1" in w.header.value
    w.next_button.click()
    assert w.answer_box.children == (w.total,)
    w.total.value = w.quiz[1].answer + 3
    w.check_button.click()
    assert "Not quite." in w.feedback.value and str(w.quiz[1].result.total) in w.feedback.value
    w.next_button.click()
    w.check_button.click()                                  # no choice made yet
    assert "choose yes or no" in w.feedback.value
    w.legal.value = "yes" if w.quiz[2].answer else "no"
    w.check_button.click()
    assert w.quiz.score == (2, 3)
    assert "base64," in w.download.value                  # the export is a download link
    assert w.export() is None and list(tmp_path.iterdir()) == []   # no results_dir: no file
    w.next_button.click()
    assert "Done" in w.prompt.value
    w.seed.value = 7
    w.new_button.click()
    assert w.quiz.seed == 7 and w.index == 0 and w.quiz.score == (0, 0)


def test_fan_view_with_melds_while_building():
    s = BuilderState().add_meld("concealed kong", tile_from_str("E"))
    for k in _kinds("1m 2m 3m 5m 5m"):
        s = s.add(k)
    v = fan_view(s)
    assert v.stage == "building" and v.shanten is None
    html = v.to_html()
    assert html.count("<svg") == 1 and "{EEEE}" in html and "再加 5 张牌" in html
    s = s.add(tile_from_str("7p")).add(tile_from_str("8p"))
    s = s.add(tile_from_str("9p")).add(tile_from_str("4m"))
    s = s.add(tile_from_str("6m"))
    assert s.size == 13
    v = fan_view(s, distance=False)
    assert v.stage == "ready13" and v.waits.waits


# ---------------------------------------------------------------- combinations

def test_combination_explorer():
    import numpy as np

    from mjkit.explore import combination
    from mjkit.sim import default_study
    from mjkit.widgets import CombinationExplorer

    info = combination("清一色 + 一色三步高", examples=3, seed=1)
    assert info.keys == ["FULL_FLUSH", "PURE_SHIFTED_CHOWS"] and info.points == 40
    assert info.patterns > 0 and 0 < info.share < 1
    assert info.counted["min"] >= 40
    assert len(info.examples) == 3
    for text in info.examples:          # every example really carries both fans
        r = mjkit.score(text, rules="dazhong32", self_drawn=True)
        names = {f.zh for f in r.fans}
        assert {"清一色", "一色三步高"} <= names
    assert info.examples == combination("清一色 + 一色三步高", examples=3, seed=1).examples
    study = default_study()
    c = study.combinations
    row = c[(c.combination == "清一色 + 一色三步高")].set_index("level")
    np.testing.assert_array_equal(info.reach["k"], row["k"])
    # a single fan: the count matches the exact tables' distinct patterns, up to the
    # 7,938 patterns the value index lists twice (both seven pairs and regular)
    from mjkit.exact import fan_distribution

    one = combination("七对", examples=0, study=False)
    fd = fan_distribution("dazhong32").fans
    shipped = fd[(fd.key == "SEVEN_PAIRS") & (fd.threshold == fd.threshold.min())]
    assert 0 <= one.patterns - int(shipped["patterns"].iat[0]) <= 7938
    with pytest.raises(HandError, match="fan"):
        combination("清一色 + 不是番")
    w = CombinationExplorer(fans="清一色 + 七对")
    assert "七对 + 清一色" in w.out.value and w.info.points == 48
    w.picker.value = ()
    assert w.info is None
    w.picker.value = ("PURE_STRAIGHT",)
    assert w.info.keys == ["PURE_STRAIGHT"] and "<svg" in w.out.value
    w.picker.value = ("ALL_PUNGS",)
    assert w.info.patterns == 0 and "四暗刻" in w.out.value
