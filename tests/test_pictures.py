"""Tile pictures (mjkit.pictures): SVG of tiles and hands, the notebook display
of Hand and ScoreResult, and the matplotlib drawer."""

import base64
import math
import re
import xml.etree.ElementTree as ET

import pytest

import mjkit
from mjkit import HandError
from mjkit import pictures as P
from mjkit.tiles import TILE_NAMES_EN, TILE_NAMES_ZH, tile_to_str

SVG = "{http://www.w3.org/2000/svg}"


def parse(svg):
    root = ET.fromstring(svg)
    assert root.tag == SVG + "svg"
    return root


def groups(root, cls):
    return [g for g in root.iter(SVG + "g") if g.get("class") == cls]


def texts(root):
    """The text a picture shows, in order: its glyph outlines (``data-text``) and any
    ``<text>`` (tiles write none, see test_no_tile_writes_svg_text)."""
    return [t.get("data-text") if t.tag == SVG + "path" else t.text for t in root.iter()
            if t.tag == SVG + "text" or (t.tag == SVG + "path" and t.get("class") == "glyph")]


# --------------------------------------------------------------------------
# one tile
# --------------------------------------------------------------------------

@pytest.mark.parametrize("lang", ["zh", "en"])
def test_every_tile_is_well_formed_svg_with_a_title(lang):
    for i in range(42):
        root = parse(P.tile_svg(i, lang=lang))
        title = root.find(SVG + "title").text
        name = TILE_NAMES_ZH[i] if lang == "zh" else TILE_NAMES_EN[i]
        assert name in title and tile_to_str(i) in title
        assert root.get("aria-label") == title
        (tile,) = groups(root, "tile")
        assert tile.get("data-tile") == tile_to_str(i)
        w, h = float(root.get("width")), float(root.get("height"))
        assert h == 48 and w / h == pytest.approx(0.75)


def test_size_sets_the_pixel_size_and_keeps_the_viewbox():
    root = parse(P.tile_svg("5m", size=24))
    assert (float(root.get("width")), float(root.get("height"))) == (18, 24)
    assert root.get("viewBox") == "0 0 30 40"


def test_tile_accepts_indices_and_notation():
    assert P.tile_svg(4) == P.tile_svg("5m")
    assert P.tile_svg(31) == P.tile_svg("P") == P.tile_svg("5z")
    assert P.tile_svg(36) == P.tile_svg("3f")
    assert P.tile_svg(27, label=False) == P.tile_svg("E", label=False)


@pytest.mark.parametrize("label", [True, False])
def test_distinct_tiles_have_distinct_pictures(label):
    pictures = {P.tile_svg(i, label=label, lang="en") for i in range(42)}
    assert len(pictures) == 42
    # the faces alone (no label, no title) differ too
    faces = set()
    for i in range(42):
        root = parse(P.tile_svg(i, label=label))
        (face,) = groups(root, "face")
        faces.add(ET.tostring(face))
    assert len(faces) == 42


@pytest.mark.parametrize("rank", range(1, 10))
def test_dots_and_sticks_count_the_rank(rank):
    dots = parse(P.tile_svg(f"{rank}p"))
    assert len(groups(dots, "dot")) == rank
    assert not groups(dots, "stick")
    bamboo = parse(P.tile_svg(f"{rank}s"))
    if rank == 1:
        assert len(groups(bamboo, "bird")) == 1 and not groups(bamboo, "stick")
    else:
        assert len(groups(bamboo, "stick")) == rank and not groups(bamboo, "bird")
    assert not groups(bamboo, "dot")


def test_dots_and_sticks_are_shapes_not_text():
    for t in ("1p", "5p", "9p", "1s", "8s"):
        assert texts(parse(P.tile_svg(t, label=False))) == []


def test_faces_show_the_chinese_glyphs():
    for r, numeral in enumerate("一二三四五六七八九", start=1):
        assert texts(parse(P.tile_svg(f"{r}m", label=False))) == [numeral, "万"]
    for t, glyph in zip("ESWNFC", "东南西北发中"):
        assert texts(parse(P.tile_svg(t, label=False))) == [glyph]
    white = parse(P.tile_svg("P", label=False))
    assert texts(white) == []
    assert len([r for r in white.iter(SVG + "rect") if r.get("fill") == "none"]) == 2
    for k, glyph in enumerate("春夏秋冬梅兰竹菊"):
        assert texts(parse(P.tile_svg(34 + k, label=False))) == [str(k % 4 + 1), glyph]


def test_no_tile_writes_svg_text():
    """Every glyph is a shipped outline: nothing is left to the viewer's fonts."""
    from mjkit.fonts import text_outline

    docs = [P.tile_svg(i, lang=lang, label=label, state=state)
            for i in range(42) for lang in ("zh", "en") for label in (True, False)
            for state in (None, "win", ("wild", "dim"))]
    docs += [P.hand_svg("[123m]{EEEE}456p789s1p 1p | flowers=1f3f", wild="5p"),
             P.hand_svg("123m456p789s55mEE E | flowers=2"),
             P.hand_svg("123m456p789s55mEE E | flowers=2", lang="en"),
             P.tiles_svg("19m19p19sESWNPFC12345678f", size=24)]
    shown = 0
    for svg in docs:
        root = parse(svg)
        assert root.find(f".//{SVG}text") is None
        for g in root.iter(SVG + "path"):
            if g.get("class") == "glyph":
                shown += 1
                d, _, _ = text_outline(g.get("data-text"), float(g.get("data-size")))
                want = P._path_d(d)    # data-size is rounded: compare within 1%
                assert re.sub(r"[-\d.]+", "", g.get("d")) == re.sub(r"[-\d.]+", "", want)
                got = [float(v) for v in re.findall(r"-?[\d.]+", g.get("d"))]
                exp = [float(v) for v in re.findall(r"-?[\d.]+", want)]
                assert len(got) == len(exp) and all(abs(a - b) <= 0.02 + 0.01 * abs(b)
                                                    for a, b in zip(got, exp))
    assert shown > 42 * 4 * 3


def test_labels_in_chinese_and_english():
    assert [P.tile_label(t, "zh") for t in ("5m", "3p", "7s", "E", "P", "F", "C", "1f")] == \
        ["5万", "3饼", "7条", "东", "白", "发", "中", "春"]
    assert [P.tile_label(t, "en") for t in ("5m", "3p", "7s", "E", "P", "F", "C", "8f")] == \
        ["5m", "3p", "7s", "E", "White", "Green", "Red", "8f"]
    assert texts(parse(P.tile_svg("5m", lang="zh")))[-1] == "5万"
    assert texts(parse(P.tile_svg("5m", lang="en")))[-1] == "5m"
    assert texts(parse(P.tile_svg("P", lang="en"))) == ["White"]
    assert texts(parse(P.tile_svg("P", label=False))) == []


def test_label_stays_readable_at_small_sizes():
    def label_size(px):
        node = [g for g in parse(P.tile_svg("5m", size=px)).iter(SVG + "path")
                if g.get("class") == "glyph"][-1]
        return float(node.get("data-size")) * px / 40   # in pixels

    assert label_size(24) >= 6.5 and label_size(48) >= 6.5
    # the face shrinks to make room, but not below two thirds
    small = parse(P.tile_svg("9p", size=24))
    (face,) = groups(small, "face")
    scale = float(re.search(r"scale\(([\d.]+)\)", face.get("transform")).group(1))
    assert scale >= 0.66


def test_states_change_the_drawing():
    plain = P.tile_svg("5p")
    for state in ("win", "wild", "dim", "concealed"):
        svg = P.tile_svg("5p", state=state)
        assert svg != plain, state
        root = parse(svg)
        assert groups(root, "tile")[0].get("data-state") == state
    # exposed is face up: only the state attribute and the title say it
    exposed = P.tile_svg("5p", state="exposed", lang="en")
    assert exposed.replace(' data-state="exposed"', "").replace(", exposed", "") \
        == P.tile_svg("5p", lang="en")
    assert groups(parse(P.tile_svg("5p", state="wild")), "wild")
    assert not groups(parse(plain), "wild")
    assert 'fill-opacity' in P.tile_svg("5p", state="dim")
    assert P.WIN_BORDER in P.tile_svg("5p", state="win") and P.WIN_BORDER not in plain
    both = P.tile_svg("5p", state=("win", "wild"))
    assert P.WIN_BORDER in both and groups(parse(both), "wild")


def test_concealed_is_face_down():
    root = parse(P.tile_svg("5p", state="concealed"))
    assert not groups(root, "face") and not groups(root, "dot") and texts(root) == []
    assert P.tile_svg("5p", state="concealed") != P.tile_svg("6p", state="concealed")  # titles
    assert "face down" in P.tile_svg("5p", state="concealed", lang="en")
    assert "扣着" in P.tile_svg("5p", state="concealed")


@pytest.mark.parametrize("bad, match", [
    ("Q", "unknown tile 'Q'"), ("0m", "unknown tile"), ("5m5m", "unknown tile"),
    (42, "out of range"), (-1, "out of range"), (True, "tile index"), (None, "tile index"),
    (4.0, "tile index"),
])
def test_bad_tiles_raise(bad, match):
    with pytest.raises(HandError, match=match):
        P.tile_svg(bad)


@pytest.mark.parametrize("kwargs, match", [
    ({"size": 0}, "size must be a positive number"), ({"size": -5}, "size"),
    ({"size": math.nan}, "size"), ({"size": math.inf}, "size"), ({"size": True}, "size"),
    ({"size": "48"}, "size"), ({"lang": "fr"}, "unknown language 'fr'"),
    ({"lang": None}, "language"), ({"state": "shiny"}, "unknown tile state 'shiny'"),
    ({"state": ("win", 3)}, "tile state"), ({"state": ("exposed", "concealed")}, "both"),
    ({"label": "yes"}, "label must be True or False"),
])
def test_bad_options_raise(kwargs, match):
    with pytest.raises(HandError, match=match):
        P.tile_svg("5m", **kwargs)


def test_data_uri_is_the_svg():
    uri = P.tile_data_uri("C", size=30, state="win")
    head, data = uri.split(",", 1)
    assert head == "data:image/svg+xml;base64"
    assert base64.b64decode(data).decode() == P.tile_svg("C", size=30, state="win")


# --------------------------------------------------------------------------
# rows and hands
# --------------------------------------------------------------------------

def test_tiles_row():
    root = parse(P.tiles_svg("123m E 5f", size=20, lang="en"))
    tiles = groups(root, "tile")
    assert [g.get("data-tile") for g in tiles] == ["1m", "2m", "3m", "E", "5f"]
    xs = [float(re.search(r"translate\(([\d.]+)", g.get("transform") or "translate(0")
                          .group(1)) for g in tiles]
    assert xs == sorted(xs) and len(set(xs)) == 5
    assert float(root.get("height")) == 20
    assert P.tiles_svg([0, "2m", 2]) == P.tiles_svg("123m")
    assert parse(P.tiles_svg([])).get("width") == "0"


def test_tiles_row_states():
    root = parse(P.tiles_svg("55p5p", states=[None, "dim", ("win", "wild")]))
    assert [g.get("data-state") for g in groups(root, "tile")] == [None, "dim", "win wild"]
    dim = groups(parse(P.tiles_svg("12m", states="dim")), "tile")
    assert [g.get("data-state") for g in dim] == ["dim", "dim"]
    with pytest.raises(HandError, match="one per tile"):
        P.tiles_svg("123m", states=["win"])
    with pytest.raises(HandError, match="bad tiles"):
        P.tiles_svg("12x")
    with pytest.raises(HandError, match="tiles must be"):
        P.tiles_svg(5)


def n_tiles(hand):
    return len(hand.concealed) + sum(len(m.tiles) for m in hand.melds) + len(hand.flower_tiles)


def test_hand_layout():
    hand = mjkit.parse_hand("[123m]{EEEE}456p789s1p 1p | flowers=1f3f self_drawn")
    root = parse(P.hand_svg(hand))
    tiles = groups(root, "tile")
    assert len(tiles) == n_tiles(hand) == 17
    order = [g.get("data-tile") for g in tiles]
    assert order == ["1p", "4p", "5p", "6p", "7s", "8s", "9s", "1p",
                     "1m", "2m", "3m", "E", "E", "E", "E", "1f", "3f"]
    states = [g.get("data-state") for g in tiles]
    assert states[7] == "win" and states.count("win") == 1
    assert states[8:11] == ["exposed"] * 3
    assert states[11:15] == ["concealed", None, None, "concealed"]   # kong ends face down
    assert "scale(0.6667)" in tiles[-1].get("transform")             # flowers small
    assert root.find(SVG + "title").text == str(hand)
    # gaps: the winning tile and each meld stand apart
    xs = [float(re.search(r"translate\(([\d.]+)", g.get("transform") or "translate(0")
                          .group(1)) for g in tiles]
    steps = [b - a for a, b in zip(xs, xs[1:])]
    assert steps[6] > steps[0] + 5 and steps[7] > steps[0] + 5 and steps[10] > steps[8] + 5


def test_hand_from_text_and_wild():
    text = "123m456p789sPP P3m 3m"
    assert P.hand_svg(text) == P.hand_svg(mjkit.parse_hand(text))
    root = parse(P.hand_svg(text, wild="P", lang="en"))
    marked = [g.get("data-tile") for g in groups(root, "tile")
              if "wild" in (g.get("data-state") or "")]
    assert marked == ["P", "P", "P"]
    assert len(groups(root, "wild")) == 3
    with pytest.raises(HandError, match="flower"):
        P.hand_svg(text, wild="1f")


def test_hand_with_a_flower_count_only():
    root = parse(P.hand_svg("123m456p789s55mEE E | flowers=2", lang="en"))
    assert len(groups(root, "tile")) == 14
    assert "+2 flowers" in texts(root)
    assert "花×2" in texts(parse(P.hand_svg("123m456p789s55mEE E | flowers=2")))


@pytest.mark.parametrize("bad", ["123m", 42, None, "123m456p789s55mEE E | nonsense"])
def test_bad_hands_raise(bad):
    with pytest.raises(HandError):
        P.hand_svg(bad)


# --------------------------------------------------------------------------
# notebook display
# --------------------------------------------------------------------------

def test_hand_repr_svg():
    hand = mjkit.parse_hand("[5555p]123m456s78sNN 9s | flowers=4f")
    svg = hand._repr_svg_()
    assert svg == P.hand_svg(hand)
    assert len(groups(parse(svg), "tile")) == n_tiles(hand) == 16


def test_score_result_repr_html():
    r = mjkit.score("[123m]456p789s55mEE E", self_drawn=True, seat_wind="S")
    out = r._repr_html_()
    svg = re.search(r"<svg.*?</svg>", out, re.S).group(0)
    assert len(groups(parse(svg), "tile")) == n_tiles(r.hand)
    assert "<table" in out
    for f in r.fans:
        assert f.zh in out and f.en in out
        assert re.search(rf"{re.escape(f.en)}</td><td[^>]*>{f.points}</td>"
                         rf"<td[^>]*>×{f.count}</td>", out)
    assert re.search(rf"总计 total</th><th[^>]*>{r.total}</th>", out)
    assert f"计番 counted {r.hand_points} / 起和 bar {r.bar}" in out
    verdict = out.split('class="mjkit-verdict"')[1]
    assert r.legal and "#1b6e2a" in verdict and r.verdict("zh") in verdict


def test_score_html_warns_of_a_false_win_and_lists_not_counted():
    low = mjkit.score("123m456p789s55mEE E", rules="dazhong32", self_drawn=True, lianla=1)
    assert not low.legal
    out = low._repr_html_()
    verdict = out.split('class="mjkit-verdict"')[1]
    assert "P胡" in verdict and "#b00020" in verdict
    assert f"起和 bar {low.bar}" in out
    r = mjkit.score("1122334455667p 7p")
    out = r._repr_html_()
    assert "不计" in out and "清一色" in out and "连七对" in out
    assert re.search(r"<li>清一色 .*?连七对", out)


def test_score_html_escapes_and_handles_incomplete_hands():
    from mjkit.display import score_html

    r = mjkit.score("123m456p789s55mES E")
    assert not r.is_win
    out = score_html(r, lang="en")
    assert "no fans" in out and "false win" in out
    r.notes.append("<script>alert(1)</script>")
    out = score_html(r)
    assert "<script>" not in out and "&lt;script&gt;" in out
    with pytest.raises(HandError, match="ScoreResult"):
        score_html("not a result")
    with pytest.raises(HandError, match="language"):
        score_html(r, lang="de")


def test_import_mjkit_does_not_load_the_pictures():
    import subprocess
    import sys

    code = "import sys, mjkit; print('mjkit.pictures' in sys.modules, 'matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split()[0] == "False"


# --------------------------------------------------------------------------
# matplotlib
# --------------------------------------------------------------------------

@pytest.fixture
def ax():
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    yield ax
    plt.close(fig)


def leaves(items):
    n = 0
    for it in items:
        n += leaves(it.items) if isinstance(it, P.Group) else 1
    return n


def test_matplotlib_draws_every_tile_from_the_shared_display_list(ax):
    drawn = P.draw_tiles(ax, list(range(42)), size=2.0, font=False)
    assert len(drawn) == 42
    for i, artists in enumerate(drawn):
        # one patch per shape of the display list the SVG is written from
        assert len(artists) == leaves(P._tile_items(i, frozenset(), "zh", True, 6.0)) > 3
        assert {a.get_gid() for a in artists} == {f"tile-{tile_to_str(i)}"}
        assert all(a.axes is ax for a in artists)
    assert len(ax.artists) + len(ax.patches) == sum(len(a) for a in drawn)
    # left to right, 2 units high, 1.5 wide
    lim = ax.dataLim
    assert (lim.x0, lim.y0, lim.y1) == pytest.approx((0, 0, 2))
    assert lim.x1 == pytest.approx(41 * P._STEP * 2 / 40 + 1.5)
    ax.figure.canvas.draw()


def test_matplotlib_states_and_hand(ax):
    plain = P.draw_tiles(ax, "5p", font=False)[0]
    face_down = P.draw_tiles(ax, "5p", x=2, states="concealed", font=False)[0]
    wild = P.draw_tiles(ax, "5p", x=4, states="wild", font=False)[0]
    assert len(face_down) < len(plain) < len(wild)
    ax2 = P.plot_hand("[123m]{EEEE}456p789s1p 1p | flowers=1f3f", ax=ax.figure.add_subplot(212),
                      font=False)
    gids = [a.get_gid() for a in ax2.artists + ax2.patches]
    assert len(set(gids)) == len({"1p", "4p", "5p", "6p", "7s", "8s", "9s", "1m", "2m", "3m",
                                  "E", "1f", "3f"})
    assert ax2.get_aspect() == 1 and not ax2.axison
    ax.figure.canvas.draw()


def test_matplotlib_plot_tiles_and_errors(ax):
    out = P.plot_tiles("19m19p19sESWNPFC", ax=ax, lang="en", font=False)
    assert out is ax and len({a.get_gid() for a in ax.artists + ax.patches}) == 13
    with pytest.raises(HandError, match="unknown tile"):
        P.draw_tiles(ax, ["Q"], font=False)
    with pytest.raises(HandError, match="size"):
        P.draw_tiles(ax, "1m", size=0, font=False)
    with pytest.raises(HandError, match="font"):
        P.draw_tiles(ax, "1m", font="/no/such/font.ttf")
    with pytest.raises(HandError, match="font"):
        P.draw_tiles(ax, "1m", font=3)


def test_matplotlib_draws_the_shipped_outlines_without_any_cjk_font(ax, monkeypatch):
    """With no CJK font known to matplotlib, the default draws the same outlines as the
    SVG, with no warning."""
    import warnings

    from matplotlib import font_manager

    from mjkit.fonts import text_outline

    cjk = ("CJK", "Hei", "WenQuanYi", "YaHei", "PingFang", "Han", "Droid", "mjkit")
    monkeypatch.setattr(font_manager.fontManager, "ttflist",
                        [f for f in font_manager.fontManager.ttflist
                         if not any(w in f.name for w in cjk)])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        drawn = P.draw_tiles(ax, "5mEC1f", font=None)
    assert [len(a) for a in drawn] == [
        leaves(P._tile_items(t, frozenset(), "zh", True, 6.0)) for t in (4, 27, 33, 34)]
    # the 东 of the East tile: its patch holds the outline's points, moved and scaled
    d, _, _ = text_outline("东", 23)
    want = P._shape_path(d).vertices
    sizes = [len(p.get_path().vertices) for p in drawn[1]]
    assert len(want) in sizes
    ax.figure.canvas.draw()
