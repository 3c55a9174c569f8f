"""A served class: the class database, the class code, the join and teacher pages.

The database is driven directly and by many processes at once; the pages are pure
functions checked for escaping; a real server on every interface (``--host 0.0.0.0``)
is driven over HTTP: without the code every page leads to the join form, a wrong code
is refused (and repeated wrong codes slowed), the right one admits, the teacher's page
answers only its token, and its data and downloads read the database.
"""

from __future__ import annotations

import http.client
import io
import json
import multiprocessing as mp
import re
import sqlite3
import time
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from mjkit import HandError
from mjkit.app import server, teacher
from mjkit.app.classdb import ClassDB, StudentRecorder, clean_name, db_name

try:
    import servers  # tests/ is on sys.path when it is not a package
except ImportError:  # pragma: no cover
    from tests import servers


# --------------------------------------------------------------------- the database

def test_database_records_students_and_answers(tmp_path):
    path = tmp_path / db_name(3)
    assert re.fullmatch(r"class-\d{8}T\d{6}Z-seed3\.sqlite", path.name)
    with ClassDB(path, create=True) as db:
        a = db.join("session-aaaaaaaa", " 小明\n ", 7)
        b = db.join("session-bbbbbbbb", "Ann")
        assert db.join("session-aaaaaaaa", "小明", 8) == a          # the same page again
        db.record(a, 0, "total", "123m", "8", "7", False)
        db.record(a, 0, "total", "123m", "8", "8", True)             # the last answer counts
        db.record(a, 1, "legal", "x", "yes", "no", False)
        db.record(b, 1, "legal", "x", "yes", "no", False)
        s = db.summary()
    assert [(x["name"], x["seat"], x["answered"], x["correct"]) for x in s["students"]] == [
        ("小明", 8, 2, 1), ("Ann", None, 0 + 1, 0)]
    q0, q1 = s["questions"]
    assert (q0["answered"], q0["correct"], q0["rate"]) == (1, 1, 1.0)
    assert (q1["answered"], q1["correct"], q1["wrong"]) == (2, 0, [("no", 2)])
    with ClassDB(path) as db:                                       # read back, checked
        df = db.frame()
    assert len(df) == 3 and df["correct"].tolist() == [True, False, False]
    assert str(df["answered_at"].dt.tz) == "UTC"


@pytest.mark.parametrize("bad", [
    lambda p: p.write_bytes(b"not a database at all" * 50),
    lambda p: p.write_bytes(p.read_bytes()[:1000]),
    lambda p: _foreign(p),
])
def test_damaged_or_foreign_database_is_refused(tmp_path, bad):
    path = tmp_path / "c.sqlite"
    with ClassDB(path, create=True) as db:
        db.record(db.join("session-aaaaaaaa", "A"), 0, "total", "h", "1", "1", True)
    bad(path)
    with pytest.raises(HandError, match="class database|not an mjkit"):
        ClassDB(path)
    with pytest.raises(HandError, match="no class database"):
        ClassDB(tmp_path / "missing.sqlite")


def _foreign(p: Path):
    p.unlink()
    con = sqlite3.connect(p)
    con.execute("CREATE TABLE t (x)")
    con.commit()
    con.close()


def test_bad_students_are_refused(tmp_path):
    with ClassDB(tmp_path / "c.sqlite", create=True) as db:
        for name in ("", "   ", "\x00\x01", None, 5):
            with pytest.raises(HandError):
                db.join("session-aaaaaaaa", name)
        for seat in (0, 1000, True, "3"):
            with pytest.raises(HandError, match="seat"):
                db.join("session-aaaaaaaa", "A", seat)
        with pytest.raises(HandError, match="session"):
            db.join("short", "A")
    assert clean_name("x" * 100) == "x" * 40


def _student(args):
    path, k = args
    with ClassDB(path) as db:
        sid = db.join(f"session-{k:08d}", f"student {k}", k + 1)
        for q in range(10):
            db.record(sid, q, "total", "h", "1", str(q % 2), q % 2 == 1)
    return k


def test_thirty_processes_write_at_once(tmp_path):
    path = tmp_path / "c.sqlite"
    ClassDB(path, create=True).close()
    with mp.get_context("spawn").Pool(8) as pool:
        assert sorted(pool.map(_student, [(str(path), k) for k in range(30)])) == list(range(30))
    with ClassDB(path) as db:
        s = db.summary()
    assert len(s["students"]) == 30 and all(x["answered"] == 10 for x in s["students"])
    assert [q["answered"] for q in s["questions"]] == [30] * 10


# --------------------------------------------------------------------- code and token

def test_class_code_and_teacher_token():
    sec = server.ClassSecrets.new()
    assert re.fullmatch(f"[{server.CODE_ALPHABET}]{{4}}-[{server.CODE_ALPHABET}]{{4}}", sec.code)
    assert sec.code_matches(sec.code) and sec.code_matches(sec.code.lower().replace("-", " "))
    assert not sec.code_matches(sec.code[:-1] + ("A" if sec.code[-1] != "A" else "B"))
    assert not sec.code_matches(None) and not sec.code_matches("x" * 1000)
    assert sec.teacher_matches(sec.teacher) and not sec.teacher_matches(sec.teacher[:-1])
    assert server.ClassSecrets.new() != sec
    env = server.secrets_to_env(sec)
    assert server.secrets_from_env(env) == sec
    assert env == {}                               # taken out: kernels never see them
    with pytest.raises(HandError, match="not set"):
        server.secrets_from_env({})
    with pytest.raises(HandError, match="damaged"):
        server.secrets_from_env({"MJKIT_APP_SECRETS": '{"code": "A"}'})


# --------------------------------------------------------------------- the pages

def test_join_page_escapes_what_a_visitor_sent():
    page = teacher.join_page("en", code='"><script>alert(1)</script>', error="bad_code")
    assert "<script>alert" not in page and "&lt;script&gt;" in page
    assert "That is not the class code" in page
    assert "课堂代码" in teacher.join_page("zh")
    assert "http" not in teacher.join_page("zh").split("<body>")[1]


def test_teacher_page_plot_and_downloads(tmp_path):
    import openpyxl

    page = teacher.teacher_page("zh", join_url="http://192.0.2.2:8866/join?code=ABCD-EFGH",
                                code="ABCD-EFGH", seed=3, questions=10, difficulty="easy")
    assert "<svg" in page and "ABCD-EFGH" in page and "/teacher/results.xlsx" in page
    assert "教师页面" in page and "innerHTML = d.plot" in page
    with ClassDB(tmp_path / "c.sqlite", create=True) as db:
        a = db.join("session-aaaaaaaa", "<b>Bob</b>")
        db.record(a, 0, "fans", "123m", "清一色", "<img src=x>", False)
        db.record(a, 1, "total", "h", "8", "8", True)
        s, df = db.summary(), db.frame()
    plot = teacher.rates_svg(s, "en")
    assert plot.count("<rect") == 2 and "<img" not in plot and "Bob" not in plot
    assert 'aria-label="Share right per question"' in plot
    data = json.loads(teacher.summary_json(s, "zh"))
    assert 'aria-label="各题答对率"' in data["plot"]          # the page's language
    assert data["students"][0]["name"] == "<b>Bob</b>"     # text: the page sets textContent
    csv = teacher.results_csv(df).decode("utf-8-sig")
    assert csv.splitlines()[0].startswith("name,seat,question") and "清一色" in csv
    wb = openpyxl.load_workbook(io.BytesIO(teacher.results_xlsx(df)))
    rows = list(wb["answers"].values)
    assert rows[0][:3] == ("name", "seat", "question") and len(rows) == 3


def test_qr_code_carries_the_address():
    url = "http://192.0.2.2:8866/join?code=ABCD-EFGH"
    svg = teacher.qr_svg(url)
    assert svg.startswith("<svg") and 'shape-rendering="crispEdges"' in svg
    text = teacher.qr_text(url)
    assert len(set(len(line) for line in text.splitlines())) == 1 and "█" in text


def test_quiz_widget_records_each_answer(tmp_path):
    from mjkit.widgets import QuizWidget

    path = tmp_path / "c.sqlite"
    ClassDB(path, create=True).close()
    rec = StudentRecorder(path, {"name": "Lin", "seat": 2, "session": "s" * 24})
    w = QuizWidget(3, seed=4, difficulty="easy", lang="en", recorder=rec, student=rec.name)
    assert "Lin" in w.student.value and w.seed not in w.widget.children[0].children
    for _ in range(3):
        q = w.quiz.questions[w.index]
        if q.kind == "total":
            w.total.value = 1
        elif q.kind == "legal":
            w.legal.value = "yes"
        w.check()
        assert "recorded" in w.saved.value
        w.go(w.index + 1)
    with ClassDB(path) as db:
        s = db.summary()
    assert s["students"][0]["answered"] == 3 and [q["question"] for q in s["questions"]] == [
        0, 1, 2]
    guest = StudentRecorder(path, None)
    assert guest.name.startswith("guest ")
    with pytest.raises(HandError, match="callable"):
        QuizWidget(2, recorder="db")


# --------------------------------------------------------------------- a real LAN server

def _get(host, port, path, cookie=None, host_header=None):
    con = http.client.HTTPConnection(host, port, timeout=60)
    headers = {"Host": host_header or f"{host}:{port}"}
    if cookie:
        headers["Cookie"] = cookie
    con.request("GET", path, headers=headers)
    r = con.getresponse()
    body = r.read()
    out = (r.status, {k.lower(): v for k, v in r.getheaders()}, body)
    con.close()
    return out


@pytest.fixture(scope="module")
def lan(tmp_path_factory):
    with servers.lan_class(tmp_path_factory.mktemp("lan"), seed=3, questions=4,
                           lang="en") as srv:
        yield srv


def test_lan_server_prints_addresses_code_and_qr(lan):
    assert f"http://{lan['ip']}:{lan['port']}/" in lan["text"]
    assert re.fullmatch(r"[A-Z2-9]{4}-[A-Z2-9]{4}", lan["code"])
    assert "█" in lan["text"]                                   # the QR code
    # the secrets stay with the server process: not in a kernel's environment variable
    assert "MJKIT_APP_SECRETS" not in lan["text"]


def test_lan_server_admits_only_with_the_class_code(lan):
    ip, port = lan["ip"], lan["port"]
    for path in ("/", "/voila/static/x.js"):
        status, headers, _ = _get(ip, port, path)
        assert status == 302 and headers["location"] == "/join"
    status, _, body = _get(ip, port, "/api/kernels")
    assert status == 302 or (status == 403 and b"join the class" in body)
    assert _get(ip, port, "/", host_header="attacker.example")[0] == 403
    status, _, body = _get(ip, port, f"/join?code={lan['code']}")
    assert status == 200 and lan["code"].encode() in body and b"<form" in body
    status, _, body = _get(ip, port, "/join?code=WRON-GCOD&name=Eve")
    assert status == 403 and b"not the class code" in body
    status, headers, _ = _get(ip, port, f"/join?code={lan['code'].lower()}&name=Lin&seat=4")
    assert status == 302
    where = urlsplit(headers["location"])
    q = parse_qs(where.query)
    assert where.path == "/" and q["name"] == ["Lin"] and q["seat"] == ["4"]
    assert len(q["session"][0]) >= 16
    cookie = headers["set-cookie"].split(";")[0]
    assert lan["code"].replace("-", "") not in cookie and "HttpOnly" in headers["set-cookie"]
    # admitted: requests reach Voila (its own answer for a file it does not have)
    status, _, body = _get(ip, port, "/voila/static/nothing-here.js", cookie=cookie)
    assert status in (403, 404) and b"join the class" not in body
    status, _, body = _get(ip, port, "/" + headers["location"].lstrip("/"), cookie=cookie)
    assert status == 200 and b"mjkit CJK" in body and b"cdn.jsdelivr" not in body


def test_teacher_page_needs_its_token(lan):
    ip, port = lan["ip"], lan["port"]
    for path in ("/teacher", "/teacher/data", "/teacher/results.csv"):
        assert _get(ip, port, path)[0] == 403
    assert _get(ip, port, "/teacher?token=" + lan["token"][:-1])[0] == 403
    status, headers, _ = _get(ip, port, "/teacher?token=" + lan["token"])
    assert status == 302 and headers["location"] == "/teacher"
    cookie = headers["set-cookie"].split(";")[0]
    status, _, body = _get(ip, port, "/teacher", cookie=cookie)
    assert status == 200 and lan["code"].encode() in body and b"<svg" in body
    # a student joins and opens the quiz: their kernel registers them (from the page's
    # query), and the teacher's data shows them
    _, headers, _ = _get(ip, port, f"/join?code={lan['code']}&name=Mei&seat=9")
    student = headers["set-cookie"].split(";")[0]
    assert _get(ip, port, headers["location"], cookie=student)[0] == 200
    deadline = time.time() + 60
    while True:
        status, _, body = _get(ip, port, "/teacher/data", cookie=cookie)
        assert status == 200
        seated = [(x["name"], x["seat"]) for x in json.loads(body)["students"]]
        if ("Mei", 9) in seated or time.time() > deadline:
            break
        time.sleep(1)
    assert ("Mei", 9) in seated
    status, headers, body = _get(ip, port, "/teacher/results.xlsx", cookie=cookie)
    assert status == 200 and body[:2] == b"PK" and "attachment" in headers["content-disposition"]


def test_wrong_codes_are_slowed_down(lan):
    ip, port = lan["ip"], lan["port"]
    statuses = [_get(ip, port, "/join?code=AAAA-AAAA&name=Eve")[0] for _ in range(22)]
    assert statuses[0] == 403 and statuses[-1] == 429
    # even the right code waits now, from this address
    assert _get(ip, port, f"/join?code={lan['code']}&name=Eve")[0] == 429
