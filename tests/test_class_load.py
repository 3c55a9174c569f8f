"""A class of 30 at once: real browsers, real kernels, one server (opt in: ``-m slow``).

Serves the app on every interface, opens 30 student pages in Chromium at once (a
browser each, as 30 devices), and has every student join with the class code
and answer all 10 questions.  Checks that every answer is in the class database, that
the teacher's page lists 30 students, and that the server kept answering; prints the
latency of an answer (click to feedback) as percentiles, the time to a first page and
the kernels' memory, and how the machine's CPU time split between the server with its
kernels and the 30 browsers (which share the server's cores here, unlike a real class's
devices), for the issue's note.  About 11 minutes on two cores.

    python -m pytest tests/test_class_load.py -m slow -s
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import statistics
import time

import pytest

try:
    import servers  # tests/ is on sys.path when it is not a package
except ImportError:  # pragma: no cover
    from tests import servers

pytestmark = pytest.mark.slow

STUDENTS = int(os.environ.get("MJKIT_LOAD_STUDENTS", "30"))
QUESTIONS = 10
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture
def class_server(tmp_path):
    import importlib.util

    if CHROMIUM is None or importlib.util.find_spec("playwright") is None:
        pytest.skip("needs chromium and playwright")
    with servers.lan_class(tmp_path, seed=11, questions=QUESTIONS, difficulty="medium",
                           max_kernels=STUDENTS + 5, stop_timeout=90,
                           # every simulated device comes from this machine's one address
                           kernels_per_address=STUDENTS + 5) as srv:
        yield srv


#: Seconds between two students' arrivals (a class walks in over a minute).  0 works
#: too since the executor waits for a busy kernel's outputs (``_voila.IOPUB_TIMEOUT``);
#: before, pages that loaded while the machine was saturated came without widgets.
ARRIVAL = float(os.environ.get("MJKIT_LOAD_ARRIVAL", "2"))


async def _student(p, k, srv, latencies, firsts):
    await asyncio.sleep(k * ARRIVAL)
    # a browser each, as 30 devices: one browser's contexts share its 6 connections to a
    # host, which Voila's streamed pages would hold
    browser = await p.chromium.launch(executable_path=CHROMIUM,
                                      args=["--no-sandbox", "--disable-gpu"])
    ctx = await browser.new_context(viewport={"width": 390, "height": 844})
    page = await ctx.new_page()
    # 30 kernels start at once on a small machine: the first page may take minutes
    page.set_default_timeout(900_000)
    page.set_default_navigation_timeout(900_000)
    t0 = time.perf_counter()
    await page.goto(srv["url"] + f"join?code={srv['code']}", timeout=600_000)
    await page.fill("input[name=name]", f"学生{k:02d}")
    await page.fill("input[name=seat]", str(k + 1))
    await page.click("button[type=submit]")
    await page.get_by_text("这手牌").first.wait_for(timeout=900_000)
    firsts.append(time.perf_counter() - t0)
    for i in range(QUESTIONS):
        t = time.perf_counter()
        await page.get_by_role("button", name="检查").click()
        scored = page.get_by_text(re.compile(rf"得分 \d+ / {i + 1}$")).first
        choose = page.get_by_text("请选择可以或不可以").first
        await scored.or_(choose).wait_for(timeout=300_000)
        if not await scored.is_visible():
            # a yes/no question answered with neither: answer "yes", then check again
            await page.get_by_role("button", name="可以", exact=True).click()
            t = time.perf_counter()
            await page.get_by_role("button", name="检查").click()
            await scored.wait_for(timeout=300_000)
        latencies.append(time.perf_counter() - t)
        if i + 1 < QUESTIONS:
            await page.get_by_role("button", name="下一题").click()
            await page.get_by_text(re.compile(rf"^{i + 2} / {QUESTIONS}")).first.wait_for(
                timeout=300_000)
    return browser


def _kernel_memory(pid):
    import psutil

    rss = [p.memory_info().rss for p in psutil.Process(pid).children(recursive=True)
           if "ipykernel" in " ".join(p.cmdline())]
    return rss


def _cpu_seconds(procs):
    """User + system CPU seconds the processes have used so far (gone ones: 0)."""
    import psutil

    total = 0.0
    for p in procs:
        try:
            t = p.cpu_times()
        except psutil.Error:
            continue
        total += t.user + t.system
    return total


def _cpu_split(server_pid):
    """CPU seconds of (the server and its kernels, this test's browsers) so far."""
    import psutil

    srv = psutil.Process(server_pid)
    ours = psutil.Process().children(recursive=True)      # playwright's driver, chromiums
    return (_cpu_seconds([srv] + srv.children(recursive=True)),
            _cpu_seconds([p for p in ours if "chrom" in p.name().lower()]))


def test_thirty_students_answer_ten_questions_at_once(class_server):
    from playwright.async_api import async_playwright

    from mjkit.app.classdb import ClassDB

    latencies, firsts = [], []
    rss, cpu = [], []

    async def run():
        async with async_playwright() as p:
            t0 = time.perf_counter()
            students = await asyncio.gather(*[_student(p, k, class_server, latencies, firsts)
                                              for k in range(STUDENTS)])
            wall = time.perf_counter() - t0
            rss.extend(_kernel_memory(class_server["proc"].pid))
            cpu.extend(_cpu_split(class_server["proc"].pid))    # before the browsers close
            browser = await p.chromium.launch(executable_path=CHROMIUM,
                                              args=["--no-sandbox", "--disable-gpu"])
            teacher = await (await browser.new_context()).new_page()
            await teacher.goto(class_server["teacher"])
            await teacher.get_by_text(f"学生{STUDENTS - 1:02d}").wait_for(timeout=30_000)
            rows = await teacher.locator("#students tr").count()
            for b in students + [browser]:
                await b.close()
            return wall, rows

    wall, rows = asyncio.run(run())
    db_path = next(class_server["results"].glob("class-*.sqlite"))
    with ClassDB(db_path) as db:
        df = db.frame()
        s = db.summary()
    assert len(s["students"]) == STUDENTS and rows == STUDENTS + 1        # + the heading
    assert len(df) == STUDENTS * QUESTIONS                                  # every answer
    q = statistics.quantiles(latencies, n=100)
    mb = [r / 2**20 for r in rss]
    print(f"\n{STUDENTS} students x {QUESTIONS} answers in {wall:.0f} s; first page "
          f"median {statistics.median(firsts):.1f} s, max {max(firsts):.1f} s; answer latency "
          f"p50 {q[49] * 1000:.0f} ms, p90 {q[89] * 1000:.0f} ms, p99 {q[98] * 1000:.0f} ms, "
          f"max {max(latencies) * 1000:.0f} ms; {len(rss)} kernels, "
          f"{statistics.mean(mb):.0f} MB each on average (max {max(mb):.0f}), "
          f"{sum(mb) / 1024:.1f} GB in all; CPU: server and kernels {cpu[0]:.0f} s, "
          f"browsers {cpu[1]:.0f} s, of {wall * (os.cpu_count() or 1):.0f} s on "
          f"{os.cpu_count()} cores")
    assert q[89] < 10.0, "answers took too long under load"
