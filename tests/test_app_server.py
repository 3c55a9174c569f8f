"""The classroom app is safe to serve (issue 12 §1): tested against a real server.

- Bad options are refused with HandError's message and exit status 2
  before any server starts; the results folder is checked and made.
- The quiz widget has no path box: the visitor's export is a download
  link, and the teacher's copy goes only into ``results_dir`` under a name
  the widget makes.
- A real ``python -m mjkit app`` (small kernel cap, short idle timeout):
  a spoofed ``Host`` gets 403 for the page, static files, the API and the
  kernel websocket and starts no kernel; 30 concurrent page loads each get
  the page or the "class is full" refusal within a bound, the kernels stay
  within the cap and their memory bounded, and idle kernels are culled; a
  failing cell shows no traceback or server path; SIGTERM stops Voila and
  every kernel; nothing is written outside the results folder.

The browser-side export (a real download in Chromium) is in test_browser.py.
"""

from __future__ import annotations

import base64
import contextlib
import http.client
import importlib.util
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest

from mjkit import HandError
from mjkit.cli import main

try:
    import servers  # tests/ is on sys.path when it is not a package
except ImportError:  # pragma: no cover
    from tests import servers

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "mjkit"
CAP = 3                  # kernels at once in the served test app
IDLE = 10                # its idle timeout (s); the cull interval is then 2 s
KERNEL_RSS_BOUND = 700 * 2**20     # a kernel with the app loaded: about 220-300 MB


# --------------------------------------------------------------------- options, no server

BAD_OPTIONS = [
    (["--questions", "0"], "--questions must be a whole number in 1..200"),
    (["--questions", "201"], "--questions must be a whole number in 1..200"),
    (["--port", "-1"], "--port must be a whole number in 1..65535"),
    (["--port", "70000"], "--port must be a whole number in 1..65535"),
    (["--seed", "-1"], "--seed must be a whole number"),
    (["--difficulty", "impossible"], "--difficulty must be one of easy, medium, hard"),
    (["--lang", "fr"], "--lang must be zh or en"),
    (["--idle-timeout", "0"], "--idle-timeout must be a whole number in 10..86400"),
    (["--max-kernels", "0"], "--max-kernels must be a whole number in 1..1000"),
    (["--input-idle-timeout", "5"], "--input-idle-timeout must be a whole number in 10..86400"),
    (["--kernels-per-student", "0"], "--kernels-per-student must be a whole number in 1..10"),
    (["--kernels-per-address", "101"],
     "--kernels-per-address must be a whole number in 1..100"),
    (["--kernel-memory", "100"], "--kernel-memory must be a whole number in 300..16000"),
]


@pytest.fixture
def no_server(monkeypatch, tmp_path):
    """Record (and never run) any process the command would start."""
    started = []

    def fake(*args, **kwargs):
        started.append(args)
        return 0

    monkeypatch.setattr(subprocess, "call", fake)
    monkeypatch.setattr(subprocess, "Popen", fake)
    monkeypatch.chdir(tmp_path)
    return started


@pytest.mark.parametrize("argv, message", BAD_OPTIONS)
def test_bad_options_refused_before_any_server(argv, message, no_server, capsys):
    assert main(["app", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert no_server == []


def test_results_folder_checked_and_made(no_server, tmp_path, capsys):
    from mjkit.app import server

    opts = server.check_options()                      # default: under the current folder
    assert opts.results == tmp_path / "mjkit-results" and opts.results.is_dir()
    assert server.check_options(results="sub/dir").results == tmp_path / "sub" / "dir"
    a_file = tmp_path / "notes.txt"
    a_file.write_text("the teacher's notes")
    for bad, message in [(a_file, "is a file"), (a_file / "x", "cannot be created"),
                         ("/proc/mjkit-results", "cannot be created"),
                         ("/proc", "cannot be created or written"),
                         (PACKAGE / "app", "inside the mjkit package"),
                         (PACKAGE / "app" / "results", "inside the mjkit package"), ("", "folder")]:
        with pytest.raises(HandError, match=message):
            server.check_options(results=bad)
    assert not (PACKAGE / "app" / "results").exists()
    assert main(["app", "--results", str(a_file)]) == 2
    assert "is a file" in capsys.readouterr().err
    assert a_file.read_text() == "the teacher's notes" and no_server == []


def test_executor_waits_for_a_busy_kernels_outputs(tmp_path):
    # nbclient's default 4 s after a cell's reply dropped the quiz's output under a
    # class's load (the page came with no widgets), and its 60 s for a kernel to start
    # stopped every page when thirty opened at once; the executor must get our waits
    pytest.importorskip("voila")
    import nbformat
    from voila.execute import VoilaExecutor

    from mjkit.app import _voila, server

    opts = server.check_options(results=str(tmp_path))
    c = _voila.voila_config(opts, str(tmp_path))
    ex = VoilaExecutor(nbformat.v4.new_notebook(), config=c)
    assert ex.iopub_timeout == _voila.IOPUB_TIMEOUT >= 60
    assert ex.startup_timeout == _voila.KERNEL_STARTUP_TIMEOUT >= 300


def test_host_allow_list():
    from mjkit.app import server

    hosts = server.allowed_hosts("127.0.0.1")
    assert hosts == {"127.0.0.1", "localhost"}
    assert server.host_allowed("LOCALHOST", hosts) and server.host_allowed("127.0.0.1", hosts)
    for spoof in ("attacker.example", "127.0.0.1.attacker.example", "localhost.evil", "",
                  "0.0.0.0", "[::1]"):
        assert not server.host_allowed(spoof, hosts)
    # a LAN server answers this machine's own names and addresses, never another name
    lan = server.allowed_hosts("0.0.0.0")
    assert {"127.0.0.1", "localhost"} <= lan and "0.0.0.0" not in lan
    assert server.check_options(ip="0.0.0.0", create=False).needs_code
    assert not server.check_options(ip="localhost", create=False).needs_code
    for spoof in ("attacker.example", "0.0.0.0", "", "192.0.2.1.nip.io"):
        assert not server.host_allowed(spoof, lan)
    for bad in ("203.0.113.7", "example.org", "::", 7):
        with pytest.raises(HandError, match="--host must be"):
            server.check_options(ip=bad, create=False)


def test_options_travel_in_the_environment(tmp_path):
    from mjkit.app import server

    opts = server.check_options(port=9000, seed=5, questions=3, difficulty="easy", lang="en",
                                results=tmp_path / "r", idle_timeout=30, max_kernels=2)
    env = server.to_env(opts)
    assert server.from_env(env) == opts
    s = server.notebook_settings(env)
    assert s == {"n": 3, "seed": 5, "difficulty": "easy", "lang": "en",
                 "results_dir": tmp_path / "r", "db": None, "run": None, "student": None}
    # the student comes from the page's query (Voila's QUERY_STRING), checked
    q = server.notebook_settings({**env, "QUERY_STRING": "name=%E5%B0%8F%E6%98%8E&seat=7&"
                                  "session=abcdefghijklmnopqrstuvwx"})
    assert q["student"] == {"name": "小明", "seat": 7, "session": "abcdefghijklmnopqrstuvwx"}
    for bad in ("name=&session=abcdefghijklmnopqrstuvwx", "name=A&session=short",
                "name=A&session=abcdefghij%2F..%2Fklmnopqrstu", "x" * 3000):
        assert server.notebook_settings({**env, "QUERY_STRING": bad})["student"] is None
    assert server.notebook_settings({})["results_dir"] is None     # a plain notebook
    with pytest.raises(HandError, match="damaged"):
        server.from_env({"MJKIT_APP_OPTIONS": "{not json"})
    with pytest.raises(HandError, match="--questions"):
        server.from_env({"MJKIT_APP_OPTIONS": env["MJKIT_APP_OPTIONS"].replace(
            '"questions": 3', '"questions": 0')})


# --------------------------------------------------------------------- the widget

def _all_widgets(w):
    yield w
    for c in getattr(w, "children", ()):
        yield from _all_widgets(c)


def test_quiz_widget_export_takes_no_path(tmp_path, monkeypatch):
    import ipywidgets as W

    from mjkit.widgets import QuizWidget

    cwd = tmp_path / "cwd"
    results = tmp_path / "results"
    cwd.mkdir()
    results.mkdir()
    monkeypatch.chdir(cwd)
    w = QuizWidget(2, seed=4, difficulty="easy", lang="en", results_dir=results)
    # no control a visitor could type a path into
    text_boxes = (W.Text, W.Textarea, W.Combobox, W.Password)
    assert not [x for x in _all_widgets(w.widget) if isinstance(x, text_boxes)]
    assert not hasattr(w, "export_path")
    w.check_button.click()                               # answered (wrongly): saved at once
    files = list(results.iterdir())
    assert len(files) == 1 and files[0] == w.saved_path
    assert re.fullmatch(r"quiz-4-easy-\d{8}T\d{6}Z-[0-9a-f]{16}\.csv", files[0].name)
    assert files[0].read_bytes() == w.quiz.to_csv_bytes()
    assert str(results) not in w.saved.value and files[0].name in w.saved.value
    # the visitor's copy: a download link holding the same CSV
    m = re.search(r"download='([^']+)' href='data:text/csv;charset=utf-8;base64,([^']+)'",
                  w.download.value)
    assert m and m.group(1) == "quiz-4-easy.csv"
    data = base64.b64decode(m.group(2))
    assert data == files[0].read_bytes() and data.startswith(b"\xef\xbb\xbfnumber,kind,hand")
    w.next_button.click()
    w.check_button.click()
    assert list(results.iterdir()) == files             # the same file, rewritten
    assert w.quiz.score[1] == 2 and files[0].read_bytes() == w.quiz.to_csv_bytes()
    w.new_button.click()                                 # a new quiz: a new file
    w.check_button.click()
    assert len(list(results.iterdir())) == 2
    assert list(cwd.iterdir()) == []                     # nothing relative to the kernel's cwd
    with pytest.raises(TypeError):
        w.export("/tmp/anything.csv")                    # export takes no path at all
    with pytest.raises(HandError, match="results_dir"):
        QuizWidget(1, seed=4, results_dir=tmp_path / "missing")
    # in a plain notebook: the download only, nothing written anywhere
    plain = QuizWidget(1, seed=4, difficulty="easy")
    plain.check_button.click()
    assert plain.export() is None and plain.saved_path is None and "base64," in plain.download.value
    assert list(cwd.iterdir()) == [] and len(list(results.iterdir())) == 2


# --------------------------------------------------------------------- a real server

def _request(port, path="/", host=None, headers=None, timeout=150):
    """``(status, body text, seconds)`` of one GET."""
    t = time.monotonic()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.putrequest("GET", path, skip_host=True)
        conn.putheader("Host", host or f"127.0.0.1:{port}")
        for k, v in (headers or {}).items():
            conn.putheader(k, v)
        conn.endheaders()
        r = conn.getresponse()
        body = r.read().decode("utf-8", "replace") if r.status != 101 else ""
        return r.status, body, time.monotonic() - t
    finally:
        conn.close()


def _websocket(port, kernel_id, host, origin):
    """The status of a kernel websocket handshake."""
    key = base64.b64encode(os.urandom(16)).decode()
    return _request(port, f"/api/kernels/{kernel_id}/channels", host=host, timeout=30,
                    headers={"Upgrade": "websocket", "Connection": "Upgrade",
                             "Sec-WebSocket-Key": key, "Sec-WebSocket-Version": "13",
                             "Origin": origin})[0]


def _kernels(pid):
    return servers.kernel_processes(pid)


def _kernel_rss(pid):
    import psutil

    total = 0
    for p in _kernels(pid):
        try:
            total += p.memory_info().rss
        except psutil.Error:
            pass
    return total


def _package_files():
    return sorted(str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("*")
                  if "__pycache__" not in p.parts and not p.name.endswith(".nbi")
                  and not p.name.endswith(".nbc"))


class _App:
    def __init__(self, proc, port, root, log):
        self.proc, self.port, self.root, self.log = proc, port, root, log
        self.results = root / "results"
        self.cwd = root / "cwd"

    def tail(self):
        return self.log.read_text(errors="replace")[-5000:]


@contextlib.contextmanager
def _serving(root, cap, idle=IDLE):
    """``python -m mjkit app`` on a free port, cwd ``root/cwd``; everything stopped after."""
    pytest.importorskip("psutil")
    if importlib.util.find_spec("voila") is None:
        if os.environ.get("CI"):
            pytest.fail("the app tests need voila (pip install -e '.[test]')")
        pytest.skip("needs voila")
    import psutil

    (root / "cwd").mkdir()
    port = servers.free_port()
    log = root / "app.log"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    with open(log, "wb") as fh:
        proc = subprocess.Popen(
            [sys.executable, "-m", "mjkit", "app", "--port", str(port), "--seed", "3",
             "--questions", "3", "--max-kernels", str(cap), "--idle-timeout", str(idle),
             "--results", str(root / "results")],
            cwd=root / "cwd", stdout=fh, stderr=subprocess.STDOUT, env=env)
    a = _App(proc, port, root, log)
    try:
        deadline = time.time() + 120
        while True:                       # up: any answer (a 404 starts no kernel)
            try:
                _request(port, f"/api/kernels/{uuid.uuid4()}", timeout=5)
                break
            except OSError:
                if proc.poll() is not None or time.time() > deadline:
                    pytest.fail("the app did not start:\n" + a.tail())
                time.sleep(0.5)
        yield a
    finally:
        leftovers = []
        try:
            leftovers = psutil.Process(proc.pid).children(recursive=True)
        except psutil.Error:
            pass
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=40)
            except subprocess.TimeoutExpired:
                proc.kill()
        for p in leftovers:                  # never leak a kernel, even on failure
            try:
                p.kill()
            except psutil.Error:
                pass


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    with _serving(tmp_path_factory.mktemp("app"), CAP) as a:
        yield a


def _thirty_loads(app, cap):
    """30 concurrent page loads (and a spoofed one) while sampling the kernels."""
    port = app.port
    samples = []
    stop = threading.Event()

    def monitor():
        while not stop.is_set():
            # what each kernel process is (pid, parent, start time): a sample above the cap
            # then says whether it was a kernel or a short-lived child of one
            who = []
            for k in _kernels(app.proc.pid):
                try:
                    who.append((k.pid, k.ppid(), round(k.create_time(), 2)))
                except Exception:               # noqa: BLE001 - the process just ended
                    pass
            samples.append((len(who), _kernel_rss(app.proc.pid), tuple(who)))
            time.sleep(0.3)

    results = [None] * 30

    def load(i):
        host = f"localhost:{port}" if i % 2 else f"127.0.0.1:{port}"
        try:
            results[i] = _request(port, "/", host=host, timeout=150)
        except Exception as exc:           # noqa: BLE001 - reported below
            results[i] = (None, repr(exc), None)

    watcher = threading.Thread(target=monitor, daemon=True)
    watcher.start()
    threads = [threading.Thread(target=load, args=(i,)) for i in range(30)]
    t0 = time.monotonic()
    for t in threads:
        t.start()
    spoofed = _request(port, "/", host=f"attacker.example:{port}", timeout=30)
    for t in threads:
        t.join(timeout=160)
    elapsed = time.monotonic() - t0
    assert not any(t.is_alive() for t in threads), app.tail()
    assert elapsed < 150, elapsed
    assert spoofed[0] == 403
    statuses = [r[0] for r in results]
    assert set(statuses) <= {200, 503}, (statuses, [r[1][:300] for r in results], app.tail())
    pages = [r for r in results if r[0] == 200]
    full = [r for r in results if r[0] == 503]
    assert 1 <= len(pages) <= cap and len(pages) + len(full) == 30, statuses
    for status, body, _ in pages:
        assert "mjkit classroom" in body and "Traceback" not in body
    for status, body, seconds in full:
        assert "The class is full" in body and "课堂已满" in body and seconds < 30
    assert "Address already in use" not in app.tail() and "ZMQError" not in app.tail()
    return pages, samples, stop, watcher


def test_spoofed_host_is_refused_and_starts_no_kernel(app):
    port = app.port
    spoof = f"attacker.example:{port}"
    for path in ("/", "/voila/static/voila.js", f"/api/kernels/{uuid.uuid4()}",
                 "/voila/api/shutdown/" + str(uuid.uuid4())):
        status, body, _ = _request(port, path, host=spoof)
        assert status == 403, (path, status, app.tail())
        assert "mjkit classroom" not in body
    assert _websocket(port, uuid.uuid4(), spoof, f"http://{spoof}") == 403
    time.sleep(1.0)
    assert _kernels(app.proc.pid) == []
    assert "refused Host 'attacker.example" in app.tail()


def test_thirty_concurrent_loads_capped_then_culled(app):
    port = app.port
    package_before = _package_files()
    pages, samples, stop, watcher = _thirty_loads(app, CAP)
    # kernels talk over Unix sockets named after their id: no TCP port to race for
    for k in _kernels(app.proc.pid):
        cmd = k.cmdline()
        info = json.loads(Path(cmd[cmd.index("-f") + 1]).read_text())
        assert info["transport"] == "ipc" and info["key"]
    # a page served: its kernel's websocket answers our host, not a spoofed one
    kernel_id = re.search(r'"kernelId": "([0-9a-f-]+)"', pages[0][1]).group(1)
    assert _websocket(port, kernel_id, f"attacker.example:{port}",
                      "http://attacker.example") == 403
    assert _websocket(port, kernel_id, f"127.0.0.1:{port}", f"http://127.0.0.1:{port}") == 101
    # no browser stays connected: every kernel is culled, the memory comes back
    deadline = time.monotonic() + IDLE + 40
    while _kernels(app.proc.pid) and time.monotonic() < deadline:
        time.sleep(0.5)
    stop.set()
    watcher.join()
    assert _kernels(app.proc.pid) == [] and _kernel_rss(app.proc.pid) == 0, app.tail()
    assert "Culling 'idle' kernel" in app.tail()
    peak_kernels = max(n for n, _, _ in samples)
    peak_rss = max(r for _, r, _ in samples)
    over = [who for n, _, who in samples if n > CAP]
    assert 1 <= peak_kernels <= CAP and peak_rss <= CAP * KERNEL_RSS_BOUND, (over, app.tail())
    # the seats came back
    status, body, _ = _request(port, "/")
    assert status == 200 and "mjkit classroom" in body
    assert _package_files() == package_before


def test_failing_cell_shows_no_traceback_or_path(app):
    # the teacher removed the results folder while serving: the quiz cell fails
    hidden = app.results.with_name("results-moved")
    app.results.rename(hidden)
    try:
        status, body, _ = _request(app.port, "/")
    finally:
        hidden.rename(app.results)
    assert status == 200, app.tail()
    assert "There was an error when executing cell" in body
    for leak in ("Traceback", "HandError", str(app.results), str(PACKAGE), str(ROOT)):
        assert leak not in body, leak


def test_sigterm_stops_voila_and_every_kernel(app):
    import psutil

    status, _, _ = _request(app.port, "/")
    assert status in (200, 503)
    assert _kernels(app.proc.pid), app.tail()
    tree = psutil.Process(app.proc.pid).children(recursive=True)
    assert any("mjkit.app" in " ".join(p.cmdline()) for p in tree)    # the voila child
    app.proc.send_signal(signal.SIGTERM)
    assert app.proc.wait(timeout=45) == 128 + signal.SIGTERM
    _, alive = psutil.wait_procs(tree, timeout=10)
    assert alive == [], (alive, app.tail())
    # nothing was written outside the results folder; the class database is inside it
    # (with SQLite's write-ahead log beside it while it is open)
    assert list(app.cwd.iterdir()) == []
    names = [p.name for p in app.results.iterdir()]
    assert any(re.fullmatch(r"class-\d{8}T\d{6}Z-[0-9a-f]{16}-seed\d+\.sqlite", n)
               for n in names), names
    assert all(re.fullmatch(r"class-\d{8}T\d{6}Z-[0-9a-f]{16}-seed\d+\.sqlite(-wal|-shm)?", n)
               for n in names), names


@pytest.mark.slow
def test_thirty_concurrent_loads_with_a_large_cap(tmp_path, request):
    """12 kernels starting at once (a real port race before the ipc transport)."""
    import psutil

    with _serving(tmp_path, 12, idle=30) as a:
        pages, samples, stop, watcher = _thirty_loads(a, 12)
        stop.set()
        watcher.join()
        assert max(n for n, _, _ in samples) <= 12 and len(pages) >= 2
        tree = psutil.Process(a.proc.pid).children(recursive=True)
        a.proc.send_signal(signal.SIGTERM)
        assert a.proc.wait(timeout=60) == 128 + signal.SIGTERM
        assert psutil.wait_procs(tree, timeout=10)[1] == []
