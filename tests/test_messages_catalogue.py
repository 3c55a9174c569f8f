"""Every text a person sees, in zh and en: the catalogue is complete, and the widgets show
only texts in the language they were given.

The catalogue test checks that each entry of :mod:`mjkit.messages` has both languages,
non-empty, of one shape, with the same ``{fields}``.  The widget test builds every widget
in both languages, drives it through its states (each kind of quiz question, feedback,
the final score; an empty, a ready, a complete and a refused hand; a combination and no
combination), walks the widget tree and reads every visible string: descriptions,
option labels, tooltips, placeholders, tab titles and the text of HTML values (with
their ``title`` attributes).  In English no string may be Chinese only (a Chinese fan
name may stand *beside* an English one); in Chinese no string may be English only,
hand notation and numbers aside.
"""

from __future__ import annotations

import json
import re
import string
from html.parser import HTMLParser

import pytest

import mjkit
from mjkit import HandError
from mjkit import messages as M
from mjkit.tiles import tile_from_str

HAN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
WORD = re.compile(r"[A-Za-z]{2,}")


# ------------------------------------------------------------------ the catalogue

#: Fields only English has: its plural ending ("tile{plural}").
EN_GRAMMAR = {"plural"}
#: Per key, the fields (zh, en) each language's text leaves out, and why.
LEAVES_OUT = {
    # en takes the level as " at 连2拉2" ({at}), zh writes {level} itself
    "quiz.prompt.legal": ({"at"}, {"level"}),
    # zh leaves the count of legal waits to the rows, each marked 够番 or P胡
    "reach.head": ({"legal"}, set()),
    # a fan in zh is its Chinese name; en puts the English name first, the Chinese beside
    "widgets.term": ({"en"}, set()),
    "explorer.option": ({"en"}, set()),
}


def _fields(entry):
    if isinstance(entry, str):
        return {f for _, f, _, _ in string.Formatter().parse(entry) if f is not None}
    items = entry.values() if isinstance(entry, dict) else entry
    return set().union(*(_fields(x) for x in items)) if items else set()


def _shape(entry):
    if isinstance(entry, dict):
        return ("dict", tuple(sorted(entry)))
    if isinstance(entry, tuple):
        return ("tuple", len(entry))
    return (type(entry).__name__,)


def _empty(entry):
    if isinstance(entry, str):
        return not entry.strip()
    items = list(entry.values() if isinstance(entry, dict) else entry)
    return not items or any(_empty(x) for x in items)


def test_every_catalogue_entry_has_both_languages_with_the_same_fields():
    bad = []
    for key, pair in M._CATALOGUE.items():
        if not (isinstance(pair, tuple) and len(pair) == len(M.LANGS)):
            bad.append(f"{key}: not one text per language")
            continue
        zh, en = pair
        if _shape(zh) != _shape(en):
            bad.append(f"{key}: zh is {_shape(zh)}, en is {_shape(en)}")
        for lang, entry in zip(M.LANGS, pair):
            if _empty(entry):
                bad.append(f"{key}: {lang} is empty")
        lz, le = LEAVES_OUT.get(key, (set(), set()))
        if _fields(zh) | lz != (_fields(en) - EN_GRAMMAR) | le:
            bad.append(f"{key}: fields zh {sorted(_fields(zh))} en {sorted(_fields(en))}")
        if isinstance(zh, str):               # every template formats with its fields
            for lang in M.LANGS:
                M.text(key, lang, **{f: "1" for f in _fields(zh) | _fields(en)})
    assert not bad, "\n".join(bad)


def test_the_catalogue_checker_sees_a_missing_translation(monkeypatch):
    """The test above can fail: an entry without English, or with a field lost, is named."""
    monkeypatch.setitem(M._CATALOGUE, "test.half", ("只有中文", ""))
    monkeypatch.setitem(M._CATALOGUE, "test.field", ("差 {n} 番", "short"))
    with pytest.raises(AssertionError, match=r"(?s)test\.half: en is empty.*test\.field"):
        test_every_catalogue_entry_has_both_languages_with_the_same_fields()


# ------------------------------------------------------------------ visible strings

class _Text(HTMLParser):
    """The lines a reader sees in an HTML value, and its ``title`` attributes."""

    BLOCK = {"div", "p", "tr", "li", "br", "table", "summary", "details", "title", "h1",
             "h2", "h3", "h4", "ul", "ol", "th", "td"}

    def __init__(self):
        super().__init__()
        self.lines, self.now, self.skip = [], [], 0

    def _break(self):
        line = " ".join("".join(self.now).split())
        if line:
            self.lines.append(line)
        self.now = []

    def handle_starttag(self, tag, attrs):
        if tag in ("style", "script"):
            self.skip += 1
        if tag in self.BLOCK:
            self._break()
        for name, value in attrs:
            if name == "title" and value:
                self.lines.append(value)

    def handle_endtag(self, tag):
        if tag in ("style", "script"):
            self.skip -= 1
        if tag in self.BLOCK:
            self._break()

    def handle_data(self, data):
        if not self.skip:
            self.now.append(data)


def html_lines(value):
    p = _Text()
    p.feed(value)
    p.close()
    p._break()
    return p.lines


def visible_strings(widget, where="widget"):
    """``(where, text)`` for every string ``widget`` and its children show."""
    import ipywidgets as W

    out = []
    name = type(widget).__name__
    for trait in ("description", "tooltip", "placeholder"):
        value = getattr(widget, trait, None)
        if isinstance(value, str) and value.strip():
            out.append((f"{where}:{name}.{trait}", value))
    for label in getattr(widget, "_options_labels", ()) or ():
        out.append((f"{where}:{name} option", label))
    for tip in getattr(widget, "tooltips", ()) or ():
        out.append((f"{where}:{name} tooltip", tip))
    for title in getattr(widget, "titles", ()) or ():
        out.append((f"{where}:{name} title", title))
    if isinstance(widget, (W.HTML, W.HTMLMath, W.Label)):
        out += [(f"{where}:{name}", line) for line in html_lines(widget.value)]
    for i, child in enumerate(getattr(widget, "children", ()) or ()):
        out += visible_strings(child, f"{where}/{i}")
    return out


def _notation(text):
    """Hand notation (with its situation): the same in both languages."""
    try:
        mjkit.parse_hand(text)
    except HandError:
        return False
    return True


def foreign(strings, lang):
    """The strings that are in the other language only."""
    bad = []
    for where, text in strings:
        if lang == "en" and HAN.search(text) and not WORD.search(text):
            bad.append((where, text))
        if lang == "zh" and WORD.search(text) and not HAN.search(text) \
                and not _notation(text):
            bad.append((where, text))
    return bad


def _quiz_states(lang):
    from mjkit.widgets import QuizWidget

    w = QuizWidget(3, seed=2, difficulty="easy", lang=lang)
    yield "quiz: fans", w.widget
    w.fan_buttons[0].value = True
    w.check()
    yield "quiz: fans checked", w.widget
    w.go(1)
    w.check()
    yield "quiz: total checked", w.widget
    w.go(2)
    yield "quiz: yes/no", w.widget
    w.check()                                   # no choice: the widget asks for one
    yield "quiz: yes/no unanswered", w.widget
    w.go(3)
    yield "quiz: done", w.widget
    served = QuizWidget(1, seed=2, difficulty="easy", lang=lang, student="Lin",
                        recorder=lambda *a: None)
    served.check()
    yield "quiz: served", served.widget


def _builder_states(lang):
    from mjkit.widgets import HandBuilder

    b = HandBuilder(lang=lang, lianla=2, chances=False)
    yield "builder: empty", b.widget
    for t in "1m 2m 3m 2m 3m 4m 3m 4m 5m 6m 7m 8m 9m".split():
        b.palette[tile_from_str(t)].click()
    yield "builder: ready", b.widget
    b.palette[tile_from_str("9m")].click()
    yield "builder: complete", b.widget
    b.clear_button.click()
    b.mode.value = "chow"
    b.palette[tile_from_str("8m")].click()      # refused: no chow starts at 8m
    assert b.message.value
    yield "builder: refused", b.widget
    b.mode.value = "tile"
    b.seat.value = 1                            # 连拉 dropped: a notice
    assert b.message.value
    yield "builder: notice", b.widget
    b.wild.value = tile_from_str("P")
    b.load("123m234m345m67m99s E | self_drawn")
    yield "builder: a false win", b.widget
    b.close()


def _view_states(lang):
    """The fan view's states the builder reaches only with the advisor: computing, error."""
    import ipywidgets as W

    from mjkit.widgets import BuilderState, fan_view

    s = BuilderState(lang=lang)
    for t in "1m 2m 3m 2m 3m 4m 3m 4m 5m 6m 7m 8m 9m".split():
        s = s.add(tile_from_str(t))
    v = fan_view(s, distance=False)
    yield "view: computing", W.HTML(v.with_chances(None, 12).to_html())
    yield "view: advisor error", W.HTML(v.with_chances(HandError("x"), 12).to_html())
    bad = fan_view(s.add(tile_from_str("9m")).with_options(flags={"earthly_hand"}))
    assert bad.stage == "error"
    yield "view: scoring error", W.HTML(bad.to_html())


def _explorer_states(lang):
    from mjkit.widgets import CombinationExplorer

    w = CombinationExplorer(fans="清一色 + 七对", lang=lang, examples=1)
    yield "explorer", w.widget
    w.picker.value = ()
    yield "explorer: none chosen", w.widget
    w.picker.value = ("ALL_PUNGS",)
    yield "explorer: no hand", w.widget


def _classroom_tabs(lang, monkeypatch):
    """The app notebook's code, as the served page runs it."""
    from mjkit.app import NOTEBOOK, server

    cells = json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]
    monkeypatch.setattr(server, "notebook_settings", lambda environ=None: {
        "n": 1, "seed": 0, "difficulty": "easy", "lang": lang, "results_dir": None,
        "db": None, "student": None})
    ns = {}
    for cell in cells:
        if cell["cell_type"] == "code":
            exec("".join(cell["source"]), ns)
    yield "classroom", ns["tabs"]
    ns["builder"].close()


@pytest.mark.parametrize("lang", M.LANGS)
def test_every_widget_speaks_one_language(lang, monkeypatch):
    seen, bad = 0, []
    for states in (_quiz_states(lang), _builder_states(lang), _view_states(lang),
                   _explorer_states(lang), _classroom_tabs(lang, monkeypatch)):
        for where, widget in states:
            strings = visible_strings(widget, where)
            seen += len(strings)
            bad += foreign(strings, lang)
    assert seen > 300
    assert not bad, f"{len(bad)} strings not in {lang}:\n" + "\n".join(
        f"  {w}: {t!r}" for w, t in dict.fromkeys(bad))


def test_the_language_checker_sees_an_untranslated_label():
    """The checker can fail: a Chinese-only choice in English, an English label in Chinese."""
    import ipywidgets as W

    en = W.VBox([W.ToggleButtons(options=[("可以", "yes"), ("no", "no")]),
                 W.HTML("<div><b>Full Flush</b> 清一色</div><div>不计</div>")])
    assert [t for _, t in foreign(visible_strings(en), "en")] == ["可以", "不计"]
    zh = W.VBox([W.Button(description="clear", tooltip="清空"),
                 W.HTML("<p>123m456p789s111z5m 5m | self_drawn seat=E</p><p>5 番</p>")])
    assert [t for _, t in foreign(visible_strings(zh), "zh")] == ["clear"]
