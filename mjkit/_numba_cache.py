"""Give numba a place to cache mjkit's kernels before any of them is defined.

mjkit's kernels are ``@njit(cache=True)``.  numba looks for a cache folder
when such a function is *defined* (at import): ``$NUMBA_CACHE_DIR``, then
``__pycache__`` beside the source, then the user cache (``~/.cache/numba``);
where none of them is writable (a read-only install and ``$HOME``: service
accounts, read-only containers) it raises ``RuntimeError: cannot cache
function ... no locator available`` and ``import mjkit`` fails.

:func:`ensure` runs first thing in ``mjkit/__init__.py`` and makes the same
checks.  When numba would find no folder it points ``NUMBA_CACHE_DIR`` at
mjkit's own cache folder (``$MJKIT_CACHE_DIR``/``numba``) or a private
temporary folder, with one warning; where not even that is writable the
kernels are compiled without a disk cache (slower start, same results).

numba reads its cache index and data files with ``pickle`` and lets anything
but a missing file escape: an index written by another mjkit version whose
pickled signature names a class since moved or renamed (``AttributeError:
Can't get attribute ...``), or a damaged file, would make every later call
of that kernel fail.  :func:`tolerate_stale_entries` turns such a file into a
cache miss (the kernel compiles again and numba overwrites the entry).

:func:`ensure` also installs :mod:`mjkit.first_run`'s listener, so that a first
call which compiles kernels says so instead of falling silent for a minute.
"""

from __future__ import annotations

import os
import pickle
import stat
import tempfile
import warnings
from pathlib import Path

from .locations import PACKAGE as _PACKAGE
from .storage import probe_write

#: What :func:`ensure` decided: ``None`` (numba caches as usual), a folder
#: path (the fallback) or ``"off"`` (no disk cache).
FALLBACK: str | None = None


def _writable(path) -> bool:
    """numba's own test of a cache folder: it can be created and written to."""
    try:
        os.makedirs(path, exist_ok=True)
        probe_write(path)
        return True
    except OSError:
        return False


def _kernel_dirs() -> list[Path]:
    """The package folders holding ``cache=True`` functions."""
    out = []
    for folder, dirs, files in os.walk(_PACKAGE):
        dirs[:] = [d for d in dirs if d != "__pycache__" and not d.startswith(".")]
        for f in files:
            if f.endswith(".py"):
                try:
                    text = (Path(folder) / f).read_text(encoding="utf-8", errors="replace")
                except OSError:
                    continue
                if "cache=True" in text:
                    out.append(Path(folder))
                    break
    return out


def _numba_can_cache() -> bool:
    from numba.core import config
    from numba.misc.appdirs import AppDirs

    if config.CACHE_DIR and _writable(config.CACHE_DIR):
        return True
    if all(_writable(d / "__pycache__") for d in _kernel_dirs()):
        return True
    return _writable(AppDirs(appname="numba", appauthor=False).user_cache_dir)


def _private_tmp() -> str | None:
    """A temporary folder only this user can write, reused across processes if safe."""
    try:
        base = tempfile.gettempdir()
    except (OSError, FileNotFoundError):
        return None
    uid = os.getuid() if hasattr(os, "getuid") else None
    path = os.path.join(base, f"mjkit-numba-{uid if uid is not None else 'user'}")
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    except OSError:
        return None
    try:
        # numba's cache holds pickles: never use a folder someone else could write
        st = os.lstat(path)
        if (stat.S_ISDIR(st.st_mode) and (uid is None or st.st_uid == uid)
                and not st.st_mode & 0o022 and _writable(path)):
            return path
        fresh = tempfile.mkdtemp(prefix="mjkit-numba-")
        return fresh if _writable(fresh) else None
    except OSError:
        return None


def _fallback_dir() -> str | None:
    from .locations import cache_dir

    base = cache_dir()
    if base is not None and _writable(base / "numba"):
        return str(base / "numba")
    return _private_tmp()


_UNREADABLE = (pickle.UnpicklingError, AttributeError, ImportError, EOFError, IndexError,
               TypeError, ValueError)


def tolerate_stale_entries() -> None:
    """Make numba treat an index or data file it cannot unpickle as a cache miss."""
    from numba.core import caching

    cls = caching.IndexDataCacheFile
    if getattr(cls, "_mjkit_tolerant", False):
        return
    load_index, load_data = cls._load_index, cls._load_data

    def _load_index(self):
        try:
            return load_index(self)
        except _UNREADABLE:
            return {}

    def _load_data(self, name):
        try:
            return load_data(self, name)
        except _UNREADABLE:
            # ``load`` passes None on as "not cached"; the entry is rewritten after compiling
            return None

    cls._load_index = _load_index
    cls._load_data = _load_data
    cls._mjkit_tolerant = True


def ensure() -> str | None:
    """Make sure defining mjkit's ``cache=True`` kernels cannot fail; see the module notes.

    Returns
    -------
    str or None
        :data:`FALLBACK`.
    """
    global FALLBACK
    tolerate_stale_entries()
    from . import first_run

    first_run.install()      # a first call that compiles says so (mjkit.first_run)
    if _numba_can_cache():
        FALLBACK = None
        return None
    from numba.core import config

    folder = _fallback_dir()
    if folder is not None:
        os.environ["NUMBA_CACHE_DIR"] = folder     # also for worker processes started later
        config.CACHE_DIR = folder
        FALLBACK = folder
        warnings.warn(f"mjkit: numba cannot cache beside the package or in the user cache "
                      f"(not writable); compiled kernels are cached in {folder}",
                      RuntimeWarning, stacklevel=3)
        return folder
    from numba.core.dispatcher import Dispatcher

    # no writable folder at all: the kernels compile in memory, every process
    Dispatcher.enable_caching = lambda self: None
    FALLBACK = "off"
    warnings.warn("mjkit: no writable folder for numba's cache; kernels are compiled "
                  "without a disk cache", RuntimeWarning, stacklevel=3)
    return FALLBACK
