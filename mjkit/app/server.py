"""Serve the classroom app: options checked first, Voila locked down, every process stopped.

``python -m mjkit app`` calls :func:`check_options` (every bad option is a
:class:`mjkit.HandError` before anything starts) and then :func:`serve`,
which runs the Voila server (:mod:`mjkit.app._voila`, started as
``python -m mjkit.app``) in a child process and supervises it:

- It listens on ``127.0.0.1`` (the default), on every interface (``0.0.0.0``:
  students' own devices on the LAN) or on one address of this machine, and
  answers only the hosts it serves on (:func:`allowed_hosts`): any other
  ``Host`` header, page, static file, API or kernel websocket alike, gets 403
  and starts nothing, so DNS rebinding cannot reach it.
- Beyond loopback, a visitor needs the class code (:class:`ClassSecrets`,
  printed with the address and a QR code by :func:`announcement`): the join
  page takes it with the student's name and seat, and every other request
  without its cookie goes to the join page.  The teacher's page needs the
  teacher's token.  Both secrets are made per run and reach the server
  process only (never a kernel's environment).
- Each page load starts one kernel (about 220 MB).  At most
  ``max_kernels`` run at once; the next visitor gets a "the class is full"
  page (HTTP 503) and no kernel.  A kernel idle for ``idle_timeout`` seconds
  with no browser connected (the tab closed, or no browser ever came) is
  shut down; a connected student's kernel is never culled.
- Kernels talk to the server over Unix sockets in a private folder
  (``ipc`` transport), so two kernels starting together cannot race for a
  TCP port.
- Visitors never see a traceback or a server path.  Nothing a visitor
  types becomes a path or SQL: every checked answer is recorded in the class
  database (:mod:`mjkit.app.classdb`), a file the server makes in the results
  folder chosen here, under a name it chooses; the student's own answers reach
  them as a browser download.
- SIGTERM or SIGINT (Ctrl-C) stops Voila and every kernel: the signal is
  forwarded, Voila shuts its kernels down, and whatever is still alive
  after :data:`STOP_GRACE` seconds is killed.  On Linux this process is a
  child subreaper, so even kernels orphaned by a crashed server are found
  and stopped; the Voila child gets SIGTERM should this process die.

This module imports neither Voila nor Jupyter: checking options is cheap.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from ..errors import HandError
from ..locations import PACKAGE
from ..storage import probe_write
from ..validate import lang as check_lang
from ..validate import whole

__all__ = ["AppOptions", "check_options", "results_folder", "allowed_hosts", "host_allowed",
           "to_env", "from_env", "notebook_settings", "serve", "DEFAULT_RESULTS",
           "ClassSecrets", "secrets_to_env", "secrets_from_env", "student_from_query",
           "DEFAULT_IDLE_TIMEOUT", "DEFAULT_MAX_KERNELS", "STOP_GRACE"]

#: The results folder when none is given: under the current directory.
DEFAULT_RESULTS = "mjkit-results"
#: Seconds a kernel may sit idle with no browser connected before it is shut down.
DEFAULT_IDLE_TIMEOUT = 600
#: Kernels (page loads being served) at once; each takes about 220 MB.
DEFAULT_MAX_KERNELS = 40
#: Seconds Voila gets to stop its kernels after SIGTERM before everything is killed.
STOP_GRACE = 20.0
#: The loopback address: the default, served without a class code.
LOCALHOST = "127.0.0.1"
#: Every interface of this machine.
ANY = "0.0.0.0"
#: Largest quiz seed (the widget's seed box stops there).
MAX_SEED = 10**9

_ENV = "MJKIT_APP_OPTIONS"


@dataclass(frozen=True)
class AppOptions:
    """Checked options of the classroom server (make them with :func:`check_options`)."""

    port: int
    seed: int
    questions: int
    difficulty: str
    lang: str
    results: Path
    idle_timeout: int
    max_kernels: int
    ip: str = LOCALHOST
    #: The class's database (made by :func:`serve`; empty before).
    db: str = ""

    @property
    def hosts(self) -> frozenset:
        """Host names the server answers (:func:`allowed_hosts`)."""
        return allowed_hosts(self.ip)

    @property
    def needs_code(self) -> bool:
        """Served beyond this machine: every visitor needs the class code."""
        return self.ip != LOCALHOST

    @property
    def urls(self) -> list:
        """The addresses students open (the LAN ones first)."""
        if self.ip == ANY:
            lan = sorted(_interface_addresses() - {LOCALHOST})
            return [f"http://{a}:{self.port}/" for a in lan] or [
                f"http://{LOCALHOST}:{self.port}/"]
        return [self.url]

    @property
    def cull_interval(self) -> int:
        """Seconds between two looks for idle kernels: a kernel goes within
        ``idle_timeout`` + this."""
        return max(1, min(60, self.idle_timeout // 5))

    @property
    def url(self) -> str:
        return f"http://{self.ip}:{self.port}/"


def _interface_addresses() -> set:
    """The IPv4 addresses of this machine's interfaces (loopback included)."""
    out = {LOCALHOST}
    try:
        import psutil

        for addrs in psutil.net_if_addrs().values():
            out |= {a.address for a in addrs if a.family == socket.AF_INET}
    except (ImportError, OSError):
        pass
    return out


def allowed_hosts(ip: str) -> frozenset:
    """The names a browser may use in ``Host`` for a server listening on ``ip``.

    ``127.0.0.1``: the address and ``localhost``.  ``0.0.0.0``: every IPv4 address of
    this machine, its host name (and ``<name>.local``) and the loopback names.  One
    interface's address: that address, the host names and the loopback names.  Any
    other name could be an attacker's domain rebound to this machine (DNS
    rebinding), so it is refused; HandError for an address this machine does not have.
    """
    if not isinstance(ip, str):
        raise HandError(f"--host must be an IPv4 address, got {ip!r}")
    if ip in ("localhost", LOCALHOST):
        return frozenset({LOCALHOST, "localhost"})
    mine = _interface_addresses()
    if ip != ANY and ip not in mine:
        raise HandError(f"--host must be 127.0.0.1, 0.0.0.0 or an address of this machine "
                        f"({', '.join(sorted(mine))}), got {ip!r}")
    names = {LOCALHOST, "localhost"} | (mine if ip == ANY else {ip})
    host = socket.gethostname().lower().rstrip(".")
    if host and host != "localhost":
        names |= {host, host + ".local"}
    return frozenset(names)


def host_allowed(host_name: str, hosts) -> bool:
    """Whether a request's host name (the ``Host`` header without its port) is served."""
    return host_name.lower().rstrip(".") in hosts


def results_folder(path=None, *, create: bool = True) -> Path:
    """The teacher's results folder as an absolute path, created; HandError if unusable.

    ``None`` means :data:`DEFAULT_RESULTS` under the current directory.  A
    path inside the installed package, a file, or a folder this user cannot
    create or write is refused.
    """
    if path is None:
        path = DEFAULT_RESULTS
    if not isinstance(path, (str, os.PathLike)) or not str(path).strip():
        raise HandError(f"--results must be a folder, got {path!r}")
    p = Path(os.path.abspath(Path(path).expanduser()))
    real = p.resolve()
    if real == PACKAGE or PACKAGE in real.parents:
        raise HandError(f"--results must not be inside the mjkit package ({PACKAGE}): {p}")
    if p.exists() and not p.is_dir():
        raise HandError(f"--results {p} is a file, not a folder")
    if not create:
        return p
    try:
        p.mkdir(parents=True, exist_ok=True)
        probe_write(p)
    except OSError as exc:
        raise HandError(f"--results {p} cannot be created or written: "
                        f"{exc.strerror or exc}") from None
    return p


def check_options(*, port=8866, seed=0, questions=10, difficulty="medium", lang="zh",
                  results=None, idle_timeout=DEFAULT_IDLE_TIMEOUT,
                  max_kernels=DEFAULT_MAX_KERNELS, ip=LOCALHOST, db="",
                  create=True) -> AppOptions:
    """Check every option of the classroom server; HandError naming the first bad one.

    Parameters
    ----------
    port : int
        1..65535.
    seed : int
        Quiz seed, 0..10**9.
    questions : int
        1..200.
    difficulty : str
        ``easy``, ``medium`` or ``hard``.
    lang : str
        ``zh`` or ``en``.
    results : path or None
        The teacher's results folder (:func:`results_folder`).
    idle_timeout : int
        Seconds (10..86400) before an idle kernel with no browser is shut down.
    max_kernels : int
        Kernels at once, 1..1000.
    ip : str
        ``127.0.0.1`` (this machine only), ``0.0.0.0`` (every interface: the LAN) or
        one address of this machine; beyond loopback every visitor needs the class
        code (:func:`serve` prints it).
    db : str
        The class database (set by :func:`serve`).
    create : bool
        Create the results folder (and check it is writable).
    """
    from ..quiz import DIFFICULTIES

    if difficulty not in DIFFICULTIES:
        raise HandError(f"--difficulty must be one of {', '.join(DIFFICULTIES)}, "
                        f"got {difficulty!r}", code="unknown_name")
    check_lang(lang, "--lang")
    allowed_hosts(ip)
    if ip == "localhost":
        ip = LOCALHOST
    if not isinstance(db, str) or (db and not db.endswith(".sqlite")):
        raise HandError(f"the class database must be a .sqlite file, got {db!r}")
    return AppOptions(
        port=whole("--port", port, 1, 65535),
        seed=whole("--seed", seed, 0, MAX_SEED),
        questions=whole("--questions", questions, 1, 200),
        difficulty=difficulty, lang=lang,
        results=results_folder(results, create=create),
        idle_timeout=whole("--idle-timeout", idle_timeout, 10, 86400),
        max_kernels=whole("--max-kernels", max_kernels, 1, 1000),
        ip=ip, db=db)


# ------------------------------------------------------------------ environment

def to_env(opts: AppOptions) -> dict:
    """The environment variables that carry ``opts`` to the server and its kernels.

    They are set by :func:`serve` only; no request can change a kernel's
    environment (Voila adds only the request's own CGI-style variables).
    """
    doc = asdict(opts)
    doc["results"] = str(opts.results)
    return {_ENV: json.dumps(doc, sort_keys=True)}


def from_env(environ=None, *, create=False) -> AppOptions:
    """The options :func:`to_env` stored, checked again; HandError when absent or bad."""
    environ = os.environ if environ is None else environ
    raw = environ.get(_ENV)
    if raw is None:
        raise HandError(f"{_ENV} is not set: start the app with  python -m mjkit app")
    try:
        doc = json.loads(raw)
        if not isinstance(doc, dict):
            raise ValueError(raw)
        return check_options(create=create, **doc)
    except (ValueError, TypeError) as exc:
        if isinstance(exc, HandError):
            raise
        raise HandError(f"{_ENV} is damaged: {raw!r}") from None


# ------------------------------------------------------------------ class code, teacher token

#: Letters of a class code: no 0/O, 1/I/L to misread from a projector.
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
_SECRET_ENV = "MJKIT_APP_SECRETS"


@dataclass(frozen=True)
class ClassSecrets:
    """The class code students type (``ABCD-EFGH``, 40 bits) and the teacher's token."""

    code: str
    teacher: str

    @classmethod
    def new(cls) -> "ClassSecrets":
        import secrets

        raw = "".join(secrets.choice(CODE_ALPHABET) for _ in range(8))
        return cls(code=f"{raw[:4]}-{raw[4:]}", teacher=secrets.token_urlsafe(24))

    def code_matches(self, given) -> bool:
        """Whether ``given`` is the class code (case, spaces and dashes ignored)."""
        import hmac

        if not isinstance(given, str) or len(given) > 40:
            return False
        norm = "".join(ch for ch in given.upper() if ch not in " -")
        return hmac.compare_digest(norm.encode(), self.code.replace("-", "").encode())

    def teacher_matches(self, given) -> bool:
        import hmac

        return isinstance(given, str) and len(given) < 100 and hmac.compare_digest(
            given.encode(), self.teacher.encode())


def secrets_to_env(sec: ClassSecrets) -> dict:
    return {_SECRET_ENV: json.dumps(asdict(sec))}


def secrets_from_env(environ=None) -> ClassSecrets:
    """The secrets :func:`serve` gave the server process, taken out of ``environ`` so
    that no kernel (they inherit the server's environment) ever sees them."""
    environ = os.environ if environ is None else environ
    raw = environ.pop(_SECRET_ENV, None)
    if raw is None:
        raise HandError(f"{_SECRET_ENV} is not set: start the app with  python -m mjkit app")
    try:
        doc = json.loads(raw)
        sec = ClassSecrets(code=str(doc["code"]), teacher=str(doc["teacher"]))
    except (ValueError, TypeError, KeyError):
        raise HandError(f"{_SECRET_ENV} is damaged") from None
    if len(sec.code) != 9 or len(sec.teacher) < 24:
        raise HandError(f"{_SECRET_ENV} is damaged")
    return sec


def student_from_query(query: str | None) -> dict | None:
    """The student a page was opened for (``name``, ``seat``, ``session`` in its query),
    checked; None when the query names nobody or names them badly."""
    from urllib.parse import parse_qs

    from .classdb import clean_name

    if not query or len(query) > 2000:
        return None
    q = parse_qs(query, keep_blank_values=False, max_num_fields=10)
    try:
        name = clean_name(q.get("name", [""])[0])
    except HandError:
        return None
    session = q.get("session", [""])[0]
    if not (16 <= len(session) <= 64 and session.replace("-", "").replace("_", "").isalnum()):
        return None
    seat_text = q.get("seat", [""])[0]
    seat = int(seat_text) if seat_text.isdigit() and 1 <= int(seat_text) <= 999 else None
    return {"name": name, "seat": seat, "session": session}


def notebook_settings(environ=None) -> dict:
    """What the app notebook needs: the quiz's parameters, the class database, the student.

    Served by the app: the server's options (``results_dir`` its folder, ``db`` the
    class database) and the student the page was opened for (:func:`student_from_query`,
    None on a loopback server opened without joining).  In a plain notebook (no app
    environment): the quiz defaults and no folder, database or student.
    """
    environ = os.environ if environ is None else environ
    if _ENV not in environ:
        return {"n": 10, "seed": 0, "difficulty": "medium", "lang": "zh", "results_dir": None,
                "db": None, "student": None}
    o = from_env(environ)
    return {"n": o.questions, "seed": o.seed, "difficulty": o.difficulty, "lang": o.lang,
            "results_dir": o.results, "db": o.db or None,
            # Voila puts the page's query in the kernel's environment
            "student": student_from_query(environ.get("QUERY_STRING"))}


# ------------------------------------------------------------------ supervisor

def join_url(opts: AppOptions, sec: ClassSecrets) -> str:
    """What the students' QR code opens: the join page with the class code filled in."""
    base = opts.urls[0]
    return base + (f"join?code={sec.code}" if opts.needs_code else "")


def teacher_url(opts: AppOptions, sec: ClassSecrets) -> str:
    return f"{opts.urls[0]}teacher?token={sec.teacher}"


def announcement(opts: AppOptions, sec: ClassSecrets) -> str:
    """What the teacher's terminal shows when the server starts."""
    from .teacher import qr_text

    lines = [f"Serving the mjkit classroom (quiz seed {opts.seed}, {opts.questions} "
             f"questions, {opts.difficulty}; at most {opts.max_kernels} students at once; "
             f"idle kernels stop after {opts.idle_timeout} s; Ctrl-C stops it)."]
    lines += [f"  Students open:  {u}" for u in opts.urls]
    if opts.needs_code:
        lines.append(f"  Class code:     {sec.code}")
    lines.append(f"  Teacher's page: {teacher_url(opts, sec)}   (keep it to yourself)")
    lines.append(f"  Answers are recorded in {opts.db}")
    if opts.needs_code:
        lines.append("Scan to join (or project the teacher's page, which shows this code):")
        lines.append(qr_text(join_url(opts, sec)))
    return "\n".join(lines)


def _libc():
    import ctypes
    import ctypes.util

    return ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)


def _become_subreaper():
    """Orphaned descendants (kernels of a crashed server) become our children, not init's."""
    if sys.platform.startswith("linux"):
        try:
            _libc().prctl(36, 1, 0, 0, 0)          # PR_SET_CHILD_SUBREAPER
        except (OSError, AttributeError):
            pass


def _child_setup():
    """In the Voila child before exec: SIGTERM when this supervisor dies, however."""
    if sys.platform.startswith("linux"):
        try:
            _libc().prctl(1, signal.SIGTERM, 0, 0, 0)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass


def _descendants():
    """Every live process below this one (psutil comes with ipykernel)."""
    try:
        import psutil
    except ImportError:
        return []
    try:
        return psutil.Process().children(recursive=True)
    except psutil.Error:
        return []


def _stop_all(procs, timeout=5.0):
    """Terminate ``procs`` (psutil processes), then kill what is left after ``timeout``."""
    if not procs:
        return
    import psutil

    for p in procs:
        try:
            p.terminate()
        except psutil.Error:
            pass
    _, alive = psutil.wait_procs(procs, timeout=timeout)
    for p in alive:
        try:
            p.kill()
        except psutil.Error:
            pass
    psutil.wait_procs(alive, timeout=timeout)


def serve(opts: AppOptions, *, browser: bool = False, grace: float = STOP_GRACE,
          log=None) -> int:
    """Run the classroom server until it stops or this process gets SIGTERM/SIGINT.

    Returns the server's exit status, or 130 (SIGINT) / 143 (SIGTERM) after
    a signal.  When this returns, Voila and every kernel have exited.
    """
    from dataclasses import replace

    from .classdb import ClassDB, db_name

    log = sys.stdout if log is None else log
    _become_subreaper()
    if not opts.db:
        db = opts.results / db_name(opts.seed)
        ClassDB(db, create=True).close()
        opts = replace(opts, db=str(db))
    sec = ClassSecrets.new()
    env = dict(os.environ, **to_env(opts), **secrets_to_env(sec))
    cmd = [sys.executable, "-m", "mjkit.app"] + (["--browser"] if browser else [])
    print(announcement(opts, sec), file=log, flush=True)
    received = []

    def on_signal(signum, frame):
        received.append(signum)
        if child.poll() is None:
            try:
                # a second signal: no more waiting
                os.kill(child.pid, signal.SIGTERM if len(received) == 1 else signal.SIGKILL)
            except OSError:
                pass

    # the child gets its own session: a terminal's Ctrl-C reaches only this supervisor,
    # which then stops the child in order
    child = subprocess.Popen(cmd, env=env, start_new_session=True,
                             preexec_fn=_child_setup if os.name == "posix" else None)
    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGTERM, signal.SIGINT)}
    try:
        deadline = None
        while True:
            try:
                code = child.wait(timeout=0.5)
                break
            except subprocess.TimeoutExpired:
                pass
            if received and deadline is None:
                deadline = time.monotonic() + grace
            if deadline is not None and time.monotonic() > deadline:
                # Voila did not stop in time (e.g. blocked in a send): kill it and its kernels
                procs = _descendants()
                try:
                    os.killpg(child.pid, signal.SIGKILL)
                except OSError:
                    pass
                _stop_all(procs, timeout=2.0)
                code = child.wait()
                break
    finally:
        for s, h in previous.items():
            signal.signal(s, h)
        if child.poll() is None:                 # an exception in the loop: never leave it
            child.kill()
            child.wait()
        # kernels the server did not stop (it crashed or was killed) are ours now
        _stop_all(_descendants())
    if received:
        return 128 + received[0]
    return code
