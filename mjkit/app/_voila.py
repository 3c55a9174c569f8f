"""The Voila server of the classroom app, locked down (run by :func:`mjkit.app.server.serve`).

Started as ``python -m mjkit.app`` with the options in the environment
(:func:`mjkit.app.server.to_env`).  What differs from plain ``voila``:

- :class:`HostGuardApplication`: every request whose ``Host`` is not one
  the server serves is answered 403 before routing, whatever the handler
  (page, static file, API, kernel websocket), so it can start nothing.
  Jupyter's own check (``allow_remote_access=False``, ``local_hostnames``)
  is switched on as well.  Beyond loopback only the exact routes of the join
  and teacher's pages (:data:`OPEN_ROUTES`) are open without the class cookie,
  and a kernel's API and websocket answer only the student whose page started
  it (:meth:`ClassroomKernelManager.owner`).
- The class cookie names the student (a random id signed by the server,
  :meth:`_Class.student_of`), so the server can hold each student and each
  address to a number of kernels (:meth:`ClassroomKernelManager.make_room`:
  a student's new page load replaces their oldest; an address over its limit
  gets "too many pages", HTTP 429).
- :class:`ClassroomKernelManager`: a cap on kernels (a seat is taken when a
  page request is admitted, so concurrent loads cannot overshoot it),
  culling of idle kernels with no browser connected and of kernels that had no
  message from their browser for ``input_idle_timeout`` (a tab left open, or
  websockets held open on purpose), a memory watch that stops a kernel over
  :data:`~mjkit.app.server.HARD_MEMORY_FACTOR` times its limit, kernels
  started in a private scratch folder (never the package folder), and on
  POSIX the ``ipc`` transport (Unix sockets named after the kernel id: no TCP
  port can collide).
- :class:`ClassroomWebsocketConnection`: a browser's messages are at most
  :data:`~mjkit.app.server.MAX_MESSAGE_BYTES` (tornado closes the socket
  otherwise), at most :data:`~mjkit.app.server.MESSAGE_RATE` a second, of the
  widget types only (:data:`ALLOWED_MESSAGE_TYPES`: no code runs); nothing the
  kernel writes to stderr and no traceback is sent to the browser (they go to
  the server's log).  A kernel stopped by the server closes its student's
  socket with a reason the page shows (:data:`CLOSE_REASONS`, :func:`page_filter`).
- :class:`ClassroomVoilaHandler`: a page address that is not one the join
  page makes is refused (HTTP 400) and beyond the cap a "the class is full"
  page (HTTP 503, ``Retry-After``), both before any kernel starts.
- The access log never holds a token, class code or session
  (:func:`redacted_uri`).
- The teacher's page answers a damaged class database with a message, never
  a 500.
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
import hmac
import json
import logging
import os
import re
import secrets
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlencode

import tornado.web
from jupyter_server.services.kernels.connection.channels import ZMQChannelsWebsocketConnection
from jupyter_server._tz import utcnow
from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager
from tornado.ioloop import PeriodicCallback
from traitlets import Float, Integer, Unicode, default
from traitlets.config import Config
from voila.app import Voila
from voila.tornado.handler import TornadoVoilaHandler

from .. import messages as M
from ..errors import HandError
from ..fonts import css_stack, font_face_css
from . import NOTEBOOK, teacher
from .classdb import ClassDB, clean_name
from .server import (HARD_MEMORY_FACTOR, MAX_MESSAGE_BYTES, MESSAGE_BURST, MESSAGE_RATE,
                     AppOptions, ClassSecrets, from_env, host_allowed, join_url, page_query,
                     seat_number, secrets_from_env)

_log = logging.getLogger("mjkit.app")


def _both_languages_page(title_key: str, body_key: str) -> str:
    """A small page in both languages at once (a visitor's language is not known yet)."""
    import html

    title = " · ".join(M.text(title_key, lang) for lang in M.LANGS)
    body = "\n".join(f"<p>{html.escape(M.text(body_key, lang))}</p>" for lang in M.LANGS)
    return ('<!DOCTYPE html>\n<html><head><meta charset="utf-8"><meta name="viewport" '
            'content="width=device-width,initial-scale=1"><title>' + html.escape(title)
            + '</title></head>\n<body style="font-family:sans-serif;max-width:36em;'
            'margin:4em auto;line-height:1.5;padding:0 1em">\n<h1>' + html.escape(title)
            + "</h1>\n" + body + "\n</body></html>\n")


def _class_full_page():
    return _both_languages_page("app.full.title", "app.full.body")


#: What a visitor beyond the cap sees.
CLASS_FULL_PAGE = _class_full_page()


@functools.lru_cache(maxsize=None)
def bad_request_page() -> str:
    """What a page address the join page did not make gets (HTTP 400)."""
    return _both_languages_page("app.bad_request.title", "app.bad_request.body")


@functools.lru_cache(maxsize=None)
def busy_page() -> str:
    """What a page load beyond a student's or an address's kernels gets (HTTP 429)."""
    return _both_languages_page("app.full.title", "app.busy.body")


class ClassFull(Exception):
    """No seat left for another kernel."""


@dataclass(frozen=True)
class Owner:
    """Who a kernel is for: the student's id (from their class cookie; ``"teacher"`` for
    the teacher's cookie, ``None`` on a loopback server) and the address it came from."""

    student: str | None
    address: str


class Seat:
    """A place for one kernel, taken when a page request is admitted.

    Held from admission until the kernel is started (the kernel then counts
    itself) or the request ends without one; :meth:`release` is idempotent.
    """

    def __init__(self, manager, owner: Owner | None = None):
        self._manager = manager
        self.owner = owner
        self._held = True

    def release(self) -> bool:
        """Give the seat back (or hand it to a starting kernel); False if already done."""
        if not self._held:
            return False
        self._held = False
        self._manager._seats.discard(self)
        return True


#: Why the server stopped a student's kernel: the websocket close code the page is sent
#: and the catalogue key of what the page then shows (see :func:`page_filter`).
CLOSE_REASONS = {"replaced": (4001, "app.replaced.body"),
                 "memory": (4002, "app.memory.body"),
                 "idle": (4003, "app.idle.body"),
                 "ended": (4004, "app.ended.body")}


class ClassroomKernelManager(AsyncMappingKernelManager):
    """Voila's kernel manager with a kernel cap, per-student and per-address limits, input
    culling, a memory watch and a private working folder."""

    max_kernels = Integer(40, config=True, help="Kernels at once; beyond: the class is full.")
    scratch_dir = Unicode("", config=True, help="Working folder of every kernel.")
    input_idle_timeout = Integer(1800, config=True,
                                 help="Seconds without a browser message before a kernel "
                                      "is shut down, connected or not (0: never).")
    kernels_per_student = Integer(1, config=True, help="Kernels one student may have.")
    kernels_per_address = Integer(3, config=True, help="Kernels one address may have.")
    kernel_memory = Integer(1000, config=True,
                            help="A kernel's memory limit in MB (it stops itself above); "
                                 "the server kills it above HARD_MEMORY_FACTOR times this.")
    memory_interval = Float(2.0, config=True, help="Seconds between two memory looks.")

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._seats = set()
        self._starting = set()
        self._owners: dict[str, Owner] = {}
        self._started: dict[str, float] = {}
        self._last_input: dict[str, float] = {}
        self._buckets: dict[str, list] = {}
        self._sockets: dict[str, set] = {}
        self._memory_watch = None
        #: Kernels the server stopped, and why (a key of :data:`CLOSE_REASONS`).
        self.stopped: dict[str, str] = {}

    @property
    def _seats_held(self) -> int:
        return len(self._seats)

    @property
    def in_use(self) -> int:
        """Kernels running or starting, plus admitted requests not yet starting one."""
        # the event loop is single-threaded and nothing below awaits, so this is exact
        return len(set(self._kernels) | self._starting) + len(self._seats)

    def take_seat(self, owner: Owner | None = None):
        """A :class:`Seat`, or ``None`` when the class is full."""
        if self.in_use >= self.max_kernels:
            return None
        seat = Seat(self, owner)
        self._seats.add(seat)
        return seat

    # -- whose kernels ---------------------------------------------------------------

    def owner(self, kernel_id: str) -> Owner | None:
        """Who the kernel was started for (None: unknown, not a kernel of ours, or one the
        server stopped: its page's reconnecting is refused at once, not left waiting for a
        kernel that will never answer while the browser holds back its other sockets)."""
        if kernel_id in self.stopped:
            return None
        if kernel_id in self._kernels or kernel_id in self._starting:
            return self._owners.get(kernel_id)
        return None

    def _live(self):
        """(kernel id, owner) of every kernel running or starting."""
        return [(k, self._owners.get(k)) for k in set(self._kernels) | self._starting]

    async def make_room(self, owner: Owner) -> bool:
        """Before a page load for ``owner``: stop the student's oldest kernels so that the
        new one keeps them within :attr:`kernels_per_student` (a new load replaces the old
        one); False when their address (or the student, with loads still starting) is at
        its limit, so the load must be refused."""
        if owner.student is None:
            return True
        pending = [s.owner for s in self._seats if s.owner is not None]
        at_address = sum(1 for _, o in self._live() if o and o.address == owner.address)
        if at_address + sum(1 for o in pending if o.address == owner.address) \
                >= self.kernels_per_address:
            # the address's own pages count; a student of this address reloading frees one
            mine = [k for k, o in self._live() if o and o.student == owner.student
                    and o.address == owner.address and k in self._kernels]
            if not mine:
                return False
        if sum(1 for o in pending if o.student == owner.student) >= self.kernels_per_student:
            return False
        theirs = sorted((k for k, o in self._live() if o and o.student == owner.student),
                        key=lambda k: self._started.get(k, 0.0))
        while len(theirs) >= self.kernels_per_student:
            kid = theirs.pop(0)
            if kid in self._starting:
                return False                     # still starting: let it finish first
            await self.stop_kernel_for(kid, "replaced")
        return True

    async def stop_kernel_for(self, kernel_id: str, reason: str) -> None:
        """Shut a kernel down, first telling its browser why (:data:`CLOSE_REASONS`)."""
        code, _ = CLOSE_REASONS[reason]
        self.stopped[kernel_id] = reason
        while len(self.stopped) > 1000:          # only the recent ones
            self.stopped.pop(next(iter(self.stopped)))
        _log.warning("stopping kernel %s: %s", kernel_id, reason)
        for conn in list(self._sockets.get(kernel_id, ())):
            try:
                conn.websocket_handler.close(code, reason)
            except Exception:                   # an already closed socket
                pass
        if kernel_id in self._kernels:
            await self.shutdown_kernel(kernel_id, now=True)
        self._forget(kernel_id)

    def _forget(self, kernel_id: str) -> None:
        for d in (self._owners, self._started, self._last_input, self._buckets):
            d.pop(kernel_id, None)

    # -- what browsers send --------------------------------------------------------------

    def socket_opened(self, kernel_id: str, conn) -> None:
        self._sockets.setdefault(kernel_id, set()).add(conn)

    def socket_closed(self, kernel_id: str, conn) -> None:
        self._sockets.get(kernel_id, set()).discard(conn)

    def note_input(self, kernel_id: str) -> bool:
        """A message from the browser of ``kernel_id``: False when it is over
        :data:`~mjkit.app.server.MESSAGE_RATE` (a token bucket of
        :data:`~mjkit.app.server.MESSAGE_BURST`), and the message must be dropped."""
        now = time.monotonic()
        self._last_input[kernel_id] = now
        bucket = self._buckets.setdefault(kernel_id, [float(MESSAGE_BURST), now, 0])
        bucket[0] = min(float(MESSAGE_BURST), bucket[0] + (now - bucket[1]) * MESSAGE_RATE)
        bucket[1] = now
        if bucket[0] < 1.0:
            bucket[2] += 1
            if bucket[2] in (1, 100, 10000):
                _log.warning("kernel %s: its browser sends over %g messages a second; "
                             "%d dropped", kernel_id, MESSAGE_RATE, bucket[2])
            return False
        bucket[0] -= 1.0
        return True

    # -- starting and stopping ---------------------------------------------------------

    async def start_kernel(self, *, seat=None, kernel_id=None, **kwargs):
        """Start a kernel in a seat taken earlier, or in a free one (else :class:`ClassFull`)."""
        owner = seat.owner if seat is not None else None
        if seat is None or not seat.release():
            if self.in_use >= self.max_kernels:
                raise ClassFull(f"{self.max_kernels} kernels are running")
        # our own id, so the starting kernel is counted from this instant on
        kid = kernel_id or str(uuid.uuid4())
        self._starting.add(kid)
        if owner is not None:
            self._owners[kid] = owner
        self._started[kid] = self._last_input[kid] = time.monotonic()
        self._watch_memory()
        try:
            return await super().start_kernel(kernel_id=kid, **kwargs)
        except BaseException:
            self._forget(kid)
            raise
        finally:
            self._starting.discard(kid)

    def remove_kernel(self, kernel_id):
        self._forget(kernel_id)
        self._sockets.pop(kernel_id, None)
        return super().remove_kernel(kernel_id)

    async def cull_kernel_if_idle(self, kernel_id):
        """Jupyter's culling (idle with no browser), then ours: no message from the browser
        for :attr:`input_idle_timeout` seconds, connected or not."""
        await super().cull_kernel_if_idle(kernel_id)
        kernel = self._kernels.get(kernel_id)
        if kernel is None or not self.input_idle_timeout or \
                getattr(kernel, "execution_state", None) == "busy":
            return
        last = self._last_input.get(kernel_id)
        if last is None:
            return
        quiet = time.monotonic() - last
        activity = getattr(kernel, "last_activity", None)
        if activity is not None:
            # the kernel's own last output (its page being rendered, an answer being drawn)
            quiet = min(quiet, (utcnow() - activity).total_seconds())
        if quiet > self.input_idle_timeout:
            _log.warning("culling kernel %s: no message from its browser for %d s",
                         kernel_id, int(quiet))
            await self.stop_kernel_for(kernel_id, "idle")

    def _watch_memory(self):
        if self._memory_watch is None and self.kernel_memory:
            self._memory_watch = PeriodicCallback(self._check_memory,
                                                  1000 * self.memory_interval)
            self._memory_watch.start()

    def kernel_rss(self, kernel_id: str) -> int | None:
        """The kernel process's resident memory in bytes (None: not known)."""
        import psutil

        km = self._kernels.get(kernel_id)
        pid = getattr(getattr(km, "provisioner", None), "pid", None)
        if not pid:
            return None
        try:
            return psutil.Process(pid).memory_info().rss
        except psutil.Error:
            return None

    def kernel_exit(self, kernel_id: str) -> int | None:
        """The kernel process's exit status, or None while it runs (or is not known)."""
        km = self._kernels.get(kernel_id)
        process = getattr(getattr(km, "provisioner", None), "process", None)
        try:
            return None if process is None else process.poll()
        except Exception:                        # noqa: BLE001 - not a process we can poll
            return None

    async def _check_memory(self):
        """Every :attr:`memory_interval` seconds: stop a kernel over its hard limit, and
        clear away a kernel that ended by itself (no restart: a fresh kernel would have no
        page), its page told why (the guard's memory stop exits with its own status)."""
        from .kernel_guard import EXIT_STATUS

        limit = HARD_MEMORY_FACTOR * self.kernel_memory * 2**20
        for kid in list(self._kernels):
            if kid in self._starting:
                continue
            status = self.kernel_exit(kid)
            if status is not None:
                _log.warning("kernel %s ended by itself (status %s)", kid, status)
                await self.stop_kernel_for(kid, "memory" if status == EXIT_STATUS else "ended")
                continue
            rss = self.kernel_rss(kid)
            if rss is not None and rss > limit:
                _log.warning("kernel %s uses %d MB, over %d MB: stopped", kid, rss >> 20,
                             int(limit) >> 20)
                await self.stop_kernel_for(kid, "memory")

    def cwd_for_path(self, path, **kwargs):
        """Every kernel works in the scratch folder, never in the package folder."""
        return self.scratch_dir or super().cwd_for_path(path, **kwargs)


#: What a browser may send its kernel: widget messages and the handshake, never code.
ALLOWED_MESSAGE_TYPES = ["comm_open", "comm_msg", "comm_close", "comm_info_request",
                         "kernel_info_request"]


class ClassroomWebsocketConnection(ZMQChannelsWebsocketConnection):
    """A browser's websocket to its kernel, bounded (see the module docstring)."""

    def connect(self):
        self.multi_kernel_manager.socket_opened(self.kernel_id, self)
        return super().connect()

    def disconnect(self):
        self.multi_kernel_manager.socket_closed(self.kernel_id, self)
        return super().disconnect()

    def handle_incoming_message(self, incoming_msg):
        if not self.multi_kernel_manager.note_input(self.kernel_id):
            return
        return super().handle_incoming_message(incoming_msg)

    def handle_outgoing_message(self, stream, outgoing_msg):
        try:
            _, parts = self.session.feed_identities(outgoing_msg)
            header = self.session.unpack(parts[1])
            if header.get("msg_type") == "stream":
                content = self.session.unpack(parts[4])
                if content.get("name") != "stdout":
                    # a kernel's stderr is for the server's log, never the student
                    _log.warning("kernel %s stderr: %s", self.kernel_id,
                                 str(content.get("text", ""))[:2000])
                    return None
        except Exception:                        # not a message we can read: not sent
            _log.warning("kernel %s: an unreadable message was not sent", self.kernel_id)
            return None
        return super().handle_outgoing_message(stream, outgoing_msg)


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


def _notice_script(lang: str) -> str:
    """A script that shows why the server closed the page's kernel socket (a code of
    :data:`CLOSE_REASONS`) in a banner over the page; other closes show nothing."""
    texts = {str(code): M.text(key, lang) for code, key in CLOSE_REASONS.values()}
    return ("<script>(function(){const T=" + json.dumps(texts, ensure_ascii=False)
            .replace("</", "<\\/") + ";const W=window.WebSocket;function show(t){"
            "let d=document.getElementById('mjkit-notice');if(!d){d=document.createElement('div');"
            "d.id='mjkit-notice';d.setAttribute('role','alert');d.style.cssText='position:fixed;"
            "top:0;left:0;right:0;z-index:100000;padding:1em 1.5em;background:#b00020;"
            "color:#fff;font-size:1.3em;font-family:" + css_stack().replace("'", '"')
            + "';document.body.appendChild(d);}"
            "d.textContent=t;}function S(u,p){const w=p===undefined?new W(u):new W(u,p);"
            "w.addEventListener('close',function(e){const t=T[String(e.code)];if(t)show(t);});"
            "return w;}S.prototype=W.prototype;S.CONNECTING=0;S.OPEN=1;S.CLOSING=2;S.CLOSED=3;"
            "window.WebSocket=S;})();</script>")


@functools.lru_cache(maxsize=4)
def _head_extra(lang: str = "zh") -> str:
    """What the page's ``<head>`` gets: mjkit's CJK web font, carried by the page itself,
    and the script that says why the server stopped the page's kernel."""
    return font_face_css("body, .jupyter-widgets, .widget-label, .widget-html-content, "
                         ".widget-button, .widget-toggle-button, .lm-TabBar-tabLabel",
                         jupyter=True) + _notice_script(lang)


def page_filter(chunk, lang: str = "zh"):
    """A chunk of the app page as sent: no stylesheet from another site, and mjkit's web
    font and notice script added to the head (str or bytes in, the same type out)."""
    raw = isinstance(chunk, (bytes, bytearray))
    text = chunk.decode("utf-8") if raw else chunk
    if not isinstance(text, str):
        return chunk
    text = _CDN_LINK.sub("", text)
    if "</head>" in text:
        text = text.replace("</head>", _head_extra(lang) + "</head>", 1)
    return text.encode("utf-8") if raw else text


def _plain_page(handler, status: int, page: str, retry: str | None = None):
    handler.set_status(status)
    if retry:
        handler.set_header("Retry-After", retry)
    handler.set_header("Content-Type", "text/html; charset=utf-8")
    handler.set_header("Cache-Control", "no-store")
    handler.finish(page)


class ClassroomVoilaHandler(TornadoVoilaHandler):
    """The app page: refused unless its address is one the join page makes; a kernel per
    visitor while seats last (and within the student's and address's limits)."""

    _seat = None

    def write(self, chunk):
        cls = getattr(self.application, "cls", None)
        super().write(page_filter(chunk, cls.opts.lang if cls is not None else "zh"))

    @property
    def kernel_manager(self):
        km = self.settings["kernel_manager"]
        return km if self._seat is None else _SeatedManager(km, self._seat)

    async def get(self, path=None):
        ip = self.request.remote_ip or "?"
        try:
            page_query(self.request.query)
        except HandError as exc:
            self.log.warning("refused a page address from %s: %s", ip, exc)
            return _plain_page(self, 400, bad_request_page())
        km = self.settings["kernel_manager"]
        cls = getattr(self.application, "cls", None)
        student = cls.student_of(self.request) if cls is not None and cls.opts.needs_code \
            else None
        owner = Owner(student, ip)
        if not await km.make_room(owner):
            self.log.warning("too many pages: refused a page load from %s", ip)
            return _plain_page(self, 429, busy_page(), retry="30")
        seat = km.take_seat(owner)
        if seat is None:
            self.log.warning("class full: refused a page load from %s", ip)
            return _plain_page(self, 503, CLASS_FULL_PAGE, retry="60")
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


class _NotYours(tornado.web.RequestHandler):
    """403 for a kernel's API or websocket asked for by anyone but its own student."""

    def prepare(self):
        self.set_status(403)
        self.set_header("Content-Type", "text/plain; charset=utf-8")
        self.finish("403: not your page\n")


class _Class:
    """What the join and teacher handlers need: options, secrets, the database."""

    def __init__(self, opts: AppOptions, sec: ClassSecrets):
        self.opts, self.sec = opts, sec
        # the cookies prove the code / token was given once; they do not contain them
        self._student_key = hashlib.sha256(("student:" + sec.code + sec.teacher)
                                           .encode()).digest()
        self.teacher_cookie = hashlib.sha256(("teacher:" + sec.teacher).encode()).hexdigest()
        self.failures: dict[str, list] = {}
        self._db = None

    def student_cookie(self, student: str) -> str:
        """The class cookie of ``student`` (a random id): the id and the server's MAC of it."""
        mac = hmac.new(self._student_key, student.encode(), hashlib.sha256).hexdigest()[:32]
        return f"{student}.{mac}"

    def student_of(self, request) -> str | None:
        """The student a request's class cookie names (``"teacher"`` for the teacher's
        cookie); None without a valid one."""
        if _cookie_is(request, "mjkit_teacher", self.teacher_cookie):
            return "teacher"
        value = _cookie(request, "mjkit_class")
        if value is None or value.count(".") != 1:
            return None
        student = value.split(".", 1)[0]
        if not (16 <= len(student) <= 32 and student.isascii()
                and student.replace("-", "").replace("_", "").isalnum()):
            return None
        if not hmac.compare_digest(value.encode(), self.student_cookie(student).encode()):
            return None
        return student

    @property
    def db(self) -> ClassDB:
        if self._db is None:
            self._db = ClassDB(self.opts.db, run=self.opts.run or None)
        return self._db

    def admitted(self, request) -> bool:
        """A student who gave the class code (or a loopback server: no code asked)."""
        if not self.opts.needs_code:
            return True
        return self.student_of(request) is not None

    def too_many_failures(self, ip: str) -> bool:
        """More than :data:`MAX_FAILURES` wrong codes from ``ip`` in ten minutes."""
        now = time.monotonic()
        recent = [t for t in self.failures.get(ip, []) if now - t < 600]
        self.failures[ip] = recent
        return len(recent) >= MAX_FAILURES


#: Wrong class codes one address may try in ten minutes.
MAX_FAILURES = 20


def _cookie(request, name: str) -> str | None:
    from http.cookies import CookieError, SimpleCookie

    raw = request.headers.get("Cookie", "")
    try:
        jar = SimpleCookie(raw)
    except CookieError:
        return None
    got = jar.get(name)
    return None if got is None else got.value


def _cookie_is(request, name: str, value: str) -> bool:
    got = _cookie(request, name)
    return got is not None and hmac.compare_digest(got.encode(), value.encode())


#: Query fields whose values never reach the log.
SECRET_FIELDS = frozenset({"token", "code", "session", "_xsrf"})


def redacted_uri(uri: str) -> str:
    """``uri`` for the access log: the path, and the query with the values of
    :data:`SECRET_FIELDS` (and of anything unreadable) replaced by ``…``."""
    path, sep, query = uri.partition("?")
    if not sep:
        return path
    try:
        pairs = parse_qsl(query, keep_blank_values=True, max_num_fields=20)
    except ValueError:
        return path + "?…"
    shown = [(k[:40], "…" if k.lower() in SECRET_FIELDS else v[:60]) for k, v in pairs]
    return path + "?" + urlencode(shown, safe="…")


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
    """``/join``: the form, then (code right, name and seat good) the cookie and the quiz."""

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
        try:
            number = seat_number(seat.strip())
        except HandError:
            return self.page(teacher.join_page(lang, code=code, name=name, error="bad_seat"),
                             400)
        query = {"name": name, "session": secrets.token_urlsafe(18)}
        if number is not None:
            query["seat"] = str(number)
        if self.cls.opts.needs_code:
            # a student who joins again keeps their id (and so their kernel limit)
            student = self.cls.student_of(self.request)
            if student is None or student == "teacher":
                student = secrets.token_urlsafe(16)
                self.set_cookie("mjkit_class", self.cls.student_cookie(student),
                                httponly=True, samesite="Strict", expires_days=1)
        self.redirect("/?" + urlencode(query))


#: The teacher's routes (exact paths).
TEACHER_ROUTES = ("/teacher", "/teacher/data", "/teacher/results.csv", "/teacher/results.xlsx")
#: The only paths open without the class cookie beyond loopback.
OPEN_ROUTES = frozenset(("/join",) + TEACHER_ROUTES)


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
        try:
            return self._data(what)
        except HandError as exc:
            # a damaged class database: say so, never a 500
            _log.error("the teacher's page cannot read the class database: %s", exc)
            message = M.text("app.teacher.db_error", o.lang, reason=str(exc))
        except Exception:
            _log.exception("the teacher's page failed")
            message = M.text("app.teacher.db_error", o.lang, reason="?")
        self.set_status(503)
        if what == "/data":
            self.set_header("Content-Type", "application/json; charset=utf-8")
            return self.finish(json.dumps({"error": message}, ensure_ascii=False))
        return self.page(teacher.message_page(o.lang, message), 503)

    def _data(self, what):
        o = self.cls.opts
        if what == "/data":
            body = teacher.summary_json(self.cls.db.summary(), o.lang)
            self.set_header("Content-Type", "application/json; charset=utf-8")
            return self.finish(body)
        stem = f"class-seed{o.seed}-{o.difficulty}"
        if what == "/results.csv":
            body = teacher.results_csv(self.cls.db.frame())
            self.set_header("Content-Type", "text/csv; charset=utf-8")
            self.set_header("Content-Disposition", f'attachment; filename="{stem}.csv"')
            return self.finish(body)
        if what == "/results.xlsx":
            body = teacher.results_xlsx(self.cls.db.frame())
            self.set_header("Content-Type", "application/vnd.openxmlformats-officedocument."
                            "spreadsheetml.sheet")
            self.set_header("Content-Disposition", f'attachment; filename="{stem}.xlsx"')
            return self.finish(body)
        raise tornado.web.HTTPError(404)


class _ToJoin(tornado.web.RequestHandler):
    """A visitor without the class cookie: to the join page (403 for anything but a page)."""

    def prepare(self):
        if self.request.method == "GET" and self.request.headers.get("Upgrade", "") == "":
            self.redirect("/join")
        else:
            self.set_status(403)
            self.finish("403: join the class first\n")


# the paths that name one kernel: its API, its websocket, Voila's shutdown and query
_KERNEL_PATH = re.compile(r"^/(?:api/kernels|voila/api/shutdown|voila/query)/([^/]+)")


class HostGuardApplication(tornado.web.Application):
    """A tornado application that answers only the given host names (all else: 403), and
    beyond loopback only visitors who gave the class code (else: the join page), and a
    kernel only to the student whose page started it."""

    def __init__(self, *args, allowed_hosts, cls=None, **kwargs):
        self.allowed_hosts = frozenset(allowed_hosts)
        self.cls = cls
        super().__init__(*args, **kwargs)

    def find_handler(self, request, **kwargs):
        # before any routing: no handler, no kernel and no file is reached
        if not host_allowed(request.host_name, self.allowed_hosts):
            logging.getLogger("tornado.access").warning(
                "refused Host %r from %s", request.host[:100], request.remote_ip)
            return self.get_handler_delegate(request, _ForbiddenHost)
        path = request.path
        if self.cls is not None and self.cls.opts.needs_code and path not in OPEN_ROUTES:
            student = self.cls.student_of(request)
            if student is None:
                return self.get_handler_delegate(request, _ToJoin)
            m = _KERNEL_PATH.match(path)
            if m is not None:
                km = self.settings.get("kernel_manager")
                owner = km.owner(m.group(1)) if km is not None else None
                if owner is None or owner.student != student:
                    return self.get_handler_delegate(request, _NotYours)
        return super().find_handler(request, **kwargs)

    def log_request(self, handler) -> None:
        """The access log, without a token, class code or session (:func:`redacted_uri`)."""
        status = handler.get_status()
        request = handler.request
        if status < 400:
            method = logging.getLogger("tornado.access").info
        elif status < 500:
            method = logging.getLogger("tornado.access").warning
        else:
            method = logging.getLogger("tornado.access").error
        method("%d %s %s (%s) %.2fms", status, request.method, redacted_uri(request.uri),
               request.remote_ip, 1000.0 * request.request_time())


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
    # a browser's messages: small, widget messages only, never a traceback back
    c.Voila.kernel_websocket_connection_class = (
        "mjkit.app._voila.ClassroomWebsocketConnection")
    c.Voila.tornado_settings = {"websocket_max_message_size": MAX_MESSAGE_BYTES}
    c.ClassroomKernelManager.allowed_message_types = list(ALLOWED_MESSAGE_TYPES)
    c.ClassroomKernelManager.allow_tracebacks = False
    c.ClassroomKernelManager.max_kernels = opts.max_kernels
    c.ClassroomKernelManager.input_idle_timeout = opts.input_idle_timeout
    c.ClassroomKernelManager.kernels_per_student = opts.kernels_per_student
    c.ClassroomKernelManager.kernels_per_address = opts.kernels_per_address
    c.ClassroomKernelManager.kernel_memory = opts.kernel_memory
    c.ClassroomKernelManager.scratch_dir = scratch
    c.ClassroomKernelManager.cull_idle_timeout = opts.idle_timeout
    c.ClassroomKernelManager.cull_interval = opts.cull_interval
    c.ClassroomKernelManager.cull_connected = False   # a student with the page open keeps it
    c.ClassroomKernelManager.cull_busy = False
    # a kernel that ended (its memory guard, a crash) is not restarted: a fresh kernel has
    # no page; the memory watch clears it away and its page says why
    c.KernelManager.autorestart = False
    if os.name == "posix":
        c.KernelManager.transport = "ipc"
    return c


def main(argv=None) -> int:
    """Serve the app with the options in the environment (see :mod:`mjkit.app.server`)."""
    argv = sys.argv[1:] if argv is None else argv
    opts = from_env()
    sec = secrets_from_env()     # out of os.environ before any kernel starts
    # every kernel inherits this: its own memory limit (mjkit.app.kernel_guard)
    os.environ["MJKIT_KERNEL_MEMORY_MB"] = str(opts.kernel_memory)
    with tempfile.TemporaryDirectory(prefix="mjkit-app-") as scratch:
        app = ClassroomVoila(config=voila_config(opts, scratch, browser="--browser" in argv))
        app.allowed_hosts = opts.hosts
        app.cls = _Class(opts, sec)
        app.initialize([str(NOTEBOOK)])
        app.start()
    return 0
