"""Serve the classroom app: options checked first, Voila locked down, every process stopped.

``python -m mjkit app`` calls :func:`check_options` (every bad option is a
:class:`mjkit.HandError` before anything starts) and then :func:`serve`,
which runs the Voila server (:mod:`mjkit.app._voila`, started as
``python -m mjkit.app``) in a child process and supervises it:

- The server answers only the hosts it serves on (:func:`allowed_hosts`):
  any other ``Host`` header, page, static file, API or kernel websocket
  alike, gets 403 and starts nothing, so DNS rebinding cannot reach it.
- Each page load starts one kernel (about 220 MB).  At most
  ``max_kernels`` run at once; the next visitor gets a "the class is full"
  page (HTTP 503) and no kernel.  A kernel idle for ``idle_timeout`` seconds
  with no browser connected (the tab closed, or no browser ever came) is
  shut down; a connected student's kernel is never culled.
- Kernels talk to the server over Unix sockets in a private folder
  (``ipc`` transport), so two kernels starting together cannot race for a
  TCP port.
- Visitors never see a traceback or a server path.  Nothing a visitor
  types becomes a path: the quiz results reach the visitor as a browser
  download, and the teacher's copy is written by the server into the
  results folder chosen here, under names the server makes.
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
           "DEFAULT_IDLE_TIMEOUT", "DEFAULT_MAX_KERNELS", "STOP_GRACE"]

#: The results folder when none is given: under the current directory.
DEFAULT_RESULTS = "mjkit-results"
#: Seconds a kernel may sit idle with no browser connected before it is shut down.
DEFAULT_IDLE_TIMEOUT = 600
#: Kernels (page loads being served) at once; each takes about 220 MB.
DEFAULT_MAX_KERNELS = 40
#: Seconds Voila gets to stop its kernels after SIGTERM before everything is killed.
STOP_GRACE = 20.0
#: The only address served (issue 16 will add others, with a token).
LOCALHOST = "127.0.0.1"
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

    @property
    def hosts(self) -> frozenset:
        """Host names the server answers (:func:`allowed_hosts`)."""
        return allowed_hosts(self.ip)

    @property
    def cull_interval(self) -> int:
        """Seconds between two looks for idle kernels: a kernel goes within
        ``idle_timeout`` + this."""
        return max(1, min(60, self.idle_timeout // 5))

    @property
    def url(self) -> str:
        return f"http://{self.ip}:{self.port}/"


def allowed_hosts(ip: str) -> frozenset:
    """The names a browser may use in ``Host`` for a server listening on ``ip``.

    Only the loopback address is served today; its names are the address
    itself and ``localhost``.  Any other name could be an attacker's domain
    rebound to 127.0.0.1.
    """
    if ip != LOCALHOST:
        raise HandError(f"the app serves only on {LOCALHOST}, not {ip!r}")
    return frozenset({LOCALHOST, "localhost"})


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
                  max_kernels=DEFAULT_MAX_KERNELS, ip=LOCALHOST, create=True) -> AppOptions:
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
        Only ``127.0.0.1`` today.
    create : bool
        Create the results folder (and check it is writable).
    """
    from ..quiz import DIFFICULTIES

    if difficulty not in DIFFICULTIES:
        raise HandError(f"--difficulty must be one of {', '.join(DIFFICULTIES)}, "
                        f"got {difficulty!r}", code="unknown_name")
    check_lang(lang, "--lang")
    allowed_hosts(ip)
    return AppOptions(
        port=whole("--port", port, 1, 65535),
        seed=whole("--seed", seed, 0, MAX_SEED),
        questions=whole("--questions", questions, 1, 200),
        difficulty=difficulty, lang=lang,
        results=results_folder(results, create=create),
        idle_timeout=whole("--idle-timeout", idle_timeout, 10, 86400),
        max_kernels=whole("--max-kernels", max_kernels, 1, 1000),
        ip=ip)


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


def notebook_settings(environ=None) -> dict:
    """What the app notebook needs: the quiz's parameters and the results folder.

    Served by the app: the server's options (``results_dir`` its folder).
    In a plain notebook (no app environment): the quiz defaults and
    ``results_dir=None`` (the visitor's download only).
    """
    environ = os.environ if environ is None else environ
    if _ENV not in environ:
        return {"n": 10, "seed": 0, "difficulty": "medium", "lang": "zh", "results_dir": None}
    o = from_env(environ)
    return {"n": o.questions, "seed": o.seed, "difficulty": o.difficulty, "lang": o.lang,
            "results_dir": o.results}


# ------------------------------------------------------------------ supervisor

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
    log = sys.stdout if log is None else log
    _become_subreaper()
    env = dict(os.environ, **to_env(opts))
    cmd = [sys.executable, "-m", "mjkit.app"] + (["--browser"] if browser else [])
    print(f"Serving the mjkit classroom on {opts.url} (quiz seed {opts.seed}; "
          f"at most {opts.max_kernels} students at once; idle kernels stop after "
          f"{opts.idle_timeout} s; results in {opts.results}; Ctrl-C stops it) ...",
          file=log, flush=True)
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
