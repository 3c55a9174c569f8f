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
- Each page load starts one kernel (about 250 MB).  At most
  ``max_kernels`` run at once; the next visitor gets a "the class is full"
  page (HTTP 503) and no kernel.  Beyond loopback, one student (one class
  cookie) has at most ``kernels_per_student`` kernels (a new page load
  replaces the oldest) and one address at most ``kernels_per_address``
  (beyond: HTTP 429), so one browser cannot fill the class.  A kernel idle
  for ``idle_timeout`` seconds with no browser connected (the tab closed, or
  no browser ever came), or ``input_idle_timeout`` seconds without a message
  from its browser (connected or not), is shut down.
- What a browser may send its kernel is bounded: messages of at most
  :data:`MAX_MESSAGE_BYTES`, at most :data:`MESSAGE_RATE` a second, only the
  widget messages a page sends (no code), only to the student's own kernels;
  a kernel over ``kernel_memory`` MB tells its student and stops
  (:mod:`mjkit.app.kernel_guard`), and the server kills one over
  :data:`HARD_MEMORY_FACTOR` times that.
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
           "DEFAULT_IDLE_TIMEOUT", "DEFAULT_MAX_KERNELS", "STOP_GRACE", "seat_number",
           "page_query", "DEFAULT_INPUT_IDLE_TIMEOUT", "DEFAULT_KERNELS_PER_STUDENT",
           "DEFAULT_KERNELS_PER_ADDRESS", "DEFAULT_KERNEL_MEMORY", "MAX_MESSAGE_BYTES"]

#: The results folder when none is given: under the current directory.
DEFAULT_RESULTS = "mjkit-results"
#: Seconds a kernel may sit idle with no browser connected before it is shut down.
DEFAULT_IDLE_TIMEOUT = 600
#: Kernels (page loads being served) at once; each takes about 250 MB.
DEFAULT_MAX_KERNELS = 40
#: Seconds a kernel may go without a message from its browser before it is shut down, even
#: with the browser connected (a tab left open, or a visitor holding websockets open).
DEFAULT_INPUT_IDLE_TIMEOUT = 1800
#: Kernels one student (one class cookie) may have; a new page load replaces the oldest.
DEFAULT_KERNELS_PER_STUDENT = 1
#: Kernels the devices behind one address may have; beyond, a "too many pages" answer (429).
DEFAULT_KERNELS_PER_ADDRESS = 3
#: Megabytes a student's kernel may use: above it, the kernel tells its student and stops;
#: above :data:`HARD_MEMORY_FACTOR` times it, the server kills it.
DEFAULT_KERNEL_MEMORY = 1000
#: How far above the kernel's own limit the server kills it (the kernel may be too busy to
#: notice its own limit).
HARD_MEMORY_FACTOR = 1.25
#: Largest websocket message a browser may send (bytes); a page's own messages are < 2 kB.
MAX_MESSAGE_BYTES = 64 * 1024
#: Messages a browser may send a second, on average (bursts of :data:`MESSAGE_BURST`).
MESSAGE_RATE = 100.0
MESSAGE_BURST = 2000
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
    #: The run id stored in that database (made with it; empty before).
    run: str = ""
    input_idle_timeout: int = DEFAULT_INPUT_IDLE_TIMEOUT
    kernels_per_student: int = DEFAULT_KERNELS_PER_STUDENT
    kernels_per_address: int = DEFAULT_KERNELS_PER_ADDRESS
    #: Megabytes per kernel (:data:`DEFAULT_KERNEL_MEMORY`).
    kernel_memory: int = DEFAULT_KERNEL_MEMORY

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
                  max_kernels=DEFAULT_MAX_KERNELS, ip=LOCALHOST, db="", run="",
                  input_idle_timeout=DEFAULT_INPUT_IDLE_TIMEOUT,
                  kernels_per_student=DEFAULT_KERNELS_PER_STUDENT,
                  kernels_per_address=DEFAULT_KERNELS_PER_ADDRESS,
                  kernel_memory=DEFAULT_KERNEL_MEMORY, create=True) -> AppOptions:
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
    run : str
        The run id stored in the class database (set by :func:`serve`): kernels and the
        teacher's page open that database only if it holds this id.
    input_idle_timeout : int
        Seconds (10..86400) a kernel may go without a message from its browser, connected
        or not, before it is shut down.
    kernels_per_student : int
        Kernels (open pages) one student may have, 1..10; a new page load replaces the
        oldest.  Applies beyond loopback (where students have a class cookie).
    kernels_per_address : int
        Kernels the devices behind one address may have, 1..100; beyond, the next page load
        is refused (HTTP 429).  Applies beyond loopback.
    kernel_memory : int
        Megabytes (300..16000) a student's kernel may use; above, it tells its student and
        stops, and at :data:`HARD_MEMORY_FACTOR` times this the server kills it.
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
    if not isinstance(run, str) or not (run == "" or (len(run) == 32 and all(
            c in "0123456789abcdef" for c in run))):
        raise HandError(f"the class database's run id must be 32 hex digits, got {run!r}")
    return AppOptions(
        port=whole("--port", port, 1, 65535),
        seed=whole("--seed", seed, 0, MAX_SEED),
        questions=whole("--questions", questions, 1, 200),
        difficulty=difficulty, lang=lang,
        results=results_folder(results, create=create),
        idle_timeout=whole("--idle-timeout", idle_timeout, 10, 86400),
        max_kernels=whole("--max-kernels", max_kernels, 1, 1000),
        ip=ip, db=db, run=run,
        input_idle_timeout=whole("--input-idle-timeout", input_idle_timeout, 10, 86400),
        kernels_per_student=whole("--kernels-per-student", kernels_per_student, 1, 10),
        kernels_per_address=whole("--kernels-per-address", kernels_per_address, 1, 100),
        kernel_memory=whole("--kernel-memory", kernel_memory, 300, 16000))


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


def seat_number(text) -> int | None:
    """A seat as typed (``""``: none); HandError unless ASCII digits for 1..999.

    ``str.isdigit`` is not enough: it accepts ``²`` and ``①``, which ``int`` refuses.
    """
    if not isinstance(text, str) or len(text) > 3:
        raise HandError(f"a seat is a number from 1 to 999, got {text!r}")
    if text == "":
        return None
    if not (text.isascii() and text.isdigit()) or not 1 <= int(text) <= 999:
        raise HandError(f"a seat is a number from 1 to 999, got {text!r}")
    return int(text)


#: The fields a student's page address may carry (the join page makes them).
PAGE_FIELDS = ("name", "seat", "session")


def page_query(query: str | None) -> dict | None:
    """The student a page address names (``name``, ``seat``, ``session``), checked.

    ``None`` for an address without a query (a loopback page, or a page opened without
    joining).  HandError for anything else that is not exactly what the join page makes:
    a field other than :data:`PAGE_FIELDS`, a field twice, more than three fields, a bad
    name, seat or session, or a query over 2,000 characters.  The server refuses such a
    page (HTTP 400) before any kernel starts.
    """
    from urllib.parse import parse_qsl

    from .classdb import clean_name

    if not query:
        return None
    if not isinstance(query, str) or len(query) > 2000:
        raise HandError("the page address is too long")
    try:
        pairs = parse_qsl(query, keep_blank_values=True, strict_parsing=True,
                          max_num_fields=len(PAGE_FIELDS), errors="strict")
    except (ValueError, UnicodeDecodeError):
        raise HandError("the page address is not one the join page makes") from None
    keys = [k for k, _ in pairs]
    if len(set(keys)) != len(keys) or not set(keys) <= set(PAGE_FIELDS) or \
            not {"name", "session"} <= set(keys):
        raise HandError(f"the page address must carry name and session (and a seat), "
                        f"got {', '.join(sorted(set(keys)))[:100]}")
    q = dict(pairs)
    name = clean_name(q["name"])
    if name != q["name"]:
        raise HandError("the name in the page address is not one the join page makes")
    session = q["session"]
    if not (16 <= len(session) <= 64 and session.isascii()
            and session.replace("-", "").replace("_", "").isalnum()):
        raise HandError("the session in the page address is not one the join page makes")
    return {"name": name, "seat": seat_number(q.get("seat", "")), "session": session}


def student_from_query(query: str | None) -> dict | None:
    """The student a page was opened for (:func:`page_query`); None when the query names
    nobody or names them badly (the server refuses such pages before a kernel starts)."""
    try:
        return page_query(query)
    except HandError:
        return None


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
                "db": None, "run": None, "student": None}
    o = from_env(environ)
    return {"n": o.questions, "seed": o.seed, "difficulty": o.difficulty, "lang": o.lang,
            "results_dir": o.results, "db": o.db or None, "run": o.run or None,
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

    from .classdb import new_class_db

    log = sys.stdout if log is None else log
    _become_subreaper()
    if not opts.db:
        # a new file under a name unique to this run, made exclusively, holding a run id
        # that every kernel checks: two servers never share (or adopt) a database
        db, run = new_class_db(opts.results, opts.seed)
        opts = replace(opts, db=str(db), run=run)
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
