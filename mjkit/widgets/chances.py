"""The hand builder's win chances: :func:`mjkit.advise` on a worker thread, newest first, cached.

A click must redraw the builder at once, and the advisor takes from milliseconds to
seconds, so the builder never calls it on the event loop (its kernels hold the GIL only
for milliseconds at a time, so the event loop keeps running beside the worker).
:func:`chance_request` turns a :class:`~mjkit.widgets.state.BuilderState` and the draws
left into the advisor's inputs and a key that names everything that changes the answer
(rule set, 连拉 level, winds, wild tile, the multiset of concealed tiles, the melds, the
draws, the mode); the order tiles were clicked in, the language and the situation flags
do not change it.  A :class:`ChanceWorker` computes requests one at a time on one daemon
thread: a newer request replaces a pending one (a hand clicked past is never computed); a
running one is stopped at the advisor's next pause (``advise(stop=...)``: its long searches
ask between pieces) once a newer request or a cancel comes, and nothing is cached for it
(an engine given by the caller is not asked to stop: it finishes, its answer goes to the
cache and is not delivered).  Answers go to an LRU :class:`AdviceCache`, errors
(:class:`mjkit.HandError`) included, since they too follow from the key alone.  The
worker hands an answer to the caller's ``done`` callback unless it was cancelled or
superseded, and the callback decides again whether it is still the one to show (the
builder compares keys under its lock), so a stale answer is never drawn.

The work one builder (one student, in the served app) causes is bounded twice:

- **debounced**: a request starts only once it has been the newest for ``quiet`` seconds
  (:data:`QUIET_SECONDS`), so a control changed again and again (the draws box stepped,
  a slider dragged) costs one computation, for the value it stops at;
- **a CPU budget**: the worker's computations may use ``share`` of one core
  (:data:`CPU_SHARE`) in the long run, with bursts of up to ``burst`` CPU seconds
  (:data:`CPU_BURST`) after a rest (a token bucket: each computation's process CPU
  time is taken from it, it refills at ``share`` seconds per second).  Past the
  budget the next request waits (the builder keeps showing "computing…") until the
  bucket is full enough again; a request answered from the cache costs nothing.

Without them one student changing the draws twice a second kept a core 50-83% busy
(the advisor takes up to ~15 s for some 14-tile hands); with them the same student costs nothing while the changes come faster
than ``quiet`` apart, and a quarter of a core in the long run however they come (in any
stretch of time, beyond that share, at most ``burst`` CPU seconds and the computation
that overdraws the budget).

Mahjong stays out of here: the numbers are :func:`mjkit.advise`'s, the drawing is
:mod:`mjkit.widgets.view`'s.
"""

from __future__ import annotations

import threading
import time
import traceback
from collections import OrderedDict
from dataclasses import dataclass, field

from ..errors import HandError
from ..tiles import tile_to_str
from ..validate import whole

__all__ = ["DEFAULT_DRAWS", "MIN_DRAWS", "MAX_DRAWS", "QUIET_SECONDS", "CPU_SHARE",
           "CPU_BURST", "ChanceRequest", "chance_request", "AdviceCache", "ChanceWorker",
           "shared_cache"]

#: The draws-left control of the builder: its default and its range.
DEFAULT_DRAWS = 12
MIN_DRAWS = 1
MAX_DRAWS = 30

#: Seconds a request must stay the newest before it is computed (the debounce).
QUIET_SECONDS = 0.6
#: The share of one core a worker's computations may use in the long run.
CPU_SHARE = 0.25
#: CPU seconds a worker may spend at once after a rest (the budget's size).
CPU_BURST = 20.0

_WINDS = "ESWN"

# One computation at a time in the process, whatever the number of builders: the
# advisor keeps a core busy, and the machines it runs on in class have few.
_ENGINE_LOCK = threading.Lock()


@dataclass(frozen=True)
class ChanceRequest:
    """What to ask the advisor for one builder state.

    Attributes
    ----------
    key : tuple
        Everything that changes the answer; equal keys, equal answers (the cache key).
    hand : tuple of int
        The concealed tiles, sorted (kinds 0..33).
    kwargs : dict
        The advisor's keyword arguments besides ``hand`` (melds as :class:`mjkit.Meld`).
    """

    key: tuple
    hand: tuple
    kwargs: dict = field(compare=False, hash=False)

    @property
    def draws(self):
        """The draws left asked for."""
        return self.kwargs["draws_left"]

    @property
    def text(self):
        """The concealed tiles in notation (what ``Advice.hand`` is compared with)."""
        return " ".join(tile_to_str(t) for t in self.hand)


def chance_request(state, draws, mode="deep"):
    """The advisor's inputs for ``state`` with ``draws`` draws left.

    Parameters
    ----------
    state : BuilderState
        A hand of 13 or 14 tiles (melds counted 3); the caller decides whether it wants
        chances for it (:attr:`FanView.wants_chances`).
    draws : int
        Draws left, :data:`MIN_DRAWS`..:data:`MAX_DRAWS`.
    mode : str
        The advisor's mode.

    Returns
    -------
    ChanceRequest

    Raises
    ------
    HandError
        ``draws`` outside its range.
    """
    draws = whole("draws", draws, MIN_DRAWS, MAX_DRAWS)
    hand = tuple(sorted(state.tiles))
    melds = tuple(sorted(state.melds))
    wild = None if state.wild is None else tile_to_str(state.wild)
    seat, rnd = _WINDS[state.seat], _WINDS[state.round]
    key = (state.rules, state.lianla, seat, rnd, wild, hand, melds, draws, mode)
    kwargs = {"rules": state.rules, "lianla": state.lianla, "draws_left": draws,
              "wild": wild, "mode": mode, "seat_wind": seat, "round_wind": rnd,
              "melds": state.meld_list() or None,
              "progress": False}      # no bar from a worker thread: the view says computing
    return ChanceRequest(key, hand, kwargs)


class AdviceCache:
    """A thread-safe LRU of advisor answers (an ``Advice`` or the ``HandError`` raised).

    Parameters
    ----------
    maxsize : int
        Answers kept; the least recently used goes first.
    """

    def __init__(self, maxsize=256):
        self.maxsize = whole("maxsize", maxsize, 1)
        self._items = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key):
        """The answer for ``key`` (now the most recently used), or None."""
        with self._lock:
            if key not in self._items:
                return None
            self._items.move_to_end(key)
            return self._items[key]

    def put(self, key, answer):
        with self._lock:
            self._items[key] = answer
            self._items.move_to_end(key)
            while len(self._items) > self.maxsize:
                self._items.popitem(last=False)

    def clear(self):
        with self._lock:
            self._items.clear()

    def __len__(self):
        return len(self._items)

    def __contains__(self, key):
        return key in self._items


_SHARED = AdviceCache()


def _number(name, x, lo, hi=None):
    """``x`` as a float in ``lo..hi``, or HandError naming ``name``."""
    import math

    if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x) \
            or x < lo or (hi is not None and x > hi):
        where = f">= {lo}" if hi is None else f"in {lo}..{hi}"
        raise HandError(f"{name} must be a number {where}, got {x!r}")
    return float(x)


def shared_cache():
    """The cache every builder of the process uses unless given its own."""
    return _SHARED


#: What :meth:`ChanceWorker._compute` returns for a search stopped because its answer was
#: no longer wanted.
_STOPPED = object()


def _advise():
    from ..advise import advise

    return advise


def _stopped():
    from ..winprob import SearchStopped

    return SearchStopped


class ChanceWorker:
    """Computes :class:`ChanceRequest` answers on one background thread, newest first.

    Parameters
    ----------
    engine : callable, optional
        ``engine(hand, **request.kwargs)`` returning an ``Advice`` (default
        :func:`mjkit.advise`).
    cache : AdviceCache, optional
        Default :func:`shared_cache`.
    quiet : float
        Seconds a request must stay the newest before it starts, 0..60 (default
        :data:`QUIET_SECONDS`; 0: at once).
    share : float
        The long-run share of one core the computations may use, 0.001..1 (default
        :data:`CPU_SHARE`).
    burst : float
        CPU seconds that may be spent at once after a rest, 0..3600 (default
        :data:`CPU_BURST`).

    Attributes
    ----------
    calls : int
        Engine calls made (cache hits are not calls).
    superseded : int
        Answers computed but not delivered: a newer request or a cancel came meanwhile.
    last_seconds : float
        Time from the last delivered request's submission to its answer.
    cpu_seconds : float
        The process CPU time the engine calls took, in all.
    budget : float
        The CPU seconds the worker may spend now (negative: the next request waits).
    error : str or None
        The traceback of the last failure of a ``done`` callback, or of an engine failure
        other than ``HandError`` (shown to the user as a message, kept here for whoever
        debugs it).
    """

    def __init__(self, engine=None, cache=None, *, quiet=QUIET_SECONDS, share=CPU_SHARE,
                 burst=CPU_BURST):
        self._engine = engine
        self.cache = shared_cache() if cache is None else cache
        self.quiet = _number("quiet", quiet, 0, 60)
        self.share = _number("share", share, 0.001, 1)
        self.burst = _number("burst", burst, 0, 3600)
        self.calls = 0
        self.superseded = 0
        self.last_seconds = 0.0
        self.cpu_seconds = 0.0
        self._budget = self.burst
        self._budget_at = time.monotonic()
        self.error = None
        self._cond = threading.Condition()
        self._pending = None        # (request, done, submitted at)
        self._running = None        # the request being computed
        self._cancelled = None      # the running request whose answer is not wanted
        self._idle = threading.Event()
        self._idle.set()
        self._closed = False
        self._thread = None

    @property
    def engine(self):
        if self._engine is None:
            from ..advise import advise

            self._engine = advise
        return self._engine

    def lookup(self, request):
        """The cached answer for ``request``, or None (never computes)."""
        return self.cache.get(request.key)

    def submit(self, request, done):
        """Compute ``request`` in the background; ``done(request, answer)`` receives it.

        ``done`` is called on the worker thread, with an ``Advice`` or a ``HandError``.
        A request submitted before this one and not started yet is dropped; the answer of
        one running is cached but not delivered (unless it has the same key).  The
        request starts once it has been the newest for ``quiet`` seconds (the same
        request submitted again keeps its place) and the CPU budget allows.
        """
        with self._cond:
            if self._closed:
                raise HandError("the chance worker is closed")
            since = time.perf_counter()
            if self._pending is not None and self._pending[0].key == request.key:
                since = self._pending[2]
            self._pending = (request, done, since)
            self._idle.clear()
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="mjkit-chances",
                                                daemon=True)
                self._thread.start()
            self._cond.notify()

    def cancel(self):
        """Drop the pending request; the running one's answer is cached, not delivered."""
        with self._cond:
            self._pending = None
            self._cancelled = self._running
            if self._running is None:
                self._idle.set()

    def wait(self, timeout=None):
        """Block until nothing is pending or running; False if ``timeout`` seconds passed."""
        return self._idle.wait(timeout)

    @property
    def budget(self):
        """CPU seconds the worker may spend now (negative: the next request waits)."""
        with self._cond:
            return self._refill(time.monotonic())

    def _refill(self, now):
        """The budget at ``now`` (under the lock): refilled at ``share`` per second."""
        self._budget = min(self.burst, self._budget + self.share * (now - self._budget_at))
        self._budget_at = now
        return self._budget

    @property
    def busy(self):
        """Whether a request is pending or running."""
        return not self._idle.is_set()

    def close(self):
        """Stop the thread after its current request (no more answers are delivered)."""
        with self._cond:
            self._closed = True
            self._pending = None
            self._cancelled = self._running
            self._cond.notify()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=0.1)   # a running computation finishes on its own

    # -- the thread --------------------------------------------------------------

    def _compute(self, request):
        with _ENGINE_LOCK:
            answer = self.cache.get(request.key)   # another builder may have computed it
            if answer is None:
                self.calls += 1
                cpu = time.process_time()     # every thread's: the advisor's kernels may run
                kwargs = dict(request.kwargs)
                if self._engine is None or self._engine is _advise():
                    # mjkit's advisor stops at its next pause once the answer is not wanted
                    kwargs["stop"] = lambda: self._unwanted(request)
                try:                          # in parallel
                    answer = self.engine(list(request.hand), **kwargs)
                except HandError as exc:
                    answer = exc
                except _stopped():
                    return _STOPPED           # not an answer: nothing cached
                finally:
                    cost = time.process_time() - cpu
                    self.cpu_seconds += cost
                    with self._cond:
                        self._refill(time.monotonic())
                        self._budget -= cost
                self.cache.put(request.key, answer)
        return answer

    def _unwanted(self, request) -> bool:
        """Whether the running ``request``'s answer would not be delivered (a newer request
        with another key, a cancel or close came): its search may stop."""
        pending = self._pending
        return (self._closed or self._cancelled is request
                or (pending is not None and pending[0].key != request.key))

    def _next(self):
        """The request to compute now (under the lock; waits as needed), or None: closed."""
        while True:
            if self._closed:
                return None
            if self._pending is None:
                self._cond.wait()
                continue
            request, done, since = self._pending
            now = time.perf_counter()
            rest = since + self.quiet - now          # the debounce: newest for `quiet` s
            if rest > 0:
                self._cond.wait(rest)
                continue
            if self.cache.get(request.key) is None:
                budget = self._refill(time.monotonic())
                if budget < 0:                       # past the CPU budget: wait for it
                    self._cond.wait(-budget / self.share)
                    continue
            return self._pending

    def _loop(self):
        while True:
            with self._cond:
                taken = self._next()
                if taken is None:
                    self._idle.set()
                    return
                request, done, since = taken
                self._pending = None
                self._running = request
                self._cancelled = None
            try:
                answer = self.cache.get(request.key)
                if answer is None:
                    answer = self._compute(request)
            except Exception as exc:       # a bug: say so in the view, keep the thread alive
                self.error = traceback.format_exc()
                answer = HandError(f"the win chances could not be computed: "
                                   f"{type(exc).__name__}: {exc}")
            with self._cond:
                wanted = (answer is not _STOPPED and not self._closed
                          and self._cancelled is not request
                          and (self._pending is None or self._pending[0].key == request.key))
                self._running = None
            if wanted:
                self.last_seconds = time.perf_counter() - since
                try:
                    done(request, answer)
                except Exception:          # the caller's drawing failed: kept, the thread goes on
                    self.error = traceback.format_exc()
            else:
                self.superseded += 1
            with self._cond:
                if self._pending is None and self._running is None:
                    self._idle.set()
