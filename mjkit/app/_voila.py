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
- No tracebacks to visitors, no file served from the package folder, no
  template or theme chosen by the URL, no config file read from the
  current directory.
"""

from __future__ import annotations

import functools
import os
import re
import sys
import tempfile
import uuid

import tornado.web
from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager
from traitlets import Integer, Unicode, default
from traitlets.config import Config
from voila.app import Voila
from voila.tornado.handler import TornadoVoilaHandler

from .. import messages as M
from ..fonts import font_face_css
from . import NOTEBOOK
from .server import AppOptions, from_env, host_allowed


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


class HostGuardApplication(tornado.web.Application):
    """A tornado application that answers only the given host names (all else: 403)."""

    def __init__(self, *args, allowed_hosts, **kwargs):
        self.allowed_hosts = frozenset(allowed_hosts)
        super().__init__(*args, **kwargs)

    def find_handler(self, request, **kwargs):
        # before any routing: no handler, no kernel and no file is reached
        if not host_allowed(request.host_name, self.allowed_hosts):
            import logging

            logging.getLogger("tornado.access").warning(
                "refused Host %r from %s", request.host, request.remote_ip)
            return self.get_handler_delegate(request, _ForbiddenHost)
        return super().find_handler(request, **kwargs)


class ClassroomVoila(Voila):
    """Voila serving the app notebook with the guards above."""

    allowed_hosts = frozenset()

    @default("config_file_paths")
    def _no_config_files(self):
        # a voila.py / voila.json in the teacher's current folder must not undo the guards
        return []

    def init_settings(self):
        settings = super().init_settings()
        settings.update(allow_remote_access=False, local_hostnames=sorted(self.allowed_hosts),
                        serve_traceback=False)
        return settings

    def init_handlers(self):
        return [(h[0], ClassroomVoilaHandler, *h[2:]) if h[1] is TornadoVoilaHandler else h
                for h in super().init_handlers()]

    def start(self):
        # Voila.start with the host guard in place of tornado.web.Application
        self.connection_dir = tempfile.mkdtemp(prefix="voila_", dir=self.connection_dir_root)
        settings = self.init_settings()
        self.app = HostGuardApplication(allowed_hosts=self.allowed_hosts, **settings)
        self.app.settings.update(self.tornado_settings)
        self.app.settings.update(serve_traceback=False)
        self.app.add_handlers(".*$", self.init_handlers())
        self.listen()


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
    with tempfile.TemporaryDirectory(prefix="mjkit-app-") as scratch:
        app = ClassroomVoila(config=voila_config(opts, scratch, browser="--browser" in argv))
        app.allowed_hosts = opts.hosts
        app.initialize([str(NOTEBOOK)])
        app.start()
    return 0
