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
Can't get attribute ...``), or a damaged file (one flipped bit can make the
unpickler recurse, overflow or ask for gigabytes), would make every later call
of that kernel fail.  :func:`tolerate_stale_entries` seals every file numba
writes (a SHA-256 after the pickle) and lets numba unpickle only a file whose
seal matches: any other file is a cache miss (the kernel compiles again and
numba rewrites the entry, sealed).

:func:`ensure` also installs :mod:`mjkit.first_run`'s listener, so that a first
call which compiles kernels says so instead of falling silent for a minute.
"""

from __future__ import annotations

import hashlib
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


#: Cache files larger than these are not read (a miss): mjkit's indexes are 1-8 kB and its
#: data files up to about 1 MB; numba grows an index by about 2 kB per signature.
MAX_INDEX_BYTES = 1 << 22
MAX_DATA_BYTES = 1 << 28

#: What follows the pickle in every index and data file written with mjkit imported: this
#: marker, then the pickle's SHA-256.  Only a sealed file whose seal matches is unpickled.
#: ``pickle.loads`` stops at the pickle's end, so numba without mjkit reads them as usual.
SEAL = b"\x00mjkit-sha256\x00"
_SEAL_BYTES = len(SEAL) + 32


def _seal(body: bytes) -> bytes:
    """``body`` (a pickle) followed by :data:`SEAL` and its SHA-256."""
    return body + SEAL + hashlib.sha256(body).digest()


def _unseal(blob: bytes) -> bytes:
    """The pickle sealed in ``blob``.

    Raises
    ------
    ValueError
        ``blob`` has no seal (numba wrote it without mjkit, or an mjkit before the seal)
        or a seal that does not match (the file was damaged since).
    """
    if len(blob) < _SEAL_BYTES or blob[-_SEAL_BYTES:-32] != SEAL:
        raise ValueError("not sealed by mjkit")
    body = blob[:-_SEAL_BYTES]
    if hashlib.sha256(body).digest() != blob[-32:]:
        raise ValueError("damaged: the SHA-256 does not match")
    return body


def _read(path, limit: int) -> bytes:
    """The first ``limit`` + 1 bytes of ``path`` (more than ``limit``: too large to read)."""
    with open(path, "rb") as f:
        return f.read(limit + 1)


def tolerate_stale_entries() -> None:
    """Make numba unpickle only the cache files it wrote, and treat any other as a miss.

    numba reads its index and data files with ``pickle`` and lets anything but a missing
    file escape: an index naming a class since moved (``AttributeError``), or one flipped
    bit (``RecursionError``, ``OverflowError``, or a memo table of 20 GB before a
    ``MemoryError``), made every later call of that kernel fail, and a flipped bit in a
    data file's machine code could crash the process or compute wrong answers.  Here
    every file numba writes is sealed (:data:`SEAL`), and a file is unpickled only when
    it is at most :data:`MAX_INDEX_BYTES` / :data:`MAX_DATA_BYTES`, starts with this
    numba's version (an index) and its seal matches.  Anything else, and any error while
    loading, is a miss: the kernel compiles again and numba rewrites the entry, sealed.
    A loaded entry whose signature is not the one asked for is a miss too.
    """
    from numba.core import caching

    cls = caching.IndexDataCacheFile
    if getattr(cls, "_mjkit_tolerant", False):
        return
    load, dump = cls.load, cls._dump
    log = getattr(caching, "_cache_log", lambda *args: None)

    def _load_index(self):
        # numba writes the pickled version (protocol -1), then the (stamp, overloads) pickle
        try:
            blob = _read(self._index_path, MAX_INDEX_BYTES)
            head = pickle.dumps(self._version, protocol=-1)
            if len(blob) > MAX_INDEX_BYTES or not blob.startswith(head):
                return {}                    # none, too large, or another numba version's
            stamp, overloads = pickle.loads(_unseal(blob[len(head):]))
        except Exception:                    # noqa: BLE001 - unreadable, damaged, unsealed
            return {}
        log("[cache] index loaded from %r", self._index_path)
        return overloads if stamp == self._source_stamp else {}

    def _load_data(self, name):
        path = self._data_path(name)
        blob = _read(path, MAX_DATA_BYTES)   # OSError: ``load`` counts it as a miss
        try:
            if len(blob) > MAX_DATA_BYTES:
                return None
            data = pickle.loads(_unseal(blob))
        except Exception:                    # noqa: BLE001 - ``load`` passes None on: a miss
            return None
        log("[cache] data loaded from %r", path)
        return data

    def _load(self, key):
        try:
            return load(self, key)
        except Exception:                    # noqa: BLE001 - whatever else fails: a miss
            return None

    def _dump(self, obj):
        return _seal(dump(self, obj))

    cls._load_index, cls._load_data, cls.load, cls._dump = _load_index, _load_data, _load, _dump
    _check_loaded_signature(caching.Cache)
    cls._mjkit_tolerant = True


def _check_loaded_signature(cache_cls) -> None:
    """Make ``Cache.load_overload`` a miss when rebuilding fails or gives another signature.

    numba saves an index before the data file it names: a process stopped between the two
    leaves an entry naming another signature's (or an older source's) file.
    """
    from numba.core import sigutils

    load_overload = cache_cls.load_overload

    def _load_overload(self, sig, target_context):
        try:
            result = load_overload(self, sig, target_context)
            got = getattr(result, "signature", None)
            if got is not None and tuple(got.args) != tuple(
                    sigutils.normalize_signature(sig)[0]):
                return None
            return result
        except Exception:                    # noqa: BLE001 - a damaged entry is a miss
            return None

    cache_cls.load_overload = _load_overload


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
