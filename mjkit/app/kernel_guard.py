"""The guard of a served kernel: only what a real page sends is obeyed.

Each student's page runs in a kernel of its own, and the student's browser talks to
it over the kernel websocket: widget comm messages, which anybody can write by hand.
:func:`install` (called by the app notebook when it is served, never in a plain
notebook) puts a :class:`KernelGuard` in front of the kernel's handlers of those
messages, so that the defects below cannot happen rather than being caught:

- **Only expected messages are obeyed.**  A comm message is checked against what the
  widgets' own front end sends (read from the ipywidgets 8 views Voila ships):

  * ``update`` only of the traits in :data:`ALLOWED_UPDATES` (the value of a
    toggle, check box, number box or slider, the ``index`` of a choice, the
    ``selected_index`` of a tab), each of its JSON type and in range (an index
    within the options, a whole number within ±2**53, text of at most
    :data:`MAX_TEXT` characters).  Any other trait (a layout, a style, an HTML
    value, a description, ``max``, ``children``...) is dropped, and so is an update
    of a disabled control, one with binary buffers, or one to a widget of a class
    not listed (layouts, styles, HTML, boxes);
  * ``custom`` only ``{"event": "click"}`` to an enabled button (or toggle buttons,
    whose view sends one beside its update);
  * ``request_state`` to any widget, and ``request_states`` on the widget manager's
    control comm (at most one a second);
  * ``comm_open`` only of the widget manager's control comm
    (``jupyter.widget.control``), at most :data:`MAX_OPEN_COMMS` open at once and
    :data:`MAX_COMM_OPENS` in the kernel's life (the page opens one and closes it);
    every other target, and every open past the caps, is refused;
  * ``comm_close`` only of a comm the client opened (the kernel decides how long its
    widgets live).

  Every other message of a browser (any session but the one that ran the notebook):
  ``kernel_info_request``, ``comm_info_request``, ``shutdown_request`` and
  ``interrupt_request`` are answered (they read nothing private, or end only this
  student's kernel); ``execute_request``, ``inspect_request``, ``complete_request``,
  ``history_request``, ``debug_request`` and the rest are dropped on both the shell
  and the control channel.
- **No traceback reaches the visitor.**  A message that raises while it is handled
  is dropped and logged as *one line* on the kernel process's real standard error
  (the server's log), never as an ``error`` or ``stream`` message on iopub:
  IPython's ``showtraceback`` is silenced while a client message is handled (the
  widgets report their exceptions through it), and the kernel's ``sys.stderr`` and
  file descriptor 2, which ipykernel forwards to the page, go back to the process's
  real standard error from :func:`install` on (warnings, a worker thread's
  exception, a compile notice naming the cache folder).
- **Memory is bounded.**  A watchdog thread reads the kernel's resident size every
  second; above the limit (:data:`MEMORY_ENV`, set by the server; default
  :data:`DEFAULT_MEMORY_MB` MB), once the memory the allocator keeps free is given
  back (``malloc_trim``: a dropped 8 MB message leaves its pages with the
  allocator, not with the page), it shows the banner (``app.memory.body`` of
  :mod:`mjkit.messages`, in the page's language) in the page and hides the rest
  of it (:attr:`KernelGuard.page`), stops obeying the client, logs one line and ends the kernel process after :data:`EXIT_DELAY`
  seconds (the banner's update is on its way by then).  Only this student's page
  stops; the server's own limit is the backstop.

Each dropped message is logged as one line (at most :data:`LOG_LINES` lines per ten
seconds; a count of the rest follows), so a hostile page cannot fill the server's log.
"""

from __future__ import annotations

import html
import io
import math
import os
import sys
import threading
import time

import ipywidgets as W

from .. import messages as M
from ..errors import HandError
from ..validate import decimal, lang as check_lang, whole

__all__ = ["install", "KernelGuard", "memory_limit", "MEMORY_ENV", "DEFAULT_MEMORY_MB",
           "ALLOWED_UPDATES", "MAX_OPEN_COMMS", "MAX_COMM_OPENS", "MAX_TEXT", "EXIT_DELAY",
           "EXIT_STATUS", "CONTROL_TARGET"]

#: The environment variable the server sets: a served kernel's memory limit in MB
#: (a whole number; 0: no limit).
MEMORY_ENV = "MJKIT_KERNEL_MEMORY_MB"
#: The limit when :data:`MEMORY_ENV` is not set.  A served page's kernel is ~250 MB
#: at rest; the builder's win chances of a hard 14-tile hand (deep mode, 30 draws, a
#: wild tile) take it to ~470-500 MB for a few seconds, which must not stop the page.
DEFAULT_MEMORY_MB = 768
#: Seconds between the banner and the end of a kernel over its memory limit.
EXIT_DELAY = 2.0
#: The exit status of a kernel ended over its memory limit.
EXIT_STATUS = 3
#: Seconds between two reads of the kernel's resident size.
CHECK_INTERVAL = 1.0
#: Comms a client may have open at once (the widget manager opens one, briefly).
MAX_OPEN_COMMS = 4
#: Comms a client may open in the kernel's life.
MAX_COMM_OPENS = 16
#: Longest text value a client may send (characters).
MAX_TEXT = 1000
#: Dropped messages logged per ten seconds (then one line counts the rest).
LOG_LINES = 20
#: The comm target of the widget manager's control channel (ipywidgets 8).
CONTROL_TARGET = "jupyter.widget.control"

_SAFE_INT = 2**53          # what a browser's number holds exactly
_REQUEST_STATES_EVERY = 1.0

# Messages a browser (any session but the notebook's runner) may send besides comms.
_CLIENT_REQUESTS = frozenset({"kernel_info_request", "comm_info_request", "shutdown_request",
                              "interrupt_request"})


# ------------------------------------------------------------------ what a page sends

def _bool(widget, value):
    return isinstance(value, bool)


def _whole(widget, value):
    return isinstance(value, int) and not isinstance(value, bool) and abs(value) <= _SAFE_INT


def _number(widget, value):
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and math.isfinite(value) and abs(value) <= _SAFE_INT)


def _text(widget, value):
    return isinstance(value, str) and len(value) <= MAX_TEXT


def _index(widget, value):
    """A choice's index: None or a position among its options."""
    return value is None or (_whole(widget, value) and 0 <= value < len(widget.options))


def _indices(widget, value):
    """A multiple choice's indices: distinct positions among its options."""
    n = len(widget.options)
    return (isinstance(value, list) and len(value) <= n and len(set(value)) == len(value)
            and all(_whole(widget, i) and 0 <= i < n for i in value))


def _selected(widget, value):
    """A tab's (or accordion's) index: None or a position among its children."""
    return value is None or (_whole(widget, value) and 0 <= value < len(widget.children))


#: What an ``update`` from a page may change: ``(widget classes, {trait: check})``, the
#: traits the ipywidgets 8 views set on a user's action (``index`` for the choices:
#: their ``value`` is not synced); the first entry whose classes match counts.
ALLOWED_UPDATES = (
    ((W.ToggleButton, W.Checkbox), {"value": _bool}),
    ((W.IntText, W.BoundedIntText, W.IntSlider), {"value": _whole}),
    ((W.FloatText, W.BoundedFloatText, W.FloatSlider, W.FloatLogSlider), {"value": _number}),
    ((W.Dropdown, W.ToggleButtons, W.RadioButtons, W.Select, W.SelectionSlider),
     {"index": _index}),
    ((W.SelectMultiple,), {"index": _indices}),
    ((W.Tab, W.Accordion, W.Stack), {"selected_index": _selected}),
    ((W.Text, W.Textarea, W.Combobox), {"value": _text}),
)
#: What a page may click (toggle buttons' view sends a click beside its update).
CLICKABLE = (W.Button, W.ToggleButtons)


def _checks_for(widget):
    """The traits a page may update on ``widget`` (empty: none)."""
    for classes, checks in ALLOWED_UPDATES:
        if isinstance(widget, classes):
            return checks
    return {}


# ------------------------------------------------------------------ the server's log

class _ServerLog:
    """One-line messages to the process's real standard error, rate-limited."""

    def __init__(self, fd):
        self.fd = fd
        self._lock = threading.Lock()
        self._window = 0.0
        self._lines = 0
        self._skipped = 0

    def write(self, line, *, limited=True):
        """Write ``line``: one line of at most 300 printable characters (a page's text in
        it cannot break the line or send a terminal escape)."""
        text = "".join(ch if ch.isprintable() else "?" for ch in " ".join(str(line).split()))
        text = text[:300]
        now = time.monotonic()
        with self._lock:
            if limited:
                if now - self._window >= 10:
                    if self._skipped:
                        self._emit(f"mjkit kernel guard: {self._skipped} more dropped "
                                   "messages not logged")
                    self._window, self._lines, self._skipped = now, 0, 0
                if self._lines >= LOG_LINES:
                    self._skipped += 1
                    return
                self._lines += 1
            self._emit(text)

    def _emit(self, text):
        try:
            os.write(self.fd, (text + "\n").encode("utf-8", "replace"))
        except OSError:
            pass


def _real_stderr():
    """The process's own standard error, taken back from ipykernel's forwarding.

    ipykernel points file descriptor 2 at a pipe whose reader sends everything to the
    page (``capture_fd_output``) and keeps a copy of the real descriptor: that copy goes
    back to descriptor 2, and ``sys.stderr`` becomes a plain file on it.  Returns the
    descriptor to log to.
    """
    forwarding = sys.stderr
    copy = getattr(forwarding, "_original_stdstream_copy", None)
    if copy is not None:
        os.dup2(copy, 2)            # fd 2 (and sys.__stderr__) is the real one again
    fd = os.dup(2)
    if forwarding is not None and hasattr(forwarding, "session"):    # ipykernel's OutStream
        try:
            forwarding.flush()
        except Exception:           # pragma: no cover - a stream that cannot flush
            pass
        sys.stderr = io.TextIOWrapper(io.FileIO(os.dup(2), "w"), encoding="utf-8",
                                      errors="replace", line_buffering=True)
    return fd


def _rss_mb():
    """The process's resident size in MB, or None where it cannot be read."""
    try:
        with open("/proc/self/statm", "rb") as f:
            pages = int(f.read().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError, AttributeError):
        pass
    try:
        import psutil

        return psutil.Process().memory_info().rss / 2**20
    except Exception:
        return None


def _trim():
    """Give the heap's free memory back to the system (glibc's ``malloc_trim``); False
    where there is none."""
    try:
        import ctypes

        return bool(ctypes.CDLL(None).malloc_trim(0))
    except (OSError, AttributeError, TypeError):
        return False


def memory_limit(environ=None):
    """The memory limit in MB from :data:`MEMORY_ENV` (:data:`DEFAULT_MEMORY_MB` when
    unset or empty; 0: none).

    Raises
    ------
    HandError
        A value that is not a whole number of MB (0..1,000,000).
    """
    environ = os.environ if environ is None else environ
    raw = environ.get(MEMORY_ENV, "").strip()
    if not raw:
        return DEFAULT_MEMORY_MB
    return whole(MEMORY_ENV, decimal(raw, MEMORY_ENV), 0, 10**6)


# ------------------------------------------------------------------ the guard

class KernelGuard:
    """The guard :func:`install` puts in front of a kernel's message handlers.

    Parameters
    ----------
    kernel : ipykernel.ipkernel.IPythonKernel
    lang : {"zh", "en"}
        The language of the memory banner.
    memory_mb : int or None
        The memory limit in MB (0: none); None: :func:`memory_limit`.
    exit_delay : float
        Seconds from the banner to the end of the process.

    Attributes
    ----------
    banner : ipywidgets.HTML
        Empty until the memory limit is passed; :func:`install` displays it.
    page : ipywidgets.Widget or None
        The page's widgets (the notebook sets it once built): hidden when the page is
        stopped, so that the banner is what the student sees, wherever they had
        scrolled to (a fixed banner cannot escape Voila's panels).
    stopped : bool
        The memory limit was passed: nothing from the client is obeyed any more.
    dropped : int
        Client messages dropped so far.
    memory_mb : int
    """

    def __init__(self, kernel, *, lang="zh", memory_mb=None, exit_delay=EXIT_DELAY):
        self.lang = check_lang(lang)
        self.memory_mb = memory_limit() if memory_mb is None else whole(
            "memory_mb", memory_mb, 0, 10**6)
        if isinstance(exit_delay, bool) or not isinstance(exit_delay, (int, float)) \
                or not 0 <= exit_delay <= 60:
            raise HandError(f"exit_delay must be 0 to 60 seconds, got {exit_delay!r}")
        self.exit_delay = float(exit_delay)
        self.kernel = kernel
        self.banner = W.HTML()
        self.banner.add_class("mjkit-kernel-banner")
        self.page = None
        self.stopped = False
        self.dropped = 0
        self._local = threading.local()
        self._client_comms = set()        # comms the client opened and has not closed
        self._opens = 0
        self._last_states = 0.0
        parent = kernel.get_parent("shell") if hasattr(kernel, "get_parent") else {}
        # the session that runs the notebook (the server's executor); every other is a page
        self.trusted_session = (parent or {}).get("header", {}).get("session")
        self.log = _ServerLog(_real_stderr())
        self._register_widgets()
        self._wrap_handlers()
        self._silence_tracebacks()
        self._watchdog = None
        if self.memory_mb:
            self._watchdog = threading.Thread(target=self._watch, name="mjkit-memory-guard",
                                              daemon=True)
            self._watchdog.start()

    # -- wiring ----------------------------------------------------------------

    def _wrap_handlers(self):
        """Every shell and control handler of the kernel behind :meth:`_guarded`."""
        for table in ("shell_handlers", "control_handlers"):
            handlers = getattr(self.kernel, table, None) or {}
            for msg_type, handler in list(handlers.items()):
                handlers[msg_type] = self._guarded(msg_type, handler)

    def _guarded(self, msg_type, handler):
        comm = {"comm_open": self._comm_open, "comm_msg": self._comm_msg,
                "comm_close": self._comm_close}.get(msg_type)

        def guarded(stream, idents, msg):
            if comm is None:
                if self._from_page(msg) and msg_type not in _CLIENT_REQUESTS:
                    return self._drop(msg, f"{msg_type} from a page")
                if self.stopped and msg_type not in ("shutdown_request", "interrupt_request"):
                    return self._drop(msg, "the page was stopped", quiet=True)
                return handler(stream, idents, msg)
            if self.stopped:
                return self._drop(msg, "the page was stopped", quiet=True)
            self._local.handling = True
            self._local.raised = None
            try:
                why = comm(stream, idents, msg, handler)
            except Exception as exc:        # a widget's handler raised: one line, no traceback
                self._local.raised = f"{type(exc).__name__}: {exc}"
                why = None
            finally:
                self._local.handling = False
            if why:
                self._drop(msg, why)
            if self._local.raised:
                self.log.write(f"mjkit kernel guard: a page's {msg_type} failed "
                               f"({self._local.raised})")
            return None

        guarded.__wrapped__ = handler
        return guarded

    def _silence_tracebacks(self):
        """While a client message is handled, IPython's traceback display logs one line."""
        shell = getattr(self.kernel, "shell", None)
        if shell is None:
            return
        original = shell.showtraceback

        def showtraceback(*args, **kwargs):
            if getattr(self._local, "handling", False):
                etype, value = sys.exc_info()[:2]
                self._local.raised = f"{getattr(etype, '__name__', etype)}: {value}"
                return None
            return original(*args, **kwargs)

        shell.showtraceback = showtraceback

    def _from_page(self, msg):
        session = msg.get("header", {}).get("session")
        return self.trusted_session is None or session != self.trusted_session

    def _drop(self, msg, why, quiet=False):
        self.dropped += 1
        if not quiet:
            header = msg.get("header", {})
            self.log.write(f"mjkit kernel guard: dropped {header.get('msg_type', '?')} "
                           f"({why})")
        return None

    # -- the three comm handlers (return why a message was dropped, or None) -----

    @staticmethod
    def _call(handler, stream, idents, msg):
        """Run the kernel's handler (an exception it reports is logged by the caller)."""
        handler(stream, idents, msg)

    def _comm_open(self, stream, idents, msg, handler):
        content = msg.get("content") or {}
        comm_id, target = content.get("comm_id"), content.get("target_name")
        if target != CONTROL_TARGET:
            return f"a comm to {str(target)[:40]!r} (only {CONTROL_TARGET} may be opened)"
        if not isinstance(comm_id, str) or not 1 <= len(comm_id) <= 64:
            return "a bad comm id"
        if comm_id in self._manager().comms:
            return "a comm id in use"
        if content.get("data") or msg.get("buffers"):
            return "data with a control comm"
        version = (msg.get("metadata") or {}).get("version")
        if not isinstance(version, str) or version.split(".")[0] != "1":
            return "a control comm of another protocol version"
        if len(self._client_comms) >= MAX_OPEN_COMMS or self._opens >= MAX_COMM_OPENS:
            return (f"more than {MAX_OPEN_COMMS} comms open or {MAX_COMM_OPENS} opened "
                    "by the client")
        self._opens += 1
        self._call(handler, stream, idents, msg)
        if comm_id in self._manager().comms:
            self._client_comms.add(comm_id)
        return None

    def _comm_close(self, stream, idents, msg, handler):
        comm_id = (msg.get("content") or {}).get("comm_id")
        if not isinstance(comm_id, str) or comm_id not in self._client_comms:
            return "closing a comm the client did not open"
        self._client_comms.discard(comm_id)
        return self._call(handler, stream, idents, msg)

    def _comm_msg(self, stream, idents, msg, handler):
        content = msg.get("content") or {}
        comm_id, data = content.get("comm_id"), content.get("data")
        if not isinstance(comm_id, str) or not isinstance(data, dict):
            return "no comm id or data"
        if msg.get("buffers"):
            return "binary buffers"
        method = data.get("method")
        if comm_id in self._client_comms:
            if data != {"method": "request_states"}:
                return f"{str(method)[:20]!r} on the control comm"
            now = time.monotonic()
            if now - self._last_states < _REQUEST_STATES_EVERY:
                return "request_states more than once a second"
            self._last_states = now
            return self._call(handler, stream, idents, msg)
        widget = self._widget(comm_id)
        if widget is None:
            return "no such widget"
        name = type(widget).__name__
        if method == "request_state" and set(data) == {"method"}:
            return self._call(handler, stream, idents, msg)
        if method == "custom" and set(data) == {"method", "content"}:
            if data["content"] != {"event": "click"} or not isinstance(widget, CLICKABLE):
                return f"a custom message to {name}"
            if getattr(widget, "disabled", False):
                return f"a click on a disabled {name}"
            return self._call(handler, stream, idents, msg)
        if method != "update" or not set(data) <= {"method", "state", "buffer_paths"}:
            return f"method {str(method)[:20]!r} to {name}"
        state, paths = data.get("state"), data.get("buffer_paths", [])
        if not isinstance(state, dict) or paths:
            return f"a bad update to {name}"
        if getattr(widget, "disabled", False):
            return f"an update to a disabled {name}"
        checks = _checks_for(widget)
        kept = {k: v for k, v in state.items() if k in checks and checks[k](widget, v)}
        if kept:
            msg["content"] = dict(content, data={"method": "update", "state": kept,
                                                 "buffer_paths": []})
            self._call(handler, stream, idents, msg)
        bad = sorted(str(k)[:30] for k in state if k in checks and k not in kept)
        refused = sorted(str(k)[:30] for k in state if k not in checks)
        if bad:
            return f"a bad value for {name}.{bad[0]}"
        if refused:
            return f"update of {name}.{', '.join(refused[:5])} not allowed"
        return None

    def _manager(self):
        return self.kernel.comm_manager

    def _widget(self, comm_id):
        widget = self._widgets.get(comm_id)
        if widget is None and self._made:
            # widgets made since the last look get their comm id only after construction
            for made in list(self._made):
                if getattr(made, "model_id", None):
                    self._widgets[made.model_id] = made
                    self._made.discard(made)
            widget = self._widgets.get(comm_id)
        return widget

    def _register_widgets(self):
        """Know every widget by its comm id: those that exist (ipywidgets' public, if
        deprecated, ``Widget.widgets``) and, through ``Widget.on_widget_constructed``, every
        one made later; weakly, so a closed widget is forgotten.  A widget the guard does not
        know is not obeyed."""
        import warnings
        import weakref

        self._widgets = weakref.WeakValueDictionary()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            existing = getattr(W.Widget, "widgets", {})
        for model_id, widget in dict(existing).items():
            self._widgets[model_id] = widget

        # called before the widget opens its comm: kept until its id is known (weakly)
        self._made = weakref.WeakSet()
        W.Widget.on_widget_constructed(self._made.add)

    # -- memory ------------------------------------------------------------------

    def _watch(self):
        trimmed = 0.0
        while not self.stopped:
            rss = _rss_mb()
            if rss is None:
                self.log.write("mjkit kernel guard: the kernel's memory cannot be read; "
                               "no memory limit", limited=False)
                return
            now = time.monotonic()
            # memory freed (a big message dropped) but kept by the allocator is not the
            # page's: give it back before judging, near the limit and at most every 10 s
            if rss > 0.75 * self.memory_mb and (now - trimmed > 10 or rss > self.memory_mb):
                trimmed = now
                if _trim():
                    rss = _rss_mb() or rss
            if rss > self.memory_mb:
                self.stop(rss)
                return
            time.sleep(CHECK_INTERVAL)

    def stop(self, rss=None):
        """Stop the page: the banner, nothing obeyed any more, the process ends soon after."""
        self.stopped = True
        self.log.write(f"mjkit kernel guard: pid {os.getpid()} uses {rss or 0:.0f} MB, "
                       f"above its limit of {self.memory_mb} MB: page stopped, kernel ends "
                       f"in {self.exit_delay:g} s", limited=False)
        text = M.text("app.memory.body", self.lang)
        self.banner.value = ("<div role='alert' style='padding:16px;margin:8px 0;"
                             "border:2px solid #b00;background:#fee;color:#600;"
                             f"font-size:1.2em'><b>{html.escape(text)}</b></div>")
        if self.page is not None:           # the banner alone: nothing left to scroll past
            self.page.layout.display = "none"
        timer = threading.Timer(self.exit_delay, os._exit, args=(EXIT_STATUS,))
        timer.daemon = True
        timer.start()


_GUARD = None


def install(*, lang="zh", memory_mb=None, kernel=None, display=True, exit_delay=EXIT_DELAY):
    """Guard the running kernel against its clients (see the module docstring).

    Called once by the served app notebook; a second call returns the same guard.

    Parameters
    ----------
    lang : {"zh", "en"}
        The page's language (the memory banner's).
    memory_mb : int, optional
        The memory limit in MB (0: none); default :data:`MEMORY_ENV`, else
        :data:`DEFAULT_MEMORY_MB`.
    kernel : optional
        The kernel to guard (default: the running IPython kernel).
    display : bool
        Display the (empty) banner widget in the cell's output, where the memory
        message will show.
    exit_delay : float
        Seconds from the banner to the end of the process.

    Returns
    -------
    KernelGuard

    Raises
    ------
    HandError
        Not in an IPython kernel, or a bad :data:`MEMORY_ENV`.
    """
    global _GUARD
    if _GUARD is not None:
        return _GUARD
    if kernel is None:
        from IPython import get_ipython

        shell = get_ipython()
        kernel = getattr(shell, "kernel", None)
        if kernel is None:
            raise HandError("the kernel guard runs in a Jupyter kernel (none is running)")
    _GUARD = KernelGuard(kernel, lang=lang, memory_mb=memory_mb, exit_delay=exit_delay)
    if display:
        from IPython.display import display as show

        show(_GUARD.banner)
    return _GUARD
