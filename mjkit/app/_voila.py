"""The Voila server of the classroom app, locked down (run by :func:`mjkit.app.server.serve`).

Started as ``python -m mjkit.app`` with the options in the environment
(:func:`mjkit.app.server.to_env`).  What differs from plain ``voila``:

- :class:`HostGuardApplication`: every request whose ``Host`` is not one
  the server serves is answered 403 before routing, whatever the handler
  (page, static file, API, kernel websocket), so it can start nothing.
  Jupyter's own check (``allow_remote_access=False``, ``local_hostnames``)
  is switched on as well.
- :class:`ClassroomKernelManager`: a cap on kernels (a seat is taken when a
  page request is admitted, so concurrent loads cannot overshoot it),
  culling of idle kernels with no browser connected, kernels started in a
  private scratch folder (never the package folder), and on POSIX the
  ``ipc`` transport (Unix sockets named after the kernel id: no TCP port
  can collide).
- :class:`ClassroomVoilaHandler`: beyond the cap, a "the class is full"
  page (HTTP 503, ``Retry-After``), no kernel.
- The page links nothing from another site (Voila's Font Awesome CDN links are
  dropped: its bundle carries the icons) and carries mjkit's CJK web font itself
  (:func:`page_filter`), so Chinese text shows on a device without a CJK font.
- A cell's outputs are waited for (:data:`IOPUB_TIMEOUT`), not dropped after 4 s, and a
  kernel may take :data:`KERNEL_STARTUP_TIMEOUT` to start, not 60 s, when a class of
  kernels keeps the machine busy.
- No tracebacks to visitors, no file served from the package folder, no
  template or theme chosen by the URL, no config file read from the
  current directory.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import secrets
import sys
import tempfile
import time
import uuid
from urllib.parse import urlencode

import tornado.web
from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager
from traitlets import Integer, Unicode, default
from traitlets.config import Config
from voila.app import Voila
from voila.tornado.handler import TornadoVoilaHandler

from .. import messages as M
from ..errors import HandError
from ..fonts import font_face_css
from . import NOTEBOOK, teacher
from .classdb import ClassDB, clean_name
from .server import (AppOptions, ClassSecrets, from_env, host_allowed, join_url,
                     secrets_from_env)


def _class_full_page():
    """The page, both languages at once (a visitor's language is not known yet)."""
    title = " · ".join(M.text("app.full.title", lang) for lang in M.LANGS)
    body = "\n".join(f"<p>{M.text('app.full.body', lang)}</p>" for lang in M.LANGS)
    return ('<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>' + title
            + '</title></head>\n<body style="font-family:sans-serif;max-width:36em;'
            'margin:4em auto;line-height:1.5">\n<h1>' + title + "</h1>\n" + body
            + "\n</body></html>\n")


#: What a visitor beyond the cap sees.
CLASS_FULL_PAGE = _class_full_page()


class ClassFull(Exception):
    """No seat left for another kernel."""


class Seat:
    """A place for one kernel, taken when a page request is admitted.

    Held from admission until the kernel is started (the kernel then counts
    itself) or the request ends without one; :meth:`release` is idempotent.
    """

    def __init__(self, manager):
        self._manager = manager
        self._held = True

    def release(self) -> bool:
        """Give the seat back (or hand it to a starting kernel); False if already done."""
        if not self._held:
            return False
        self._held = False
        self._manager._seats_held -= 1
        return True


class ClassroomKernelManager(AsyncMappingKernelManager):
    """Voila's kernel manager with a kernel cap and a private working folder."""

    max_kernels = Integer(40, config=True, help="Kernels at once; beyond: the class is full.")
    scratch_dir = Unicode("", config=True, help="Working folder of every kernel.")

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._seats_held = 0
        self._starting = set()

    @property
    def in_use(self) -> int:
        """Kernels running or starting, plus admitted requests not yet starting one."""
        # the event loop is single-threaded and nothing below awaits, so this is exact
        return len(set(self._kernels) | self._starting) + self._seats_held

    def take_seat(self):
        """A :class:`Seat`, or ``None`` when the class is full."""
        if self.in_use >= self.max_kernels:
            return None
        self._seats_held += 1
        return Seat(self)

    async def start_kernel(self, *, seat=None, kernel_id=None, **kwargs):
        """Start a kernel in a seat taken earlier, or in a free one (else :class:`ClassFull`)."""
        if seat is None or not seat.release():
            if self.in_use >= self.max_kernels:
                raise ClassFull(f"{self.max_kernels} kernels are running")
        # our own id, so the starting kernel is counted from this instant on
        kid = kernel_id or str(uuid.uuid4())
        self._starting.add(kid)
        try:
            return await super().start_kernel(kernel_id=kid, **kwargs)
        finally:
            self._starting.discard(kid)

    def cwd_for_path(self, path, **kwargs):
        """Every kernel works in the scratch folder, never in the package folder."""
        return self.scratch_dir or super().cwd_for_path(path, **kwargs)


class _SeatedManager:
    """The kernel manager as one admitted request sees it: its kernel starts in its seat."""

    def __init__(self, manager, seat):
        self._manager, self._seat = manager, seat

    def start_kernel(self, **kwargs):
        return self._manager.start_kernel(seat=self._seat, **kwargs)

    def __getattr__(self, name):
        return getattr(self._manager, name)


# Voila's lab template links Font Awesome from a CDN although its own bundle carries it:
# offline the page would wait for it, and a visitor's browser would call a third party.
_CDN_LINK = re.compile(r'<link\b[^>]*\bhref="https?://[^"]*"[^>]*>\s*', re.IGNORECASE)


@functools.lru_cache(maxsize=1)
def _head_extra() -> str:
    """What the page's ``<head>`` gets: mjkit's CJK web font, carried by the page itself."""
    return font_face_css("body, .jupyter-widgets, .widget-label, .widget-html-content, "
                         ".widget-button, .widget-toggle-button, .lm-TabBar-tabLabel",
                         jupyter=True)


def page_filter(chunk):
    """A chunk of the app page as sent: no stylesheet from another site, and mjkit's web
    font added to the head (str or bytes in, the same type out)."""
    raw = isinstance(chunk, (bytes, bytearray))
    text = chunk.decode("utf-8") if raw else chunk
    if not isinstance(text, str):
        return chunk
    text = _CDN_LINK.sub("", text)
    if "</head>" in text:
        text = text.replace("</head>", _head_extra() + "</head>", 1)
    return text.encode("utf-8") if raw else text


class ClassroomVoilaHandler(TornadoVoilaHandler):
    """The app page: a kernel per visitor while seats last, else the class-full page."""

    _seat = None

    def write(self, chunk):
        super().write(page_filter(chunk))

    @property
    def kernel_manager(self):
        km = self.settings["kernel_manager"]
        return km if self._seat is None else _SeatedManager(km, self._seat)

    async def get(self, path=None):
        seat = self.settings["kernel_manager"].take_seat()
        if seat is None:
            self.log.warning("class full: refused a page load from %s", self.request.remote_ip)
            self.set_status(503)
            self.set_header("Retry-After", "60")
            self.set_header("Content-Type", "text/html; charset=utf-8")
            self.set_header("Cache-Control", "no-store")
            self.finish(CLASS_FULL_PAGE)
            return
        self._seat = seat
        try:
            await super().get(path)
        finally:
            seat.release()          # a no-op once the kernel has started in it


class _ForbiddenHost(tornado.web.RequestHandler):
    """403 for a request naming a host the server does not serve."""

    def prepare(self):
        self.set_status(403)
        self.set_header("Content-Type", "text/plain; charset=utf-8")
        self.finish("403: this server does not serve that host name\n")


class _Class:
    """What the join and teacher handlers need: options, secrets, the database."""

    def __init__(self, opts: AppOptions, sec: ClassSecrets):
        self.opts, self.sec = opts, sec
        # the cookies prove the code / token was given once; they do not contain them
        self.student_cookie = hashlib.sha256(("student:" + sec.code + sec.teacher)
                                             .encode()).hexdigest()
        self.teacher_cookie = hashlib.sha256(("teacher:" + sec.teacher).encode()).hexdigest()
        self.failures: dict[str, list] = {}
        self._db = None

    @property
    def db(self) -> ClassDB:
        if self._db is None:
            self._db = ClassDB(self.opts.db)
        return self._db

    def admitted(self, request) -> bool:
        """A student who gave the class code (or a loopback server: no code asked)."""
        if not self.opts.needs_code:
            return True
        return _cookie_is(request, "mjkit_class", self.student_cookie) or \
            _cookie_is(request, "mjkit_teacher", self.teacher_cookie)

    def too_many_failures(self, ip: str) -> bool:
        """More than :data:`MAX_FAILURES` wrong codes from ``ip`` in ten minutes."""
        now = time.monotonic()
        recent = [t for t in self.failures.get(ip, []) if now - t < 600]
        self.failures[ip] = recent
        return len(recent) >= MAX_FAILURES


#: Wrong class codes one address may try in ten minutes.
MAX_FAILURES = 20


def _cookie_is(request, name: str, value: str) -> bool:
    import hmac
    from http.cookies import CookieError, SimpleCookie

    raw = request.headers.get("Cookie", "")
    try:
        jar = SimpleCookie(raw)
    except CookieError:
        return False
    got = jar.get(name)
    return got is not None and hmac.compare_digest(got.value.encode(), value.encode())


class _PageHandler(tornado.web.RequestHandler):
    """Shared by the join and teacher pages: no caching, plain errors."""

    def initialize(self, cls: _Class):
        self.cls = cls

    def set_default_headers(self):
        self.set_header("Cache-Control", "no-store")
        self.set_header("X-Content-Type-Options", "nosniff")
        self.set_header("Referrer-Policy", "no-referrer")

    def write_error(self, status_code, **kwargs):
        self.set_header("Content-Type", "text/plain; charset=utf-8")
        self.finish(f"{status_code}\n")

    def page(self, text: str, status: int = 200):
        self.set_status(status)
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.finish(text)

    def arg(self, name: str, limit: int = 100) -> str:
        value = self.get_query_argument(name, "")
        return value[:limit]


class JoinHandler(_PageHandler):
    """``/join``: the form, then (code right, name given) the cookie and the quiz page."""

    def get(self):
        lang = self.cls.opts.lang
        code, name, seat = self.arg("code", 40), self.arg("name", 200), self.arg("seat", 10)
        if not self.get_query_argument("name", None):
            return self.page(teacher.join_page(lang, code=code))
        ip = self.request.remote_ip or "?"
        if self.cls.too_many_failures(ip):
            return self.page(teacher.join_page(lang, error="slow_down"), 429)
        if self.cls.opts.needs_code and not self.cls.sec.code_matches(code):
            self.cls.failures.setdefault(ip, []).append(time.monotonic())
            return self.page(teacher.join_page(lang, name=name, seat=seat, error="bad_code"),
                             403)
        try:
            name = clean_name(name)
        except HandError:
            return self.page(teacher.join_page(lang, code=code, seat=seat, error="bad_name"),
                             400)
        query = {"name": name, "session": secrets.token_urlsafe(18)}
        if seat.isdigit() and 1 <= int(seat) <= 999:
            query["seat"] = str(int(seat))
        if self.cls.opts.needs_code:
            self.set_cookie("mjkit_class", self.cls.student_cookie, httponly=True,
                            samesite="Strict", expires_days=1)
        self.redirect("/?" + urlencode(query))


class TeacherHandler(_PageHandler):
    """``/teacher`` and its data: only with the teacher's token (once), then its cookie."""

    def prepare(self):
        token = self.get_query_argument("token", None)
        if token is not None and self.cls.sec.teacher_matches(token):
            self.set_cookie("mjkit_teacher", self.cls.teacher_cookie, httponly=True,
                            samesite="Strict", expires_days=1)
            self.redirect(self.request.path)      # the token leaves the address bar
            return
        if not _cookie_is(self.request, "mjkit_teacher", self.cls.teacher_cookie):
            self.page(teacher.denied_page(self.cls.opts.lang), 403)

    def get(self, what=""):
        o, sec = self.cls.opts, self.cls.sec
        if what == "":
            return self.page(teacher.teacher_page(
                o.lang, join_url=join_url(o, sec), code=sec.code if o.needs_code else None,
                seed=o.seed, questions=o.questions, difficulty=o.difficulty))
        if what == "/data":
            self.set_header("Content-Type", "application/json; charset=utf-8")
            return self.finish(teacher.summary_json(self.cls.db.summary(), self.cls.opts.lang))
        stem = f"class-seed{o.seed}-{o.difficulty}"
        if what == "/results.csv":
            self.set_header("Content-Type", "text/csv; charset=utf-8")
            self.set_header("Content-Disposition", f'attachment; filename="{stem}.csv"')
            return self.finish(teacher.results_csv(self.cls.db.frame()))
        if what == "/results.xlsx":
            self.set_header("Content-Type", "application/vnd.openxmlformats-officedocument."
                            "spreadsheetml.sheet")
            self.set_header("Content-Disposition", f'attachment; filename="{stem}.xlsx"')
            return self.finish(teacher.results_xlsx(self.cls.db.frame()))
        raise tornado.web.HTTPError(404)


class _ToJoin(tornado.web.RequestHandler):
    """A visitor without the class cookie: to the join page (403 for anything but a page)."""

    def prepare(self):
        if self.request.method == "GET" and self.request.headers.get("Upgrade", "") == "":
            self.redirect("/join")
        else:
            self.set_status(403)
            self.finish("403: join the class first\n")


class HostGuardApplication(tornado.web.Application):
    """A tornado application that answers only the given host names (all else: 403), and
    beyond loopback only visitors who gave the class code (else: the join page)."""

    def __init__(self, *args, allowed_hosts, cls=None, **kwargs):
        self.allowed_hosts = frozenset(allowed_hosts)
        self.cls = cls
        super().__init__(*args, **kwargs)

    def find_handler(self, request, **kwargs):
        # before any routing: no handler, no kernel and no file is reached
        if not host_allowed(request.host_name, self.allowed_hosts):
            import logging

            logging.getLogger("tornado.access").warning(
                "refused Host %r from %s", request.host, request.remote_ip)
            return self.get_handler_delegate(request, _ForbiddenHost)
        path = request.path
        if self.cls is not None and not (path == "/join" or path == "/teacher"
                                         or path.startswith("/teacher/")) \
                and not self.cls.admitted(request):
            return self.get_handler_delegate(request, _ToJoin)
        return super().find_handler(request, **kwargs)


class ClassroomVoila(Voila):
    """Voila serving the app notebook with the guards above."""

    allowed_hosts = frozenset()

    @default("config_file_paths")
    def _no_config_files(self):
        # a voila.py / voila.json in the teacher's current folder must not undo the guards
        return []

    cls = None      # the _Class (options, secrets, database)

    def init_settings(self):
        settings = super().init_settings()
        # beyond loopback our own guard checks every Host (Jupyter's check would refuse
        # a LAN address as the Host)
        remote = self.cls is not None and self.cls.opts.needs_code
        settings.update(allow_remote_access=remote, local_hostnames=sorted(self.allowed_hosts),
                        serve_traceback=False)
        return settings

    def init_handlers(self):
        ours = []
        if self.cls is not None:
            ours = [(r"/join", JoinHandler, {"cls": self.cls}),
                    (r"/teacher((?:/data|/results\.csv|/results\.xlsx)?)", TeacherHandler,
                     {"cls": self.cls})]
        return ours + [(h[0], ClassroomVoilaHandler, *h[2:]) if h[1] is TornadoVoilaHandler
                       else h for h in super().init_handlers()]

    def start(self):
        # Voila.start with the host guard in place of tornado.web.Application
        self.connection_dir = tempfile.mkdtemp(prefix="voila_", dir=self.connection_dir_root)
        settings = self.init_settings()
        self.app = HostGuardApplication(allowed_hosts=self.allowed_hosts, cls=self.cls,
                                        **settings)
        self.app.settings.update(self.tornado_settings)
        self.app.settings.update(serve_traceback=False)
        self.app.add_handlers(".*$", self.init_handlers())
        self.listen()


#: Seconds the page's executor waits for a cell's outputs after its reply (see voila_config).
IOPUB_TIMEOUT = 600
#: Seconds a student's new kernel may take to answer its first message (see voila_config).
KERNEL_STARTUP_TIMEOUT = 600


def _connection_root() -> str:
    """A short folder for kernel sockets (a Unix socket path has at most ~104 bytes)."""
    tmp = tempfile.gettempdir()
    if os.name == "posix" and len(tmp) > 40 and os.access("/tmp", os.W_OK):
        return "/tmp"
    return tmp


def voila_config(opts: AppOptions, scratch: str, *, browser: bool = False) -> Config:
    """The Voila configuration that serves the app for ``opts``."""
    c = Config()
    c.Voila.ip = opts.ip
    c.Voila.port = opts.port
    c.Voila.port_retries = 0             # the port the teacher announced, or a clear failure
    c.Voila.open_browser = browser
    c.Voila.connection_dir_root = _connection_root()
    c.VoilaConfiguration.show_tracebacks = False
    # After a cell's execute_reply, nbclient waits only iopub_timeout (default 4 s) for
    # the rest of its iopub messages, then renders the cell without them.  The quiz
    # cell opens ~250 widget comms before its output; with a class of kernels on a
    # small machine that queue takes longer than 4 s, the page arrived with no
    # output and never drew a widget (found by tests/test_class_load.py).
    c.VoilaExecutor.iopub_timeout = IOPUB_TIMEOUT
    # Likewise a kernel gets 60 s to start; when a class opens the page at once, thirty
    # kernels importing numba on two cores take longer, and every page stopped at
    # "Running..." with no cell executed.
    c.VoilaExecutor.startup_timeout = KERNEL_STARTUP_TIMEOUT
    c.VoilaConfiguration.file_allowlist = []           # no file of the package folder is served
    c.VoilaConfiguration.allow_template_override = "NO"
    c.VoilaConfiguration.allow_theme_override = "NO"
    c.VoilaConfiguration.http_header_envs = []
    c.VoilaConfiguration.multi_kernel_manager_class = (
        "mjkit.app._voila.ClassroomKernelManager")
    c.ClassroomKernelManager.max_kernels = opts.max_kernels
    c.ClassroomKernelManager.scratch_dir = scratch
    c.ClassroomKernelManager.cull_idle_timeout = opts.idle_timeout
    c.ClassroomKernelManager.cull_interval = opts.cull_interval
    c.ClassroomKernelManager.cull_connected = False   # a student with the page open keeps it
    c.ClassroomKernelManager.cull_busy = False
    if os.name == "posix":
        c.KernelManager.transport = "ipc"
    return c


def main(argv=None) -> int:
    """Serve the app with the options in the environment (see :mod:`mjkit.app.server`)."""
    argv = sys.argv[1:] if argv is None else argv
    opts = from_env()
    sec = secrets_from_env()     # out of os.environ before any kernel starts
    with tempfile.TemporaryDirectory(prefix="mjkit-app-") as scratch:
        app = ClassroomVoila(config=voila_config(opts, scratch, browser="--browser" in argv))
        app.allowed_hosts = opts.hosts
        app.cls = _Class(opts, sec)
        app.initialize([str(NOTEBOOK)])
        app.start()
    return 0
