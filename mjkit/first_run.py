"""Say what a first call is doing while numba compiles mjkit's kernels.

mjkit's kernels are ``@njit(cache=True)``: the first call of one compiles it
(seconds to minutes: the scorer, the game, the value index's builder) and
saves it in numba's cache folder, from which later processes load it in
milliseconds.  A first call used to be a long silence; now it says once what
it is doing:

    mjkit: compiling the scoring kernels (first run only, about a minute; later
    runs load them from the cache in .../mjkit/_kernels/__pycache__)

How it knows: numba announces an event ``"numba:compile"`` when, and only
when, a function takes the compile route (no overload in this process and
none in the disk cache; a cache hit raises no event).  :func:`install`
(called from :func:`mjkit._numba_cache.ensure`, before any kernel is
defined) registers a listener.  When an outermost compilation of an mjkit
kernel has run for :data:`DELAY` seconds, the note of its *family* (of
:data:`FAMILIES`: the kernel module's, or the one a caller names with
:class:`family`) is printed, once per process and family, on stderr above
any progress bar; compilations shorter than that say nothing, and nothing is
printed when everything loads from the cache.

Before a long job with a progress bar the kernels are compiled first, so
that the bar's estimate times the job and not the compiling: the value
index's build uses :func:`warm_up`, which checks numba's cache index
beforehand (:func:`will_compile`) and, when some kernels must compile,
prints the note and a bar over them; :func:`mjkit.sim.simulate` plays one
hand first.

Quiet: ``MJKIT_QUIET=1`` in the environment, or inside :func:`quiet` (the
functions taking ``progress=False`` use it), prints no note and no bar.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading

__all__ = ["DELAY", "FAMILIES", "announce", "family", "family_of", "install", "quiet",
           "warm_up", "will_compile"]

#: Seconds an outermost compilation runs before its family's note is printed.
DELAY = 1.0

#: Per family: what is compiled and how long it takes cold (measured on 2 cores:
#: scoring 28-35 s, shanten 16 s, the game 40-140 s per set of players, a table's game
#: kernel 105-120 s for efficiency players on an empty cache, the evaluator's compile
#: included, about 330 s for strong ones (benchmarks/bench_table.py --cold-only), the bots'
#: decision kernel under a minute, the value index's builder 90 s, the nearest-hand search
#: 41 s, win chances 8-20 s a kernel; slower machines take about twice as long).
FAMILIES = {
    "scoring": ("the scoring kernels", "about a minute"),
    "shanten": ("the shanten kernels", "under a minute"),
    "game": ("the game kernels", "a few minutes"),
    "value index": ("the value index's kernels", "a minute or two"),
    "query": ("the nearest-hand search kernels", "about a minute"),
    "win chances": ("the win-chance kernels", "under a minute"),
    "table": ("the game kernel of this table's players", "two to six minutes"),
    "bot": ("the bots' decision kernel", "about a minute"),
    "kernels": ("mjkit's kernels", "seconds to minutes"),
}

# kernel module (mjkit._kernels.<name>) -> family; others (the helpers in complete and
# shapes, any other mjkit module): "kernels", unless the caller names one (family())
_MODULE_FAMILY = {
    "evaluate": "scoring", "wild": "scoring", "fans": "scoring", "tables": "scoring",
    "shanten": "shanten",
    "game": "game", "game_state": "game", "policy": "game", "strong_melds": "game",
    "solo": "game", "rng": "game", "value_index": "value index", "index_query": "query",
    "winprob": "win chances", "target_chances": "win chances", "fast_play": "win chances",
}

_state_lock = threading.Lock()
_announced: set = set()
_hush = 0
_local = threading.local()
_installed = False


def family_of(module: str) -> str | None:
    """The family of a function defined in ``module``, or None (not mjkit's)."""
    if not module.startswith("mjkit."):
        return None
    if module.startswith("mjkit._kernels."):
        return _MODULE_FAMILY.get(module.rsplit(".", 1)[1], "kernels")
    return "kernels"


class family:
    """``with family("value index"):`` compilations of mjkit kernels started in this
    thread belong to that family (the innermost such block wins), whatever module
    the kernel is in: a job that compiles helpers of several modules says one note.

    Also a decorator (``@family("value index")``).
    """

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __enter__(self):
        stack = getattr(_local, "families", None)
        if stack is None:
            stack = _local.families = []
        stack.append(self.name)
        return self

    def __exit__(self, *exc):
        _local.families.pop()
        return False

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self:
                return fn(*args, **kwargs)

        return wrapper


def current_family(module: str) -> str | None:
    """The family of a compilation of a function of ``module`` started in this thread."""
    own = family_of(module)
    if own is None:
        return None
    stack = getattr(_local, "families", None)
    return stack[-1] if stack else own


def _silenced() -> bool:
    env = os.environ.get("MJKIT_QUIET", "").strip().lower()
    return _hush > 0 or env not in ("", "0", "false", "no")


@contextlib.contextmanager
def quiet(on: bool = True):
    """No compile notes nor warm-up bars while inside (all threads); ``on=False``: no-op."""
    global _hush
    if not on:
        yield
        return
    with _state_lock:
        _hush += 1
    try:
        yield
    finally:
        with _state_lock:
            _hush -= 1


def cache_folder(dispatcher=None) -> str | None:
    """numba's cache folder for a kernel (by default the folder of mjkit's scorer), or
    None when kernels are compiled without a disk cache."""
    if dispatcher is None:
        from ._numba_cache import FALLBACK

        if FALLBACK == "off":
            return None
        from numba.core import config

        if config.CACHE_DIR:
            return str(config.CACHE_DIR)
        from ._kernels import evaluate

        dispatcher = evaluate.score_plain_row
    cache = getattr(dispatcher, "_cache", None)
    try:
        path = cache.cache_path
    except Exception:        # noqa: BLE001 - numba internals: no folder known
        return None
    return None if path is None else str(path)


def message(family: str, folder: str | None) -> str:
    """The note of a family's first compilation."""
    what, how_long = FAMILIES.get(family, FAMILIES["kernels"])
    if folder is None:
        return (f"mjkit: compiling {what} ({how_long}; numba has no cache folder here, "
                "so every process compiles them again)")
    return (f"mjkit: compiling {what} (first run only, {how_long}; later runs load them "
            f"from the cache in {folder})")


def _write(text: str) -> None:
    try:
        from tqdm.auto import tqdm

        tqdm.write(text, file=sys.stderr)      # above any progress bar, not through it
    except Exception:        # noqa: BLE001 - a note must never break a computation
        try:
            print(text, file=sys.stderr, flush=True)
        except Exception:    # noqa: BLE001
            pass
    try:
        sys.stderr.flush()
    except Exception:        # noqa: BLE001
        pass


def announce(family: str, folder: str | None = None, *, dispatcher=None) -> bool:
    """Print ``family``'s note unless it was printed in this process or notes are off;
    True if printed now."""
    if _silenced():
        return False
    with _state_lock:
        if family in _announced:
            return False
        _announced.add(family)
    if folder is None:
        folder = cache_folder(dispatcher)
    _write(message(family, folder))
    return True


def announced(family: str) -> bool:
    return family in _announced


def _on_start(dispatcher) -> None:
    depth = getattr(_local, "depth", 0)
    _local.depth = depth + 1
    if depth:
        return                   # a function the outer kernel calls: its family speaks
    _local.timer = None
    family = current_family(getattr(getattr(dispatcher, "py_func", None), "__module__", "")
                            or "")
    if family is None or family in _announced or _silenced():
        return
    if DELAY <= 0:
        announce(family, dispatcher=dispatcher)
        return
    timer = threading.Timer(DELAY, announce, args=(family,), kwargs={"dispatcher": dispatcher})
    timer.daemon = True
    timer.start()
    _local.timer = timer


def _on_end() -> None:
    _local.depth = max(0, getattr(_local, "depth", 1) - 1)
    if _local.depth == 0:
        timer = getattr(_local, "timer", None)
        if timer is not None:
            timer.cancel()
            _local.timer = None


def install() -> None:
    """Listen to numba's compile events (once per process; see the module notes)."""
    global _installed
    with _state_lock:
        if _installed:
            return
        _installed = True
    try:
        from numba.core import event
    except ImportError:          # pragma: no cover - numba without events: no notes
        return

    class _Listener(event.Listener):
        def on_start(self, ev):
            try:
                _on_start((ev.data or {}).get("dispatcher"))
            except Exception:    # noqa: BLE001 - never break a compilation
                pass

        def on_end(self, ev):
            try:
                _on_end()
            except Exception:    # noqa: BLE001
                pass

    event.register("numba:compile", _Listener())


# ---------------------------------------------------------------- warm-ups


def signature(dispatcher, args) -> tuple:
    """The argument types numba compiles ``dispatcher`` for when called with ``args``."""
    return tuple(dispatcher.typeof_pyval(a) for a in args)


def will_compile(dispatcher, sig) -> bool | None:
    """Whether calling ``dispatcher`` with argument types ``sig`` compiles (True), loads
    from this process or numba's disk cache (False), or None if it cannot be told.

    Reads numba's cache index for the function (a small pickle), as numba does: an
    entry for the signature, this machine's code generation and the function's
    bytecode, in an index whose source stamp matches the source file.
    """
    try:
        if tuple(sig) in dispatcher.overloads:
            return False
        cache = dispatcher._cache
        if cache.cache_path is None:
            return True          # no disk cache: it always compiles
        key = cache._index_key(tuple(sig), dispatcher.targetctx.codegen())
        return key not in cache._cache_file._load_index()
    except Exception:            # noqa: BLE001 - numba internals changed: unknown
        return None


def warm_up(family: str, calls, *, progress=None) -> int:
    """Compile (or load) kernels before a long job, with the note and a bar if any compiles.

    Parameters
    ----------
    family : str
        A key of :data:`FAMILIES`.
    calls : sequence of (dispatcher, args)
        Each kernel with arguments of the types the job will call it with (they are
        only typed, not run).
    progress : bool, optional
        False: no note and no bar.

    Returns
    -------
    int
        How many kernels were found to need compiling (0: everything was loaded).
    """
    jobs = [(d, signature(d, args)) for d, args in calls]
    known = [(d, s, will_compile(d, s)) for d, s in jobs]
    for d, s, compiles in known:
        if not compiles:
            # from the disk cache in milliseconds (None, not known: the listener speaks
            # if it compiles after all)
            d.compile(s)
    todo = [(d, s) for d, s, compiles in known if compiles]
    if not todo:
        return 0
    with quiet(progress is False):
        show = not _silenced()
        if show:
            announce(family, dispatcher=todo[0][0])
        from tqdm.auto import tqdm

        what = FAMILIES.get(family, FAMILIES["kernels"])[0]
        with tqdm(total=len(todo), desc=f"compiling {what}", unit="kernel",
                  disable=not show, leave=False,
                  bar_format="{desc}: {n_fmt}/{total_fmt} [{elapsed}{postfix}]") as bar:
            for d, s in todo:
                bar.set_postfix_str(d.py_func.__name__, refresh=True)
                d.compile(s)
                bar.update(1)
    return len(todo)
