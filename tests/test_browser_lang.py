"""The classroom app in English, on a phone and on a projector, in a real browser.

One class served in English (``tests/servers.py``) for the module; headless Chromium
(Debian's, driven by Playwright) joins it by code as a student on a phone-sized viewport
(390 x 844) and as another on a 1920 x 1080 projector.  Checked: every line of the quiz,
its choices and the tab titles is English (a Chinese fan name only beside an English
one: the yes/no choices read "yes" / "no"); on the phone nothing of the quiz or the
hand builder is wider than the screen or than the widget itself (the tab clips what
overflows, so the page's own width is not enough); on the projector the quiz and its
choices span most of the width, the tiles are at least 48 px high, and the hand
builder's palette is tile pictures.
Screenshots go to ``$MJKIT_SCREENSHOT_DIR`` (default: the test's tmp folder).  Skipped
off CI when Chromium, Playwright or Voila is missing, as ``tests/test_browser.py``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

try:  # tests/ is on sys.path when it is not a package
    import servers
    import test_browser as B
    from test_messages_catalogue import HAN, WORD
except ImportError:  # pragma: no cover
    from tests import servers
    from tests import test_browser as B
    from tests.test_messages_catalogue import HAN, WORD

# every element of a widget that sticks out of the widget's own box (or the screen's)
OVERFLOW = """(sel) => {
  const box = document.querySelector(sel).getBoundingClientRect();
  const right = Math.min(box.right, window.innerWidth) + 1;
  return Array.from(document.querySelectorAll(sel + ' *'))
    .filter(e => e.getClientRects().length && e.getBoundingClientRect().right > right)
    .map(e => e.tagName + ' ' + (e.getAttribute('class') || '') + ' ' +
              Math.round(e.getBoundingClientRect().right));
}"""


@pytest.fixture(scope="module")
def en_class(tmp_path_factory):
    B._need_browser()
    with servers.lan_class(tmp_path_factory.mktemp("en"), seed=5, questions=3,
                           lang="en") as srv:
        yield srv


@pytest.fixture
def shots(tmp_path):
    out = Path(os.environ.get("MJKIT_SCREENSHOT_DIR", tmp_path))
    out.mkdir(parents=True, exist_ok=True)
    return out


def _chinese_only(lines):
    return [x for x in lines if HAN.search(x) and not WORD.search(x)]


def _join(browser, srv, name, **context):
    page = browser.new_context(**context).new_page()
    page.goto(srv["url"], timeout=60_000)
    page.fill("input[name=code]", srv["code"])
    page.fill("input[name=name]", name)
    page.click("button[type=submit]")
    page.get_by_text("Which fans").first.wait_for(timeout=180_000)
    return page


def _quiz_lines(page):
    """What the quiz and the tab bar show, line by line (buttons included)."""
    text = page.inner_text(".mjkit-quiz") + "\n" + page.inner_text(".lm-TabBar")
    return [line.strip() for line in text.splitlines() if line.strip()]


def _drive(srv, check):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=B.CHROMIUM, args=B.FLAGS)
        try:
            check(browser)
        except Exception as exc:
            tail = srv["log"].read_text(errors="replace")[-4000:]
            raise AssertionError(f"{exc}\n--- the app's log ---\n{tail}") from exc
        finally:
            browser.close()


def test_a_phone_shows_the_quiz_in_english_within_its_width(en_class, shots):
    def check(browser):
        page = _join(browser, en_class, "Ann", viewport={"width": 390, "height": 844},
                     is_mobile=True, has_touch=True)
        seen = []
        for i in range(3):                      # fans, total, yes/no: every kind of control
            page.get_by_text(f"{i + 1} / 3").first.wait_for(timeout=30_000)
            lines = _quiz_lines(page)
            seen += lines
            assert page.evaluate("document.documentElement.scrollWidth <= innerWidth + 1")
            assert page.evaluate(OVERFLOW, ".mjkit-quiz") == [], f"question {i + 1}"
            if i == 0:
                page.screenshot(path=str(shots / "en_phone_fans.png"), full_page=True)
            if i < 2:
                page.get_by_role("button", name="next", exact=True).click()
        assert _chinese_only(seen) == [], seen
        assert {"Quiz", "Hand builder", "check", "next"} <= set(seen)
        assert any(x.endswith(")") and HAN.search(x) for x in seen)   # "Full Flush (清一色)"
        page.get_by_role("button", name="yes", exact=True).click()
        page.get_by_role("button", name="no", exact=True).wait_for()
        page.get_by_role("button", name="check", exact=True).click()
        page.get_by_text("recorded").wait_for(timeout=30_000)
        page.screenshot(path=str(shots / "en_phone_yes_no.png"), full_page=True)
        # the builder too fits the phone: its palette and controls wrap
        page.get_by_text("Hand builder", exact=True).click()
        page.locator(".mjkit-palette").first.wait_for(timeout=60_000)
        assert page.evaluate(OVERFLOW, ".mjkit-builder") == []
        page.screenshot(path=str(shots / "en_phone_builder.png"), full_page=True)

    _drive(en_class, check)
    assert (shots / "en_phone_yes_no.png").stat().st_size > 10_000


def test_a_projector_fills_the_width_with_large_tiles(en_class, shots):
    def check(browser):
        page = _join(browser, en_class, "Ben", viewport={"width": 1920, "height": 1080})
        width = page.evaluate("innerWidth")
        for sel in (".mjkit-quiz", ".mjkit-quiz-choices"):
            box = page.locator(sel).bounding_box()
            assert box["width"] >= 0.6 * width, (sel, box)
        tiles = page.locator(".mjkit-quiz .mjkit-hand-picture svg").bounding_box()
        assert tiles["height"] >= 48, tiles
        assert _chinese_only(_quiz_lines(page)) == []
        page.screenshot(path=str(shots / "en_projector_quiz.png"))
        # the builder's palette: 34 tile pictures, large enough to project
        page.get_by_text("Hand builder", exact=True).click()
        palette = page.locator(".mjkit-palette")
        palette.first.wait_for(timeout=60_000)
        assert palette.count() == 34
        image = palette.first.evaluate("b => getComputedStyle(b).backgroundImage")
        assert image.startswith('url("data:image/svg+xml;base64,'), image[:60]
        assert palette.first.bounding_box()["height"] >= 48
        assert palette.first.get_attribute("title") == "1 Character (1m): 4 left"
        palette.first.click()
        page.locator(".mjkit-hand-tile").first.wait_for(timeout=30_000)
        page.locator(".mjkit-fan-view svg").first.wait_for(timeout=30_000)
        lines = [x for x in page.inner_text(".mjkit-builder").splitlines() if x.strip()]
        assert _chinese_only(lines) == [], lines
        page.screenshot(path=str(shots / "en_projector_builder.png"))

    _drive(en_class, check)
    assert (shots / "en_projector_builder.png").stat().st_size > 10_000
