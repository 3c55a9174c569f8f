"""mjkit's shipped font data: tile outlines and the ``mjkit CJK`` subset.

Checks that the committed files are what ``tools/make_fonts.py`` makes (when its source
font is on the machine), that every Chinese character in mjkit's strings is in the
subset, that damaged files are refused, that matplotlib draws Chinese labels with no CJK
font installed, and, in a real Chromium whose fontconfig sees no CJK font, that tiles
look exactly as they do with them and that the web font shows the Chinese text.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from mjkit import HandError
from mjkit import fonts as F
from mjkit.locations import SOURCE_ROOT

SOURCE_FONT = Path("/usr/share/fonts/truetype/wqy/wqy-microhei.ttc")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture
def fresh_cache():
    F._glyph_table.cache_clear()
    F.text_outline.cache_clear()
    F._subset.cache_clear()
    yield
    F._glyph_table.cache_clear()
    F.text_outline.cache_clear()
    F._subset.cache_clear()


def test_every_chinese_character_of_mjkit_is_in_the_subset():
    """A new fan name or message with a new character fails here until
    ``python tools/make_fonts.py`` is run again."""
    used = set(F.used_text(SOURCE_ROOT))
    assert len(used) > 300
    missing = used - F.subset_chars()
    assert not missing, f"run tools/make_fonts.py: {''.join(sorted(missing))} not in the subset"
    assert set(F.TILE_CHARS) <= F.subset_chars()


@pytest.mark.skipif(not SOURCE_FONT.exists(), reason="needs fonts-wqy-microhei (the source)")
def test_committed_font_data_is_what_the_tool_makes(tmp_path):
    out = subprocess.run([sys.executable, str(SOURCE_ROOT / "tools" / "make_fonts.py"),
                          "--font", str(SOURCE_FONT), "--out", str(tmp_path)],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    made = json.loads((tmp_path / "glyphs.json").read_text(encoding="utf-8"))
    shipped = json.loads(F.GLYPH_FILE.read_text(encoding="utf-8"))
    assert made == shipped
    from fontTools.ttLib import TTFont

    a, b = TTFont(tmp_path / "mjkit-cjk.ttf"), TTFont(F.SUBSET_FILE)
    assert set(a.getBestCmap()) == set(b.getBestCmap())
    assert a["name"].getDebugName(1) == b["name"].getDebugName(1) == F.FAMILY


def test_outline_of_a_run_is_centred_and_scaled(fresh_cache):
    d, width, height = F.text_outline("5万", 10.0)
    xs = [v for c in d for v in c[1::2]]
    ys = [v for c in d for v in c[2::2]]
    assert width == pytest.approx(-2 * min(min(xs), -max(xs)), rel=0.2)
    assert min(ys) == pytest.approx(-height / 2) and max(ys) == pytest.approx(height / 2)
    d2, width2, _ = F.text_outline("5万", 20.0)
    assert width2 == pytest.approx(2 * width) and len(d2) == len(d)
    assert {c[0] for c in d} <= {"M", "L", "Q", "C", "Z"}
    assert F.has_outline("东南西北") and not F.has_outline("麻")
    with pytest.raises(HandError, match="麻"):
        F.text_outline("麻将", 10.0)


@pytest.mark.parametrize("damage", [
    lambda p: p.write_text("{not json", encoding="utf-8"),
    lambda p: p.write_text(json.dumps({"units_per_em": 2048, "glyphs": {}}), encoding="utf-8"),
    lambda p: p.write_text(json.dumps({"units_per_em": 2048,
                                       "glyphs": {"一": [100, "M0 0 X1 2Z"]}}), encoding="utf-8"),
    lambda p: p.unlink(),
])
def test_damaged_outlines_are_refused_by_name(tmp_path, monkeypatch, fresh_cache, damage):
    path = tmp_path / "glyphs.json"
    shutil.copy(F.GLYPH_FILE, path)
    damage(path)
    monkeypatch.setattr(F, "GLYPH_FILE", path)
    with pytest.raises(HandError, match="outlines .*glyphs.json"):
        F.text_outline("一", 10.0)


def test_damaged_subset_is_refused(tmp_path, monkeypatch, fresh_cache):
    path = tmp_path / "mjkit-cjk.ttf"
    path.write_bytes(F.SUBSET_FILE.read_bytes()[:5000])
    monkeypatch.setattr(F, "SUBSET_FILE", path)
    with pytest.raises(HandError, match="damaged"):
        F.subset_chars()


def test_font_face_css_carries_the_subset_itself():
    css = F.font_face_css(".mjkit-app")
    url = css.split("url(", 1)[1].split(")", 1)[0]
    assert url.startswith("data:font/ttf;base64,")
    assert base64.b64decode(url.split(",", 1)[1]) == F.SUBSET_FILE.read_bytes()
    assert "http" not in css and f"'{F.FAMILY}'" in css and ".mjkit-app{font-family:" in css
    with pytest.raises(HandError, match="selector"):
        F.font_face_css("body}</style><script>")


def test_matplotlib_shows_fan_names_without_a_cjk_font(monkeypatch):
    import matplotlib
    from matplotlib import font_manager

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cjk = ("CJK", "Hei", "WenQuanYi", "YaHei", "PingFang", "Han", "Droid")
    monkeypatch.setattr(font_manager.fontManager, "ttflist",
                        [f for f in font_manager.fontManager.ttflist
                         if not any(w in f.name for w in cjk)])
    monkeypatch.setattr(matplotlib, "rcParams", matplotlib.rcParams.copy())
    font_manager._get_font.cache_clear()

    def draw():
        fig, ax = plt.subplots()
        ax.set_title("清一色 一色三同顺 Full Flush")
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            fig.canvas.draw()
        plt.close(fig)
        return [str(w.message) for w in seen if "missing from" in str(w.message)]

    assert draw(), "the control: without mjkit's font the glyphs are missing"
    assert F.use_in_matplotlib() == F.FAMILY
    assert F.use_in_matplotlib() == F.FAMILY       # idempotent
    assert matplotlib.rcParams["font.family"].count(F.FAMILY) == 1
    assert draw() == []


# --------------------------------------------------------------------------
# a real browser with no CJK font
# --------------------------------------------------------------------------

def _screens(tmp_path, html: str, fonts: bool):
    """A screenshot of ``html`` in Chromium, with the machine's fonts or with no CJK font."""
    from PIL import Image
    from playwright.sync_api import sync_playwright

    env = dict(os.environ)
    if not fonts:
        # a machine with Latin fonts only: matplotlib's own DejaVu, nothing else
        import matplotlib

        latin = Path(matplotlib.get_data_path()) / "fonts" / "ttf"
        conf = tmp_path / "fonts.conf"
        conf.write_text('<?xml version="1.0"?><!DOCTYPE fontconfig SYSTEM "fonts.dtd">'
                        f"<fontconfig><dir>{latin}</dir><cachedir>{tmp_path / 'fc'}</cachedir>"
                        "</fontconfig>")
        env["FONTCONFIG_FILE"] = str(conf)
    shot = tmp_path / f"shot-{fonts}.png"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, env=env,
                                    args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": 900, "height": 260})
        page.set_content(html)
        page.evaluate("document.fonts.ready.then(() => document.fonts.size)")
        page.wait_for_timeout(300)
        page.screenshot(path=str(shot))
        browser.close()
    return Image.open(shot).convert("RGB")


@pytest.fixture(scope="module")
def browser_ok():
    import importlib.util

    if CHROMIUM is None or importlib.util.find_spec("playwright") is None:
        if os.environ.get("CI"):
            pytest.fail("the font test needs chromium and playwright")
        pytest.skip("needs chromium and playwright")


def test_tiles_are_the_same_in_a_browser_with_no_cjk_font(tmp_path, browser_ok):
    from PIL import ImageChops

    from mjkit.pictures import tiles_svg

    # block layout: a line box's height would depend on the font, not the tiles
    tiles = tiles_svg("19m5p7sESWNPFC1f8f", size=60) + tiles_svg("5m3p", size=40, lang="en")
    control = '<p style="font:20px sans-serif;margin:4px">清一色</p>'
    page = (f"<body style='margin:4px'><style>svg{{display:block}}</style>"
            f"<div style='height:112px'>{tiles}</div>{control}</body>")
    with_fonts = _screens(tmp_path, page, True)
    no_fonts = _screens(tmp_path, page, False)
    tile_box = (0, 0, 900, 120)
    assert ImageChops.difference(with_fonts.crop(tile_box), no_fonts.crop(tile_box)).getbbox() \
        is None
    # the control line proves the second browser really had no CJK font
    assert ImageChops.difference(with_fonts.crop((0, 120, 900, 260)),
                                 no_fonts.crop((0, 120, 900, 260))).getbbox() is not None


def test_the_web_font_shows_chinese_in_a_browser_with_no_cjk_font(tmp_path, browser_ok):
    # no spaces: a space comes from the viewer's Latin fonts, which differ between the two
    line = '<p class=m style="font-size:28px;margin:8px">清一色，一色三同顺。连七对番</p>'
    page = "<body style='margin:0'>" + F.font_face_css(".m") + line + "</body>"
    with_fonts = _screens(tmp_path, page, True)
    no_fonts = _screens(tmp_path, page, False)
    bare = _screens(tmp_path, "<body style='margin:0'>" + line + "</body>", False)
    # the page's own font draws the same glyphs whatever the machine has (the two
    # fontconfig set-ups rasterise a little differently: ink within a pixel counts) ...
    assert _stray_ink(with_fonts, no_fonts) < 0.02 and _stray_ink(no_fonts, with_fonts) < 0.02
    # ... and without it this machine shows something else (empty boxes)
    assert _stray_ink(no_fonts, bare) > 0.3


def _stray_ink(a, b) -> float:
    """Share of ``b``'s dark pixels with no dark pixel of ``a`` within one pixel."""
    import numpy as np

    ink_a = np.asarray(a.convert("L")) < 128
    ink_b = np.asarray(b.convert("L")) < 128
    near = ink_a.copy()
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            near |= np.roll(np.roll(ink_a, dy, axis=0), dx, axis=1)
    return float((ink_b & ~near).sum()) / max(int(ink_b.sum()), 1)
