"""The classroom app in a real browser: Voila serves it, headless Chromium clicks it.

Starts ``python -m mjkit app`` on a free localhost port, opens the page in
Debian's Chromium driven by Playwright (``executable_path``: browser
downloads are impossible here), builds a hand by clicking palette tiles,
checks that its fans and total appear, answers a quiz question and
downloads the results (a browser download; the server's copy lands only in
the ``--results`` folder), and saves screenshots to
``$MJKIT_SCREENSHOT_DIR`` (default: the test's tmp folder).  Stopping the
app (SIGTERM) must leave no Voila or kernel process behind.  Off CI the test
is skipped when Chromium, Playwright or Voila is missing; on CI (``CI`` set)
it fails instead, so a missing install step cannot pass unseen.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

try:
    import servers  # tests/ is on sys.path when it is not a package
except ImportError:  # pragma: no cover
    from tests import servers

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def _missing():
    out = []
    if CHROMIUM is None:
        out.append("chromium (apt-get install chromium)")
    for mod in ("playwright", "voila"):
        if importlib.util.find_spec(mod) is None:
            out.append(f"{mod} (pip install -e '.[test]')")
    return out


def _need_browser():
    missing = _missing()
    if missing:
        if os.environ.get("CI"):
            pytest.fail("the browser test needs " + ", ".join(missing))
        pytest.skip("needs " + ", ".join(missing))


@pytest.fixture(scope="module")
def app_url(tmp_path_factory):
    _need_browser()
    import psutil

    port = servers.free_port()
    base = tmp_path_factory.mktemp("voila")
    log = base / "voila.log"
    cwd, results = base / "cwd", base / "results"
    cwd.mkdir()
    root = Path(__file__).resolve().parent.parent
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        filter(None, [str(root), os.environ.get("PYTHONPATH")])))
    with open(log, "wb") as fh:
        proc = subprocess.Popen([sys.executable, "-m", "mjkit", "app", "--port", str(port),
                                 "--seed", "3", "--lang", "zh", "--results", str(results)],
                                stdout=fh, stderr=subprocess.STDOUT, env=env, cwd=cwd)
    url = f"http://127.0.0.1:{port}/"
    tree = []
    try:
        deadline = time.time() + 120
        while True:
            try:
                urllib.request.urlopen(url, timeout=5).close()
                break
            except OSError:
                if proc.poll() is not None or time.time() > deadline:
                    pytest.fail("the app did not start:\n" + log.read_text(errors="replace"))
                time.sleep(0.5)
        yield url, log, cwd, results
        tree = psutil.Process(proc.pid).children(recursive=True)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=45)
        except subprocess.TimeoutExpired:
            proc.kill()
        _, alive = psutil.wait_procs(tree, timeout=10)
        for p in alive:                      # never leak, then say so
            p.kill()
    assert alive == [], f"processes left after SIGTERM: {alive}"


def test_build_a_hand_in_the_browser(app_url, tmp_path):
    url, log, cwd, results = app_url
    try:
        _drive(url, tmp_path, results)
    except Exception as exc:                   # show what the server said
        tail = log.read_text(errors="replace")[-4000:]
        raise AssertionError(f"{exc}\n--- the app's log ---\n{tail}") from exc
    assert list(cwd.iterdir()) == []           # nothing written beside the server


def _drive(app_url, tmp_path, results):
    from playwright.sync_api import sync_playwright

    shots = Path(os.environ.get("MJKIT_SCREENSHOT_DIR", tmp_path))
    shots.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 1400})
            # the page asks nothing of another site (no CDN): every request is the server's
            elsewhere = []
            page.on("request", lambda r: elsewhere.append(r.url)
                    if not r.url.startswith((app_url, "data:", "blob:")) else None)
            # the kernel runs the app notebook first (scoring kernels load): be patient
            page.goto(app_url, timeout=180_000)
            page.get_by_text("组牌 Hand builder").click(timeout=180_000)
            palette = page.locator(".mjkit-palette")
            palette.first.wait_for(timeout=60_000)
            # 清一色 with 一色三步高: 123 234 345m 678m 99m, the last 9m the winning tile
            hand = page.locator(".mjkit-hand-tile")
            labels = "1万 2万 3万 2万 3万 4万 3万 4万 5万 6万 7万 8万 9万 9万".split()
            for i, label in enumerate(labels):
                palette.filter(has_text=label + "·").first.click()
                # one click at a time: wait until the kernel has added the tile
                hand.nth(i).wait_for(timeout=60_000)
            view = page.locator(".mjkit-fan-view")
            view.get_by_text("清一色").first.wait_for(timeout=60_000)
            text = view.inner_text()
            assert "一色三步高" in text and "合计" in text
            assert page.locator(".mjkit-hand-tile").count() == 14
            page.screenshot(path=str(shots / "hand_builder.png"), full_page=True)
            # mjkit's own CJK web font came with the page, and the widgets use it
            faces = page.evaluate("document.fonts.ready.then(() => Array.from(document.fonts)"
                                  ".filter(f => f.family.includes('mjkit CJK'))"
                                  ".map(f => f.status))")
            assert faces == ["loaded"], faces
            family = page.evaluate("getComputedStyle(document.querySelector("
                                   "'.mjkit-fan-view')).fontFamily")
            assert family.startswith(("'mjkit CJK'", '"mjkit CJK"')), family
            # the first tab is the quiz: its question is on the page
            page.get_by_text("测验 Quiz").click()
            page.get_by_text("这手牌").first.wait_for(timeout=30_000)
            page.get_by_role("button", name="检查").click()      # answer with nothing chosen
            page.get_by_text("不对。").wait_for(timeout=30_000)
            assert page.get_by_text("得分 0 / 1").count() == 1
            page.screenshot(path=str(shots / "quiz.png"), full_page=True)
            # the export is a browser download of the answers, not a file on the server
            page.get_by_text("已记录").wait_for(timeout=30_000)
            with page.expect_download(timeout=30_000) as info:
                page.locator(".mjkit-quiz-download").click()
            download = info.value
            assert download.suggested_filename == "quiz-3-medium.csv"
            got = Path(download.path()).read_bytes()
            assert got.startswith("\ufeffnumber,kind,hand".encode()) and got.count(b"\n") == 11
            # the teacher's record: the class database the server made in the results folder
            from mjkit.app.classdb import ClassDB

            (db,) = results.glob("class-*-seed3.sqlite")
            with ClassDB(db) as con:
                df = con.frame()
            assert len(df) == 1 and df["name"][0].startswith("guest ") and not df["correct"][0]
            assert elsewhere == [], f"requests to other sites: {elsewhere}"
        finally:
            browser.close()
    assert (shots / "hand_builder.png").stat().st_size > 10_000


# --------------------------------------------------------------------- a class on the LAN

@pytest.fixture(scope="module")
def lan_class(tmp_path_factory):
    """The app on every interface: students need the class code the server prints."""
    _need_browser()
    with servers.lan_class(tmp_path_factory.mktemp("lan"), seed=5, questions=3) as srv:
        yield srv


def test_a_student_joins_by_code_and_the_teacher_sees_the_answer(lan_class, tmp_path):
    from playwright.sync_api import sync_playwright

    shots = Path(os.environ.get("MJKIT_SCREENSHOT_DIR", tmp_path))
    shots.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            teacher = browser.new_context(viewport={"width": 1920, "height": 1080}).new_page()
            teacher.goto(lan_class["teacher"], timeout=60_000)
            teacher.locator(".qr svg").wait_for(timeout=30_000)
            assert lan_class["code"] in teacher.inner_text("body")
            teacher.screenshot(path=str(shots / "teacher_before.png"))
            # the student, on a phone: types the code from the projector, then a name
            phone = browser.new_context(viewport={"width": 390, "height": 844},
                                        is_mobile=True, has_touch=True).new_page()
            phone.goto(lan_class["url"], timeout=60_000)
            assert phone.url.endswith("/join")
            phone.fill("input[name=code]", lan_class["code"].lower())
            phone.fill("input[name=name]", "小红")
            phone.fill("input[name=seat]", "12")
            phone.click("button[type=submit]")
            phone.get_by_text("这手牌").first.wait_for(timeout=180_000)
            assert "小红" in phone.inner_text("body")
            phone.get_by_role("button", name="检查").click()
            phone.get_by_text("已记录").wait_for(timeout=30_000)
            phone.screenshot(path=str(shots / "student_phone.png"), full_page=True)
            # the teacher's page shows the student and the answer without a reload
            teacher.get_by_text("小红").wait_for(timeout=15_000)
            teacher.locator("#plot svg rect").first.wait_for(timeout=15_000)
            rows = teacher.locator("#students tr").all_inner_texts()
            assert any("小红" in r and "12" in r for r in rows), rows
            teacher.screenshot(path=str(shots / "teacher_after.png"))
        except Exception as exc:
            tail = lan_class["log"].read_text(errors="replace")[-4000:]
            raise AssertionError(f"{exc}\n--- the app's log ---\n{tail}") from exc
        finally:
            browser.close()


def test_a_page_opened_again_stops_the_old_one_and_says_so(lan_class, tmp_path):
    """One student, one kernel: a second tab with the class cookie replaces the first
    tab's kernel, and the first tab shows why (issue 35: one browser cannot fill the class)."""
    from playwright.sync_api import sync_playwright

    shots = Path(os.environ.get("MJKIT_SCREENSHOT_DIR", tmp_path))
    shots.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            ctx = browser.new_context(viewport={"width": 390, "height": 844})
            first = ctx.new_page()
            first.goto(f"{lan_class['url']}join?code={lan_class['code']}&name=Tab&seat=3",
                       timeout=60_000)
            first.get_by_text("这手牌").first.wait_for(timeout=180_000)
            assert first.locator("#mjkit-notice").count() == 0
            second = ctx.new_page()
            second.goto(first.url, timeout=60_000)
            second.get_by_text("这手牌").first.wait_for(timeout=180_000)
            notice = first.locator("#mjkit-notice")
            notice.wait_for(timeout=30_000)
            assert "重新打开" in notice.inner_text()
            assert second.locator("#mjkit-notice").count() == 0
            first.screenshot(path=str(shots / "student_replaced.png"))
            # the second tab still works: its answer is recorded
            second.get_by_role("button", name="检查").click()
            second.get_by_text("已记录").wait_for(timeout=30_000)
        except Exception as exc:
            tail = lan_class["log"].read_text(errors="replace")[-4000:]
            raise AssertionError(f"{exc}\n--- the app's log ---\n{tail}") from exc
        finally:
            browser.close()
