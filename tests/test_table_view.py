"""A hand's record shown move by move (mjkit.table.view): the table drawn at each event
with mjkit's tile pictures, the events in words, the widget's slider and buttons moving
to the right state, every visible string in the widget's language."""

from __future__ import annotations

import re

import pytest

from mjkit import HandError
from mjkit import messages as M
from mjkit.table.record import make_record
from mjkit.table.state import fold
from mjkit.table.view import RecordView, event_text, hand_html, record_html
from test_messages_catalogue import foreign, html_lines, visible_strings
from test_table_state import demo_events, index_of, robbed_events


def _seat_tiles(html):
    """``data-tiles`` of each seat in the HTML, by seat."""
    return [int(n) for n in re.findall(r'class="mjkit-seat" data-seat="\d" data-tiles="(\d+)"',
                                       html)]


def _discards(html, seat):
    m = re.search(rf'<div class="mjkit-discards" data-seat="{seat}"[^>]*>(.*?)</div>', html)
    return [] if m is None else re.findall(r'data-tile="([^"]+)"', m.group(1))


def test_the_table_is_drawn_as_the_snapshot_holds_it():
    events = demo_events()
    snaps = fold(events)
    i = index_of(events, e="chow") + 1
    html = hand_html(snaps[i], lang="en", size=30)
    assert html.count("<svg") >= 10 and "<text" not in html       # pictures, never a font
    assert _seat_tiles(html) == [len(h) for h in snaps[i].hands]
    assert f'data-index="{i}"' in html
    assert f'data-left="{snaps[i].wall_left}"' in html
    assert "East chows North&#x27;s 1m: 1m2m3m" in html
    assert _discards(html, 0) == ["E"] and _discards(html, 3) == ["1m"]
    assert html.count("已无") == 0 and "dimmed" in html           # taken discards greyed
    assert "strong_break" in html and "dealer" in html
    assert 'class="mjkit-wild"' in html and "White Dragon (P), wild" in html
    zh = hand_html(snaps[i], lang="zh", size=30)
    assert "东家 吃 北家 的 1万：1万2万3万" in zh and "已无" in zh


def test_the_end_shows_the_result_and_the_winning_tile():
    events = demo_events()
    html = hand_html(fold(events)[-1], lang="en")
    assert "34 counted fans, 35 in all" in html
    assert "Self-Drawn (自摸)" in html and "Flower Tiles (花牌)" in html
    assert "East · you" in html and "+105" in html and "-35" in html
    assert "1 Character (1m), winning tile" in html
    zh = hand_html(fold(robbed_events())[-1], lang="zh")
    assert "西家 抢 南家 的杠和 7饼" in zh and "抢杠和" in zh


def test_a_false_win_shows_the_shortfall():
    events = demo_events()
    events[-2] = {"e": "false_win", "seat": 0, "tile": "1m", "from": None, "counted": 20,
                  "total": 22, "bar": 32, "short": 12, "fans": {"SELF_DRAWN": 1}}
    events[-1] = {"e": "end", "result": "false_win", "payments": [0, 0, 0, 0]}
    en = hand_html(fold(events)[-1], lang="en")
    assert "20 counted fans, 22 in all · 32 needed: 12 short" in en
    assert "declares a false win (P胡) on 1m" in en


@pytest.mark.parametrize("lang", M.LANGS)
def test_every_event_has_words(lang):
    for events in (demo_events(), robbed_events()):
        texts = [event_text(ev, lang) for ev in events]
        assert all(texts) and len(set(texts)) > 10
    assert event_text(None, lang) == M.text("record.start", lang)


def test_record_html_lists_every_move():
    events = demo_events()
    html = record_html(events, lang="en")
    moves = re.findall(r"<li>(.*?)</li>", html)
    assert len(moves) == len(events)
    assert moves[0] == "hand 0 begins: dazhong32 (大众32番连拉)"
    assert moves[-1] == "the hand is over"
    assert f"event {len(events)} of {len(events)}" in html
    log = make_record([events], created="2024-05-01T10:00:00").hands[0]
    assert log._repr_html_() == record_html(log)


@pytest.mark.parametrize("bad, kwargs, message", [
    ("snapshot", {}, "expected a Snapshot"),
    (None, {"lang": "fr"}, "unknown language"),
    (None, {"size": 4}, "size must be a whole number in 12..120"),
    (None, {"size": True}, "size must be a whole number"),
])
def test_hand_html_checks_its_arguments(bad, kwargs, message):
    snap = fold(demo_events())[-1] if bad is None else bad
    with pytest.raises(HandError, match=message):
        hand_html(snap, **kwargs)


def test_a_damaged_hand_is_refused_by_the_view():
    events = demo_events()
    events[index_of(events, e="pung")]["tile"] = "5s"
    with pytest.raises(HandError, match=r"^event \d+: pung of 5s"):
        record_html(events)
    with pytest.raises(HandError, match=r"^event \d+: pung of 5s"):
        RecordView(events)
    with pytest.raises(HandError, match="a HandLog or a hand's list of events"):
        RecordView("hand")


# ------------------------------------------------------------------ the widget


def test_the_slider_and_buttons_show_the_right_state():
    events = demo_events()
    snaps = fold(events)
    v = RecordView(make_record([events], created="2024-05-01T10:00:00").hands[0], lang="en")
    dealt = index_of(events, e="dealt") + 1
    assert v.index == dealt and v.snapshot is v.snapshots[dealt]      # starts after the deal
    assert v.out.value == hand_html(snaps[dealt], lang="en", total=len(events))
    assert _seat_tiles(v.out.value) == [14, 13, 13, 13]
    chow = index_of(events, e="chow") + 1
    v.slider.value = chow                                             # move the slider
    assert f'data-index="{chow}"' in v.out.value
    assert "East chows" in v.out.value and _seat_tiles(v.out.value)[0] == 11
    v.next.click()                                                    # press next
    assert v.index == chow + 1 and "East discards 9m" in v.out.value
    assert _discards(v.out.value, 0) == ["E", "9m"]
    v.prev.click()
    v.prev.click()
    assert v.index == chow - 1 and "North discards 1m" in v.out.value
    assert _discards(v.out.value, 3) == ["1m"]
    v.go(0)
    assert v.prev.disabled and not v.next.disabled
    assert M.text("record.start", "en") in v.out.value
    v.prev.click()
    assert v.index == 0
    v.go(10**6)
    assert v.index == len(events) and v.next.disabled
    assert "the hand is over" in v.out.value and "+105" in v.out.value
    with pytest.raises(HandError, match="index must be a whole number"):
        v.go("next")


def test_the_widget_starts_where_it_is_told():
    events = robbed_events()
    v = RecordView(events, lang="zh", index=3)
    assert v.index == 3 and 'data-index="3"' in v.out.value
    with pytest.raises(HandError, match="index must be a whole number in 0.."):
        RecordView(events, index=len(events) + 1)


@pytest.mark.parametrize("lang", M.LANGS)
def test_the_widget_speaks_one_language(lang):
    events = demo_events()
    v = RecordView(events, lang=lang)
    seen, bad = 0, []
    for i in (0, index_of(events, e="dealt") + 1, index_of(events, e="exchange") + 1,
              index_of(events, e="chow") + 1, index_of(events, e="kong") + 1, len(events)):
        v.go(i)
        strings = visible_strings(v.widget, f"record view @{i}")
        seen += len(strings)
        bad += foreign(strings, lang)
    lines = html_lines(record_html(robbed_events(), lang=lang))
    bad += foreign([("record_html", x) for x in lines], lang)
    assert seen > 100
    assert not bad, "\n".join(f"{w}: {t!r}" for w, t in bad)


def test_the_language_check_can_fail():
    """The check above sees an English word shown in the Chinese view."""
    v = RecordView(demo_events(), lang="zh")
    v.out.value += "<div>payments</div>"
    assert foreign(visible_strings(v.widget), "zh") == [("widget/1:HTML", "payments")]
